"""Typed values at the vision boundaries: Frame -> CardDetections -> TableState.

`CardDetections` follows supervision's `Detections`: parallel numpy arrays, validated
once, filtered by boolean masks into new objects. Nothing downstream of the reader
touches the model runtime.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def box_quad(box: Any) -> np.ndarray:
    """The corners of an (x1, y1, x2, y2) box as a card outline (clockwise from top-left):
    the quad of a card whose outline is unknown."""
    x1, y1, x2, y2 = (float(v) for v in box)
    return np.array([(x1, y1), (x2, y1), (x2, y2), (x1, y2)], np.float32)


@dataclass(frozen=True, slots=True)
class Frame:
    """One video frame. `t` is seconds from the start of the stream (frame_index / fps)."""

    image: np.ndarray  # H×W×3 uint8, BGR (OpenCV order)
    t: float
    index: int

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass(slots=True)
class CardDetections:
    """Physical cards read in one image: one row per card (one or two corner indices).

    xyxy:        (N, 4) float32 card box in image pixels (union of its index boxes when
                 the card outline is unknown).
    confidence:  (N,) float32 in [0, 1].
    cards:       N canonical card strings ("10H").
    index_boxes: N lists of (x1, y1, x2, y2) for the corner indices that formed the card.
    quads:       optional (N, 4, 2) float32 card outline, clockwise from top-left.
    alternatives: optional, per card the reader's most likely identities, best first, as
                 (card, probability) pairs (at most `vision.reader.grouping.TOP_K`); the
                 first is (cards[i], confidence[i]) and the others are on the same scale
                 (the probability that this physical card is that identity). None: the
                 reader gave only its top card. The tracker's deck prior resolves a read
                 whose top card cannot be on the table to its runner-up.
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    cards: list[str]
    index_boxes: list[list[tuple[float, float, float, float]]] = field(default_factory=list)
    quads: np.ndarray | None = None
    alternatives: list[tuple[tuple[str, float], ...]] | None = None

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        self.confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        n = len(self.xyxy)
        if len(self.confidence) != n or len(self.cards) != n:
            raise ValueError(
                f"CardDetections: {n} boxes, {len(self.confidence)} confidences, {len(self.cards)} cards"
            )
        if not self.index_boxes:
            self.index_boxes = [[] for _ in range(n)]
        if len(self.index_boxes) != n:
            raise ValueError("CardDetections: index_boxes length differs from boxes")
        if self.quads is not None:
            self.quads = np.asarray(self.quads, dtype=np.float32).reshape(n, 4, 2)
        if self.alternatives is not None:
            self.alternatives = [tuple((str(c), float(p)) for c, p in alts) for alts in self.alternatives]
            if len(self.alternatives) != n:
                raise ValueError("CardDetections: alternatives length differs from boxes")

    @classmethod
    def empty(cls) -> CardDetections:
        return cls(np.zeros((0, 4), np.float32), np.zeros((0,), np.float32), [])

    def candidates(self, i: int) -> tuple[tuple[str, float], ...]:
        """Card i's identities (card, probability), best first: its alternatives, or its
        top card alone when the reader gave none."""
        if self.alternatives is not None and self.alternatives[i]:
            return self.alternatives[i]
        return ((self.cards[i], float(self.confidence[i])),)

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, mask: np.ndarray | slice | list[int] | int) -> CardDetections:
        """The rows picked by a boolean mask, index list, slice or one int (as supervision:
        `dets[0]` is a one-card CardDetections, so `for card in dets` works too)."""
        idx = np.atleast_1d(np.arange(len(self))[mask])
        return CardDetections(
            xyxy=self.xyxy[idx],
            confidence=self.confidence[idx],
            cards=[self.cards[i] for i in idx],
            index_boxes=[self.index_boxes[i] for i in idx],
            quads=None if self.quads is None else self.quads[idx],
            alternatives=None if self.alternatives is None else [self.alternatives[i] for i in idx],
        )

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    def scaled(self, k: float) -> CardDetections:
        """The same detections with every coordinate multiplied by k: used after reading a
        resized image."""
        return CardDetections(
            xyxy=self.xyxy * k,
            confidence=self.confidence.copy(),
            cards=list(self.cards),
            index_boxes=[[(b[0] * k, b[1] * k, b[2] * k, b[3] * k) for b in boxes] for boxes in self.index_boxes],
            quads=None if self.quads is None else self.quads * k,
            alternatives=None if self.alternatives is None else list(self.alternatives),
        )

    def offset(self, dx: float, dy: float) -> CardDetections:
        """The same detections shifted by (dx, dy): used after reading a zone crop."""
        shift = np.array([dx, dy, dx, dy], np.float32)
        return CardDetections(
            xyxy=self.xyxy + shift,
            confidence=self.confidence.copy(),
            cards=list(self.cards),
            index_boxes=[[(b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy) for b in boxes] for boxes in self.index_boxes],
            quads=None if self.quads is None else self.quads + np.array([dx, dy], np.float32),
            alternatives=None if self.alternatives is None else list(self.alternatives),
        )

    def within_deck(self, deck: frozenset[str], fallback_min_p: float | None = None) -> CardDetections:
        """Only cards `deck` holds: a read outside it becomes its best in-deck alternative
        when the reader gave that one at least `fallback_min_p` (its confidence becomes that
        probability), else it is dropped (always, with None)."""
        if all(c in deck for c in self.cards):
            return self  # the usual case: nothing to rebuild
        keep: list[int] = []
        cards = list(self.cards)
        conf = self.confidence.copy()
        alts = [self.candidates(i) for i in range(len(self))]
        for i, card in enumerate(cards):
            if card in deck:
                keep.append(i)
                continue
            inside = [(c, p) for c, p in alts[i] if c in deck]
            if fallback_min_p is None or not inside or inside[0][1] < fallback_min_p:
                continue
            cards[i], conf[i], alts[i] = inside[0][0], inside[0][1], tuple(inside)
            keep.append(i)
        out = CardDetections(
            xyxy=self.xyxy, confidence=conf, cards=cards, index_boxes=self.index_boxes, quads=self.quads,
            alternatives=alts if self.alternatives is not None else None,
        )  # fmt: skip
        return out[np.array(keep, dtype=int)]

    def to_json(self, image_wh: tuple[int, int] | None = None) -> list[dict[str, Any]]:
        """The `referee read --json` card list. With `image_wh`, boxes are clipped to the
        image (a card partly out of the picture is boxed where it is seen)."""
        boxes = np.asarray(self.xyxy, np.float64).reshape(-1, 4).copy()
        if image_wh is not None:
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, image_wh[0])
            boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, image_wh[1])
        return [
            {
                "card": c,
                "confidence": round(float(p), 4),
                "box": [round(float(v), 1) for v in box],
            }
            for c, p, box in zip(self.cards, self.confidence, boxes)
        ]


@dataclass(frozen=True, slots=True)
class ZoneCards:
    """The stable reading of one zone: cards with per-card confidence."""

    zone: str
    cards: tuple[str, ...]
    confidence: tuple[float, ...]
    occluded: bool = False


@dataclass(frozen=True, slots=True)
class TableState:
    """The tracker's stable view of the table at time `t`."""

    t: float
    market: tuple[str, ...]
    market_confidence: tuple[float, ...]
    market_occluded: bool
    zones: dict[str, ZoneCards] = field(default_factory=dict)
    hand_in_market: bool = False
    seconds_since_market_change: float = 0.0
