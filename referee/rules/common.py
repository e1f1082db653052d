"""Types shared by every rule set: outcomes of ``apply`` and rejection codes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from referee.announce import Announcement


class RejectCode(str, Enum):
    """Why an event was refused (the event changes nothing)."""

    BAD_EVENT = "bad_event"  # malformed or self-contradictory event
    WRONG_GAME = "wrong_game"  # event type not part of this game
    WRONG_PHASE = "wrong_phase"  # not now (e.g. a swap while waiting for a reveal)
    GAME_OVER = "game_over"
    UNKNOWN_PLAYER = "unknown_player"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    NOT_IN_MARKET = "not_in_market"
    IMPOSSIBLE_CARDS = "impossible_cards"  # more copies than the deck holds, wrong counts
    DECK_ANOMALY = "deck_anomaly"  # inconsistent with what was seen (deck_anomaly: reject)
    CALL_NOT_ALLOWED = "call_not_allowed"
    BAD_TARGET = "bad_target"
    EMPTY_ROW = "empty_row"
    ILLEGAL_CARD = "illegal_card"
    NOT_ENOUGH_CARDS = "not_enough_cards"


class Illegal(Exception):
    """Raised inside the rules; the engine turns it into ``Rejected``."""

    def __init__(self, code: RejectCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class Applied:
    """An accepted event: the new state, what to announce, and decisions (results)."""

    state: Any
    announcements: list[Announcement] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return True


@dataclass(frozen=True)
class Rejected:
    """A refused event: the state is unchanged."""

    reason: str
    code: RejectCode

    @property
    def ok(self) -> bool:
        return False

    def to_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "code": self.code.value}
