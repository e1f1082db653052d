"""Random table layouts that the games produce (table-plane px).

Groups, each placed at its own anchor and facing a seat: the 4-card market, scattered
cards, hands laid face-up in an overlapping row, fans (only the top-left indices
show), Khmer cascades (each card shifted down so every value stays visible), stacked
piles (only the top card readable), face-down backs and the reserve pile, and arms
reaching in from the table edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from vision.synth.decks import DeckArt

if TYPE_CHECKING:
    from vision.synth.scene import CardPlacement, Occluder, RenderedScene

# A card is 90-200 px tall in a 1280x720 frame for a 720p webcam 0.6-1.2 m above the table.
CARD_HEIGHT_PER_FRAME_HEIGHT = (90 / 720, 200 / 720)

GROUPS: dict[str, float] = {
    "market": 0.5,
    "scattered": 0.45,
    "hand": 0.4,
    "fan": 0.35,
    "cascade": 0.35,
    "pile": 0.3,
    "backs": 0.4,
}


def default_card_height_range(size: tuple[int, int]) -> tuple[float, float]:
    h = size[1]
    return CARD_HEIGHT_PER_FRAME_HEIGHT[0] * h, CARD_HEIGHT_PER_FRAME_HEIGHT[1] * h


def _rot(angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (along the row, down the card) for a card rotated by angle (CCW, y down)."""
    a = np.radians(angle_deg)
    u = np.array([np.cos(a), -np.sin(a)])
    v = np.array([np.sin(a), np.cos(a)])
    return u, v


def random_layout(
    rng: np.random.Generator,
    size: tuple[int, int],
    deck: DeckArt,
    card_height_range: tuple[float, float] | None = None,
    arm_probability: float = 0.35,
) -> tuple[list[CardPlacement], list[Occluder]]:
    """Placements (z order) and occluders for one random table."""
    from vision.synth.scene import CardPlacement, Occluder

    W, H = size
    lo, hi = card_height_range or default_card_height_range(size)
    ch = float(rng.uniform(lo, hi))
    fw, fh = deck.size
    cw = ch * fw / fh
    pool = list(rng.permutation(deck.cards))
    out: list[CardPlacement] = []

    def take() -> str:
        return pool.pop() if pool else str(rng.choice(deck.cards))

    def card(center: np.ndarray, angle: float, face_up: bool = True) -> None:
        out.append(CardPlacement(take(), (float(center[0]), float(center[1])), float(angle), ch * float(rng.uniform(0.97, 1.03)), face_up))

    names = list(GROUPS)
    weights = np.array([GROUPS[n] for n in names])
    n_groups = int(rng.integers(1, 5))
    chosen = rng.choice(names, size=n_groups, p=weights / weights.sum())
    anchors: list[np.ndarray] = []
    for kind in chosen:
        # spread group anchors apart (a few tries), allow groups to run off the edge a bit
        best = None
        for _ in range(8):
            a = np.array([rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H])
            dmin = min((np.linalg.norm(a - b) for b in anchors), default=1e9)
            if best is None or dmin > best[0]:
                best = (dmin, a)
            if dmin > 1.6 * ch:
                break
        anchor = best[1]  # type: ignore[index]
        anchors.append(anchor)
        seat = float(rng.choice([0, 90, 180, 270])) + float(rng.normal(0, 8))
        u, v = _rot(seat)
        if kind == "market":
            gap = cw * rng.uniform(1.05, 1.5)
            if rng.random() < 0.75:
                for k in range(4):
                    card(anchor + u * gap * (k - 1.5) + rng.normal(0, 0.03 * ch, 2), seat + rng.normal(0, 4))
            else:
                for k in range(4):
                    off = u * gap * ((k % 2) - 0.5) + v * ch * 1.1 * ((k // 2) - 0.5)
                    card(anchor + off + rng.normal(0, 0.03 * ch, 2), seat + rng.normal(0, 4))
        elif kind == "scattered":
            for _ in range(int(rng.integers(1, 7))):
                card(np.array([rng.uniform(0, W), rng.uniform(0, H)]), rng.uniform(0, 360), rng.random() < 0.85)
        elif kind == "hand":
            n = int(rng.integers(4, 9))
            step = cw * rng.uniform(0.22, 0.7)
            for k in range(n):
                card(anchor + u * step * (k - (n - 1) / 2) + v * rng.normal(0, 0.02 * ch), seat + rng.normal(0, 2))
        elif kind == "fan":
            n = int(rng.integers(3, 9))
            spread = rng.uniform(6, 14)
            radius = ch * rng.uniform(0.55, 0.95)
            pivot = anchor + v * radius * 0.6
            for k in range(n):
                a = seat + spread * ((n - 1) / 2 - k)
                _, vk = _rot(a)
                card(pivot - vk * radius, a)
        elif kind == "cascade":
            n = int(rng.integers(3, 8))
            step = ch * rng.uniform(0.17, 0.32)
            start = anchor - v * step * (n - 1) / 2
            for k in range(n):
                card(start + v * step * k + u * rng.normal(0, 0.03 * cw), seat + rng.normal(0, 3))
        elif kind == "pile":
            for _ in range(int(rng.integers(2, 7))):
                card(anchor + rng.normal(0, 0.04 * ch, 2), seat + rng.normal(0, 7))
        else:  # backs: the reserve pile and face-down cards
            for _ in range(int(rng.integers(2, 10))):
                card(anchor + rng.normal(0, 0.025 * ch, 2), seat + rng.normal(0, 5), face_up=False)
            if rng.random() < 0.5:
                n = int(rng.integers(1, 5))
                for k in range(n):
                    card(anchor + u * cw * 1.15 * (k + 1.2), seat + rng.normal(0, 4), face_up=False)
    occluders: list[Occluder] = []
    if out and rng.random() < arm_probability:
        for _ in range(int(rng.integers(1, 3))):
            target = out[int(rng.integers(len(out)))].center
            edge = int(rng.integers(4))
            t = rng.uniform(0.1, 0.9)
            start = [(t * W, -0.15 * H), (t * W, 1.15 * H), (-0.15 * W, t * H), (1.15 * W, t * H)][edge]
            end = np.asarray(target) + rng.normal(0, 0.4 * ch, 2)
            occluders.append(Occluder.arm(start, (float(end[0]), float(end[1])), ch * float(rng.uniform(0.6, 0.95)), rng))
    return out, occluders


def random_scene(
    rng: np.random.Generator,
    decks: Sequence[DeckArt],
    size: tuple[int, int] = (640, 640),
    card_height_range: tuple[float, float] | None = None,
    min_visible: float | None = None,
) -> RenderedScene:
    """One random deck, layout and set of conditions."""
    from vision.synth.scene import DEFAULT_MIN_VISIBLE, SceneConditions, compose_table

    deck = decks[int(rng.integers(len(decks)))]
    placements, occluders = random_layout(rng, size, deck, card_height_range)
    cond = SceneConditions.random(rng)
    return compose_table(
        placements, deck, size, cond, rng, occluders, min_visible=DEFAULT_MIN_VISIBLE if min_visible is None else min_visible
    )
