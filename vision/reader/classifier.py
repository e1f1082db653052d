"""Index classifier at run time: square crops -> rank, suit and "is an index" scores.

The exported network (see `vision/train/classifier_model.py`) takes NCHW float crops in
0..1 (RGB) and returns one tensor (N, len(ranks) + len(suits) + 1): rank logits, suit
logits, one logit saying whether the crop holds a corner index at all, then the index's
reading direction as an (x, y) vector in image coordinates pointing to the card's top.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.reader.crops import square_crops
from vision.reader.runtime import Session, run_images, to_blobs


@dataclass(frozen=True, slots=True)
class IndexReadings:
    """Per-box classifier output (parallel arrays)."""

    rank: np.ndarray  # (N,) int
    rank_p: np.ndarray  # (N,) float
    suit: np.ndarray
    suit_p: np.ndarray
    index_p: np.ndarray  # probability the crop is a real corner index
    up: np.ndarray | None = None  # (N, 2) reading direction (unnormalised), image x/y
    rank_probs: np.ndarray | None = None  # (N, n_ranks) full distributions, for fusing the
    suit_probs: np.ndarray | None = None  # (N, n_suits) two indices of one card


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


# (N, S, S, 3) BGR uint8 -> (N, 3, S, S) RGB float 0..1: what the networks were trained on
to_input = to_blobs


BUCKET = 8  # classifier batches are padded to a multiple of this


def run_padded(session: Session, x: np.ndarray, batch: int, bucket: int = BUCKET) -> np.ndarray:
    """`session` on the uint8 BGR crops `x` (`runtime.run_images`) in chunks of `batch`, each
    padded to a multiple of `bucket`: OpenVINO compiles each new batch size on first sight
    (~5 ms, measured), so padding keeps it to batch / bucket shapes (compiled at load by
    `warm`) instead of one per count."""
    out = []
    for i in range(0, len(x), batch):
        part = x[i : i + batch]
        n, m = len(part), -(-len(part) // bucket) * bucket
        if m != n:
            part = np.concatenate([part, np.zeros((m - n, *part.shape[1:]), part.dtype)])
        out.append(np.asarray(run_images(session, part))[:n])
    return np.concatenate(out, axis=0)


class IndexClassifier:
    """One index network on square crops.

    turned_below: crops whose reading is unsure (rank_p × suit_p below this) and taken for an
    index (index_p ≥ `min_index_p`) are read a second time turned by 180°, and the two
    readings' rank and suit distributions fused (geometric mean). The network was trained
    on indices in every orientation, so the turned crop is a second, slightly different look
    at the same glyphs; its mistakes are partly independent of the first look's. None: off.
    Chosen on the val families (MODEL_CARD "Turned second look"): the index reader's card F1
    0.832 -> 0.841 on 250 val frames, for ~1-2 ms a 1280×720 frame.
    """

    def __init__(
        self, session: Session, size: int, pad: float, n_ranks: int, n_suits: int, batch: int = 64,
        turned_below: float | None = None, min_index_p: float = 0.0,
    ) -> None:  # fmt: skip
        self.session, self.size, self.pad = session, size, pad
        self.n_ranks, self.n_suits, self.batch = n_ranks, n_suits, batch
        self.turned_below, self.min_index_p = turned_below, min_index_p

    def warm(self) -> None:
        """Compile every batch shape now (a few ms each) rather than during the first frames."""
        for m in range(BUCKET, self.batch + 1, BUCKET):
            run_images(self.session, np.zeros((m, self.size, self.size, 3), np.uint8))

    def logits(self, crops: np.ndarray) -> np.ndarray:
        """(N, S, S, 3) uint8 BGR crops -> raw network outputs."""
        return run_padded(self.session, crops, self.batch)

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> IndexReadings:
        if len(boxes) == 0:
            z = np.zeros((0,), np.float32)
            return IndexReadings(
                z.astype(int), z, z.astype(int), z, z, np.zeros((0, 2), np.float32),
                np.zeros((0, self.n_ranks), np.float32), np.zeros((0, self.n_suits), np.float32),
            )  # fmt: skip
        crops = square_crops(image, boxes, self.size, self.pad)
        raw = self.logits(crops)
        r = softmax(raw[:, : self.n_ranks])
        s = softmax(raw[:, self.n_ranks : self.n_ranks + self.n_suits])
        k = self.n_ranks + self.n_suits
        v = 1.0 / (1.0 + np.exp(-raw[:, k]))
        up = raw[:, k + 1 : k + 3] if raw.shape[1] >= k + 3 else None
        if self.turned_below is not None:
            r, s = self._turned_look(crops, r, s, v)
        return IndexReadings(r.argmax(1), r.max(1), s.argmax(1), s.max(1), v.astype(np.float32), up, r, s)

    def _turned_look(self, crops: np.ndarray, r: np.ndarray, s: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`r`, `s` with the unsure index crops' readings fused with their 180°-turned
        crops' (see the class docstring); "is an index" and the reading direction stay the
        first look's, so which boxes are kept does not change."""
        assert self.turned_below is not None
        unsure = np.flatnonzero((r.max(1) * s.max(1) < self.turned_below) & (v >= self.min_index_p))
        if len(unsure) == 0:
            return r, s
        raw = self.logits(np.ascontiguousarray(crops[unsure, ::-1, ::-1]))
        r, s = r.copy(), s.copy()
        r[unsure] = _geo_mean(r[unsure], softmax(raw[:, : self.n_ranks]), 0.5)
        s[unsure] = _geo_mean(s[unsure], softmax(raw[:, self.n_ranks : self.n_ranks + self.n_suits]), 0.5)
        return r, s


class TwoViewClassifier:
    """Two index classifiers on two crops of the same box, fused: a tight crop (the index
    seen at high resolution) and a wide one (the suit below a large rank is in view).

    Rank and suit distributions are fused as a weighted geometric mean (a product of
    experts: a class must be plausible to both views); "is an index" as a weighted mean;
    the reading direction comes from the first (primary) view. The second view runs only
    on boxes the primary takes for an index (index_p ≥ `min_index_p`; the rest are dropped
    anyway) and is unsure of (rank_p × suit_p below `below`; 1.0 = every such box): a second
    opinion where it can change the answer, at a fraction of the cost.
    """

    def __init__(
        self, primary: IndexClassifier, second: IndexClassifier, weight: float = 0.5, below: float = 1.0,
        min_index_p: float = 0.0,
    ) -> None:  # fmt: skip
        self.primary, self.second, self.weight, self.below = primary, second, weight, below
        self.min_index_p = min_index_p

    def warm(self) -> None:
        self.primary.warm()
        self.second.warm()

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> IndexReadings:
        a = self.primary.classify(image, boxes)
        unsure = np.flatnonzero((a.rank_p * a.suit_p < self.below) & (a.index_p >= self.min_index_p))
        if len(unsure) == 0:
            return a
        b = self.second.classify(image, np.asarray(boxes)[unsure])
        w = self.weight
        assert a.rank_probs is not None and a.suit_probs is not None
        r, s, v = a.rank_probs.copy(), a.suit_probs.copy(), a.index_p.copy()
        r[unsure] = _geo_mean(r[unsure], b.rank_probs, w)
        s[unsure] = _geo_mean(s[unsure], b.suit_probs, w)
        v[unsure] = (1 - w) * v[unsure] + w * b.index_p
        return IndexReadings(r.argmax(1), r.max(1), s.argmax(1), s.max(1), v.astype(np.float32), a.up, r, s)


def _geo_mean(p: np.ndarray | None, q: np.ndarray | None, w: float) -> np.ndarray:
    assert p is not None and q is not None
    z = (1 - w) * np.log(np.maximum(p, 1e-9)) + w * np.log(np.maximum(q, 1e-9))
    return softmax(z)
