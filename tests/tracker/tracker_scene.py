"""A tiny overhead table for tracker tests: drawn cards, arms, and a reader built from truth.

`Scene` knows where every card lies and draws a frame (green cloth, white cards with a
pattern unique to each card, skin-coloured arms, camera noise). `TruthReader` answers
`read(image, roi)` from the scene's truth, like the real reader would: a card is read
when its centre is in the crop and less than `max_cover` of it is under an arm; reads can
be dropped at random (flicker) or given low confidence. Test-only, never shipped.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.tracker.layout import Layout
from vision.types import CardDetections, Frame

CARD_W, CARD_H = 56, 80


@dataclass
class Placed:
    card: str
    box: tuple[float, float, float, float]


@dataclass
class Arm:
    start: tuple[float, float]
    end: tuple[float, float]
    width: int = 70


def _pips(card: str) -> list[bool]:
    h = hashlib.sha1(card.encode()).digest()
    return [bool(h[i] & 1) for i in range(12)]


def _colour(card: str) -> tuple[int, int, int]:
    h = hashlib.md5(card.encode()).digest()
    return int(h[0]), int(h[1]), int(h[2])


@dataclass
class Scene:
    layout: Layout
    size: tuple[int, int] = (1280, 720)
    noise: float = 3.0
    seed: int = 0
    cards: list[Placed] = field(default_factory=list)
    arms: list[Arm] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.layout = self.layout.scaled(self.size)
        rng = np.random.default_rng(self.seed)
        w, h = self.size
        noise = [rng.normal(0, self.noise, (h, w, 3)) for _ in range(4)]
        # Split into saturating uint8 add/subtract images: cheap to apply every frame.
        self._noise = [(np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)) for n in noise]
        self._n = 0
        self.arm_mask = np.zeros((h, w), np.uint8)

    # ---- placing -----------------------------------------------------------------------
    def slots(self, zone: str, n: int) -> list[tuple[float, float, float, float]]:
        """n card boxes spread left to right across a zone."""
        poly = np.array(self.layout.zones()[zone])
        x1, y1 = poly.min(axis=0)
        x2, y2 = poly.max(axis=0)
        cy = (y1 + y2) / 2
        xs = np.linspace(x1 + CARD_W * 0.7, x2 - CARD_W * 0.7, n) if n > 1 else [(x1 + x2) / 2]
        return [(float(x - CARD_W / 2), float(cy - CARD_H / 2), float(x + CARD_W / 2), float(cy + CARD_H / 2)) for x in xs]

    def place(self, zone: str, cards: list[str]) -> None:
        for card, box in zip(cards, self.slots(zone, len(cards))):
            # laid by hand: a few pixels off the slot, differently for each card
            h = hashlib.sha1(card.encode()).digest()
            dx, dy = h[20 - 1] % 9 - 4, h[20 - 2] % 9 - 4
            self.cards.append(Placed(card, (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)))

    def cards_in(self, zone: str) -> list[Placed]:
        poly = np.array(self.layout.zones()[zone], np.float32)
        out = []
        for p in self.cards:
            c = ((p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2)
            if cv2.pointPolygonTest(poly, c, False) >= 0:
                out.append(p)
        return out

    def remove(self, card: str) -> Placed:
        p = next(p for p in self.cards if p.card == card)
        self.cards.remove(p)
        return p

    def replace(self, old: str, new: str, shift: tuple[float, float] = (5.0, 3.0)) -> None:
        """`new` laid where `old` was, a few pixels off (a hand never lays a card exactly
        where the last one lay; `shift=(0, 0)` for a look-alike laid exactly in place)."""
        p = self.remove(old)
        b = p.box
        self.cards.append(Placed(new, (b[0] + shift[0], b[1] + shift[1], b[2] + shift[0], b[3] + shift[1])))

    # ---- drawing -----------------------------------------------------------------------
    def render(self) -> np.ndarray:
        w, h = self.size
        img = np.empty((h, w, 3), np.uint8)
        img[:] = (40, 110, 40)
        for p in self.cards:
            x1, y1, x2, y2 = (int(round(v)) for v in p.box)
            cv2.rectangle(img, (x1, y1), (x2, y2), (235, 235, 235), -1)
            cv2.rectangle(img, (x1 + 6, y1 + 10), (x2 - 6, y2 - 10), _colour(p.card), -1)
            # pips: a card-specific pattern, as real cards differ in shape and not only in colour
            pw, ph = (x2 - x1 - 16) / 3, (y2 - y1 - 24) / 4
            for k, bit in enumerate(_pips(p.card)):
                if bit:
                    px, py = x1 + 8 + (k % 3) * pw, y1 + 12 + (k // 3) * ph
                    cv2.rectangle(img, (int(px), int(py)), (int(px + pw - 2), int(py + ph - 2)), (20, 20, 20), -1)
            cv2.putText(img, p.card, (x1 + 3, y1 + 9), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 0), 1)
        self.arm_mask[:] = 0
        for a in self.arms:
            cv2.line(self.arm_mask, _pt(a.start), _pt(a.end), 255, a.width)
            cv2.circle(self.arm_mask, _pt(a.end), int(a.width * 0.8), 255, -1)
        img[self.arm_mask > 0] = (120, 150, 200)
        self._n += 1
        plus, minus = self._noise[self._n % len(self._noise)]
        return cv2.subtract(cv2.add(img, plus), minus)


def _pt(p: tuple[float, float]) -> tuple[int, int]:
    return int(round(p[0])), int(round(p[1]))


@dataclass
class TruthReader:
    """Reads the scene's truth as a detector would see it (test double, not a feature)."""

    scene: Scene
    drop: float = 0.0
    seed: int = 0
    max_cover: float = 0.3
    confidence: float = 0.92
    calls: int = 0
    pixels: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def read(
        self,
        image_bgr: np.ndarray,
        roi: tuple[int, int, int, int] | None = None,
        two_decks: bool = False,
        cards: frozenset[str] | None = None,
        min_p: float | None = None,
        index_px: float | None = None,  # the truth has no resolution
    ) -> CardDetections:
        self.calls += 1
        h, w = image_bgr.shape[:2]
        x1, y1, x2, y2 = roi if roi is not None else (0, 0, w, h)
        self.pixels += (x2 - x1) * (y2 - y1)
        boxes, confs, cards = [], [], []
        for i, p in enumerate(self.scene.cards):
            cx, cy = (p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2
            if not (x1 <= cx < x2 and y1 <= cy < y2):
                continue
            if any(_covers(q.box, p.box) for q in self.scene.cards[i + 1 :]):
                continue  # stacked under a card laid later (a pile shows its top card only)
            bx1, by1, bx2, by2 = (int(round(v)) for v in p.box)
            sub = self.scene.arm_mask[max(0, by1) : by2, max(0, bx1) : bx2]
            if sub.size and np.count_nonzero(sub) / sub.size > self.max_cover:
                continue
            if self.rng.random() < self.drop:
                continue
            boxes.append(p.box)
            confs.append(self.confidence + self.rng.uniform(-0.05, 0.05))
            cards.append(p.card)
        if not cards:
            return CardDetections.empty()
        return CardDetections(np.array(boxes, np.float32), np.array(confs, np.float32), cards)


@dataclass
class Player:
    """Drives a scene through time: scripted arm motions and card changes, frame by frame."""

    scene: Scene
    fps: float = 30.0
    index: int = 0
    actions: list[tuple[float, float, object]] = field(default_factory=list)

    @property
    def t(self) -> float:
        return self.index / self.fps

    def frame(self) -> Frame:
        f = Frame(self.scene.render(), self.t, self.index)
        self.index += 1
        return f


def reach(scene: Scene, seat: str, target: tuple[float, float], progress: float) -> None:
    """Set a single arm from the seat's edge towards `target` at `progress` in [0, 1]."""
    at = scene.layout.seats[seat].at
    end = (at[0] + (target[0] - at[0]) * progress, at[1] + (target[1] - at[1]) * progress)
    scene.arms = [Arm(at, end)] if progress > 0 else []


def _covers(top: tuple[float, float, float, float], under: tuple[float, float, float, float]) -> bool:
    """`top` hides at least 90 % of `under`."""
    w = min(top[2], under[2]) - max(top[0], under[0])
    h = min(top[3], under[3]) - max(top[1], under[1])
    area = (under[2] - under[0]) * (under[3] - under[1])
    return w > 0 and h > 0 and area > 0 and w * h >= 0.9 * area


@dataclass
class Driver:
    """Runs a pipeline on a scene and collects what it says."""

    pipe: object
    scene: Scene
    fps: float = 30.0
    index: int = 0
    events: list[dict] = field(default_factory=list)
    notices: list[dict] = field(default_factory=list)

    @property
    def t(self) -> float:
        return self.index / self.fps

    def step(self) -> object:
        f = Frame(self.scene.render(), self.index / self.fps, self.index)
        self.index += 1
        out = self.pipe.process(f)  # type: ignore[attr-defined]
        self.events += out.events
        self.notices += out.notices
        return out

    def wait(self, seconds: float) -> None:
        for _ in range(int(round(seconds * self.fps))):
            self.step()

    def arm(self, seat: str, target: tuple[float, float], seconds: float = 0.4, back: bool = False) -> None:
        n = max(1, int(round(seconds * self.fps)))
        for i in range(1, n + 1):
            p = i / n
            reach(self.scene, seat, target, 1 - p if back else p)
            self.step()

    def swap(self, seat: str, take: str, give: str) -> float:
        """A player's arm reaches the market card `take`, leaves `give` there. Returns t of the swap."""
        box = next(p.box for p in self.scene.cards if p.card == take)
        target = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        self.arm(seat, target)
        self.scene.replace(take, give)
        t = self.t
        self.wait(0.2)
        self.arm(seat, target, back=True)
        return t
