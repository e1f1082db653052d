"""What the referee answered to one submitted event, as the server reports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Outcome:
    accepted: bool
    event: dict[str, Any] = field(default_factory=dict)
    index: int | None = None  # position of the event in the session log, when accepted
    reason: str | None = None
    code: str | None = None
    announcements: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def failed(cls, reason: str) -> Outcome:
        return cls(accepted=False, reason=reason, code="server_error")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"accepted": self.accepted, "event": self.event}
        if self.index is not None:
            out["index"] = self.index
        if self.reason is not None:
            out["reason"] = self.reason
            out["code"] = self.code
        out["announcements"] = self.announcements
        out["results"] = self.results
        return out
