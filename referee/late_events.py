"""Camera events that reach the referee out of order, held and offered again.

The camera commits each zone when it settles, so two moves a few seconds apart can reach
the referee in the wrong order: a Khmer play read 3 s late (the card under an arm, or its
index hidden for a while) arrives after the opponent's next play, which the referee then
refuses ("it is N's turn"). Refused for good, that one move derails the rest of the deal
(every later play, the close, the reveal). Held instead, the refused move is offered again
after each event the referee accepts, in the order it came, until `hold_s` of camera time
has passed.

Only refusals that an earlier, late move can explain are held (`codes`: turn order). Pure:
no clock (the caller passes camera time), no I/O; the caller applies the events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Event = dict[str, Any]

# Refusal codes (referee.rules.common.RejectCode values) that a late earlier move explains.
HOLD_CODES = frozenset({"not_your_turn"})
# A person's events held too when refused for turn order: a Khmer close or fold declared while
# the camera has not yet seen the opponent's last card (found with the camera frozen 4 s
# around moves, 7 Dec). A person's other events never are: a move entered out of turn is a
# mistake to be told at once.
HELD_DECLARATIONS = frozenset({"close", "fold"})


@dataclass
class LateEvents:
    hold_s: float = 5.0
    codes: frozenset[str] = HOLD_CODES
    held: list[tuple[float, Event]] = field(default_factory=list)  # (camera time held, event)

    def hold(self, event: Event, code: str | None, t: float) -> bool:
        """Keep a refused camera event to offer again; False when its refusal is final."""
        if code not in self.codes:
            return False
        self.held.append((t, event))
        return True

    def expire(self, now: float) -> list[Event]:
        """Held events older than `hold_s` at camera time `now`: refused for good."""
        gone = [e for t, e in self.held if now - t > self.hold_s]
        self.held = [(t, e) for t, e in self.held if now - t <= self.hold_s]
        return gone

    def retry(self, apply: Callable[[Event], bool]) -> list[Event]:
        """Offer the held events again (oldest first) after the referee accepted something;
        each one accepted may make another one legal, so go on while any is accepted."""
        accepted: list[Event] = []
        progress = True
        while progress and self.held:
            progress = False
            for item in list(self.held):
                if apply(item[1]):
                    self.held.remove(item)
                    accepted.append(item[1])
                    progress = True
                    break
        return accepted

    def clear(self) -> list[Event]:
        out = [e for _, e in self.held]
        self.held = []
        return out
