"""Audit a game log: re-run it through the rules and report the outcome.

Used by ``referee replay``. Rejected events are reported (line, reason) and skipped, as a
live session would skip them; the replay is then not ``ok``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.announce import Announcement
from referee.rules.common import Rejected
from referee.rules.engine import new_game
from referee.session import read_jsonl


@dataclass
class ReplayReport:
    game: str
    header: dict[str, Any]
    finished: bool
    standings: list[dict[str, Any]]
    results: list[dict[str, Any]]
    outcome: dict[str, Any] | None
    events: int
    rejected: list[dict[str, Any]] = field(default_factory=list)
    announcements: list[tuple[int, Announcement]] = field(default_factory=list)
    awaiting: dict[str, Any] | None = None
    final_state: Any = None

    @property
    def ok(self) -> bool:
        return not self.rejected

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "finished": self.finished,
            "standings": self.standings,
            "results": self.results,
            "outcome": self.outcome,
            "events": self.events,
            "rejected": self.rejected,
            "awaiting": self.awaiting,
            "rules": dict(new_game(self.header).rules.to_dict()),
        }


def replay_log(path: str | Path) -> ReplayReport:
    """Fold a JSONL log; ``ValueError`` for an unreadable file, bad JSON or a bad header."""
    header, events = read_jsonl(path)
    try:
        game = new_game(header)
    except ValueError as exc:
        raise ValueError(f"{path}:1: {exc}") from None
    state = game.initial_state()
    report = ReplayReport(game=game.name, header=header, finished=False, standings=[],
                          results=[], outcome=None, events=0)
    for line_no, event in events:
        result = game.apply(state, event)
        if isinstance(result, Rejected):
            report.rejected.append({"line": line_no, "event": event, "code": result.code.value,
                                    "reason": result.reason})
            continue
        state = result.state
        report.events += 1
        report.results.extend(result.results)
        report.announcements.extend((line_no, a) for a in result.announcements)
    report.finished = game.is_finished(state)
    report.standings = game.standings(state)
    report.outcome = game.outcome(state)
    report.awaiting = game.awaiting(state)
    report.final_state = state
    return report
