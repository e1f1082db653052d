"""Camera image quality a person can fix: a camera out of focus.

Why: the reader was trained on sharp-to-slightly-soft frames. On the committed Kemps sample
blurred once more (Gaussian sigma 1.6 px at 1280x720) it misses one of the four market
cards in each frame looked at, and the referee sees no deal for 8 s and a wrong market
after it (event F1 1.0 -> 0.44, market 1.0 -> 0.05; measured 2026-12-02, datasets/README.md
"Another camera"). Nothing in the events says why; a person at the table can refocus the
camera in seconds if told.

How: the edges of a face-up card (its border on the felt, its index strokes) are steps. A
step of height H blurred by a Gaussian of sigma s has a steepest slope of H / (s sqrt(2 pi)),
so s ~ H / (sqrt(2 pi) x the steepest slope) around each card the reader found (H: 2nd to
98th percentile of the grey levels, slope: 99.5th percentile of the Sobel gradient). On
synthetic 1280x720 tables whose focus blur is known this gives 0.9–1.3 px with no blur,
1.4–1.5 at sigma 1.0 and 1.7–2.1 at 1.3–1.8 (motion blur counts too); the sample measures
0.85 px as recorded and 1.73 px blurred. The median over the last cards read is compared
with `warn_px`; one notice when it goes over, one when it is back under `clear_px`.

Frames with a short side under `min_short_side` are not judged: there the pixels, not the
focus, limit the detail (the reader enlarges such frames, and the sample at 640x360 reads
perfectly although its edges, in pixels of the frame enlarged 2x, spread nearly as much as
the blurred 720p one's: ~1.6 against 1.7 px).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.types import CardDetections

Event = dict[str, Any]
_SQRT_2PI = math.sqrt(2 * math.pi)


@dataclass(frozen=True)
class FocusConfig:
    warn_px: float = 1.6  # median edge spread (Gaussian sigma, px) over the window that warns
    clear_px: float = 1.3  # ... and under which the warning is withdrawn
    window: int = 24  # card measurements the median is taken over (and needed before judging)
    min_short_side: int = 600  # smaller frames are pixel-limited: not judged
    cards_per_read: int = 4  # at most this many cards measured per reader call (~0.2-0.3 ms each)
    margin: float = 0.15  # the card's box widened by this share, so its border on the table is in


def edge_spread_px(image: np.ndarray, box: Any, margin: float = 0.15) -> float | None:
    """Estimated Gaussian blur (px) of the sharpest edges in and around a card box of a
    BGR or grey image; None when the box holds too few pixels or no contrast to judge."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    H, W = image.shape[:2]
    a, b = max(0, int(x1 - margin * w)), max(0, int(y1 - margin * h))
    c, d = min(W, int(math.ceil(x2 + margin * w))), min(H, int(math.ceil(y2 + margin * h)))
    if (c - a) < 16 or (d - b) < 16:
        return None
    crop = image[b:d, a:c]
    g = (crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)).astype(np.float32)
    lo, hi = np.percentile(g, (2, 98))
    step = float(hi - lo)
    if step < 40:  # a card on felt of its own shade, or an unlit table: nothing to measure
        return None
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    slope = float(np.percentile(cv2.magnitude(gx, gy), 99.5)) / 8.0  # Sobel 3x3 = 8 x the derivative
    return step / (_SQRT_2PI * max(slope, 1e-3))


class FocusMonitor:
    """`update(image, detections, t)` after each reader call -> notices (usually none)."""

    def __init__(self, config: FocusConfig | None = None) -> None:
        self.config = config or FocusConfig()
        self._spreads: deque[float] = deque(maxlen=self.config.window)
        self.warned = False

    @property
    def spread_px(self) -> float | None:
        """Median edge spread of the window, once it is full."""
        if len(self._spreads) < self.config.window:
            return None
        return float(np.median(self._spreads))

    def update(self, image: np.ndarray, dets: CardDetections | None, t: float) -> list[Event]:
        cfg = self.config
        if dets is None or not len(dets) or min(image.shape[:2]) < cfg.min_short_side:
            return []
        order = np.argsort(-dets.confidence)[: cfg.cards_per_read]  # the surest reads: real cards
        for i in order:
            s = edge_spread_px(image, dets.xyxy[i], cfg.margin)
            if s is not None:
                self._spreads.append(s)
        spread = self.spread_px
        if spread is None:
            return []
        if not self.warned and spread > cfg.warn_px:
            self.warned = True
            return [{"type": "camera_blurred", "edge_spread_px": round(spread, 2), "t": round(t, 3),
                     "message": f"The camera image looks out of focus (card edges spread over ~{spread:.1f} px): "
                                "focus the camera, or cards will be misread or missed."}]  # fmt: skip
        if self.warned and spread < cfg.clear_px:
            self.warned = False
            return [{"type": "camera_focus_ok", "edge_spread_px": round(spread, 2), "t": round(t, 3),
                     "message": "The camera image is sharp again."}]
        return []
