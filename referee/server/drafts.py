"""Things waiting for a person: a reveal being read or corrected, a voice call to confirm.

Neither is a game event: only the confirmed reveal and the confirmed call reach the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Heard:
    """A voice call waiting for a tap: one-word calls, or calls whose speaker is unknown."""

    id: str
    call: str
    target: str | None
    by: str | None
    confidence: float
    audio_t: float
    at: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "call": self.call, "target": self.target, "by": self.by,
                "confidence": round(self.confidence, 3), "audio_t": round(self.audio_t, 3)}


@dataclass
class RevealDraft:
    """What the camera (or a person) read for each seat, until someone confirms it."""

    seats: list[str]
    hands: dict[str, list[str]] = field(default_factory=dict)
    confidence: dict[str, list[float]] = field(default_factory=dict)
    corrected: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "hands": {s: self.hands.get(s, []) for s in self.seats},
            "confidence": {s: self.confidence.get(s, []) for s in self.seats},
            "corrected": sorted(self.corrected),
        }
