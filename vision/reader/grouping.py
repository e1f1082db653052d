"""Group classified corner indices into physical cards. Pure: numpy in, dataclasses out.

Every corner index sits at the top-left of its card *as seen upright from that index*
(the bottom-right index of a card is the top-left one turned 180°). So one index, its
reading direction `up` and its size predict the whole card: centre, outline, orientation.

Two indices are the same physical card when they read the same card and either
  - overlap (the same index found twice), or
  - face opposite ways (≈180° apart) and predict nearly the same card centre, or sit on
    each other's card diagonal (decks whose index size differs from the typical one).
Identical cards in a cascade face the same way, so they are never merged. In a one-deck
game a card exists once: only the best-supported group of each identity is kept; with
two decks, the two best.

When the classifier's full rank and suit distributions are known, the two indices of a
card are fused instead of compared: they join when their geometry says "one card" and
they could read the same card (the chance both read the same identity is not tiny); the
card is then the identity most likely under both readings. A card whose two corners
read QS (0.6) and QC (0.5) is one card, read from the evidence of both, not two guesses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

TOP_K = 3  # identities kept per card in `CardGroup.alternatives` (the top one and two runners-up)


@dataclass(frozen=True, slots=True)
class CardGeometry:
    """Card shape relative to its index, in units of the index's long side `s`.

    centre = index centre + (right * cx + down * cy) * s, with right/down the card's axes
    as seen from the index. Measured on the training decks (see vision/train/dataset.py).
    """

    cx: float = 1.55
    cy: float = 2.35
    width: float = 3.7
    height: float = 5.3
    link_radius: float = 1.4  # max distance of predicted centres, in s, to join a pair
    opposite_deg: float = 120.0  # min angle between the two `up`s of a pair
    min_agree: float = 0.05  # fused grouping: min chance two indices read the same identity
    # Two boxes are one index found twice when this share of the smaller lies inside the
    # larger (besides IoU > 0.3): the detector sometimes boxes an index tightly and again
    # with some of the card beside it, IoU ~0.3. Identical cards of a two-deck cascade
    # are shifted by at least about an index, so their boxes overlap far less.
    same_index_cover: float = 0.6
    # One-deck games, fused grouping: a card whose best identity a surer card already holds
    # is re-read from its own posterior without that identity, if it gave that identity
    # less than this (it was unsure) and sits more than a card away from the holder (two
    # halves of one card read alike are still dropped). 0 = off: the weaker is dropped.
    reassign_below: float = 0.0


@dataclass(slots=True)
class IndexObs:
    """One classified index: box in image px, card string, probability, reading direction."""

    box: tuple[float, float, float, float]
    card: str
    p: float
    up: tuple[float, float] | None = None  # unit vector (image x, y) pointing to the card's top
    det: float = 1.0  # detector score of the box (p does not include it)
    index_p: float = 1.0  # classifier's "this is a corner index" probability (a factor of p)
    rank_probs: np.ndarray | None = None  # full distributions (optional): fused grouping
    suit_probs: np.ndarray | None = None

    @property
    def joint(self) -> np.ndarray | None:
        """P(rank, suit) flattened rank-major (rank i, suit j at i * n_suits + j)."""
        if self.rank_probs is None or self.suit_probs is None:
            return None
        return np.outer(self.rank_probs, self.suit_probs).ravel()

    @property
    def centre(self) -> np.ndarray:
        x1, y1, x2, y2 = self.box
        return np.array([(x1 + x2) / 2, (y1 + y2) / 2], np.float64)

    @property
    def size(self) -> float:
        x1, y1, x2, y2 = self.box
        return float(max(x2 - x1, y2 - y1, 1e-6))


@dataclass(slots=True)
class CardGroup:
    card: str
    confidence: float
    members: list[IndexObs] = field(default_factory=list)
    quad: np.ndarray | None = None  # (4, 2) clockwise from the card's top-left
    # The TOP_K most likely identities (card, probability), best first, on the scale of
    # `confidence` (the first is (card, confidence)); empty when only the top card is known.
    alternatives: tuple[tuple[str, float], ...] = ()
    posterior: np.ndarray | None = None  # fused grouping: P(identity), rank-major (52)
    index_p: float = 1.0  # fused grouping: chance the card's indices are indices at all

    @property
    def index_boxes(self) -> list[tuple[float, float, float, float]]:
        return [m.box for m in self.members]

    @property
    def xyxy(self) -> tuple[float, float, float, float]:
        """Box of the predicted outline, or the union of the index boxes without one."""
        if self.quad is not None:
            (x1, y1), (x2, y2) = self.quad.min(axis=0), self.quad.max(axis=0)
            return float(x1), float(y1), float(x2), float(y2)
        b = np.array(self.index_boxes, np.float64)
        return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())


def _unit(up: tuple[float, float]) -> tuple[float, float]:
    # scalar math, not numpy: the geometry here runs ~100 times a frame on 2-vectors, where
    # numpy's per-call overhead was most of the grouping's time
    n = max(math.hypot(up[0], up[1]), 1e-9)
    return up[0] / n, up[1] / n


def _axes(up: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(right, down) unit vectors of a card whose top points along `up` (image y down)."""
    ux, uy = _unit(up)
    return np.array([-uy, ux]), np.array([-ux, -uy])  # up (0,-1) -> right (1, 0); down = -up


def predicted_centre(obs: IndexObs, geom: CardGeometry, size: float | None = None) -> np.ndarray | None:
    """The card centre `obs` predicts; `size`: the index size to scale the card by (default
    the index's own)."""
    if obs.up is None:
        return None
    right, down = _axes(obs.up)
    return obs.centre + (right * geom.cx + down * geom.cy) * (obs.size if size is None else size)


def predicted_quad(obs: IndexObs, centre: np.ndarray, size: float, geom: CardGeometry) -> np.ndarray:
    assert obs.up is not None
    right, down = _axes(obs.up)
    hw, hh = geom.width * size / 2, geom.height * size / 2
    a = np.array([-hw, hw, hw, -hw])[:, None]  # TL, TR, BR, BL: clockwise on screen
    b = np.array([-hh, -hh, hh, hh])[:, None]
    return ((centre + right * a) + down * b).astype(np.float32)


def box_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def box_cover(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Share of the smaller of two boxes that lies inside the other."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return iw * ih / small if small > 0 else 0.0


def _angle_deg(a: tuple[float, float], b: tuple[float, float]) -> float:
    cos = (a[0] * b[0] + a[1] * b[1]) / max(math.hypot(a[0], a[1]) * math.hypot(b[0], b[1]), 1e-9)
    return math.degrees(math.acos(min(1.0, max(-1.0, cos))))


def _diagonal_pair(a: IndexObs, b: IndexObs, geom: CardGeometry) -> bool:
    """b sits where a's card would put its opposite corner: seen from a (upright), down and
    to the right, at about the distance between the two indices of a card. Tolerant of
    decks whose index is smaller or larger than the typical one (the ratio may differ 2×)."""
    assert a.up is not None
    ux, uy = _unit(a.up)  # right = (-uy, ux), down = -up (`_axes`), in scalars
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = a.box, b.box
    vx, vy = (bx1 + bx2) / 2 - (ax1 + ax2) / 2, (by1 + by2) / 2 - (ay1 + ay2) / 2
    s = (a.size + b.size) / 2
    got = ((-vx * uy + vy * ux) / s, (-vx * ux - vy * uy) / s)
    want = (2 * geom.cx, 2 * geom.cy)
    ratio = math.hypot(*got) / math.hypot(*want)
    return 0.5 <= ratio <= 2.0 and _angle_deg(got, want) <= 25.0


def same_card(a: IndexObs, b: IndexObs, geom: CardGeometry) -> bool:
    if _same_index(a, b, geom):
        return True
    if a.up is None or b.up is None:
        return False
    if _angle_deg(a.up, b.up) < geom.opposite_deg:
        return False  # same reading direction: two cards (a cascade), never one
    ca, cb = predicted_centre(a, geom), predicted_centre(b, geom)
    assert ca is not None and cb is not None
    if math.hypot(*(ca - cb)) <= geom.link_radius * (a.size + b.size) / 2:
        return True
    return _diagonal_pair(a, b, geom) and _diagonal_pair(b, a, geom)


def _same_index(a: IndexObs, b: IndexObs, geom: CardGeometry) -> bool:
    return box_iou(a.box, b.box) > 0.3 or box_cover(a.box, b.box) > geom.same_index_cover


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The pairwise tests of grouping for every pair of indices at once (n×n arrays; the
    same formulas as `same_card` and `_diagonal_pair` above, which tests compare it with):
    asked pair by pair in Python, ~60 pairs a frame, they were half of grouping's time."""

    # pairs (i < j, row-major) close enough to be one card: the farthest link, two diagonal
    # corners of a card with a small index, is < 2 * 2 * |(cx, cy)| index sizes apart
    near: list[tuple[int, int]]
    same_index: np.ndarray  # one index found twice
    same_card: np.ndarray  # `same_card`
    # Two cards for sure: facing the same way (a cascade) and predicting card centres more
    # than `link_radius` apart. Union-find is transitive: without this test a corner of one
    # card that sits on the diagonal of its cascaded twin joined the two into one card (two
    # 6D half a card apart on a Khmer row read as one). Boxes of one index that the
    # detector drew twice, offset, predict nearly the same centre and may still join.
    apart: np.ndarray
    centre_gap: np.ndarray  # distance of the predicted card centres / mean index size

    @classmethod
    def of(cls, obs: list[IndexObs], geom: CardGeometry) -> _Pairs:
        b = np.array([o.box for o in obs], np.float64).reshape(-1, 4)
        has_up = np.array([o.up is not None for o in obs], bool)
        up = np.array([o.up if o.up is not None else (0.0, 0.0) for o in obs], np.float64).reshape(-1, 2)
        c = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
        size = np.maximum(np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]), 1e-6)
        area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        iw = np.maximum(0.0, np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]))
        ih = np.maximum(0.0, np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]))
        inter = iw * ih
        union = area[:, None] + area[None, :] - inter
        small = np.minimum(area[:, None], area[None, :])
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = np.where(union > 0, inter / union, 0.0)
            cover = np.where(small > 0, inter / small, 0.0)
        same_index = (iou > 0.3) | (cover > geom.same_index_cover)
        norm = np.hypot(up[:, 0], up[:, 1])
        cos = (up @ up.T) / np.maximum(norm[:, None] * norm[None, :], 1e-9)
        opposite = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))) >= geom.opposite_deg
        u = up / np.maximum(norm, 1e-9)[:, None]  # `_unit`; right = (-uy, ux), down = (-ux, -uy)
        pred = c + np.stack([-u[:, 1] * geom.cx - u[:, 0] * geom.cy, u[:, 0] * geom.cx - u[:, 1] * geom.cy], axis=1) * size[:, None]
        mean_size = (size[:, None] + size[None, :]) / 2
        gap = np.hypot(pred[:, None, 0] - pred[None, :, 0], pred[:, None, 1] - pred[None, :, 1])
        near = gap <= geom.link_radius * mean_size
        # `_diagonal_pair(a, b)` for every (a, b): b where a's card puts its opposite corner
        vx, vy = c[None, :, 0] - c[:, None, 0], c[None, :, 1] - c[:, None, 1]
        ux, uy = u[:, None, 0], u[:, None, 1]
        gx, gy = (-vx * uy + vy * ux) / mean_size, (-vx * ux - vy * uy) / mean_size
        wx, wy = 2 * geom.cx, 2 * geom.cy
        ratio = np.hypot(gx, gy) / math.hypot(wx, wy)
        gcos = (gx * wx + gy * wy) / np.maximum(np.hypot(gx, gy) * math.hypot(wx, wy), 1e-9)
        diag = (ratio >= 0.5) & (ratio <= 2.0) & (np.degrees(np.arccos(np.clip(gcos, -1.0, 1.0))) <= 25.0)
        both = has_up[:, None] & has_up[None, :] & opposite
        same_card = same_index | (both & (near | (diag & diag.T)))
        twins = has_up[:, None] & has_up[None, :] & ~opposite & ~same_index & ~near
        big = np.maximum(size[:, None], size[None, :])
        reach = 4.0 * float(np.hypot(geom.cx, geom.cy)) * big + big
        i, j = np.nonzero(np.triu(np.hypot(vx, vy) <= reach, 1))  # centre distances, from the offsets above
        return cls(list(zip(i.tolist(), j.tolist())), same_index, same_card, twins, gap / mean_size)


def _union(n: int, pairs: list[tuple[int, int]], apart: np.ndarray | None = None) -> list[list[int]]:
    """Connected components of n items linked by `pairs` (union-find), taken in order; a
    link that would put two items `apart[i, j]` says differ into one component is skipped."""
    parent = list(range(n))
    members = {i: [i] for i in range(n)}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        ri, rj = find(i), find(j)
        if ri == rj or (apart is not None and bool(apart[np.ix_(members[ri], members[rj])].any())):
            continue
        parent[ri] = rj
        members[rj] += members.pop(ri)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _components(obs: list[IndexObs], geom: CardGeometry, agree: np.ndarray | None = None) -> list[list[int]]:
    """Indices grouped into cards: the pairs that are one card (and, with `agree`, could read
    the same card: `agree[i, j] >= min_agree`), joined surest first (one index found twice,
    then by how close their predicted centres are), never two that are `apart`."""
    t = _Pairs.of(obs, geom)
    ranked = []
    for i, j in t.near:
        if agree is not None and agree[i, j] < geom.min_agree:
            continue
        if t.same_index[i, j]:
            ranked.append((0.0, i, j))
        elif t.same_card[i, j]:
            ranked.append((1.0 + float(t.centre_gap[i, j]), i, j))
    return _union(len(obs), [(i, j) for _, i, j in sorted(ranked)], t.apart)


def _make_group(card: str, members: list[IndexObs], geom: CardGeometry) -> CardGroup:
    miss = 1.0
    for m in members:  # scalars: most groups have one or two members (numpy's overhead)
        miss *= 1.0 - m.p
    conf = 1.0 - miss
    oriented = [m for m in members if m.up is not None]
    quad = None
    if oriented:
        best = max(oriented, key=lambda m: m.p)
        if len(oriented) == 1:
            size, centre = best.size, predicted_centre(best, geom)
        else:
            size = float(np.mean([m.size for m in oriented]))
            centre = np.mean([predicted_centre(m, geom) for m in oriented], axis=0)
        pair = _opposite_pair(oriented, geom)
        if pair is not None:  # two opposite corners: the centre is their midpoint, the scale their distance
            a, b = pair
            centre = (a.centre + b.centre) / 2
            d = float(np.linalg.norm(a.centre - b.centre))
            size = d / (2 * float(np.hypot(geom.cx, geom.cy)))
        quad = predicted_quad(best, centre, size, geom)
    return CardGroup(card=card, confidence=conf, members=members, quad=quad)


def _fused_groups(
    obs: list[IndexObs], geom: CardGeometry, ranks: tuple[str, ...], suits: tuple[str, ...], allowed: frozenset[str] | None = None
) -> list[CardGroup]:
    joints = np.stack([o.joint for o in obs])  # type: ignore[misc]
    if allowed is not None:  # each reading conditioned on the card being one the deck holds
        joints = joints * np.array([r + s in allowed for r in ranks for s in suits], np.float64)
        joints /= np.maximum(joints.sum(axis=1, keepdims=True), 1e-12)
    out = []
    for members in _components(obs, geom, joints @ joints.T):  # one card by geometry, could read alike
        logp = np.log(joints[members] + 1e-6).sum(axis=0)
        post = np.exp(logp - logp.max())
        post /= post.sum()
        k = int(post.argmax())
        card = ranks[k // len(suits)] + suits[k % len(suits)]
        items = [obs[i] for i in members]
        g = _make_group(card, items, geom)
        # one member: exactly its own p (rank_p * suit_p * index_p), as without fusion
        index_p = 1.0 - float(np.prod([1.0 - m.index_p for m in items]))
        g.confidence = float(post[k]) * index_p
        g.alternatives = _top_k(post, index_p, ranks, suits, g.card, g.confidence)
        g.posterior, g.index_p = post, index_p
        out.append(g)
    return out


def _top_k(
    post: np.ndarray, scale: float, ranks: tuple[str, ...], suits: tuple[str, ...], card: str, confidence: float
) -> tuple[tuple[str, float], ...]:
    """The TOP_K identities of a card's posterior `post` (rank-major), each probability × `scale`;
    the first is exactly (card, confidence)."""
    k = min(TOP_K, len(post))
    out = [(card, confidence)]
    for i in np.argsort(post)[::-1][:k].tolist():  # one numpy call: 52 identities
        c = ranks[i // len(suits)] + suits[i % len(suits)]
        if c != card and len(out) < k:
            out.append((c, float(post[i]) * scale))
    return tuple(out)


def group_indices(
    obs: list[IndexObs],
    geom: CardGeometry | None = None,
    two_decks: bool = False,
    labels: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
    allowed: frozenset[str] | None = None,
) -> list[CardGroup]:
    """Cards from indices: each physical card once, sorted by confidence (highest first).

    labels: (ranks, suits) in the order of the observations' distributions; with it (and
    distributions on every observation) the indices of a card are fused.
    allowed: the identities the game's deck holds (Khmer: A-6; piquet: 7-A). Fused, each
    reading is conditioned on it (a 6D read 8D 0.6 / 6D 0.3 is a 6D in Khmer); plain, a
    reading outside it is dropped.
    """
    geom = geom or CardGeometry()
    if labels is not None and obs and all(o.rank_probs is not None and o.suit_probs is not None for o in obs):
        return _scaled_to_the_deck(_keep_per_identity(_fused_groups(obs, geom, *labels, allowed), two_decks, geom, labels), geom)
    by_card: dict[str, list[IndexObs]] = {}
    for o in obs:
        if allowed is None or o.card in allowed:
            by_card.setdefault(o.card, []).append(o)
    groups = [_make_group(card, [items[i] for i in c], geom) for card, items in by_card.items() for c in _components(items, geom)]
    return _scaled_to_the_deck(_keep_per_identity(groups, two_decks, geom), geom)


def _opposite_pair(members: list[IndexObs], geom: CardGeometry) -> tuple[IndexObs, IndexObs] | None:
    """The two oriented members facing opposite ways that lie farthest apart (a card's
    diagonal), None when the card has no such pair."""
    oriented = [m for m in members if m.up is not None]
    pairs = [(a, b) for i, a in enumerate(oriented) for b in oriented[i + 1 :] if _angle_deg(a.up, b.up) >= geom.opposite_deg]  # type: ignore[arg-type]
    return max(pairs, key=lambda ab: float(np.linalg.norm(ab[0].centre - ab[1].centre))) if pairs else None


def _deck_scale(g: CardGroup, geom: CardGeometry) -> float | None:
    """How much bigger this card is, for the size of its indices, than the typical card of
    `geom`: its diagonal pair's distance over what indices of that size predict."""
    pair = _opposite_pair(g.members, geom)
    if pair is None:
        return None
    a, b = pair
    d = float(np.linalg.norm(a.centre - b.centre))
    return d / (2 * float(np.hypot(geom.cx, geom.cy))) / ((a.size + b.size) / 2)


def _scaled_to_the_deck(groups: list[CardGroup], geom: CardGeometry, min_cards: int = 2) -> list[CardGroup]:
    """Cards placed from one corner (or corners facing one way) sized by the deck in view.

    A lone index predicts its card with a typical index-to-card proportion, but decks differ
    (a tall thin rank, a big bold one: the card is smaller or larger for its index than the
    typical one). The cards of the image read from two opposite corners measure the deck's
    own proportion (`_deck_scale`); with at least `min_cards` of them, their median rescales
    the one-corner cards' outlines. Identities and confidences do not change."""
    scale = [_deck_scale(g, geom) for g in groups]
    measured = [k for k in scale if k is not None]
    if len(measured) < min_cards:
        return groups
    k = float(np.clip(np.median(measured), 0.5, 2.0))
    if abs(math.log(k)) < 0.05:
        return groups  # the typical deck: nothing to change
    for g, own in zip(groups, scale):
        oriented = [m for m in g.members if m.up is not None]
        if g.quad is None or not oriented or own is not None:
            continue
        best = max(oriented, key=lambda m: m.p)
        size = float(np.mean([m.size for m in oriented])) * k
        centre = np.mean([predicted_centre(m, geom, size) for m in oriented], axis=0)
        g.quad = predicted_quad(best, centre, size, geom)
    return groups


def _keep_per_identity(
    groups: list[CardGroup],
    two_decks: bool,
    geom: CardGeometry | None = None,
    labels: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
) -> list[CardGroup]:
    """A card exists once per deck: the best-supported group(s) of each identity, best first.
    A weaker group is dropped, or re-read without the identities already held when
    `geom.reassign_below` allows it (`_reread`)."""
    cap = 2 if two_decks else 1
    held: dict[str, list[CardGroup]] = {}
    for g in sorted(groups, key=lambda g: -g.confidence):
        kept = g if len(held.get(g.card, [])) < cap else _reread(g, held, cap, geom, labels)
        if kept is not None:
            held.setdefault(kept.card, []).append(kept)
        elif not two_decks:
            _absorb(held[g.card][0], g, geom or CardGeometry())
    return sorted((g for gs in held.values() for g in gs), key=lambda g: -g.confidence)


def _absorb(holder: CardGroup, part: CardGroup, geom: CardGeometry) -> None:
    """A dropped group of the holder's identity that lies on the holder's card (one deck: it
    is the same card) lends the holder its corners, so the outline is placed from all of them.

    Decks that print an index in all four corners: the top-right index, taken for a
    top-left one, puts the card beside itself, and its true mirror partner (bottom-left) is
    no partner by geometry, so the card came out as one group per corner pair and the
    surest one alone, often the wrong side, gave the box. With every corner the outline is
    set by the farthest opposite pair, a true diagonal (`_make_group`). The new outline is
    kept only when every corner sits at one of its four index places, so a stray read of the
    same identity near the card cannot drag it away; identity and confidence stay the
    holder's."""
    reach = geom.height * float(np.mean([m.size for m in holder.members]))
    if any(float(np.linalg.norm(m.centre - _index_centre(holder))) > reach for m in part.members):
        return
    members = holder.members + part.members
    quad = _make_group(holder.card, members, geom).quad
    if quad is None or not all(_at_a_corner(quad, m, geom) for m in members):
        return
    holder.members, holder.quad = members, quad


def _at_a_corner(quad: np.ndarray, obs: IndexObs, geom: CardGeometry, tolerance: float = 0.6) -> bool:
    """`obs` sits within `tolerance` index sizes of one of the four places a corner index has
    on the card `quad` (`predicted_quad`'s outline: (±cx, ±cy) index sizes from its centre)."""
    q = quad.astype(np.float64)
    across, along = q[1] - q[0], q[3] - q[0]
    size = float(np.linalg.norm(across)) / geom.width
    right = across / max(float(np.linalg.norm(across)), 1e-9)
    down = along / max(float(np.linalg.norm(along)), 1e-9)
    centre = q.mean(axis=0)
    places = [centre + (right * sx * geom.cx + down * sy * geom.cy) * size for sx in (-1, 1) for sy in (-1, 1)]
    return min(float(np.linalg.norm(obs.centre - p)) for p in places) <= tolerance * size


def _reread(
    g: CardGroup,
    held: dict[str, list[CardGroup]],
    cap: int,
    geom: CardGeometry | None,
    labels: tuple[tuple[str, ...], tuple[str, ...]] | None,
) -> CardGroup | None:
    """`g` read as the likeliest identity nobody holds yet: its posterior conditioned on not
    being any full identity (P(j | not taken) = P(j) / (1 − P(taken))). None when `g` is too
    sure of its identity or lies within a card of a holder (one card split in two)."""
    if geom is None or labels is None or g.posterior is None or geom.reassign_below <= 0:
        return None
    ranks, suits = labels
    post = g.posterior
    top = ranks.index(g.card[:-1]) * len(suits) + suits.index(g.card[-1])
    if post[top] >= geom.reassign_below:
        return None
    reach = geom.height * float(np.mean([m.size for m in g.members]))
    if any(float(np.linalg.norm(_index_centre(g) - _index_centre(h))) < reach for h in held[g.card]):
        return None
    free = post.copy()
    for card, gs in held.items():
        if len(gs) >= cap:
            free[ranks.index(card[:-1]) * len(suits) + suits.index(card[-1])] = 0.0
    if free.sum() <= 1e-9:
        return None
    free /= free.sum()
    k = int(free.argmax())
    card = ranks[k // len(suits)] + suits[k % len(suits)]
    conf = float(free[k]) * g.index_p
    return CardGroup(
        card=card,
        confidence=conf,
        members=g.members,
        quad=g.quad,
        alternatives=_top_k(free, g.index_p, ranks, suits, card, conf),
        posterior=free,
        index_p=g.index_p,
    )


def _index_centre(g: CardGroup) -> np.ndarray:
    """Mean centre of a card's index boxes (px)."""
    return np.array([m.centre for m in g.members]).mean(axis=0)
