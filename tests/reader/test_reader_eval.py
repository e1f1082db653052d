"""The reader benchmark's box measure (benchmarks/reader_eval.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from reader_eval import Score, _clipped_iou  # noqa: E402


def test_a_box_is_scored_against_the_part_of_the_card_inside_the_image() -> None:
    """A card half outside a 100×100 image: a box of its visible half scores 1, the
    predicted whole card (also cut at the border) too, a box beside it 0."""
    quad = np.array([[50, 20], [150, 20], [150, 80], [50, 80]], np.float32)
    assert _clipped_iou(np.array([50, 20, 100, 80]), quad, (100, 100)) == pytest.approx(1.0)
    assert _clipped_iou(np.array([50, 20, 150, 80]), quad, (100, 100)) == pytest.approx(1.0)
    assert _clipped_iou(np.array([0, 20, 50, 80]), quad, (100, 100)) == 0.0
    assert _clipped_iou(np.array([50, 20, 75, 80]), quad, (100, 100)) == pytest.approx(0.5)


def test_box_ious_add_up_and_report() -> None:
    a, b = Score(), Score()
    a.box_ious, b.box_ious = [1.0, 0.4], [0.7]
    a.add(b)
    row = a.row()
    assert row["box_iou_mean"] == pytest.approx(0.7) and row["box_iou_over_0.5"] == pytest.approx(2 / 3, abs=1e-4)
    assert Score().row()["box_iou_mean"] is None
