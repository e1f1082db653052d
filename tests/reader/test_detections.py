"""`CardDetections.alternatives`: optional, carried through masks and shifts, not in JSON."""

from __future__ import annotations

import numpy as np
import pytest

from vision.types import CardDetections


def dets(alternatives=None) -> CardDetections:
    return CardDetections(
        np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32),
        np.array([0.54, 0.99], np.float32),
        ["AS", "KD"],
        alternatives=alternatives,
    )


ALTS = [(("AS", 0.54), ("AC", 0.44), ("AH", 0.01)), (("KD", 0.99),)]


def test_alternatives_follow_masks_and_offsets() -> None:
    d = dets(ALTS)
    assert d.candidates(0)[1] == ("AC", 0.44)
    sub = d[np.array([False, True])]
    assert sub.alternatives == [ALTS[1]] and sub.cards == ["KD"]
    assert d.offset(5, 5).alternatives == ALTS
    assert len(CardDetections.empty()) == 0 and CardDetections.empty().alternatives is None


def test_without_alternatives_a_card_is_its_own_only_candidate() -> None:
    d = dets()
    assert d.alternatives is None
    assert d.candidates(0) == (("AS", pytest.approx(0.54)),)
    assert d[[1]].alternatives is None


def test_json_is_unchanged_by_alternatives() -> None:
    assert dets(ALTS).to_json() == dets().to_json()
    assert set(dets(ALTS).to_json()[0]) == {"card", "confidence", "box"}


def test_alternatives_must_match_the_cards() -> None:
    with pytest.raises(ValueError):
        dets(ALTS[:1])


def test_scaled_multiplies_every_coordinate() -> None:
    det = CardDetections(
        np.array([[10, 20, 30, 40]], np.float32), np.array([0.9], np.float32), ["QS"],
        [[(10.0, 20.0, 14.0, 28.0)]], np.array([[[10, 20], [30, 20], [30, 40], [10, 40]]], np.float32),
        [(("QS", 0.9), ("JS", 0.05))],
    )  # fmt: skip
    half = det.scaled(0.5)
    assert half.xyxy.tolist() == [[5, 10, 15, 20]] and half.index_boxes == [[(5.0, 10.0, 7.0, 14.0)]]
    assert half.quads is not None and half.quads[0, 2].tolist() == [15, 20]
    assert half.cards == ["QS"] and half.alternatives == det.alternatives and half.confidence.tolist() == det.confidence.tolist()


def test_one_int_picks_one_card_and_iteration_yields_each_card() -> None:
    d = dets(ALTS)
    assert d[1].cards == ["KD"] and d[-1].alternatives == [ALTS[1]] and len(d[0]) == 1
    assert [c.cards[0] for c in d] == ["AS", "KD"]
    with pytest.raises(IndexError):
        d[2]
