"""Whole-card reading: find separate face-up cards by their outline, read them from their face.

The corner reader needs a rank-over-suit index in a corner. Some decks do not print one:
the oxygen designs put the rank top-right and the suit top-left, a card width apart, and
at camera scale the rank is ~6 px tall, so the index detector finds nothing there. A card
lying alone (a market card, a card just played) also shows its whole face: its pips give
the suit and, on number cards, the rank. This module finds such cards and reads them:

1. `card_outlines(image)`: card-shaped rectangles in the edges of a half-size copy (Canny
   on each colour channel). Overlapped cards and cards under an arm are not found, by
   design: the corner reader covers those.
2. `rectify(image, quad, size)`: the quad warped to an upright W×H patch (long side
   vertical; upside down or not, which the network was trained to ignore).
3. `BodyClassifier`: a small CNN (vision/train/body_model.py) with rank, suit and
   "is a face-up card" outputs, exported to ONNX.

The reader (`CardReader`) fuses these reads with the corner reads (reader.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader.classifier import run_padded
from vision.reader.runtime import run_images
from vision.types import CardDetections, box_quad


@dataclass(frozen=True, slots=True)
class OutlineConfig:
    scale: float = 0.5  # work on a half-size copy: outlines need no detail, and it is 4x cheaper
    min_h: float = 28.0  # card long side in full-image px
    max_h: float = 6000.0  # a phone photo's close-up card; the aspect test and the network judge
    canny: tuple[int, int] = (30, 80)
    # convex hull area / min-area rectangle: a card ~0.97; lower lets through a card whose
    # outline a touching pattern (polka dots) or a dashed inner frame makes ragged
    min_fill: float = 0.85
    aspect: tuple[float, float] = (1.2, 1.75)  # long / short side (poker 1.40, bridge 1.56)


def card_outlines(image: np.ndarray, cfg: OutlineConfig = OutlineConfig()) -> list[np.ndarray]:
    """Card-shaped outlines in a BGR image: (4, 2) float32 quads in full-image px, clockwise
    (image coordinates), first edge a short one.

    Two views of one edge map, joined: closed edge contours (a card's border), and regions
    no edge crosses (a card's face inside its border, pips and all, when the border touches
    something else). Measured on the held-out recordings' frames (share of visible cards
    inside an outline): contours alone 0.65, both 0.76 (a fill test without the hull: 0.50).
    """
    s = cfg.scale
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s != 1 else image
    if small.ndim == 2:
        small = small[:, :, None]
    g = cv2.GaussianBlur(small, (3, 3), 0).reshape(small.shape)
    edges = np.zeros(g.shape[:2], np.uint8)
    for c in range(g.shape[2]):
        edges |= cv2.Canny(np.ascontiguousarray(g[:, :, c]), *cfg.canny)
    lo, hi = cfg.min_h * s, cfg.max_h * s
    rects = []
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    rects += [r for c in contours if (r := _card_rect(c, lo, hi, cfg)) is not None]
    free = (cv2.dilate(edges, np.ones((2, 2), np.uint8)) == 0).astype(np.uint8)
    rects += _face_rects(free, lo, hi, cfg)
    return _dedupe([order_quad(cv2.boxPoints(r) / s) for r in rects])


def _face_rects(free: np.ndarray, lo: float, hi: float, cfg: OutlineConfig) -> list:
    """Card-shaped min-area rectangles of the regions of `free` (1 = no edge): a card's
    face, pips and letters as its holes.

    The regions are traced with findContours (outer boundary = top level of RETR_CCOMP),
    not labelled with connectedComponentsWithStats and traced one by one: 2026-12-03/04,
    the whole outline search 7.9-8.9 -> 6.6-7.6 ms a 1280x720 frame (one thread), the same
    outlines on 259 of 260 frames. The tracing joins regions that touch only at a corner
    (8-connectivity); the regions stay 4-connected, as before, by breaking each such
    diagonal touch first (on a copy: the caller's mask is left as it was)."""
    free = free.copy()
    f = free.view(bool)
    # a 2×2 block with free pixels only on one diagonal: drop one of the two, so a
    # one-pixel gap in a diagonal edge does not join the card's face to the table
    free[:-1, :-1][f[:-1, :-1] & f[1:, 1:] & ~f[:-1, 1:] & ~f[1:, :-1]] = 0
    free[:-1, 1:][f[:-1, 1:] & f[1:, :-1] & ~f[:-1, :-1] & ~f[1:, 1:]] = 0
    contours, hier = cv2.findContours(free, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    hier = hier[0]  # (next, previous, first child, parent) per contour
    rects = []
    for i in np.flatnonzero(hier[:, 3] == -1):  # outer boundaries; holes are their children
        c = contours[i]
        _x, _y, w, h = cv2.boundingRect(c)
        long_, short = max(w, h), min(w, h)
        # a card's face: long enough, not a thin sliver, a box no longer than a card's own
        # (a turned rectangle's box is squarer than it), at least half a card of area and
        # not a frame (area >= 0.3 of its box); the box tests first, since a textured table
        # makes hundreds of regions
        if not (0.8 * lo <= long_ <= 1.2 * hi and short >= 0.4 * lo and long_ <= 1.1 * cfg.aspect[1] * short):
            continue
        area = cv2.contourArea(c) - _holes_area(contours, hier, int(hier[i, 2]))
        if area < 0.45 * lo * lo or area < 0.3 * w * h:
            continue
        r = _card_rect(c, lo, hi, cfg)
        if r is not None:  # the face stops a dilated edge short of the border: grow it back
            rects.append((r[0], (r[1][0] + 2, r[1][1] + 2), r[2]))
    return rects


def _holes_area(contours: tuple, hier: np.ndarray, child: int) -> float:
    area = 0.0
    while child != -1:
        area += cv2.contourArea(contours[child])
        child = int(hier[child, 0])
    return area


def _card_rect(contour: np.ndarray, lo: float, hi: float, cfg: OutlineConfig):  # noqa: ANN202
    """The contour's min-area rectangle when it is card-shaped, else None."""
    _x, _y, w, h = cv2.boundingRect(contour)
    if max(w, h) < 0.7 * lo or w * h < lo * lo * 0.5:  # most contours are pips and letters:
        return None  # the cheap tests first (the hull's area is at most its box's)
    hull_area = cv2.contourArea(cv2.convexHull(contour))
    if hull_area < lo * lo * 0.5:
        return None
    rect = cv2.minAreaRect(contour)
    short, long_ = sorted(rect[1])
    if short <= 0 or not lo <= long_ <= hi or not cfg.aspect[0] <= long_ / short <= cfg.aspect[1]:
        return None
    return rect if hull_area / (short * long_) >= cfg.min_fill else None


def order_quad(quad: np.ndarray) -> np.ndarray:
    """The same four corners, clockwise in image coordinates, starting on a short edge."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    x, y = q[:, 0], q[:, 1]
    if 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) < 0:  # counter-clockwise
        q = q[::-1]
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)
    return np.ascontiguousarray(q)


def _dedupe(quads: list[np.ndarray], dist: float = 0.08) -> list[np.ndarray]:
    """One outline per card: nested contours of one card (outer and inner edge of its
    border) and the same card found by both views of the edge map; keep the larger."""
    if len(quads) < 2:
        return list(quads)
    q = np.stack(quads).astype(np.float64)
    area = np.array([cv2.contourArea(k) for k in quads])  # OpenCV's, so ties break as before
    centre, size = q.mean(1), np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
    gap = np.linalg.norm(centre[:, None] - centre[None], axis=2)  # all pairs at once: ~30 quads
    keep: list[int] = []
    for i in np.argsort(-area, kind="stable"):  # largest first
        # a quad goes when its centre is near a kept one's at least 0.7 of its size
        if not keep or np.all((gap[i, keep] > dist * size[i]) | (area[i] < 0.7 * area[keep])):
            keep.append(int(i))
    return [quads[i] for i in keep]


def rectify(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The card inside `quad` (ordered as `order_quad` returns) as an upright W×H patch."""
    w, h = size
    q = np.asarray(quad, np.float32)
    long_side = float(np.linalg.norm(q[2] - q[1]))
    x1, y1 = np.maximum(np.floor(q.min(0)).astype(int), 0)
    x2, y2 = np.minimum(np.ceil(q.max(0)).astype(int) + 1, (image.shape[1], image.shape[0]))
    # a photo's card: shrink its box first, a warp alone would alias (not when the card lies
    # wholly off the image: nothing to shrink, the warp replicates the border)
    if long_side > 5 * h and x2 > x1 and y2 > y1:
        f = 2 * h / long_side
        box = image[y1:y2, x1:x2]
        image = cv2.resize(box, (max(1, round(box.shape[1] * f)), max(1, round(box.shape[0] * f))), interpolation=cv2.INTER_AREA)
        q = ((q - (x1, y1)) * f).astype(np.float32)
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(q, dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@dataclass(frozen=True, slots=True)
class BodyReads:
    """One row per outline: rank and suit distributions and P(face-up card)."""

    quads: np.ndarray  # (N, 4, 2)
    rank_probs: np.ndarray  # (N, R)
    suit_probs: np.ndarray  # (N, S)
    card_p: np.ndarray  # (N,)

    def __len__(self) -> int:
        return len(self.card_p)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class BodyClassifier:
    """The exported whole-card network (ONNX Runtime or OpenVINO via `load_session`)."""

    # Batches padded to a multiple of 4 patches (two outlines, each read both ways up), not
    # the index classifier's 8: a frame has ~2 outlines to read, and each padded patch
    # costs ~0.14 ms (measured: 4 patches 0.69 ms, 8 patches 1.21 ms).
    BUCKET = 4

    def __init__(self, session, size: tuple[int, int], n_ranks: int = 13, n_suits: int = 4, batch: int = 64) -> None:  # noqa: ANN001
        self.session, self.size, self.n_ranks, self.n_suits, self.batch = session, size, n_ranks, n_suits, batch

    def warm(self) -> None:
        """Compile every padded batch shape at load (OpenVINO compiles each new batch size on
        first sight, ~5 ms: see IndexClassifier)."""
        w, h = self.size
        for m in range(self.BUCKET, self.batch + 1, self.BUCKET):
            run_images(self.session, np.zeros((m, h, w, 3), np.uint8))

    def patches(self, image: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """Both ways up per quad: (2N, H, W, 3) uint8 BGR patches (the session turns them
        into the float RGB input the network was trained on)."""
        patches = []
        for q in quads:
            p = rectify(image, q, self.size)
            patches += [p, p[::-1, ::-1]]
        return np.stack(patches)

    def classify(self, image: np.ndarray, quads: list[np.ndarray]) -> BodyReads:
        r, s = self.n_ranks, self.n_suits
        if not quads:
            return BodyReads(np.zeros((0, 4, 2), np.float32), np.zeros((0, r)), np.zeros((0, s)), np.zeros((0,)))
        out = run_padded(self.session, self.patches(image, quads), self.batch, self.BUCKET).astype(np.float64)
        # a card reads the same either way up: average the two views' distributions
        rank = _softmax(out[:, :r]).reshape(-1, 2, r).mean(1)
        suit = _softmax(out[:, r : r + s]).reshape(-1, 2, s).mean(1)
        card = (1.0 / (1.0 + np.exp(-out[:, r + s]))).reshape(-1, 2).mean(1)
        return BodyReads(np.stack(quads).astype(np.float32), rank, suit, card)


@dataclass(frozen=True, slots=True)
class BodyFusion:
    """How whole-card reads join the corner reads (`fuse_bodies`); chosen on val families."""

    min_card_p: float = 0.5  # P(face-up card) for an outline to count
    add_p: float = 0.5  # an outline with no corner read becomes a card from this confidence
    fuse: bool = True  # an outline holding one corner-read card re-weighs its identities
    weight: float = 1.0  # exponent of the body's distribution in that product
    floor: float = 0.02  # probability a corner read leaves to an identity it did not list
    top_k: int = 5
    # An outline under `min_card_p` still counts when the network is this sure of its
    # identity (rank × suit), its card probability taken as that: the "is a card" output
    # doubts plain number cards of some unseen designs (oxygen's 4D read 0.87 with P(card)
    # 0.07). Chosen on the val families (benchmarks/body_gate.py): 0.7 let through 5 real
    # outlines read right, none read wrong and no non-card outline. None: off.
    sure_identity_p: float | None = None


def _card_p(reads: BodyReads, k: int, cfg: BodyFusion) -> float | None:
    """Outline k's probability of being a face-up card, None when it does not count."""
    p = float(reads.card_p[k])
    if p >= cfg.min_card_p:
        return p
    if cfg.sure_identity_p is None:
        return None
    top = float(reads.rank_probs[k].max() * reads.suit_probs[k].max())
    return top if top >= cfg.sure_identity_p else None


def _body_top(rank_p: np.ndarray, suit_p: np.ndarray, ranks: tuple[str, ...], suits: tuple[str, ...], k: int) -> list[tuple[str, float]]:
    joint = np.outer(rank_p, suit_p)
    order = np.argsort(joint.ravel())[::-1][:k]
    return [(ranks[i // len(suits)] + suits[i % len(suits)], float(joint.ravel()[i])) for i in order]


def _inside(quad: np.ndarray, pts: list[tuple[float, float]]) -> bool:
    contour = quad.reshape(-1, 1, 2).astype(np.float32)
    return any(cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0 for x, y in pts)


def _anchors(det: CardDetections) -> list[list[tuple[float, float]]]:
    """Per corner-read card, the points that place it inside an outline: its index centres
    (the card box centre when it has none)."""
    return [
        [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in det.index_boxes[i]]
        or [((det.xyxy[i][0] + det.xyxy[i][2]) / 2, (det.xyxy[i][1] + det.xyxy[i][3]) / 2)]
        for i in range(len(det))
    ]


def unsure_mask(det: CardDetections, quads: list[np.ndarray] | np.ndarray, sure: float) -> np.ndarray:
    """Per outline, whether it is worth the network's time: it holds no corner-read card at
    or above `sure` confidence (a card the corners read surely gains little from its face)."""
    sure_pts = [pts for pts, c in zip(_anchors(det), det.confidence) if c >= sure]
    return np.array([not any(_inside(q, pts) for pts in sure_pts) for q in quads], bool)


def fuse_bodies(
    det: CardDetections, reads: BodyReads, ranks: tuple[str, ...], suits: tuple[str, ...], cfg: BodyFusion = BodyFusion(),
    two_decks: bool = False,
) -> CardDetections:  # fmt: skip
    """Corner-read `CardDetections` + whole-card reads -> `CardDetections`.

    An outline whose corner reads found nothing adds its own card (from `add_p`; in a
    one-deck game never an identity another card already holds: that is most often the
    same card, its corners read where its outline was not placed); an outline
    holding exactly one corner-read card re-ranks that card's identities by the product of
    the two readers' probabilities (normalised over the identities either lists); outlines
    holding two or more cards (a misfound outline) change nothing."""
    rows = [
        dict(xyxy=det.xyxy[i], conf=float(det.confidence[i]), card=det.cards[i], boxes=det.index_boxes[i],
             quad=None if det.quads is None else det.quads[i], alts=det.candidates(i))
        for i in range(len(det))
    ]  # fmt: skip
    anchors = _anchors(det)
    added = []
    for k in range(len(reads)):
        card_p = _card_p(reads, k, cfg)
        if card_p is None:
            continue
        quad = reads.quads[k]
        inside = [i for i, pts in enumerate(anchors) if _inside(quad, pts)]
        body = _body_top(reads.rank_probs[k], reads.suit_probs[k], ranks, suits, 52 if inside else cfg.top_k)
        if not inside:
            if not two_decks:
                held = {r["card"] for r in rows} | {r["card"] for r in added}
                body = [(c, p) for c, p in body if c not in held]
            conf = body[0][1] * card_p if body else 0.0
            if conf >= cfg.add_p:
                alts = tuple((c, p * card_p) for c, p in body)
                x1, y1 = quad.min(0)
                x2, y2 = quad.max(0)
                added.append(dict(xyxy=np.array([x1, y1, x2, y2], np.float32), conf=conf, card=alts[0][0], boxes=[], quad=quad, alts=alts))
        elif len(inside) == 1 and cfg.fuse:
            r = rows[inside[0]]
            corner = dict(r["alts"])
            bp = dict(body)
            keys = list(dict.fromkeys([c for c, _ in r["alts"]] + [c for c, _ in body[: cfg.top_k]]))
            score = {c: (corner.get(c, 0.0) + cfg.floor) * bp.get(c, 0.0) ** cfg.weight for c in keys}
            total = sum(score.values()) or 1.0
            alts = tuple(sorted(((c, s / total) for c, s in score.items()), key=lambda t: -t[1]))[: cfg.top_k]
            r.update(card=alts[0][0], conf=alts[0][1], alts=alts, quad=quad if r["quad"] is None else r["quad"])
    rows += added
    if not rows:
        return CardDetections.empty()
    return CardDetections(
        xyxy=np.array([r["xyxy"] for r in rows], np.float32), confidence=np.array([r["conf"] for r in rows], np.float32),
        cards=[r["card"] for r in rows], index_boxes=[r["boxes"] for r in rows],
        quads=np.stack([r["quad"] if r["quad"] is not None else box_quad(r["xyxy"]) for r in rows]),
        alternatives=[r["alts"] for r in rows],
    )  # fmt: skip


def snap_to_outlines(
    det: CardDetections, quads: list[np.ndarray], image_hw: tuple[int, ...], max_shift: float = 0.3,
    area: tuple[float, float] = (0.6, 1.7),
) -> CardDetections:  # fmt: skip
    """`det` with each card's box and outline taken from a found outline where one fits it.

    A corner-read card's outline is predicted from its indices and a typical card shape, so
    its box is off by the deck's own proportions, and by a lot when one index placed it. An
    outline found in the image (`card_outlines`) that holds this card's indices and no other
    card's, centred within `max_shift` of the predicted card's long side and of a similar
    area (`area`: ratio to the predicted one), is the card as seen: its box replaces the
    predicted one. An outline reaching the image border on three or more sides is the
    image's own frame (a close-up of one card), not the card. Identities and confidences do
    not change."""
    if not len(det) or not quads or det.quads is None:
        return det
    anchors = _anchors(det)
    holds = np.array([[_inside(q, pts) for pts in anchors] for q in quads], bool)  # outline × card
    # an outline around two cards (or the image's own frame) places neither: judged once per outline
    usable = (holds.sum(axis=1) == 1) & ~np.array([_frames_the_image(q, image_hw) for q in quads], bool)
    areas = [float(cv2.contourArea(q.reshape(-1, 1, 2).astype(np.float32))) for q in quads]
    xyxy, out_quads = det.xyxy.copy(), det.quads.copy()
    for i in range(len(det)):
        p = det.quads[i]
        p_area = float(cv2.contourArea(p.reshape(-1, 1, 2).astype(np.float32)))
        long_side = float(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[3] - p[0])))
        best, best_gap = None, None
        for k in np.flatnonzero(holds[:, i] & usable):
            ratio = areas[k] / max(p_area, 1e-6)
            gap = float(np.linalg.norm(quads[k].mean(axis=0) - p.mean(axis=0)))
            if area[0] <= ratio <= area[1] and gap <= max_shift * long_side and (best_gap is None or gap < best_gap):
                best, best_gap = k, gap
        if best is not None:
            q = quads[best].astype(np.float32)
            out_quads[i] = q
            xyxy[i] = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
    return CardDetections(
        xyxy=xyxy, confidence=det.confidence.copy(), cards=list(det.cards), index_boxes=det.index_boxes,
        quads=out_quads, alternatives=None if det.alternatives is None else list(det.alternatives),
    )  # fmt: skip


def _frames_the_image(quad: np.ndarray, image_hw: tuple[int, ...], margin: float = 3.0) -> bool:
    """`quad` reaches within `margin` px of the image border on three or more sides."""
    h, w = image_hw[:2]
    x1, y1 = quad.min(axis=0)
    x2, y2 = quad.max(axis=0)
    return int(x1 <= margin) + int(y1 <= margin) + int(x2 >= w - margin) + int(y2 >= h - margin) >= 3
