"""Motion gating on a small grey copy of each frame: which zones moved, which are covered.

Everything here works at 1/`scale` resolution (160×90 for 720p), so one frame costs well
under a millisecond. Per zone it reports

- `moving`: share of the zone's pixels that changed since the previous frame;
- `changed`: share that differs from the zone's reference (the view at its last read) —
  a still zone that changed since it was last read must be read again;
- `crossing`: share of a thin ring just outside the zone that differs from the slow
  background — an arm reaching into a zone crosses its border, a card laid in it does not,
  so a hand resting still over the market is still seen as a cover.

It also tells where an arm comes from: the far end, from the zone, of the changed blob
that touches the zone's ring (used to name the seat of a swap).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.tracker.layout import ZoneMasks


@dataclass(frozen=True)
class MotionConfig:
    scale: int = 8
    pixel_threshold: int = 14  # grey levels (0-255) at 1/8 scale, above camera noise
    moving_share: float = 0.02  # share of a zone's pixels moving → the zone is disturbed
    changed_share: float = 0.01  # share differing from the reference → read again
    crossing_share: float = 0.03  # an arm 8 px wide (1/8 scale) over a 3 px ring of a 32×23 zone: ~7 %
    ring_px: int = 3  # ring width at small scale (24 px at 720p)
    background_rate: float = 0.05  # per frame where the scene matches it (lighting drift)
    relight_sigma: float = 10.0  # px at 1/8 scale: brightness changes smoother than this are lighting
    absorb_s: float = 3.0  # a still difference this old becomes background
    # A frame in which at least this share of all pixels changed is an exposure or lighting
    # step (an arm covers far less of the frame): what still moves must also break the
    # frame's own tone curve (new brightness as a function of old, fitted on the whole
    # frame; the same against the background). The smooth gain of `relight_sigma` alone
    # gives a dark pattern and the bright felt around it one ratio: an auto-exposure step
    # moved 20 % of a Khmer centre holding the stock (khmer-7700), and the deal was timed
    # from it, 2.2 s late. None: off.
    tone_step_share: float | None = 0.3
    # On such a step the whole background takes the frame's new tone curve at once. Else
    # the pixels it was not learning then (an arm passing, a card not yet absorbed) kept
    # the old light, a ghost over a zone's ring until absorbed (khmer-9680: a Khmer row
    # "covered" 2.7 s after a play, the play dated too late and the deal lost). False:
    # the background catches up pixel by pixel.
    step_background: bool = True
    # An arm can have the table's grey (tan skin on a lavender felt: the same brightness, a
    # different colour), so a still arm over a zone's ring differs from the background in
    # colour only, and the grey test alone lets the background learn it. A pixel whose
    # chromaticity (B and R shares of B+G+R, × 255; a brightness change leaves it as it is)
    # moved from the background's by at least this much also differs. None: grey only.
    # Off by default, by measurement (datasets/README.md, "A second fresh set, and a colour test
    # in the motion gate", and "The colour test's lost close found"): with the fix of 5 Dec
    # it costs khmer-9614 nothing any more, but on 48 recordings it gains two events (a swap,
    # a deal's timing) and loses two (an oxygen play, a lattmann reset read as JH for QH).
    chroma_threshold: float | None = None
    # `ZoneMotion.fresh_crossing` counts the ring pixels that moved within this long.
    fresh_s: float = 1.0


@dataclass(frozen=True)
class ZoneMotion:
    moving: float
    changed: float
    crossing: float
    # the part of `crossing` that moved within `MotionConfig.fresh_s`: an arm, not a card
    # laid across the zone's edge that the background has not absorbed yet
    fresh_crossing: float = 0.0


class MotionGate:
    def __init__(self, masks: ZoneMasks, config: MotionConfig | None = None, fps: float = 30.0) -> None:
        import cv2

        self.cfg = config or MotionConfig()
        self.masks = masks
        self._absorb = max(1, int(round(self.cfg.absorb_s * fps)))
        self._fresh = max(1, int(round(self.cfg.fresh_s * fps)))
        self._prev: np.ndarray | None = None
        self._bg: np.ndarray | None = None
        self._cbg: np.ndarray | None = None  # background chromaticity (H, W, 2)
        self._cprev: np.ndarray | None = None  # previous frame's chromaticity
        self._still: np.ndarray | None = None
        self._refs: dict[str, np.ndarray] = {}
        self.small: np.ndarray | None = None
        self.diff_bg: np.ndarray | None = None
        # (the diff_bg they were found in, count, labels): connected blobs, for arm_origin
        self._blobs: tuple[np.ndarray, int, np.ndarray] | None = None
        self.moving: np.ndarray | None = None
        k = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * self.cfg.ring_px + 1, 2 * self.cfg.ring_px + 1))
        self._open = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
        self._zone_px: dict[str, np.ndarray] = {}
        self._ring_px: dict[str, np.ndarray] = {}
        for name in masks.names:
            m = (masks.small == masks.index(name)).astype(np.uint8)
            ring = cv2.dilate(m, k) & (1 - m) & (masks.small == 0)
            self._zone_px[name] = np.flatnonzero(m.ravel())
            self._ring_px[name] = np.flatnonzero(ring.ravel())
        sw, sh = masks.small.shape[1], masks.small.shape[0]
        self._dsize = (sw, sh)

    def update(self, image: np.ndarray) -> dict[str, ZoneMotion]:
        """Feed one full-resolution BGR frame; per-zone motion statistics."""
        import cv2

        colour = cv2.resize(image, self._dsize, interpolation=cv2.INTER_AREA)
        small = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY) if colour.ndim == 3 else colour
        prev = self._prev if self._prev is not None else small
        if self._bg is None:
            self._bg = small.astype(np.float32)
        thr = self.cfg.pixel_threshold
        # Lighting drifts over the whole table (a cloud, a lamp, the camera's exposure): compare
        # with the background relit by the smooth brightness ratio between the two, so only
        # local changes (an arm, a card) stand out.
        sf = small.astype(np.float32)
        moving = cv2.absdiff(small, prev) > thr
        if moving.any():
            # The same from one frame to the next: an auto-exposure step moves the whole
            # table at once, and must not read as an arm over every zone.
            pf = prev.astype(np.float32)
            step = self.cfg.tone_step_share is not None and moving.mean() >= self.cfg.tone_step_share
            moving = np.abs(sf - pf * self._relight(sf, pf)) > thr
            if step:
                moving &= np.abs(sf - _tone_curve(sf, pf)) > thr
            if step and self.cfg.step_background:
                self._bg = _tone_curve(sf, pf, at=self._bg)
        diff_raw = np.abs(sf - self._bg * self._relight(sf, self._bg)) > thr
        share = self.cfg.tone_step_share
        if share is not None and (np.abs(sf - self._bg) > thr).mean() >= share:
            # the same against the background after such a step (else every zone's ring
            # reads as crossed until the background has caught up, ~1 s)
            diff_raw &= np.abs(sf - _tone_curve(sf, self._bg)) > thr
        chroma = self._chroma(colour) if self.cfg.chroma_threshold is not None and colour.ndim == 3 else None
        if chroma is not None:
            if self._cbg is None:
                self._cbg = chroma.copy()
            lit = sf > 24.0  # chromaticity of near-black pixels is noise
            diff_raw |= lit & self._chroma_moved(chroma, self._cbg)
            # The same from the previous frame: a pixel new in colour only has just changed.
            # Else its grey stillness counts, and a difference still for `absorb_s` in grey
            # is learnt at once: a grey-invisible arm went into the background the frame it
            # arrived (khmer-9614: a discard misread under a resting hand).
            moving |= lit & self._chroma_moved(chroma, self._cprev if self._cprev is not None else chroma)
            self._cprev = chroma
        # An arm is a solid blob; scattered pixels (noise, light drift, compression) are not.
        diff_bg = cv2.morphologyEx(diff_raw.astype(np.uint8), cv2.MORPH_OPEN, self._open).astype(bool)
        # Selective background: it follows slow drift where the scene matches it, and takes
        # in a difference only once it has been still for `absorb_frames` (a card put down
        # outside every zone). An arm passing by is never learnt, so it leaves no ghost.
        if self._still is None:
            self._still = np.zeros(small.shape, np.uint16)
        self._still = np.where(moving, 0, np.minimum(self._still + 1, 65000)).astype(np.uint16)
        same = ~diff_bg & ~moving
        self._bg[same] += self.cfg.background_rate * (small[same] - self._bg[same])
        old = (self._still >= self._absorb) & diff_bg
        self._bg[old] = small[old]
        if chroma is not None:  # (its background was set above)
            assert self._cbg is not None
            self._cbg[same] += self.cfg.background_rate * (chroma[same] - self._cbg[same])
            self._cbg[old] = chroma[old]
        self._prev, self.small, self.diff_bg, self.moving = small, small, diff_bg, moving
        mv, db = moving.ravel(), diff_bg.ravel()
        fresh = db & (self._still.ravel() < self._fresh)
        flat = small.ravel()
        out: dict[str, ZoneMotion] = {}
        for name, px in self._zone_px.items():
            n = max(1, len(px))
            ref = self._refs.get(name)
            changed = 1.0 if ref is None else float(np.count_nonzero(np.abs(flat[px].astype(np.int16) - ref) > thr)) / n
            ring = self._ring_px[name]
            out[name] = ZoneMotion(
                moving=float(np.count_nonzero(mv[px])) / n,
                changed=changed,
                crossing=float(np.count_nonzero(db[ring])) / max(1, len(ring)),
                fresh_crossing=float(np.count_nonzero(fresh[ring])) / max(1, len(ring)),
            )
        return out

    @staticmethod
    def _chroma(colour: np.ndarray) -> np.ndarray:
        """B and R shares of each pixel's B+G+R, × 255 (H, W, 2)."""
        c = colour.astype(np.float32)
        total = c.sum(axis=2, keepdims=True) + 8.0
        return c[:, :, [0, 2]] * (255.0 / total)

    def _chroma_moved(self, chroma: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """Pixels whose chromaticity moved from `ref`'s by at least the threshold, after
        removing the shift common to the whole table (a colour cast is lighting)."""
        assert self.cfg.chroma_threshold is not None
        d = chroma - ref
        d -= np.median(d.reshape(-1, 2), axis=0)
        return np.abs(d).max(axis=2) >= self.cfg.chroma_threshold

    def _relight(self, sf: np.ndarray, bg: np.ndarray) -> np.ndarray:
        """Smooth brightness ratio frame / reference (background or previous frame),
        estimated without the pixels that changed a lot (cards, arms: they would bleed a
        halo into their surroundings). Computed at a further 1/4 scale (it is smooth by
        definition), then upsampled."""
        import cv2

        h, w = sf.shape
        dsize = (max(2, w // 4), max(2, h // 4))
        a = cv2.resize(sf, dsize, interpolation=cv2.INTER_AREA)
        b = cv2.resize(bg, dsize, interpolation=cv2.INTER_AREA)
        s = self.cfg.relight_sigma / 4
        g1 = (cv2.GaussianBlur(a, (0, 0), s) + 8.0) / (cv2.GaussianBlur(b, (0, 0), s) + 8.0)
        wt = (np.abs(a - b * g1) <= 2 * self.cfg.pixel_threshold).astype(np.float32)
        bw = cv2.GaussianBlur(wt, (0, 0), s) * 8.0
        num = cv2.GaussianBlur(a * wt, (0, 0), s) + bw
        den = cv2.GaussianBlur(b * wt, (0, 0), s) + bw
        gain = np.where(den > 1.0, num / np.maximum(den, 1e-3), g1).astype(np.float32)
        return cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)

    def set_reference(self, zone: str) -> None:
        """Remember the zone as it is now (just read)."""
        if self.small is not None:
            self._refs[zone] = self.small.ravel()[self._zone_px[zone]].astype(np.int16)

    def moved_over(self, box: tuple[float, float, float, float]) -> bool:
        """Whether anything moved this frame over a card whose index box (full resolution)
        is `box`: the box grown by its own size each way (the card around its index)."""
        if self.moving is None:
            return True
        s = self.masks.scale
        w, h = box[2] - box[0], box[3] - box[1]
        pad = max(16.0, w, h)
        H, W = self.moving.shape
        x1, y1 = max(0, int((box[0] - pad) / s)), max(0, int((box[1] - pad) / s))
        x2, y2 = min(W, int((box[2] + pad) / s) + 1), min(H, int((box[3] + pad) / s) + 1)
        return x2 <= x1 or y2 <= y1 or bool(self.moving[y1:y2, x1:x2].any())

    def is_moving(self, m: ZoneMotion) -> bool:
        return m.moving >= self.cfg.moving_share

    def is_covered(self, m: ZoneMotion) -> bool:
        return m.moving >= self.cfg.moving_share or m.crossing >= self.cfg.crossing_share

    def is_freshly_covered(self, m: ZoneMotion) -> bool:
        """`is_covered`, counting only the crossing that moved within `fresh_s`: a hand, not a
        card laid across the zone's edge that the background has not absorbed yet."""
        return m.moving >= self.cfg.moving_share or m.fresh_crossing >= self.cfg.crossing_share

    def needs_read(self, m: ZoneMotion) -> bool:
        return m.changed >= self.cfg.changed_share

    def arm_origin(self, zone: str) -> tuple[float, float] | None:
        """Full-resolution point where the arm covering `zone` is farthest from it, if any."""
        import cv2

        if self.diff_bg is None:
            return None
        if self._blobs is None or self._blobs[0] is not self.diff_bg:  # once a frame, for every zone
            self._blobs = (self.diff_bg, *cv2.connectedComponents(self.diff_bg.astype(np.uint8), connectivity=8))
        _, n, labels = self._blobs
        if n <= 1:
            return None
        ring_labels = labels.ravel()[self._ring_px[zone]]
        ids = np.unique(ring_labels[ring_labels > 0])
        if self.moving is not None and len(ids):
            # Only a blob that moves is an arm (a pile put down by the market is not).
            ids = ids[np.isin(ids, np.unique(labels[self.moving]))]
        if len(ids) == 0:
            return None
        sel = np.isin(labels, ids) & (self.masks.small != self.masks.index(zone))
        ys, xs = np.nonzero(sel)
        if len(xs) < 4:
            return None
        zx1, zy1, zx2, zy2 = self.masks.boxes[zone]
        s = self.masks.scale
        cx, cy = (zx1 + zx2) / 2 / s, (zy1 + zy2) / 2 / s
        d = np.hypot(xs - cx, ys - cy)
        far = np.argsort(d)[-max(1, len(d) // 20) :]  # the farthest 5 %: robust to one stray pixel
        return float(xs[far].mean() * s), float(ys[far].mean() * s)


def _tone_curve(now: np.ndarray, before: np.ndarray, bins: int = 32, at: np.ndarray | None = None) -> np.ndarray:
    """`before` (or `at`, brightness values of the same light) mapped through the frame's
    tone curve: the mean brightness now of the pixels of each brightness before (`bins`
    levels, linearly interpolated between them)."""
    idx = np.clip((before * (bins / 256.0)).astype(np.int32), 0, bins - 1).ravel()
    count = np.bincount(idx, minlength=bins)
    total = np.bincount(idx, now.ravel(), minlength=bins)
    seen = count > 0
    centres = (np.arange(bins) + 0.5) * (256.0 / bins)
    return np.interp(before if at is None else at, centres[seen], total[seen] / count[seen]).astype(np.float32)
