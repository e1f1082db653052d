"""Camera model: table plane -> image (tilt/roll homography + radial lens distortion).

Scenes are composed on a flat "table plane" canvas the size of the output image, as a
perfectly overhead camera would see them. A real webcam is tilted (up to ~30°) and its
lens bends straight lines; `Camera` maps points forward (labels, quads) and warps the
canvas backward (one `cv2.remap`), zoomed just enough that no pixel comes from outside
the canvas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.conditions import SceneConditions


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    rvec = (axis / (np.linalg.norm(axis) + 1e-12) * angle).reshape(3, 1)
    return cv2.Rodrigues(rvec)[0]


@dataclass
class Camera:
    homography: np.ndarray  # 3x3, table px -> undistorted image px
    k1: float
    size: tuple[int, int]

    @property
    def identity(self) -> bool:
        return self.k1 == 0.0 and np.allclose(self.homography, np.eye(3))

    @property
    def _norm(self) -> tuple[float, float, float]:
        W, H = self.size
        return W / 2.0, H / 2.0, max(W, H) / 2.0

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Undistorted image px -> distorted image px (solve d(1 + k1|d|²) = u)."""
        if self.k1 == 0.0:
            return pts
        cx, cy, f = self._norm
        u = (pts - (cx, cy)) / f
        d = u.copy()
        # barrel: d(1 + k1 d²) stops growing at d² = -1/(3 k1); points past it are far
        # outside the frame, clamp so the fixed point stays finite
        r2max = -1.0 / (3.0 * self.k1) * 0.98 if self.k1 < 0 else np.inf
        for _ in range(8):
            r2 = np.minimum((d**2).sum(axis=-1, keepdims=True), r2max)
            d = u / (1.0 + self.k1 * r2)
        return d * f + (cx, cy)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 2) table-plane px -> (N, 2) image px."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        h = np.c_[pts, np.ones(len(pts))] @ self.homography.T
        return self.distort(h[:, :2] / h[:, 2:3])

    def backward(self, pts: np.ndarray) -> np.ndarray:
        """(N, 2) image px -> table-plane px (the remap direction)."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if self.k1 != 0.0:
            cx, cy, f = self._norm
            d = (pts - (cx, cy)) / f
            r2 = (d**2).sum(axis=-1, keepdims=True)
            pts = d * (1.0 + self.k1 * r2) * f + (cx, cy)
        inv = np.linalg.inv(self.homography)
        h = np.c_[pts, np.ones(len(pts))] @ inv.T
        return h[:, :2] / h[:, 2:3]

    def warp(self, canvas: np.ndarray) -> np.ndarray:
        if self.identity:
            return canvas
        W, H = self.size
        # maps at half resolution, sampled where cv2.resize's half-pixel convention puts them
        w2, h2 = (W + 1) // 2, (H + 1) // 2
        xs = np.arange(w2, dtype=np.float32) * (W / w2) + (W / w2 - 1) / 2
        ys = np.arange(h2, dtype=np.float32) * (H / h2) + (H / h2 - 1) / 2
        x, y = np.meshgrid(xs, ys)
        if self.k1 != 0.0:
            cx, cy, f = self._norm
            dx, dy = (x - cx) / f, (y - cy) / f
            g = 1.0 + np.float32(self.k1) * (dx * dx + dy * dy)
            x, y = dx * g * f + cx, dy * g * f + cy
        m = np.linalg.inv(self.homography).astype(np.float32)
        w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
        mx = cv2.resize((m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, (W, H), interpolation=cv2.INTER_LINEAR)
        my = cv2.resize((m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w, (W, H), interpolation=cv2.INTER_LINEAR)
        return cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def make_camera(cond: SceneConditions, size: tuple[int, int]) -> Camera:
    """The camera for `cond`: rotation homography K·R·K⁻¹, re-centred and zoomed to cover."""
    W, H = size
    if cond.tilt_deg == 0.0 and cond.roll_deg == 0.0 and cond.distortion_k1 == 0.0:
        return Camera(np.eye(3), 0.0, size)
    f = (W / 2.0) / math.tan(math.radians(cond.fov_deg) / 2.0)
    cx, cy = W / 2.0, H / 2.0
    K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    phi = math.radians(cond.tilt_dir_deg)
    R = _rotation(np.array([math.cos(phi), math.sin(phi), 0.0]), math.radians(cond.tilt_deg))
    Rz = _rotation(np.array([0.0, 0.0, 1.0]), math.radians(cond.roll_deg))
    Hm = K @ Rz @ R @ np.linalg.inv(K)
    c = Hm @ np.array([cx, cy, 1.0])
    c = c[:2] / c[2]
    Hm = np.array([[1, 0, cx - c[0]], [0, 1, cy - c[1]], [0, 0, 1.0]]) @ Hm
    # zoom about the centre until every output border pixel comes from inside the canvas
    t = np.linspace(0, 1, 24)
    border = np.concatenate(
        [np.c_[t * (W - 1), np.zeros_like(t)], np.c_[t * (W - 1), np.full_like(t, H - 1)],
         np.c_[np.zeros_like(t), t * (H - 1)], np.c_[np.full_like(t, W - 1), t * (H - 1)]]
    )
    scale = 1.0
    for _ in range(60):
        Z = np.array([[scale, 0, cx * (1 - scale)], [0, scale, cy * (1 - scale)], [0, 0, 1.0]])
        cam = Camera(Z @ Hm, cond.distortion_k1, size)
        back = cam.backward(border)
        if back[:, 0].min() >= 0 and back[:, 1].min() >= 0 and back[:, 0].max() <= W - 1 and back[:, 1].max() <= H - 1:
            return cam
        scale *= 1.04
    return cam
