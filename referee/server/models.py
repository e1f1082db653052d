"""Request and response bodies (validated at the boundary; the rules engine re-checks meaning)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

CallKind = Literal["kemps", "cut", "kems", "double_kems", "contre_kems"]
# Letters of any script (José, Zoé, Ана), digits, space, _ ' . -: the names a table uses. It was
# ASCII only, while a new game took any name: a player "José" was seated and could never call.
SEAT_PATTERN = r"^[\w' .\-]{1,24}$"
Seat = Annotated[str, Field(pattern=SEAT_PATTERN)]


def _card(value: str) -> str:
    from referee.cards import parse_card

    return parse_card(value)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CallIn(Strict):
    """A call from the dashboard: `by` is the caller's seat; Cut names a `target`."""

    call: CallKind
    by: str = Field(pattern=SEAT_PATTERN)
    target: str | None = Field(default=None, pattern=SEAT_PATTERN)


class PhoneCallIn(Strict):
    """A call from a joined phone: the caller is the phone's seat."""

    call: CallKind
    target: str | None = Field(default=None, pattern=SEAT_PATTERN)


class CallOut(BaseModel):
    seq: int = Field(description="Arrival order across buttons, phones and voice (1 = first).")
    judged: int | None = Field(description="Position in judging order (see docs/server.md).")
    accepted: bool
    reason: str | None = None
    event: dict[str, Any]
    announcements: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []


MAX_EVENT_DEPTH = 16  # lists and dicts in one event: a reveal is 3 deep, a meta a few more


class EventIn(BaseModel):
    """Any public game-log event (docs/game-log.md), e.g. {"type": "stale"}."""

    model_config = ConfigDict(extra="allow")
    type: str = Field(pattern=r"^[a-z_]{2,24}$")

    @model_validator(mode="after")
    def _not_too_deep(self) -> EventIn:
        # The event is kept in the session log and sent back in every state message; nested
        # past ~255 levels it could no longer be serialised, and every state endpoint failed
        # with 500, even after a restart (found by a server audit, 7 Dec).
        from referee.server.limits import depth

        if depth(self.model_extra or {}) > MAX_EVENT_DEPTH:
            raise ValueError(f"the event nests lists or objects more than {MAX_EVENT_DEPTH} deep")
        return self


class OutcomeOut(BaseModel):
    accepted: bool
    event: dict[str, Any]
    index: int | None = None
    reason: str | None = None
    code: str | None = None
    announcements: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []


class RevealCorrectIn(Strict):
    seat: str = Field(pattern=SEAT_PATTERN)
    cards: list[str] = Field(max_length=8)

    @field_validator("cards")
    @classmethod
    def _cards(cls, cards: list[str]) -> list[str]:
        return [_card(c) for c in cards]


class RevealConfirmIn(Strict):
    """Confirm what is on screen, or send the hands to record (seat → cards)."""

    hands: dict[str, list[str]] | None = None

    @field_validator("hands")
    @classmethod
    def _hands(cls, hands: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        if hands is None:
            return None
        return {seat: [_card(c) for c in cards] for seat, cards in hands.items()}


class JoinIn(Strict):
    code: str = Field(min_length=4, max_length=12)
    seat: str = Field(pattern=SEAT_PATTERN)
    name: str = Field(default="", max_length=24)


class JoinOut(BaseModel):
    token: str
    id: str
    seat: str
    name: str


class NewGameIn(Strict):
    """Start a new game (the current one is archived next to the database)."""

    game: Literal["kemps", "kems", "khmer"] | None = None
    players: list[Seat] | None = Field(default=None, min_length=2, max_length=12)
    teams: list[list[Seat]] | None = None
    rules: dict[str, Any] | str | None = None


class HeardConfirmIn(Strict):
    by: str | None = Field(default=None, pattern=SEAT_PATTERN)
    target: str | None = Field(default=None, pattern=SEAT_PATTERN)
