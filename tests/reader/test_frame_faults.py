"""Harsher camera faults for the detector's training tiles (SampleConfig.frame_faults)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from vision.synth.conditions import HARSH_FAULTS, harsh_camera
from vision.train.samples import SampleConfig, detector_tiles


def _scene_image() -> np.ndarray:
    rng = np.random.default_rng(0)
    img = np.full((360, 640, 3), 90, np.uint8)
    img[100:220, 200:290] = 240  # a white card with dark ink on it
    img[110:130, 205:215] = 20
    return np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255).astype(np.uint8)


def _label(box: tuple[float, float, float, float]) -> SimpleNamespace:
    return SimpleNamespace(box=box, visible_fraction=1.0)


@pytest.mark.parametrize("seed", range(12))
def test_every_harsh_fault_changes_the_image_and_keeps_its_shape(seed: int) -> None:
    img = _scene_image()
    out = harsh_camera(img, np.random.default_rng(seed))
    assert out.shape == img.shape and out.dtype == np.uint8
    assert np.abs(out.astype(np.int16) - img).mean() > 0.5


def _edge(img: np.ndarray) -> float:
    """Step across the card's left border (sharp: ~150 grey levels)."""
    return float(np.abs(img[160, 201].astype(np.float32) - img[160, 198]).mean())


def _flat_noise(img: np.ndarray) -> float:
    return float(img[20:80, 20:120].astype(np.float32).std())


def test_each_fault_does_what_it_says() -> None:
    img = _scene_image()
    out = {k: harsh_camera(img, np.random.default_rng(1), k) for k in HARSH_FAULTS}
    assert _edge(out["focus"]) < 0.8 * _edge(img)
    assert _edge(out["motion"]) < 0.8 * _edge(img) or np.abs(out["motion"].astype(np.int16) - img).mean() > 2
    assert _flat_noise(out["noise"]) > 3 * _flat_noise(img)
    assert out["dim"].mean() < 0.65 * img.mean()
    assert not np.array_equal(out["jpeg"], img)
    with pytest.raises(ValueError, match="unknown camera fault"):
        harsh_camera(img, np.random.default_rng(1), "fog")


def test_no_faults_draws_nothing_so_older_configs_render_the_same_tiles() -> None:
    img, labels = _scene_image(), [_label((205.0, 110.0, 215.0, 130.0))]
    cfg = SampleConfig(tile=128, tiles_per_scene=2, index_px_range=(4.0, 40.0))
    a = detector_tiles(img, labels, cfg, np.random.default_rng(5))
    b = detector_tiles(img, labels, replace(cfg, frame_faults=0.0), np.random.default_rng(5))
    for (ta, ba), (tb, bb) in zip(a, b):
        assert np.array_equal(ta, tb) and ba == bb


def test_faulted_tiles_keep_their_boxes_and_change_their_pixels() -> None:
    img, labels = _scene_image(), [_label((205.0, 110.0, 215.0, 130.0))]
    cfg = SampleConfig(tile=640, tiles_per_scene=1, base_scale=0.5, scale_jitter=(1.0, 1.0), index_px_range=(4.0, 40.0))
    (clean, boxes), = detector_tiles(img, labels, cfg, np.random.default_rng(3))
    (faulted, fboxes), = detector_tiles(img, labels, replace(cfg, frame_faults=1.0), np.random.default_rng(3))
    assert np.abs(faulted.astype(np.int16) - clean).mean() > 0.2
    assert len(fboxes) == len(boxes) == 1
    assert np.allclose(fboxes, boxes)  # same scale and place: only the pixels differ
