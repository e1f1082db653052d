"""Scene composer: cards, arms and a table under real camera conditions, with labels.

Composition happens on a flat table-plane canvas (float32 BGR, output size): every card
is warped with `cv2.warpAffine` into its own bounding box only, alpha-composited there,
and written into an id map (topmost card per pixel) so the visible fraction of each
corner index is measured, not guessed. The camera (tilt, roll, lens) is then one remap of
the whole canvas, and labels/quads are projected through the same model.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.synth.camera import Camera, make_camera
from vision.synth.conditions import SceneConditions, add_glare, blur_noise_jpeg, lighting_gain, make_surface, surface_tint
from vision.synth.decks import DeckArt

DEFAULT_MIN_VISIBLE = 0.6
OCCLUDER_ID = -2
TABLE_ID = -1

# Skin tones (BGR), light to dark, and sleeve colours.
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (189, 208, 241), (170, 194, 234), (141, 175, 224), (120, 160, 210), (100, 140, 198),
    (80, 118, 176), (64, 96, 150), (52, 76, 120), (40, 58, 92), (30, 45, 70),
)
SLEEVES: tuple[tuple[int, int, int], ...] = (
    (30, 30, 30), (200, 200, 200), (140, 60, 20), (40, 40, 150), (60, 120, 60), (120, 120, 120),
    (20, 60, 110), (160, 150, 90), (90, 40, 120), (230, 230, 230),
)


@dataclass(frozen=True)
class CardPlacement:
    """A card on the table plane. `angle` in degrees (counter-clockwise), `height` in px."""

    card: str
    center: tuple[float, float]
    angle: float
    height: float
    face_up: bool = True


@dataclass
class Occluder:
    """An arm/hand (or any opaque object) above the cards, in table-plane px."""

    polygon: np.ndarray  # (N, 2) skin part (hand + forearm)
    colour: tuple[int, int, int]
    sleeve: np.ndarray | None = None  # (M, 2) drawn over the skin
    sleeve_colour: tuple[int, int, int] = (40, 40, 40)

    @classmethod
    def arm(cls, start_xy: tuple[float, float], end_xy: tuple[float, float], width: float, rng: np.random.Generator) -> Occluder:
        """A forearm from `start_xy` (usually off the image edge) to a hand at `end_xy`."""
        p0, p1 = np.asarray(start_xy, float), np.asarray(end_xy, float)
        d = p1 - p0
        length = float(np.linalg.norm(d)) or 1.0
        u = d / length
        n = np.array([-u[1], u[0]])
        wrist = p1 - u * width * 0.9
        w0, w1 = width * 0.55, width * 0.38
        forearm = np.array([p0 + n * w0, wrist + n * w1, wrist - n * w1, p0 - n * w0])
        angle = float(np.degrees(np.arctan2(u[1], u[0])))
        hand_c = wrist + u * width * 0.45
        hand = cv2.ellipse2Poly((int(hand_c[0]), int(hand_c[1])), (int(width * 0.62), int(width * 0.45)), int(angle), 0, 360, 15).astype(float)
        # fingers: a few thin lobes past the palm, some curled
        fingers = []
        for k in range(4):
            if rng.random() < 0.3:
                continue
            off = (k - 1.5) * width * 0.17
            base = hand_c + n * off + u * width * 0.35
            tip = base + u * width * rng.uniform(0.25, 0.55)
            fw = width * 0.07
            fingers.append(np.array([base + n * fw, tip + n * fw, tip - n * fw, base - n * fw]))
        poly = _union_hull([forearm, hand, *fingers])
        sleeve = None
        if rng.random() < 0.75:
            frac = rng.uniform(0.2, 0.75)
            s1 = p0 + d * frac * (length - width) / length
            ws = w0 * 1.15
            sleeve = np.array([p0 - u * width + n * ws, s1 + n * ws, s1 - n * ws, p0 - u * width - n * ws])
        tone = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        tone = tuple(int(np.clip(c * rng.uniform(0.9, 1.1), 0, 255)) for c in tone)
        return cls(poly, tone, sleeve, SLEEVES[int(rng.integers(len(SLEEVES)))])  # type: ignore[arg-type]


def _union_hull(parts: list[np.ndarray]) -> np.ndarray:
    """Parts are drawn together; a single polygon list keeps rasterisation simple."""
    return np.concatenate([np.vstack([p, [[np.nan, np.nan]]]) for p in parts])[:-1]


def _split_parts(poly: np.ndarray) -> list[np.ndarray]:
    parts, cur = [], []
    for p in poly:
        if np.isnan(p[0]):
            parts.append(np.array(cur))
            cur = []
        else:
            cur.append(p)
    if cur:
        parts.append(np.array(cur))
    return parts


@dataclass(frozen=True)
class IndexLabel:
    card: str
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 image px
    visible_fraction: float
    card_id: int


@dataclass(frozen=True)
class PlacedCard:
    card: str
    quad: np.ndarray  # (4, 2) image px: the card's own TL, TR, BR, BL corners
    face_up: bool
    card_id: int
    visible_fraction: float


@dataclass
class RenderedScene:
    image: np.ndarray  # H×W×3 BGR uint8
    labels: list[IndexLabel]
    cards: list[PlacedCard]
    deck: str = ""
    conditions: SceneConditions | None = None
    index_polygons: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (card_id, (K,2) image px)


# ---------------------------------------------------------------- deck image cache
_PYRAMIDS: OrderedDict[tuple[int, str], tuple[np.ndarray, list[np.ndarray]]] = OrderedDict()
PYRAMID_CACHE = 1200  # entries (~0.35 MB each): bounded, the full catalogue has ~2500 faces


def _pyramid(deck: DeckArt, key: str) -> list[np.ndarray]:
    """Premultiplied BGRA uint8 face at full, 1/2, 1/4 size (no aliasing when shrinking).

    Cached by the source array's identity; the entry keeps that array alive, so an id
    cannot be reused by another deck's image while it is cached."""
    rgba = deck.back if key == "__back__" else deck.faces[key]
    k = (id(rgba), key)
    hit = _PYRAMIDS.get(k)
    if hit is not None and hit[0] is rgba:
        _PYRAMIDS.move_to_end(k)
        return hit[1]
    bgra = cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA)
    bgra = cv2.multiply(bgra, np.dstack([bgra[..., 3]] * 3 + [np.full(bgra.shape[:2], 255, np.uint8)]), scale=1 / 255.0)
    pyr = [bgra]
    for _ in range(2):
        h, w = pyr[-1].shape[:2]
        pyr.append(cv2.resize(pyr[-1], (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA))
    _PYRAMIDS[k] = (rgba, pyr)
    while len(_PYRAMIDS) > PYRAMID_CACHE:
        _PYRAMIDS.popitem(last=False)
    return pyr


def card_matrix(p: CardPlacement, face_w: int, face_h: int) -> np.ndarray:
    """2x3 affine: face px -> table px."""
    s = p.height / face_h
    a = np.radians(p.angle)
    c, si = np.cos(a) * s, np.sin(a) * s
    cx, cy = face_w / 2.0, face_h / 2.0
    # rotate counter-clockwise on screen (y down): x' = c x + s y, y' = -s x + c y
    return np.array([[c, si, p.center[0] - c * cx - si * cy], [-si, c, p.center[1] + si * cx - c * cy]])


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return pts @ m[:, :2].T + m[:, 2]


def _composite_card(canvas: np.ndarray, idmap: np.ndarray, img: np.ndarray, m: np.ndarray, card_id: int, shadow: float) -> None:
    """Warp premultiplied BGRA `img` by `m` into its bbox on the canvas; shadow first."""
    H, W = canvas.shape[:2]
    h, w = img.shape[:2]
    corners = _apply(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    pad = 2 + (int(0.06 * np.ptp(corners[:, 1])) if shadow > 0 else 0)
    x0 = max(0, int(np.floor(corners[:, 0].min())) - pad)
    y0 = max(0, int(np.floor(corners[:, 1].min())) - pad)
    x1 = min(W, int(np.ceil(corners[:, 0].max())) + pad + 1)
    y1 = min(H, int(np.ceil(corners[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return
    mr = m.copy()
    # m maps continuous coordinates (a pixel spans [i, i+1]); warpAffine maps pixel centres
    mr[:, 2] += mr[:, :2] @ np.array([0.5, 0.5]) - 0.5
    mr[:, 2] -= (x0, y0)
    warped = cv2.warpAffine(img, mr, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    warped = warped.astype(np.float32)
    alpha = warped[..., 3] * (1.0 / 255.0)
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:
        off = max(1, pad // 2)
        sh = np.zeros_like(alpha)
        sh[off:, off:] = alpha[:-off, :-off]
        sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, off * 0.8))
        roi *= (1.0 - shadow * sh)[..., None]
    roi *= (1.0 - alpha)[..., None]
    roi += warped[..., :3]
    idmap[y0:y1, x0:x1][alpha > 0.5] = card_id


def _draw_occluder(canvas: np.ndarray, idmap: np.ndarray, occ: Occluder, shadow: float, rng: np.random.Generator) -> None:
    H, W = canvas.shape[:2]
    parts = _split_parts(occ.polygon)
    pts_all = np.vstack(parts + ([occ.sleeve] if occ.sleeve is not None else []))
    ext = int(0.25 * max(np.ptp(pts_all[:, 0]), np.ptp(pts_all[:, 1]), 8) ** 0.5 * 6)
    x0 = max(0, int(pts_all[:, 0].min()) - ext)
    y0 = max(0, int(pts_all[:, 1].min()) - ext)
    x1 = min(W, int(pts_all[:, 0].max()) + ext + 1)
    y1 = min(H, int(pts_all[:, 1].max()) + ext + 1)
    if x1 <= x0 or y1 <= y0:
        return
    roi = canvas[y0:y1, x0:x1]
    skin = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for p in parts:
        cv2.fillPoly(skin, [np.round(p - (x0, y0)).astype(np.int32)], 255, cv2.LINE_AA)
    sleeve = np.zeros_like(skin)
    if occ.sleeve is not None:
        cv2.fillPoly(sleeve, [np.round(occ.sleeve - (x0, y0)).astype(np.int32)], 255, cv2.LINE_AA)
    mask = np.maximum(skin, sleeve).astype(np.float32) / 255.0
    if shadow > 0:  # arms float above the table: a soft, offset shadow
        off = int(rng.integers(4, 14))
        sh = np.zeros_like(mask)
        sh[off:, off // 2 :] = mask[:-off, : mask.shape[1] - off // 2]
        sh = cv2.GaussianBlur(sh, (0, 0), 5)
        roi *= (1.0 - shadow * sh)[..., None]
    # shading across the arm: lit on one side
    shade = cv2.GaussianBlur(mask, (0, 0), max(2.0, ext / 4)) * 0.35 + 0.65
    skin_f = skin.astype(np.float32) / 255.0
    sleeve_f = sleeve.astype(np.float32) / 255.0
    skin_only = np.clip(skin_f - sleeve_f, 0, 1)
    colour = (skin_only[..., None] * np.array(occ.colour, np.float32) + sleeve_f[..., None] * np.array(occ.sleeve_colour, np.float32))
    colour *= shade[..., None]
    roi *= (1.0 - mask)[..., None]
    roi += colour
    idmap[y0:y1, x0:x1][mask > 0.5] = OCCLUDER_ID


def _visible(idmap: np.ndarray, poly: np.ndarray, card_id: int) -> float:
    """Fraction of polygon `poly` (table px) whose topmost owner is `card_id` (off-canvas = hidden)."""
    area = float(abs(cv2.contourArea(poly.astype(np.float32))))
    if area < 1.0:
        return 0.0
    H, W = idmap.shape
    x0, y0 = max(0, int(np.floor(poly[:, 0].min()))), max(0, int(np.floor(poly[:, 1].min())))
    x1, y1 = min(W, int(np.ceil(poly[:, 0].max())) + 1), min(H, int(np.ceil(poly[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round((poly - (x0, y0)) * 4).astype(np.int32), 1, cv2.LINE_8, shift=2)
    inside = int(m.sum())
    if inside == 0:
        return 0.0
    own = int((m.astype(bool) & (idmap[y0:y1, x0:x1] == card_id)).sum())
    # pixels off the canvas count as hidden
    frac_on_canvas = min(1.0, inside / area)
    return own / inside * frac_on_canvas


def _index_poly(box: tuple[float, float, float, float], w: int, h: int) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.array([[x1 * w, y1 * h], [x2 * w, y1 * h], [x2 * w, y2 * h], [x1 * w, y2 * h]], float)


def _densify(poly: np.ndarray, n: int = 4) -> np.ndarray:
    """Points along the polygon edges (boxes bend under lens distortion)."""
    out = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        for t in np.linspace(0, 1, n, endpoint=False):
            out.append(a + (b - a) * t)
    return np.array(out)


def compose_table(
    placements: Sequence[CardPlacement],
    deck: DeckArt,
    size: tuple[int, int] = (640, 640),
    conditions: SceneConditions | None = None,
    rng: np.random.Generator | None = None,
    occluders: Sequence[Occluder] = (),
    background: np.ndarray | None = None,
    min_visible: float = DEFAULT_MIN_VISIBLE,
) -> RenderedScene:
    """Render `placements` (list order = z order) of `deck` and label visible corner indices."""
    cond = conditions if conditions is not None else SceneConditions.clean()
    rng = rng if rng is not None else np.random.default_rng(0)
    W, H = size
    if background is not None:
        canvas = cv2.resize(background, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32)
    else:
        canvas = make_surface(cond, size, rng)
    idmap = np.full((H, W), TABLE_ID, np.int16)
    fw, fh = deck.size
    matrices = []
    for i, p in enumerate(placements):
        if p.face_up and p.card not in deck.faces:
            raise ValueError(f"deck {deck.name} has no card {p.card!r}")
        pyr = _pyramid(deck, p.card if p.face_up else "__back__")
        level = 0
        while level + 1 < len(pyr) and pyr[level + 1].shape[0] >= p.height * 1.05:
            level += 1
        img = pyr[level]
        m_full = card_matrix(p, fw, fh)
        m_lvl = m_full.copy()
        m_lvl[:, :2] = m_full[:, :2] * (fh / img.shape[0])  # level px -> face px -> table px
        matrices.append(m_full)
        _composite_card(canvas, idmap, img, m_lvl, i, cond.card_shadow)
    for occ in occluders:
        _draw_occluder(canvas, idmap, occ, cond.arm_shadow, rng)

    cam: Camera = make_camera(cond, size)
    face_quad = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], float)
    cards: list[PlacedCard] = []
    labels: list[IndexLabel] = []
    polys: list[tuple[int, np.ndarray]] = []
    counts = np.bincount((idmap.ravel().astype(np.int32) + 2), minlength=len(placements) + 2)
    for i, (p, m) in enumerate(zip(placements, matrices)):
        quad_t = _apply(m, face_quad)
        area = abs(cv2.contourArea(quad_t.astype(np.float32))) or 1.0
        cards.append(PlacedCard(p.card, cam.project(quad_t).astype(np.float32), p.face_up, i, float(min(1.0, counts[i + 2] / area))))
        if not p.face_up:
            continue
        for box in deck.index_boxes.get(p.card, []):
            poly_t = _apply(m, _index_poly(box, fw, fh))
            vis = _visible(idmap, poly_t, i)
            if vis < min_visible:
                continue
            pts = cam.project(_densify(poly_t))
            x1, y1 = pts.min(axis=0)
            x2, y2 = pts.max(axis=0)
            cx1, cy1, cx2, cy2 = max(0.0, x1), max(0.0, y1), min(float(W), x2), min(float(H), y2)
            if cx2 <= cx1 or cy2 <= cy1:
                continue
            inside = (cx2 - cx1) * (cy2 - cy1) / max((x2 - x1) * (y2 - y1), 1e-6)
            vis *= inside
            if vis < min_visible:
                continue
            labels.append(IndexLabel(p.card, (float(cx1), float(cy1), float(cx2), float(cy2)), float(vis), i))
            polys.append((i, cam.project(poly_t)))

    img = cam.warp(canvas)
    gain = lighting_gain(cond, size, rng)
    if background is None:
        gain *= surface_tint(rng)
    img *= gain
    add_glare(img, cond, rng)
    out = blur_noise_jpeg(img, cond, rng)
    return RenderedScene(out, labels, cards, deck.name, cond, polys)


# layouts live in their own module; re-exported here as part of the scene API
from vision.synth.layouts import random_layout, random_scene  # noqa: E402

__all__ = [
    "CardPlacement",
    "Occluder",
    "SceneConditions",
    "IndexLabel",
    "PlacedCard",
    "RenderedScene",
    "compose_table",
    "random_layout",
    "random_scene",
]
