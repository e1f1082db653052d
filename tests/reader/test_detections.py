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
