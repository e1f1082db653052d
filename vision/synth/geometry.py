"""Find each card's corner index boxes automatically (per deck, no hand-made tables).

For each of the four corners (by flipping the face so that corner is top-left):
1. ink = pixels far from the paper colour (the median of a strip inside the card edge);
2. connected components of ink near the corner, dropping anything large (frames,
   court pictures) or touching the search window's inner edges (it continues inwards);
3. the index = the component nearest the corner plus its close neighbours (rank over
   suit, or side by side).
A corner is kept for the deck only if (a) number cards show a cluster there in most
cards and (b) that cluster changes with the rank within a suit: a suit-only corner
(the oxygen decks print the suit top-left and the rank top-right) and a pip near the
corner both stay the same across ranks. Per card, a cluster far from the deck's median
box is rejected (guyenne-classic courts have no index: their picture fills the corner).
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

Box = tuple[float, float, float, float]
NUMBER_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")
SUITS = ("C", "D", "H", "S")
WIN_X, WIN_Y = 0.36, 0.36  # search window, fraction of face width/height


def _paper_colour(face: np.ndarray) -> np.ndarray:
    h, w = face.shape[:2]
    a = face[..., 3] > 200
    strip = np.zeros((h, w), bool)
    iy, ix = int(h * 0.03), int(w * 0.04)
    oy, ox = int(h * 0.07), int(w * 0.10)
    strip[iy:oy, ix : w - ix] = True
    strip[h - oy : h - iy, ix : w - ix] = True
    strip[iy : h - iy, ix:ox] = True
    strip[iy : h - iy, w - ox : w - ix] = True
    px = face[..., :3][strip & a]
    return np.median(px, axis=0) if len(px) else np.array([255, 255, 255], float)


def _ink(face: np.ndarray, paper: np.ndarray) -> np.ndarray:
    diff = np.abs(face[..., :3].astype(np.int16) - paper.astype(np.int16)).sum(axis=2)
    return (diff > 90) & (face[..., 3] > 128)


def _corner_cluster(ink: np.ndarray) -> Box | None:
    """The index-like ink cluster nearest the top-left corner of `ink` (pixels)."""
    h, w = ink.shape
    wx, wy = int(w * WIN_X), int(h * WIN_Y)
    mx, my = max(2, int(w * 0.025)), max(2, int(h * 0.018))  # skip the card outline
    win = np.zeros((wy, wx), np.uint8)
    win[my:, mx:] = ink[my:wy, mx:wx]
    # frame lines run past glyphs and would join them: remove long straight runs first
    lx, ly = max(8, int(w * 0.15)), max(8, int(h * 0.12))
    lines = cv2.morphologyEx(win, cv2.MORPH_OPEN, np.ones((1, lx), np.uint8)) | cv2.morphologyEx(
        win, cv2.MORPH_OPEN, np.ones((ly, 1), np.uint8)
    )
    win = win & ~cv2.dilate(lines, np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(win, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < max(6, h * w * 2e-5):
            continue
        if bw > w * 0.22 or bh > h * 0.2:  # frames, picture parts
            continue
        if x + bw >= wx - 1 or y + bh >= wy - 1:  # runs on past the window
            continue
        if bh > 0.8 * bw and bw > 0.8 * bh and area > 0.9 * bw * bh and (bw > 6 and bh > 6):
            continue  # a filled square block: decoration, not a glyph
        comps.append((x, y, x + bw, y + bh))
    if not comps:
        return None
    seed = min(comps, key=lambda b: np.hypot(b[0], b[1]))
    if np.hypot(seed[0], seed[1]) > 0.3 * w:
        return None
    x0, y0, x1, y1 = seed
    gap = 0.035 * h
    grown = True
    used = {seed}
    while grown:
        grown = False
        for b in comps:
            if b in used:
                continue
            dx = max(0, b[0] - x1, x0 - b[2])
            dy = max(0, b[1] - y1, y0 - b[3])
            if dx <= gap and dy <= gap:
                nx0, ny0, nx1, ny1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
                if nx1 - nx0 > w * 0.25 or ny1 - ny0 > h * 0.3:
                    continue
                x0, y0, x1, y1 = nx0, ny0, nx1, ny1
                used.add(b)
                grown = True
    return (float(x0), float(y0), float(x1), float(y1))


def _flip(img: np.ndarray, corner: str) -> np.ndarray:
    if corner in ("tr", "br"):
        img = img[:, ::-1]
    if corner in ("bl", "br"):
        img = img[::-1]
    return img


def _unflip(box: Box, corner: str, w: int, h: int) -> Box:
    x0, y0, x1, y1 = box
    if corner in ("tr", "br"):
        x0, x1 = w - x1, w - x0
    if corner in ("bl", "br"):
        y0, y1 = h - y1, h - y0
    return (x0, y0, x1, y1)


def _crop_sig(ink: np.ndarray, box: Box) -> np.ndarray:
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    crop = ink[y0:y1, x0:x1].astype(np.float32)
    if crop.size == 0:
        return np.zeros((24, 16), np.float32)
    return cv2.resize(crop, (16, 24), interpolation=cv2.INTER_AREA)


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def find_index_boxes(faces: Mapping[str, np.ndarray]) -> tuple[dict[str, list[Box]], dict[str, object]]:
    """Normalized index boxes per card, and a report (corners kept, cards without index)."""
    any_face = next(iter(faces.values()))
    h, w = any_face.shape[:2]
    inks = {c: _ink(f, _paper_colour(f)) for c, f in faces.items()}
    found: dict[str, dict[str, Box | None]] = {}
    kept: list[str] = []
    report: dict[str, object] = {}
    medians: dict[str, Box] = {}
    for corner in ("tl", "tr", "bl", "br"):
        per: dict[str, Box | None] = {}
        for c, ink in inks.items():
            b = _corner_cluster(np.ascontiguousarray(_flip(ink, corner)))
            per[c] = None if b is None else _unflip(b, corner, w, h)
        found[corner] = per
        numbers = [c for c in per if c[:-1] in NUMBER_RANKS]
        hits = [c for c in numbers if per[c] is not None]
        if len(hits) < 0.8 * len(numbers):
            continue
        # does the cluster change with the rank (index) or not (suit-only corner, pip)?
        differ = total = 0
        for s in SUITS:
            sigs = [(_crop_sig(inks[c], per[c]), per[c]) for c in hits if c.endswith(s)]  # type: ignore[arg-type]
            for i in range(len(sigs)):
                for j in range(i + 1, len(sigs)):
                    (a, ba), (b, bb) = sigs[i], sigs[j]
                    size_change = abs((ba[2] - ba[0]) - (bb[2] - bb[0])) > 0.12 * max(ba[2] - ba[0], bb[2] - bb[0])
                    differ += int(size_change or float(np.abs(a - b).mean()) > 0.08)
                    total += 1
        if total and differ / total >= 0.7:
            kept.append(corner)
            boxes = np.array([per[c] for c in hits], float)
            medians[corner] = tuple(np.median(boxes, axis=0))  # type: ignore[assignment]
    out: dict[str, list[Box]] = {c: [] for c in faces}
    missing: list[str] = []
    for c in faces:
        for corner in kept:
            b = found[corner][c]
            m = medians[corner]
            # accept when it sits where this deck's indices sit (courts may differ a bit)
            if b is not None and (_iou(b, m) > 0.25 or (abs(b[0] - m[0]) < 0.05 * w and abs(b[1] - m[1]) < 0.05 * h and (b[3] - b[1]) < 2.2 * (m[3] - m[1]))):
                pad = 1.0
                out[c].append(((b[0] - pad) / w, (b[1] - pad) / h, (b[2] + pad) / w, (b[3] + pad) / h))
            else:
                missing.append(f"{c}:{corner}")
    report["corners"] = kept
    report["missing"] = missing
    return out, report
