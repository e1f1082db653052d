"""Render a `Timeline` into an overhead video with the synthetic scene composer.

Per frame: the table's card placements at that time, arms reaching in (one occluder per
active motion, its look fixed for the whole motion), the scene's camera (tilt, roll, lens),
then what changes from frame to frame on a real webcam: slow lighting drift, fresh
sensor noise, and compression (the video codec; optionally JPEG first).

The recording's layout is the director's table-plane layout projected through the same
camera, so its zones are where the cards appear in the image (what a calibration gives).
Card truth for the card-read metrics comes from the composer's own index labels.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.sim.director import Timeline
from vision.tracker.layout import Layout, layout_from_dict


@dataclass
class RenderInfo:
    frames: int
    conditions: dict[str, Any]
    card_frames: list[dict[str, Any]] = field(default_factory=list)
    layout: Layout | None = None


def video_conditions(rng: np.random.Generator) -> Any:
    """Random scene conditions, with the camera kept where a referee webcam sits (a tilt
    of a few degrees, little roll) and per-frame effects left to the video loop."""
    from vision.synth.conditions import SceneConditions

    cond = SceneConditions.random(rng)
    return replace(
        cond,
        tilt_deg=min(cond.tilt_deg, 10.0),
        roll_deg=max(-3.0, min(3.0, cond.roll_deg)),
        distortion_k1=max(-0.08, cond.distortion_k1),
        motion_blur=0.0,  # blur of a static table would be constant; arms move, not the camera
        blur_sigma=min(cond.blur_sigma, 0.8),
        brightness=max(0.75, min(1.2, cond.brightness)),
        glare=min(cond.glare, 0.5),
        noise_sigma=0.0,  # added per frame below
        jpeg_quality=None,  # the codec compresses; optional JPEG per frame below
    )


def project_layout(layout: Layout, camera: Any) -> Layout:
    """The table-plane layout as it appears through `camera` (image px)."""

    def proj(poly: Any) -> list[list[float]]:
        return [[round(float(x), 1), round(float(y), 1)] for x, y in camera.project(np.asarray(poly, float))]

    d = layout.to_dict()
    d["market"] = proj(layout.market)
    for name, seat in layout.seats.items():
        ax, ay = camera.project(np.asarray([seat.at], float))[0]
        w, h = layout.size
        d["seats"][name] = {"at": [round(float(np.clip(ax, 0, w)), 1), round(float(np.clip(ay, 0, h)), 1)], "reveal": proj(seat.reveal)}
    for name, k in layout.khmer.items():
        d["khmer"][name] = {"row": proj(k.row), "pile": proj(k.pile), "discard": proj(k.discard)}
    d["description"] = (layout.description + " (as seen by the simulated camera)").strip()
    return layout_from_dict(d, "<projected>")


def sees_table(layout: Layout) -> bool:
    """Whether the frame holds every zone of `layout` (image px; `Layout.out_of_view`)."""
    return not layout.out_of_view()


class FrameRenderer:
    """Renders frames of one timeline; repeats a static table without re-composing it."""

    def __init__(self, tl: Timeline, deck: Any, size: tuple[int, int], seed: int, noise_sigma: float | None = None) -> None:
        from vision.synth.camera import make_camera
        from vision.synth.conditions import make_surface

        self.tl = tl
        self.deck = deck
        self.size = size
        self.seed = seed
        game = str(tl.header.get("game", ""))
        room = sum(ord(c) for c in game)
        rng = np.random.default_rng([seed, room])  # a different room per game
        self.cond = video_conditions(rng)
        self.background = make_surface(self.cond, size, rng)
        self.camera = make_camera(self.cond, size)
        # A tilted camera zooms in to cover the frame, which can push the table's outer
        # zones (Khmer discards) out of view: cards laid there would be truth no camera sees.
        # A referee's camera is set up to see the whole table, so draw another room then (from
        # its own stream: recordings whose first camera sees everything stay as they were).
        for attempt in range(1, 40):
            if tl.layout is None or sees_table(project_layout(tl.layout, self.camera)):
                break
            alt = np.random.default_rng([seed, room, attempt])
            self.cond = video_conditions(alt)
            self.background = make_surface(self.cond, size, alt)
            self.camera = make_camera(self.cond, size)
        # Sensor noise is kept modest: the codec then spends its bits on the table, not the
        # noise, and a minute of 720p stays near 2-4 MB.
        self.noise_sigma = float(rng.uniform(0.8, 2.5))
        self.jpeg_quality = int(rng.integers(60, 92)) if rng.random() < 0.3 else None
        if noise_sigma is not None:  # chosen by the caller (small committed samples)
            self.noise_sigma = float(noise_sigma)
        self.drift_period = float(rng.uniform(20.0, 60.0))
        self.drift_amp = float(rng.uniform(0.03, 0.08))
        self._cache_key: Any = None
        self._cache: Any = None

    def compose(self, t: float) -> Any:
        """The composer's scene at t (clean: no per-frame noise), cached while static."""
        from vision.synth.scene import CardPlacement, Occluder, compose_table

        kf = self.tl.keyframe_index(t)
        arms = self.tl.arms_at(t)
        key = (kf, tuple((id(m), round(p[0], 1), round(p[1], 1)) for m, p in arms))
        if key == self._cache_key:
            return self._cache
        placed = self.tl.placements_at(t)
        h = self.tl.card_height
        cards = [CardPlacement(p.card, p.center, p.angle, h, p.face_up) for p in placed]
        occ = [
            Occluder.arm(m.start, tip, m.width, np.random.default_rng([self.seed, self.tl.motions.index(m)]))
            for m, tip in arms
        ]
        scene = compose_table(
            cards, self.deck, size=self.size, conditions=self.cond, rng=np.random.default_rng(self.seed),
            occluders=occ, background=self.background,
        )
        self._cache_key, self._cache = key, scene
        return scene

    def frame(self, index: int, fps: float) -> tuple[np.ndarray, Any]:
        """The video frame `index` (BGR uint8) and its clean scene (labels)."""
        import cv2

        t = index / fps
        scene = self.compose(t)
        img = scene.image.astype(np.float32)
        # lighting drift: slow brightness change plus a lamp gradient that wanders, in the
        # steps of a webcam's auto-exposure (every 2 s) rather than a change every frame
        t = math.floor(t / 2.0) * 2.0
        gain = 1.0 + self.drift_amp * math.sin(2 * math.pi * t / self.drift_period)
        w, h = self.size
        phase = 2 * math.pi * t / (self.drift_period * 1.7)
        gx = np.linspace(-1, 1, w, dtype=np.float32)[None, :] * math.cos(phase)
        gy = np.linspace(-1, 1, h, dtype=np.float32)[:, None] * math.sin(phase)
        img *= (gain * (1.0 + 0.04 * (gx + gy)))[..., None]
        rng = np.random.default_rng([self.seed, 7, index])
        img += rng.standard_normal((h, w, 1), dtype=np.float32) * self.noise_sigma
        out = np.clip(img, 0, 255).astype(np.uint8)
        if self.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
            if ok:
                out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out, scene


def visible_cards(scene: Any) -> list[dict[str, Any]]:
    """Readable cards of a rendered scene: one entry per card with a visible index,
    its box the union of its visible index boxes (what a reader can see)."""
    by_id: dict[int, tuple[str, list[float]]] = {}
    for lab in scene.labels:
        card, box = by_id.get(lab.card_id, (lab.card, [1e9, 1e9, -1e9, -1e9]))
        box = [min(box[0], lab.box[0]), min(box[1], lab.box[1]), max(box[2], lab.box[2]), max(box[3], lab.box[3])]
        by_id[lab.card_id] = (card, box)
    return [{"card": c, "box": [round(v, 1) for v in b]} for _, (c, b) in sorted(by_id.items())]


def render_video(
    tl: Timeline, deck: Any, out_path: Path, fps: float, size: tuple[int, int], seed: int,
    card_every_s: float = 1.0, progress: bool = True, noise_sigma: float | None = None,
) -> RenderInfo:
    """Write the video (mp4v) and return what the recording's metadata needs."""
    import cv2
    from tqdm import tqdm

    renderer = FrameRenderer(tl, deck, size, seed, noise_sigma)
    n = int(round(tl.duration * fps))
    writer = cv2.VideoWriter(str(out_path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise RuntimeError(f"{out_path}: OpenCV cannot write mp4v video here")
    every = max(1, int(round(card_every_s * fps)))
    card_frames: list[dict[str, Any]] = []
    try:
        for i in tqdm(range(n), desc=out_path.parent.name, unit="frame", disable=not progress, leave=False):
            img, scene = renderer.frame(i, fps)
            writer.write(img)
            if i % every == 0:
                card_frames.append({"frame": i, "t": round(i / fps, 3), "cards": visible_cards(scene)})
    finally:
        writer.release()
    cond = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(renderer.cond).items()}
    cond.update(noise_sigma_per_frame=renderer.noise_sigma, jpeg_quality_per_frame=renderer.jpeg_quality,
                lighting_drift=[renderer.drift_amp, renderer.drift_period])  # fmt: skip
    assert tl.layout is not None
    return RenderInfo(frames=n, conditions=cond, card_frames=card_frames, layout=project_layout(tl.layout, renderer.camera))
