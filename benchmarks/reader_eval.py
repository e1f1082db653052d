"""Card-level scoring of the reader against synthetic truth (used by bench_reader and tests).

Truth: every face-up card with at least one corner index labelled visible (the composer
labels an index when >= 60 % of it shows). A predicted card is a true positive when it
names a truth card and one of its index boxes overlaps one of that card's index boxes
(IoU >= 0.3) or its centre lies on that card; each truth card is matched once. For each
match, the IoU of the card box with the true card's box (both clipped to the image) says
how well the box was placed (`box_iou_mean`, `box_iou_over_0.5`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass(slots=True)
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    frames: int = 0
    exact_frames: int = 0  # frames read with no error at all
    confusion: Counter = field(default_factory=Counter)  # (truth, predicted) index readings
    # Box quality of the true positives: IoU of each matched card's box with its true card's
    # box, both clipped to the image (a photo shows only what is in it)
    box_ious: list[float] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.frames += other.frames
        self.exact_frames += other.exact_frames
        self.confusion.update(other.confusion)
        self.box_ious += other.box_ious

    @property
    def precision(self) -> float:
        return self.tp / max(self.tp + self.fp, 1)

    @property
    def recall(self) -> float:
        return self.tp / max(self.tp + self.fn, 1)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / max(p + r, 1e-9)

    def row(self) -> dict[str, float | int]:
        n = sum(self.confusion.values())
        ok = sum(v for (t, p), v in self.confusion.items() if t == p)
        miss = sum(v for (t, p), v in self.confusion.items() if p == "miss")
        return {
            "indices": n, "index_read_ok": round(ok / max(n, 1), 4), "index_missed": round(miss / max(n, 1), 4),
            "frames": self.frames, "tp": self.tp, "fp": self.fp, "fn": self.fn,
            "precision": round(self.precision, 4), "recall": round(self.recall, 4), "f1": round(self.f1, 4),
            "exact_frames": round(self.exact_frames / max(self.frames, 1), 4),
            "box_iou_mean": round(float(np.mean(self.box_ious)), 4) if self.box_ious else None,
            "box_iou_over_0.5": round(float(np.mean(np.array(self.box_ious) >= 0.5)), 4) if self.box_ious else None,
        }  # fmt: skip


def _clipped_iou(box: np.ndarray, quad: np.ndarray, hw: tuple[int, ...]) -> float:
    """IoU of a card box with a true card outline's box, both clipped to an h×w image."""
    h, w = hw[:2]
    truth = np.array([quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()], np.float64)
    a, b = (np.clip(np.asarray(v, np.float64), 0, [w, h, w, h]) for v in (box, truth))
    return _iou(a, b)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


def truth_cards(scene) -> dict[int, dict]:  # noqa: ANN001
    by_id: dict[int, dict] = {}
    quads = {c.card_id: np.asarray(c.quad, np.float32) for c in scene.cards}
    for lb in scene.labels:
        t = by_id.setdefault(lb.card_id, {"card": str(lb.card), "boxes": [], "quad": quads[lb.card_id]})
        t["boxes"].append(np.asarray(lb.box, np.float32))
    return by_id


def score_frame(scene, det, indices=None) -> Score:  # noqa: ANN001
    """det: CardDetections; indices: optional list[IndexObs] for the confusion counts."""
    truth = truth_cards(scene)
    free = set(truth)
    s = Score(frames=1)
    order = np.argsort(-det.confidence) if len(det) else []
    for i in order:
        card, boxes = det.cards[i], [np.asarray(b, np.float32) for b in det.index_boxes[i]]
        cx, cy = det.centers[i]
        hit = None
        for tid in free:
            t = truth[tid]
            if t["card"] != card:
                continue
            overlap = max((_iou(b, tb) for b in boxes for tb in t["boxes"]), default=0.0)
            inside = cv2.pointPolygonTest(t["quad"].reshape(-1, 1, 2), (float(cx), float(cy)), False) >= 0
            if overlap >= 0.3 or inside:
                hit = tid
                break
        if hit is None:
            s.fp += 1
        else:
            s.tp += 1
            free.discard(hit)
            s.box_ious.append(_clipped_iou(det.xyxy[i], truth[hit]["quad"], scene.image.shape[:2]))
    s.fn = len(free)
    s.exact_frames = int(s.fp == 0 and s.fn == 0)
    if indices is not None:
        for lb in scene.labels:
            tb = np.asarray(lb.box, np.float32)
            best, got = 0.0, "miss"
            for o in indices:
                v = _iou(tb, np.asarray(o.box, np.float32))
                if v > best:
                    best, got = v, o.card
            s.confusion[(str(lb.card), got if best >= 0.4 else "miss")] += 1
    return s
