"""The two-view classifier: fusing two readings of each index, and asking the second view
only where it can change the answer."""

from __future__ import annotations

import numpy as np

from vision.reader.classifier import IndexReadings, TwoViewClassifier


class Fixed:
    """A stand-in view that returns fixed distributions and records which boxes it saw."""

    def __init__(self, rank: list[list[float]], suit: list[list[float]], index_p: list[float]) -> None:
        self.rank, self.suit, self.index_p = np.array(rank), np.array(suit), np.array(index_p, np.float32)
        self.seen: list[np.ndarray] = []

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> IndexReadings:
        self.seen.append(np.asarray(boxes))
        idx = [int(b[0]) for b in boxes]  # box i is (i, 0, i + 1, 1): its row in the tables
        r, s = self.rank[idx], self.suit[idx]
        return IndexReadings(r.argmax(1), r.max(1), s.argmax(1), s.max(1), self.index_p[idx], None, r, s)

    def warm(self) -> None:
        pass


def boxes(n: int) -> np.ndarray:
    return np.array([[i, 0, i + 1, 1] for i in range(n)], np.float32)


IMAGE = np.zeros((4, 4, 3), np.uint8)


def test_an_unsure_reading_is_outvoted_by_a_sure_second_view() -> None:
    # box 0: the first view hesitates between rank 0 and 1; the second is sure it is 1
    a = Fixed([[0.55, 0.45], [0.99, 0.01]], [[0.5, 0.5], [0.9, 0.1]], [0.9, 0.9])
    b = Fixed([[0.05, 0.95], [0.2, 0.8]], [[0.5, 0.5], [0.9, 0.1]], [0.9, 0.9])
    out = TwoViewClassifier(a, b, weight=0.5).classify(IMAGE, boxes(2))  # type: ignore[arg-type]
    assert out.rank[0] == 1
    assert out.rank[1] == 0  # a sure first view is not overturned by a milder second one
    assert np.allclose(out.rank_probs.sum(1), 1) and np.allclose(out.suit_probs.sum(1), 1)


def test_the_second_view_only_sees_unsure_boxes_taken_for_indices() -> None:
    a = Fixed(
        [[0.99, 0.01], [0.6, 0.4], [0.6, 0.4]], [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], [0.95, 0.95, 0.1]
    )  # sure; unsure; unsure but not an index
    b = Fixed([[0.0, 1.0]] * 3, [[1.0, 0.0]] * 3, [1.0, 1.0, 1.0])
    clf = TwoViewClassifier(a, b, weight=0.5, below=0.8, min_index_p=0.7)  # type: ignore[arg-type]
    out = clf.classify(IMAGE, boxes(3))
    assert len(b.seen) == 1 and [int(x[0]) for x in b.seen[0]] == [1]
    assert list(out.rank) == [0, 1, 0]
    assert out.index_p[0] == np.float32(0.95) and out.index_p[2] == np.float32(0.1)


def test_no_second_call_when_every_reading_is_sure() -> None:
    a = Fixed([[0.99, 0.01]], [[0.99, 0.01]], [0.9])
    b = Fixed([[0.0, 1.0]], [[0.0, 1.0]], [0.9])
    out = TwoViewClassifier(a, b, below=0.5).classify(IMAGE, boxes(1))  # type: ignore[arg-type]
    assert b.seen == [] and out.rank[0] == 0 and out.suit[0] == 0
