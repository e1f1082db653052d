"""Types shared by every rule set: outcomes of ``apply`` and rejection codes."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from referee import events as ev
from referee.announce import Announcement, announce


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


@dataclass
class Step:
    """Mutable collector for one ``apply``: the new state plus what to announce and decide."""

    state: Any
    announcements: list[Announcement] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)

    def say(self, key: str, **params: Any) -> None:
        self.announcements.append(announce(key, **params))

    def set(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)


class Reducer:
    """``apply`` as a pure reducer, shared by every rule set.

    A subclass names its ``step_type`` and implements ``_dispatch(step, event)``, raising
    ``Illegal`` to refuse; a refusal leaves the state untouched.
    """

    step_type: type[Step] = Step

    def _dispatch(self, step: Any, e: ev.GameEvent) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def apply(self, state: Any, event: ev.GameEvent | dict[str, Any]) -> Applied | Rejected:
        try:
            e = ev.event_from(event)
        except ValueError as exc:
            return Rejected(str(exc), RejectCode.BAD_EVENT)
        step = self.step_type(state)
        try:
            self._dispatch(step, e)
        except Illegal as exc:
            return Rejected(exc.reason, exc.code)
        step.set(events=state.events + 1, results=state.results + tuple(step.results))
        return Applied(step.state, step.announcements, step.results)

    def is_legal(self, state: Any, event: ev.GameEvent | dict[str, Any]) -> bool:
        """Would ``event`` be accepted now? (a side-effect-free query)"""
        return isinstance(self.apply(state, event), Applied)

    def is_finished(self, state: Any) -> bool:
        return state.phase == "over"
