"""Camera focus notices (vision/tracker/quality.py): the edge-spread estimate on images of
known blur, and the monitor's one notice per episode."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.tracker.quality import FocusConfig, FocusMonitor, edge_spread_px
from vision.types import CardDetections

BOX = (500.0, 250.0, 566.0, 342.0)  # a market card's size at 1280x720


def table(sigma: float) -> np.ndarray:
    """A white card with a dark index stroke on green felt, blurred by `sigma` px."""
    img = np.full((720, 1280, 3), (40, 110, 40), np.uint8)
    x1, y1, x2, y2 = (int(v) for v in BOX)
    cv2.rectangle(img, (x1, y1), (x2, y2), (235, 235, 235), -1)
    cv2.rectangle(img, (x1 + 6, y1 + 6), (x1 + 9, y1 + 22), (20, 20, 160), -1)
    return cv2.GaussianBlur(img, (0, 0), sigma) if sigma > 0 else img


@pytest.mark.parametrize("sigma", [1.0, 1.5, 2.0, 3.0])
def test_edge_spread_estimates_the_blur(sigma: float) -> None:
    gray = cv2.cvtColor(table(sigma), cv2.COLOR_BGR2GRAY)
    assert edge_spread_px(gray, BOX) == pytest.approx(sigma, rel=0.2)


def test_edge_spread_of_a_sharp_card_is_under_a_pixel_and_a_blank_box_is_not_judged() -> None:
    assert edge_spread_px(cv2.cvtColor(table(0.0), cv2.COLOR_BGR2GRAY), BOX) < 0.8
    assert edge_spread_px(np.full((720, 1280), 90, np.uint8), BOX) is None
    assert edge_spread_px(np.full((720, 1280), 90, np.uint8), (5, 5, 9, 9)) is None


def one_card() -> CardDetections:
    return CardDetections(np.array([BOX], np.float32), np.array([0.9], np.float32), ["QS"])


def test_one_notice_when_blurred_and_one_when_sharp_again() -> None:
    mon = FocusMonitor(FocusConfig(window=6))
    blurred, sharp = table(2.2), table(0.6)
    out = [n for k in range(10) for n in mon.update(blurred, one_card(), k / 10)]
    assert [n["type"] for n in out] == ["camera_blurred"] and out[0]["t"] == 0.5  # after a full window
    assert out[0]["edge_spread_px"] > 1.6 and "focus the camera" in out[0]["message"]
    back = [n for k in range(10) for n in mon.update(sharp, one_card(), 1 + k / 10)]
    assert [n["type"] for n in back] == ["camera_focus_ok"] and not mon.warned


def test_sharp_frames_small_frames_and_empty_reads_give_no_notice() -> None:
    mon = FocusMonitor(FocusConfig(window=4))
    assert not [n for k in range(8) for n in mon.update(table(0.6), one_card(), k)]
    small = cv2.resize(table(2.5), (640, 360))
    assert mon.update(small, one_card(), 9) == [] and mon.update(table(2.5), None, 10) == []
    assert mon.update(table(2.5), CardDetections.empty(), 11) == []
