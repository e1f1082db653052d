"""Square index crops, shared by training and run time so both see the same pixels.

A crop is the square of side `pad * max(w, h)` centred on a box, taken from the
full-resolution image (replicated border outside it) and resized to `size`. Squares keep
the aspect ratio of rotated indices (a card turned 90° has a wide index box).
"""

from __future__ import annotations

import cv2
import numpy as np


def _window(image: np.ndarray, cx: float, cy: float, half: float) -> tuple[np.ndarray, int, int]:
    """The part of `image` within `half` of (cx, cy), with its top-left offset."""
    h, w = image.shape[:2]
    x0, y0 = int(max(cx - half, 0)), int(max(cy - half, 0))
    x1, y1 = int(min(cx + half + 1, w)), int(min(cy + half + 1, h))
    if x1 <= x0 or y1 <= y0:  # box entirely outside: sample the nearest border pixel
        x0, y0 = min(max(int(cx), 0), w - 1), min(max(int(cy), 0), h - 1)
        return image[y0 : y0 + 1, x0 : x0 + 1], x0, y0
    return image[y0:y1, x0:x1], x0, y0


def square_crops(image: np.ndarray, boxes: np.ndarray, size: int, pad: float) -> np.ndarray:
    """(N, 4) xyxy boxes -> (N, size, size, 3) uint8 crops."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    out = np.empty((len(boxes), size, size, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        side = max(x2 - x1, y2 - y1, 1.0) * pad
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        patch, ox, oy = _window(image, cx, cy, side / 2 + 2)
        s = size / side
        if s < 0.5:  # shrinking a lot: blur first so the crop is not aliased
            k = int(round(0.5 / s)) * 2 + 1
            patch = cv2.GaussianBlur(patch, (k, k), 0)
        m = np.array([[s, 0, size / 2 - s * (cx - ox)], [0, s, size / 2 - s * (cy - oy)]], np.float32)
        out[i] = cv2.warpAffine(patch, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out
