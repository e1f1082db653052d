"""The index classifier's turned second look: unsure index crops are read again turned by
180° and the two readings fused; sure crops and non-indices are not read twice."""

from __future__ import annotations

import numpy as np

from vision.reader.classifier import IndexClassifier, softmax, to_input
from vision.reader.crops import square_crops

N_RANKS, N_SUITS, SIZE = 3, 2, 8


class Scripted:
    """A stand-in network: call k returns `outputs[k]` (rows beyond the batch are padding)."""

    def __init__(self, *outputs: list[list[float]]) -> None:
        self.outputs = [np.asarray(o, np.float32) for o in outputs]
        self.inputs: list[np.ndarray] = []

    def run(self, x: np.ndarray) -> np.ndarray:
        self.inputs.append(x)
        out = self.outputs[len(self.inputs) - 1]
        return np.concatenate([out, np.zeros((len(x) - len(out), out.shape[1]), np.float32)])


def logit_row(rank: list[float], suit: list[float], index_logit: float) -> list[float]:
    return [*np.log(rank), *np.log(suit), index_logit, 0.0, -1.0]


IMAGE = np.random.default_rng(0).integers(0, 255, (40, 60, 3), dtype=np.uint8)
BOXES = np.array([[5, 5, 15, 20], [30, 10, 40, 25], [45, 20, 55, 35]], np.float32)
FIRST = [
    logit_row([0.5, 0.4, 0.1], [0.9, 0.1], 3.0),  # unsure, an index: looked at again
    logit_row([0.98, 0.01, 0.01], [0.99, 0.01], 3.0),  # sure
    logit_row([0.5, 0.4, 0.1], [0.9, 0.1], -3.0),  # unsure but not an index
]
TURNED = [logit_row([0.1, 0.85, 0.05], [0.8, 0.2], -5.0)]


def classifier(session: Scripted, turned_below: float | None) -> IndexClassifier:
    return IndexClassifier(session, SIZE, 2.0, N_RANKS, N_SUITS, turned_below=turned_below, min_index_p=0.5)  # type: ignore[arg-type]


def test_only_unsure_indices_are_read_turned_and_the_reads_fused() -> None:
    net = Scripted(FIRST, TURNED)
    out = classifier(net, 0.8).classify(IMAGE, BOXES)
    assert len(net.inputs) == 2
    turned = net.inputs[1][:1]  # the one unsure index, padded to a bucket
    crop = square_crops(IMAGE, BOXES[:1], SIZE, 2.0)
    assert np.array_equal(turned, to_input(np.ascontiguousarray(crop[:, ::-1, ::-1])))
    # rank: the geometric mean of (0.5, 0.4, 0.1) and (0.1, 0.85, 0.05), renormalised
    want = softmax(0.5 * np.log([[0.5, 0.4, 0.1]]) + 0.5 * np.log([[0.1, 0.85, 0.05]]))
    assert np.allclose(out.rank_probs[0], want[0], atol=1e-6) and out.rank[0] == 1
    assert out.rank[1] == 0 and out.rank[2] == 0  # the sure crop and the non-index as first read
    assert np.allclose(out.rank_probs[2], [0.5, 0.4, 0.1], atol=1e-6)
    # "is an index" is the first look's: the turned look's -5 does not drop the box
    assert out.index_p[0] > 0.9


def test_off_or_all_sure_means_one_network_call() -> None:
    net = Scripted(FIRST)
    out = classifier(net, None).classify(IMAGE, BOXES)
    assert len(net.inputs) == 1 and out.rank[0] == 0
    net = Scripted(FIRST)
    classifier(net, 0.4).classify(IMAGE, BOXES)  # 0.5 × 0.9 = 0.45 is above 0.4: sure enough
    assert len(net.inputs) == 1


def test_the_shipped_model_turns_unsure_crops() -> None:
    import json
    from pathlib import Path

    meta = json.loads((Path(__file__).resolve().parents[2] / "models" / "reader.json").read_text())
    assert 0.0 < meta["classifier_turned_below"] <= 1.0


def test_tune_script_parses_the_values_tried(load_script) -> None:  # noqa: ANN001
    tune = load_script("benchmarks/tune_turned.py")
    assert tune.parse_below("none,0.5, 1.01,off") == [None, 0.5, 1.01, None]
