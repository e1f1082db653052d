"""Photo mode's shifted views: each box read from five crops (itself and four shifts), the
readings fused."""

from __future__ import annotations

import numpy as np

from vision.reader.classifier import IndexReadings, ShiftedViews


class ByPlace:
    """A stand-in classifier whose reading depends on where the box sits: rank 1 when the
    box's top-left corner is at (10, 10) exactly (the unshifted box), rank 0 elsewhere."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> IndexReadings:
        b = np.asarray(boxes, np.float32)
        self.seen.append(b)
        centred = np.isclose(b[:, 0], 10.0) & np.isclose(b[:, 1], 10.0)
        r = np.where(centred[:, None], [[0.4, 0.6]], [[0.7, 0.3]])
        s = np.tile([[0.9, 0.1]], (len(b), 1))
        up = np.tile([[0.0, -1.0]], (len(b), 1)).astype(np.float32)
        up[~centred] = [1.0, 0.0]  # only the unshifted crop's direction may come out
        v = np.where(centred, 0.9, 0.5).astype(np.float32)
        return IndexReadings(r.argmax(1), r.max(1), s.argmax(1), s.max(1), v, up, r, s)

    def warm(self) -> None:
        pass


def test_five_views_in_one_batch_fused() -> None:
    inner = ByPlace()
    out = ShiftedViews(inner, 0.1).classify(np.zeros((4, 4, 3), np.uint8), np.array([[10, 10, 20, 30]], np.float32))  # type: ignore[arg-type]
    (batch,) = inner.seen
    assert len(batch) == 5  # one call: the box and its four shifts of 0.1 × its size (20 px)
    assert sorted(map(tuple, batch[:, :2].tolist())) == [(8, 10), (10, 8), (10, 10), (10, 12), (12, 10)]
    # four shifted views say rank 0 (0.7), the centred one rank 1 (0.6): the fused reading is 0
    assert out.rank.tolist() == [0] and np.allclose(out.rank_probs.sum(1), 1)  # type: ignore[union-attr]
    assert np.isclose(out.index_p[0], (0.9 + 4 * 0.5) / 5)
    assert out.up is not None and out.up[0].tolist() == [0.0, -1.0]


def test_no_boxes_no_views() -> None:
    inner = ByPlace()
    out = ShiftedViews(inner, 0.1).classify(np.zeros((4, 4, 3), np.uint8), np.zeros((0, 4), np.float32))  # type: ignore[arg-type]
    assert len(out.rank) == 0
