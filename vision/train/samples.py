"""Turn one rendered scene into training samples for both reader stages.

- detector tiles: the scene downscaled the way the runtime downscales frames (÷2 for
  720p, with scale jitter), cut into square tiles with YOLO labels (one class: index);
- classifier crops: square context crops around each visible index (positives, with
  rank, suit and reading direction) and around look-alike places (negatives: pips, court
  art, table, card backs, half-off boxes);
- geometry rows: where the card centre and outline lie relative to each index, to fit
  `CardGeometry` for grouping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.reader.crops import square_crops
from vision.reader.labels import split_card


@dataclass(frozen=True, slots=True)
class SampleConfig:
    tile: int = 320  # detector training tile side
    tiles_per_scene: int = 2
    base_scale: float = 0.5  # runtime: a 1280×720 frame is read at ÷2
    scale_jitter: tuple[float, float] = (0.7, 1.4)
    index_px_range: tuple[float, float] = (8.0, 32.0)  # clip: index long side after scaling
    det_min_visible: float = 0.5  # label an index for the detector from this visibility
    crop_size: int = 56  # stored classifier crop (context), resized at train time
    crop_pad: float = 1.75  # stored context, in index long sides (runtime uses less)
    cls_min_visible: float = 0.75
    negatives_per_positive: float = 0.6
    # Share of scenes whose detector tiles are cut from a copy with a harsher camera fault
    # than the scene engine draws (`conditions.harsh_camera`: strong blur, noise, dim light,
    # heavy JPEG); 0 (default) draws nothing, so older configs render the same tiles.
    frame_faults: float = 0.0


@dataclass(slots=True)
class SceneSamples:
    tiles: list[tuple[np.ndarray, list[tuple[float, float, float, float]]]] = field(default_factory=list)
    crops: list[np.ndarray] = field(default_factory=list)  # (n, S, S, 3) uint8 arrays
    rank: list[int] = field(default_factory=list)  # -1 for negatives
    suit: list[int] = field(default_factory=list)
    up: list[tuple[float, float]] = field(default_factory=list)  # (0, 0) for negatives
    geometry: list[tuple[float, float, float, float]] = field(default_factory=list)  # cx, cy, w, h in s


def card_up(quad: np.ndarray) -> np.ndarray:
    """Unit vector to the card's top edge, from its outline (clockwise from top-left)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    v = (q[0] + q[1]) / 2 - (q[3] + q[2]) / 2
    return v / max(np.linalg.norm(v), 1e-9)


def index_frame(box: tuple[float, ...], quad: np.ndarray) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Reading direction of an index and the card geometry relative to it (units of s)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    c = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    u = card_up(q)
    if np.dot(c - centre, u) < 0:  # index in the card's bottom half: printed upside down
        u = -u
    s = max(box[2] - box[0], box[3] - box[1], 1e-6)
    right, down = np.array([-u[1], u[0]]), -u
    v = centre - c
    w = float(np.linalg.norm(q[1] - q[0])) / s
    h = float(np.linalg.norm(q[3] - q[0])) / s
    return u, (float(np.dot(v, right) / s), float(np.dot(v, down) / s), w, h)


def _index_size(labels: list[Any]) -> float:
    sizes = [max(lb.box[2] - lb.box[0], lb.box[3] - lb.box[1]) for lb in labels]
    return float(np.median(sizes)) if sizes else 40.0


def detector_tiles(image: np.ndarray, labels: list[Any], cfg: SampleConfig, rng: np.random.Generator) -> list:
    """Downscaled, tiled copies of the scene with one-class index boxes."""
    if cfg.frame_faults > 0 and rng.random() < cfg.frame_faults:
        from vision.synth.conditions import harsh_camera

        image = harsh_camera(image, rng)  # boxes stay: blur and noise move no index
    f = cfg.base_scale * float(np.exp(rng.uniform(*np.log(cfg.scale_jitter))))
    med = _index_size(labels)
    lo, hi = cfg.index_px_range
    f = float(np.clip(f, lo * 1.2 / med, hi * 0.8 / med))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    t = cfg.tile
    boxes = np.array([lb.box for lb in labels if lb.visible_fraction >= cfg.det_min_visible], np.float32).reshape(-1, 4) * f
    out = []
    for _ in range(cfg.tiles_per_scene):
        best = None
        for _try in range(4):  # prefer tiles that hold indices
            x0 = int(rng.integers(0, max(w - t, 0) + 1))
            y0 = int(rng.integers(0, max(h - t, 0) + 1))
            clipped = _clip_boxes(boxes, x0, y0, t)
            if best is None or len(clipped) > len(best[2]):
                best = (x0, y0, clipped)
        x0, y0, clipped = best  # type: ignore[misc]
        tile = np.full((t, t, 3), 114, np.uint8)
        part = small[y0 : y0 + t, x0 : x0 + t]
        tile[: part.shape[0], : part.shape[1]] = part
        out.append((tile, [tuple(map(float, b)) for b in clipped]))
    return out


def _clip_boxes(boxes: np.ndarray, x0: int, y0: int, t: int) -> np.ndarray:
    if not len(boxes):
        return boxes
    b = boxes - np.array([x0, y0, x0, y0], np.float32)
    c = b.clip(0, t)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    inside = (c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])
    return c[(inside >= 0.6 * np.maximum(area, 1e-6)) & (c[:, 2] - c[:, 0] >= 2) & (c[:, 3] - c[:, 1] >= 2)]


def _negative_boxes(labels: list[Any], cards: list[Any], shape: tuple[int, ...], n: int, rng: np.random.Generator) -> np.ndarray:
    """Index-sized boxes away from every index: on card faces (pips, courts), backs, table."""
    h, w = shape[:2]
    idx = np.array([lb.box for lb in labels], np.float32).reshape(-1, 4)
    size = _index_size(labels)
    quads = [np.asarray(c.quad, np.float32).reshape(4, 2) for c in cards]
    out: list[np.ndarray] = []
    for _ in range(n * 4):
        if len(out) >= n:
            break
        s = size * rng.uniform(0.6, 1.5)
        bw, bh = s * rng.uniform(0.45, 1.0), s
        if rng.random() < 0.5:
            bw, bh = bh, bw
        if quads and rng.random() < 0.75:  # mostly on cards: the hard look-alikes live there
            q = quads[int(rng.integers(len(quads)))]
            a, b = rng.random(2)
            p = (q[0] * (1 - a) + q[1] * a) * (1 - b) + (q[3] * (1 - a) + q[2] * a) * b
            cx, cy = float(p[0]), float(p[1])
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = np.array([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], np.float32)
        if len(idx) and _max_overlap(box, idx) > 0.15:
            continue
        out.append(box)
    return np.array(out, np.float32).reshape(-1, 4)


def _max_overlap(box: np.ndarray, boxes: np.ndarray) -> float:
    """Largest intersection over the smaller of the two areas."""
    iw = (np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])).clip(0)
    ih = (np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])).clip(0)
    a = (box[2] - box[0]) * (box[3] - box[1])
    b = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return float((iw * ih / np.maximum(np.minimum(a, b), 1e-6)).max())


def scene_samples(scene: Any, cfg: SampleConfig, rng: np.random.Generator, tiles: bool = True) -> SceneSamples:
    """Samples for both stages from one `RenderedScene` (image BGR, labels, cards)."""
    out = SceneSamples()
    labels = list(scene.labels)
    quads = {c.card_id: np.asarray(c.quad, np.float64) for c in scene.cards}
    if tiles:
        out.tiles = detector_tiles(scene.image, labels, cfg, rng)
    pos = [lb for lb in labels if lb.visible_fraction >= cfg.cls_min_visible and lb.card_id in quads]
    boxes = []
    for lb in pos:
        u, geom = index_frame(lb.box, quads[lb.card_id])
        r, s = split_card(lb.card)
        out.rank.append(r)
        out.suit.append(s)
        out.up.append((float(u[0]), float(u[1])))
        if lb.visible_fraction >= 0.95:
            out.geometry.append(geom)
        boxes.append(lb.box)
    n_neg = int(round(len(pos) * cfg.negatives_per_positive)) + 2
    neg = _negative_boxes(labels, list(scene.cards), scene.image.shape, n_neg, rng)
    # half-off boxes: an index seen with a big shift must not read as that card
    shifted = []
    for lb in pos[: max(1, len(pos) // 4)]:
        b = np.asarray(lb.box, np.float32)
        s = max(b[2] - b[0], b[3] - b[1])
        d = rng.uniform(0.8, 1.2) * s * np.array([np.cos(a := rng.uniform(0, 2 * np.pi)), np.sin(a)])
        shifted.append(b + np.array([d[0], d[1], d[0], d[1]], np.float32))
    all_boxes = np.concatenate([np.array(boxes, np.float32).reshape(-1, 4), neg, np.array(shifted, np.float32).reshape(-1, 4)])
    n_extra = len(all_boxes) - len(boxes)
    out.rank += [-1] * n_extra
    out.suit += [-1] * n_extra
    out.up += [(0.0, 0.0)] * n_extra
    if len(all_boxes):
        out.crops.append(square_crops(scene.image, all_boxes, cfg.crop_size, cfg.crop_pad))
    return out
