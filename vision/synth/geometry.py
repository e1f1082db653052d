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
WIN_X, WIN_Y = 0.36, 0.45  # search window, fraction of face width/height (tall: a big rank's suit ends near 0.4)


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
    """Glyph pixels: far from the paper colour, or (gradient/dark faces such as oxygen)
    far from the local background (a median over ~8 % of the card width)."""
    rgb = np.ascontiguousarray(face[..., :3])
    diff = np.abs(rgb.astype(np.int16) - paper.astype(np.int16)).sum(axis=2)
    k = max(5, int(face.shape[1] * 0.08)) | 1
    local = np.abs(rgb.astype(np.int16) - cv2.medianBlur(rgb, k).astype(np.int16)).sum(axis=2)
    paper_like = float(np.mean(diff[face[..., 3] > 128] < 60)) > 0.5  # a plain face
    ink = (diff > 70) if paper_like else (local > 80)
    # inside the card shrunk past its outline (rounded corners included)
    r = max(2, int(round(face.shape[1] * 0.02)))
    inner = cv2.erode((face[..., 3] > 128).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    return ink & inner.astype(bool)


def _components(ink: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Ink components in the top-left search window of `ink` (pixels), frame lines removed.

    `ink` is already restricted to the card shrunk by its outline (see `_ink`)."""
    h, w = ink.shape
    wx, wy = int(w * WIN_X), int(h * WIN_Y)
    win = np.ascontiguousarray(ink[:wy, :wx]).astype(np.uint8)
    # frame lines run past glyphs and would join them: remove long straight runs first,
    # but only runs that leave the window (a frame continues inwards); a big rank's own
    # strokes (the "1" of a 10, the stem of a 7: longer than 0.12 of the card height on
    # large-index decks) end inside it and are glyph, not frame
    lx, ly = max(8, int(w * 0.15)), max(8, int(h * 0.12))
    lines = cv2.morphologyEx(win, cv2.MORPH_OPEN, np.ones((1, lx), np.uint8)) | cv2.morphologyEx(
        win, cv2.MORPH_OPEN, np.ones((ly, 1), np.uint8)
    )
    n, labels, stats, _ = cv2.connectedComponentsWithStats(lines, connectivity=8)
    leaving = [i for i in range(1, n) if stats[i, 0] + stats[i, 2] >= wx - 1 or stats[i, 1] + stats[i, 3] >= wy - 1]
    lines = np.isin(labels, leaving).astype(np.uint8)
    win = win & ~cv2.dilate(lines, np.ones((3, 3), np.uint8))
    # thin serif strokes break into pieces at this size: bridge 1-px gaps
    win = cv2.morphologyEx(win, cv2.MORPH_CLOSE, np.ones((2, 2), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(win, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < max(4, h * w * 1e-5):
            continue
        comps.append((int(x), int(y), int(x + bw), int(y + bh)))
    return comps


def _grow(seed: tuple[int, int, int, int], comps: list[tuple[int, int, int, int]], w: int, h: int) -> Box:
    """Seed glyph + glyph parts beside it (the "0" of "10": very close, no taller) + the
    suit stacked below/above within a line gap. Decorations and pips beside the index
    are further away, so they stay out."""
    x0, y0, x1, y1 = seed
    seed_h = seed[3] - seed[1]
    side_gap, line_gap = 0.018 * h, 0.045 * h
    grown, used = True, {seed}
    while grown:
        grown = False
        for b in comps:
            if b in used:
                continue
            bh, bw = b[3] - b[1], b[2] - b[0]
            dx = max(0, b[0] - x1, x0 - b[2])
            dy = max(0, b[1] - y1, y0 - b[3])
            x_overlap = min(x1, b[2]) - max(x0, b[0])
            y_overlap = min(y1, b[3]) - max(y0, b[1])
            stacked = x_overlap >= 0.3 * min(bw, x1 - x0) and dy <= line_gap and bh <= 0.26 * h
            beside = y_overlap >= 0.4 * min(bh, y1 - y0) and dx <= side_gap and bh <= 1.4 * max(seed_h, y1 - y0)
            if not (stacked or beside):
                continue
            nx0, ny0, nx1, ny1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
            if nx1 - nx0 > w * 0.3 or ny1 - ny0 > h * 0.42:
                continue
            x0, y0, x1, y1 = nx0, ny0, nx1, ny1
            used.add(b)
            grown = True
    return (float(x0), float(y0), float(x1), float(y1))


def _corner_cluster(comps: list[tuple[int, int, int, int]], w: int, h: int) -> Box | None:
    """On a card with nothing else near the corner (A, 2, 3): the nearest glyph group."""
    wx, wy = int(w * WIN_X), int(h * WIN_Y)
    small = [b for b in comps if b[2] - b[0] <= w * 0.25 and b[3] - b[1] <= h * 0.26 and b[2] < wx - 1 and b[3] < wy - 1]
    if not small:
        return None
    # the seed is glyph-sized: frame corners and specks left by line removal are not
    glyphs = [b for b in small if b[3] - b[1] >= 0.025 * h]
    if not glyphs:
        return None
    seed = min(glyphs, key=lambda b: np.hypot(b[0], b[1]))
    if np.hypot(seed[0], seed[1]) > 0.3 * w:
        return None
    return _grow(seed, small, w, h)


def _in_zone(comps: list[tuple[int, int, int, int]], zone: Box, w: int, h: int, clip: Box | None = None) -> Box | None:
    """Box of the ink in `zone`: components at least a quarter inside it (a corner pip or a
    court picture that crosses in from outside is dropped), clipped to `clip` (default the
    zone; a "10" is wider than the aces the zone was learnt from, so its glyphs are chosen
    in the zone but kept whole up to a wider clip: a pip beside the index stays out)."""
    clip = zone if clip is None else clip
    keep = []
    for b in comps:
        ix = max(0.0, min(b[2], zone[2]) - max(b[0], zone[0]))
        iy = max(0.0, min(b[3], zone[3]) - max(b[1], zone[1]))
        area = max(1, (b[2] - b[0]) * (b[3] - b[1]))
        if ix * iy >= 0.25 * area:
            keep.append(b)
    if not keep:
        return None
    a = np.array(keep, float)
    return (
        max(a[:, 0].min(), clip[0]),
        max(a[:, 1].min(), clip[1]),
        min(a[:, 2].max(), clip[2]),
        min(a[:, 3].max(), clip[3]),
    )


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


def _twin_diff(ink: np.ndarray, ba: Box, bb: Box, shift: int = 3) -> float:
    """How different index `ba` is from index `bb` turned by 180° (0 = same print).

    Both are compared over their union box, at the best small shift (the two corners
    are rarely placed to the pixel)."""
    h, w = ink.shape
    rot = ink[::-1, ::-1]
    mb = (w - bb[2], h - bb[3], w - bb[0], h - bb[1])  # bb's place once turned
    x0, y0 = int(min(ba[0], mb[0])), int(min(ba[1], mb[1]))
    x1, y1 = int(np.ceil(max(ba[2], mb[2]))), int(np.ceil(max(ba[3], mb[3])))
    x0, y0 = max(x0, shift), max(y0, shift)
    x1, y1 = min(x1, w - shift), min(y1, h - shift)
    if x1 <= x0 or y1 <= y0:
        return 1.0
    a = ink[y0:y1, x0:x1]
    inked = max(1, int(a.sum()))
    best = 1.0
    for dy in range(-shift, shift + 1):
        for dx in range(-shift, shift + 1):
            b = rot[y0 + dy : y1 + dy, x0 + dx : x1 + dx]
            best = min(best, float((a ^ b).sum()) / (inked + int(b.sum())))
    return best


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def usable(report: dict[str, object], single_index_design: bool = False) -> tuple[bool, str]:
    """Is the geometry complete enough to label with? A deck whose second index was not
    found would teach the detector that a printed index is background."""
    corners = set(report.get("corners", []))  # type: ignore[arg-type]
    if not corners:
        return False, "no corner index found"
    pair = {"tl", "br"} <= corners or {"tr", "bl"} <= corners
    if not pair and not single_index_design:
        return False, f"only {sorted(corners)} found: the rotated twin index is missing"
    missing_list = list(report.get("missing", []))  # type: ignore[call-overload]
    expected = 52 * len(corners)
    if len(missing_list) > 0.25 * expected:
        return False, f"{len(missing_list)} of {expected} indices not found"
    # an ace or number card always has its index: missing ones would be unlabelled prints
    pips = [m for m in missing_list if m.split(":")[0][:-1] not in ("J", "Q", "K")]
    if len(pips) > 0.03 * 40 * len(corners):
        return False, f"{len(pips)} ace/number-card indices not found"
    return True, "ok"


def find_index_boxes(faces: Mapping[str, np.ndarray]) -> tuple[dict[str, list[Box]], dict[str, object]]:
    """Normalized index boxes per card, and a report (corners kept, cards without index).

    Per corner: the index zone is learnt from the aces, 2s and 3s (their pips sit in the
    centre column, so the glyph group nearest the corner is the index); every card's
    index is then the ink inside that zone (wider for "10"), components that stick out
    of it (corner pips, court pictures) excluded.
    """
    any_face = next(iter(faces.values()))
    h, w = any_face.shape[:2]
    inks = {c: _ink(f, _paper_colour(f)) for c, f in faces.items()}
    kept: list[str] = []
    found: dict[str, dict[str, Box | None]] = {}
    zones: dict[str, Box] = {}
    stats: dict[str, dict[str, float]] = {}
    for corner in ("tl", "tr", "bl", "br"):
        comps = {c: _components(np.ascontiguousarray(_flip(ink, corner))) for c, ink in inks.items()}
        refs = [c for c in faces if c[:-1] in ("A", "2", "3")]
        ref_boxes = [b for b in (_corner_cluster(comps[c], w, h) for c in refs) if b is not None]
        if len(ref_boxes) < 0.5 * len(refs):
            continue
        z = np.median(np.array(ref_boxes), axis=0)
        zw, zh = z[2] - z[0], z[3] - z[1]
        per: dict[str, Box | None] = {}
        for c in faces:
            zone = (z[0] - 0.2 * zw, z[1] - 0.12 * zh, z[2] + 0.2 * zw, z[3] + 0.15 * zh)
            clip = (zone[0], zone[1], z[2] + 0.75 * zw, zone[3]) if c[:-1] == "10" else zone
            b = _in_zone(comps[c], zone, w, h, clip)
            ok = b is not None and 0.55 * zh <= b[3] - b[1] <= 1.6 * zh and b[2] - b[0] >= 0.2 * zw
            per[c] = _unflip(b, corner, w, h) if ok else None  # type: ignore[arg-type]
        # does the zone's content change with the rank (index) or not (suit-only corner)?
        numbers = [c for c in faces if c[:-1] in NUMBER_RANKS and per[c] is not None]
        differ = total = 0
        for s in SUITS:
            sigs = [_crop_sig(inks[c], per[c]) for c in numbers if c.endswith(s)]  # type: ignore[arg-type]
            for i in range(len(sigs)):
                for j in range(i + 1, len(sigs)):
                    differ += int(float(np.abs(sigs[i] - sigs[j]).mean()) > 0.08)
                    total += 1
        stats[corner] = {"refs": len(ref_boxes), "numbers": len(numbers), "rank_varies": round(differ / max(total, 1), 2)}
        if len(numbers) >= 0.7 * 36 and total and differ / total >= 0.7:
            kept.append(corner)
            found[corner] = per
            zones[corner] = tuple(_unflip(tuple(z), corner, w, h))  # type: ignore[assignment]
    # An index and its rotated twin (tl/br, tr/bl) are the same print: when they differ,
    # what was found is picture, not index (guyenne-classic courts have none).
    for a, b in (("tl", "br"), ("tr", "bl")):
        if a in found and b in found:
            for c in faces:
                ba, bb = found[a][c], found[b][c]
                if ba is None or bb is None:
                    continue
                if _twin_diff(inks[c], ba, bb) > 0.25:
                    found[a][c] = found[b][c] = None
    out: dict[str, list[Box]] = {c: [] for c in faces}
    missing: list[str] = []
    pad = 1.0
    for c in faces:
        for corner in kept:
            b = found[corner][c]
            if b is None:
                missing.append(f"{c}:{corner}")
                continue
            out[c].append(
                (max(0.0, (b[0] - pad) / w), max(0.0, (b[1] - pad) / h), min(1.0, (b[2] + pad) / w), min(1.0, (b[3] + pad) / h))
            )
    return out, {"corners": kept, "missing": missing, "corner_stats": stats, "zones": {k: [round(v / (w if i % 2 == 0 else h), 4) for i, v in enumerate(z)] for k, z in zones.items()}}
