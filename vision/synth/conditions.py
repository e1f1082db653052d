"""Real-table conditions: what an overhead webcam adds to a perfect card image.

Each field of `SceneConditions` models one thing seen on real tables (see
datasets/SYNTH.md for the why of each). Surfaces are generated procedurally and
cached per process (a few variants per kind), then cropped/recoloured per scene, so
a scene never pays for texture synthesis.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import cv2
import numpy as np

SURFACES: tuple[str, ...] = ("felt", "wood", "cloth", "pattern", "plain", "laminate")
SURFACE_VARIANTS = 6  # cached textures per kind and process

# Base colours (BGR) by surface kind: green/blue/red felt, wood tones, cloths.
_PALETTE: dict[str, tuple[tuple[int, int, int], ...]] = {
    "felt": ((40, 110, 30), (90, 60, 20), (30, 30, 120), (60, 60, 60), (70, 100, 20)),
    "wood": ((40, 80, 140), (60, 110, 170), (30, 55, 95), (90, 140, 190), (20, 40, 70)),
    "cloth": ((200, 200, 200), (150, 170, 190), (60, 40, 30), (170, 120, 90), (40, 40, 140)),
    "pattern": ((180, 180, 180), (50, 90, 160), (120, 60, 40), (40, 120, 60), (200, 170, 140)),
    "plain": ((235, 235, 235), (40, 40, 40), (120, 120, 120), (90, 150, 200), (160, 110, 60)),
    "laminate": ((210, 215, 220), (150, 160, 170), (60, 70, 80), (180, 200, 215), (100, 130, 160)),
}


@dataclass(frozen=True)
class SceneConditions:
    """Camera and lighting of one scene. `clean()` is a perfect overhead view."""

    surface: str = "felt"
    surface_variant: int = 0
    tilt_deg: float = 0.0  # camera tilt from straight down (perspective)
    tilt_dir_deg: float = 0.0  # direction of the tilt in the image
    roll_deg: float = 0.0  # camera rotation about its axis
    fov_deg: float = 65.0  # horizontal field of view (sets perspective strength)
    distortion_k1: float = 0.0  # radial lens distortion (<0 barrel, >0 pincushion)
    light_gradient: float = 0.0  # 0..1 strength of uneven light (lamp off-centre)
    vignette: float = 0.0  # 0..1 corner darkening
    card_shadow: float = 0.0  # 0..1 drop shadow under cards
    arm_shadow: float = 0.0  # 0..1 shadow cast by arms
    glare: float = 0.0  # 0..1 specular blobs (lamp reflected on glossy cards)
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gains
    brightness: float = 1.0
    gamma: float = 1.0
    blur_sigma: float = 0.0  # focus blur (Gaussian sigma, px)
    motion_blur: float = 0.0  # motion blur length (px)
    motion_angle: float = 0.0
    noise_sigma: float = 0.0  # sensor noise (grey levels)
    jpeg_quality: int | None = None  # None: no compression

    @classmethod
    def clean(cls, surface: str = "felt") -> SceneConditions:
        return cls(surface=surface)

    @classmethod
    def random(cls, rng: np.random.Generator) -> SceneConditions:
        def maybe(p: float, lo: float, hi: float) -> float:
            return float(rng.uniform(lo, hi)) if rng.random() < p else 0.0

        wb_temp = rng.normal(0.0, 0.08)  # warm (tungsten) to cool (daylight/LED)
        wb = (1.0 - wb_temp + rng.normal(0, 0.02), 1.0 + rng.normal(0, 0.03), 1.0 + wb_temp + rng.normal(0, 0.02))
        motion = maybe(0.15, 2.0, 9.0)
        return cls(
            surface=str(rng.choice(SURFACES)),
            surface_variant=int(rng.integers(SURFACE_VARIANTS)),
            tilt_deg=float(rng.uniform(0, 30)) if rng.random() < 0.7 else 0.0,
            tilt_dir_deg=float(rng.uniform(0, 360)),
            roll_deg=float(rng.uniform(-8, 8)),
            fov_deg=float(rng.uniform(55, 80)),
            distortion_k1=maybe(0.5, -0.25, 0.08),
            light_gradient=maybe(0.7, 0.1, 0.6),
            vignette=maybe(0.5, 0.1, 0.5),
            card_shadow=maybe(0.6, 0.15, 0.5),
            arm_shadow=float(rng.uniform(0.2, 0.5)),
            glare=maybe(0.25, 0.3, 1.0),
            white_balance=tuple(float(np.clip(g, 0.7, 1.3)) for g in wb),  # type: ignore[arg-type]
            brightness=float(np.clip(rng.normal(1.0, 0.18), 0.45, 1.4)),
            gamma=float(rng.uniform(0.8, 1.25)),
            blur_sigma=maybe(0.35, 0.4, 1.8),
            motion_blur=motion,
            motion_angle=float(rng.uniform(0, 180)),
            noise_sigma=maybe(0.7, 1.0, 9.0),
            jpeg_quality=int(rng.integers(35, 95)) if rng.random() < 0.7 else None,
        )

    def without_camera(self) -> SceneConditions:
        return replace(self, tilt_deg=0.0, roll_deg=0.0, distortion_k1=0.0)


# ---------------------------------------------------------------- surfaces
def _noise(rng: np.random.Generator, size: int, scale: int) -> np.ndarray:
    """Smooth value noise in [-1, 1] at `size`x`size`, feature size ~ size/scale."""
    small = rng.standard_normal((scale, scale)).astype(np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC) / 1.5


@functools.lru_cache(maxsize=64)
def surface_texture(kind: str, variant: int, size: int = 768) -> np.ndarray:
    """A seamless-enough BGR float32 table texture (cached per process)."""
    rng = np.random.default_rng([hash_kind(kind), variant])
    base = np.array(_PALETTE[kind][variant % len(_PALETTE[kind])], np.float32)
    base = np.clip(base * rng.uniform(0.8, 1.2, 3), 0, 255)
    tex = np.empty((size, size, 3), np.float32)
    tex[:] = base
    if kind == "felt":
        grain = rng.standard_normal((size, size)).astype(np.float32)
        grain = cv2.GaussianBlur(grain, (0, 0), 0.8) * 10
        tex += (grain + _noise(rng, size, 6) * 8)[..., None]
    elif kind == "wood":
        y = np.linspace(0, 1, size, dtype=np.float32)[:, None]
        warp = _noise(rng, size, 4) * 0.08
        rings = np.sin((y + warp) * rng.uniform(40, 120) * np.pi) * 0.5 + 0.5
        fine = cv2.GaussianBlur(rng.standard_normal((size, size)).astype(np.float32), (0, 0), 0.7)
        fine = cv2.resize(fine[:, :: 8], (size, size)) * 6
        tex *= (0.82 + 0.25 * rings + fine / 100)[..., None]
        if rng.random() < 0.5:
            tex = np.ascontiguousarray(np.rot90(tex))
        # planks
        n = int(rng.integers(2, 6))
        for k in range(1, n):
            x = int(k * size / n)
            tex[:, x : x + 2] *= 0.55
    elif kind == "cloth":
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        period = rng.uniform(2.5, 5.0)
        weave = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)) * 8
        tex += (weave + _noise(rng, size, 5) * 10)[..., None]
        if rng.random() < 0.5:  # stripes or tartan
            stripe = ((xx // rng.uniform(20, 60)) % 2) * rng.uniform(20, 50)
            tex -= stripe[..., None]
            if rng.random() < 0.5:
                tex -= (((yy // rng.uniform(20, 60)) % 2) * rng.uniform(20, 50))[..., None]
    elif kind == "pattern":
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        step = rng.uniform(18, 70)
        colour = np.array(_PALETTE["pattern"][(variant + 2) % 5], np.float32)
        style = variant % 3
        if style == 0:  # polka dots
            d = np.hypot((xx % step) - step / 2, (yy % step) - step / 2) < step * 0.25
        elif style == 1:  # diagonal check
            d = (((xx + yy) // step) + ((xx - yy) // step)) % 2 == 0
        else:  # floral-ish waves
            d = np.sin(xx / step * 3) + np.cos(yy / step * 2.3) + np.sin((xx + yy) / step) > 0.8
        tex[d] = colour
        tex = cv2.GaussianBlur(tex, (0, 0), 0.8)
        tex += (_noise(rng, size, 4) * 6)[..., None]
    elif kind == "laminate":
        tex += (_noise(rng, size, 3) * 10 + _noise(rng, size, 40) * 4)[..., None]
    else:  # plain
        tex += (_noise(rng, size, 3) * 6 + rng.standard_normal((size, size)).astype(np.float32) * 2)[..., None]
    return np.clip(tex, 0, 255)


def hash_kind(kind: str) -> int:
    """A stable integer for a surface kind (Python's hash() is salted per process)."""
    return sum((i + 1) * ord(c) for i, c in enumerate(kind))


@functools.lru_cache(maxsize=48)
def _surface_at(kind: str, variant: int, side: int) -> np.ndarray:
    """The texture resampled once to a per-variant zoom, stored as uint8 (memory)."""
    tex = surface_texture(kind, variant)
    zoom = 0.6 + (variant * 0.37) % 1.0  # variants differ in scale too (0.6..1.6)
    out_side = max(int(side * 1.2), int(tex.shape[0] * zoom * side / 640))
    out = cv2.resize(tex, (out_side, out_side), interpolation=cv2.INTER_LINEAR)
    return np.clip(out, 0, 255).astype(np.uint8)


def make_surface(cond: SceneConditions, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A (H, W, 3) float32 table for this scene: a random crop (and flip) of a cached texture."""
    W, H = size
    tex = _surface_at(cond.surface, cond.surface_variant, max(W, H))
    T = tex.shape[0]
    x = int(rng.integers(0, T - W + 1))
    y = int(rng.integers(0, T - H + 1))
    crop = tex[y : y + H, x : x + W]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return crop.astype(np.float32)


def surface_tint(rng: np.random.Generator) -> np.ndarray:
    """Per-scene recolouring of the table texture (folded into the lighting gain)."""
    return rng.uniform(0.85, 1.15, 3).astype(np.float32)


# ---------------------------------------------------------------- photometric
def lighting_gain(cond: SceneConditions, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """(H, W, 3) multiplicative gain: light gradient, vignette, white balance, brightness."""
    W, H = size
    g = 24
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32) / (g - 1)
    gain = np.ones((g, g), np.float32)
    if cond.light_gradient > 0:
        lx, ly = rng.uniform(-0.3, 1.3, 2)
        d = np.hypot(xx - lx, yy - ly)
        gain *= 1.0 - cond.light_gradient * np.clip(d / 1.2, 0, 1)
        gain *= 1.0 + 0.15 * cond.light_gradient * _noise(rng, g, 3)
    if cond.vignette > 0:
        r = np.hypot(xx - 0.5, yy - 0.5) / 0.7071
        gain *= 1.0 - cond.vignette * r**2
    gain = gain[..., None] * np.array(cond.white_balance, np.float32) * cond.brightness
    return cv2.resize(gain, (W, H), interpolation=cv2.INTER_LINEAR)


def add_glare(img: np.ndarray, cond: SceneConditions, rng: np.random.Generator) -> None:
    """Specular blobs in place (float32 BGR): a lamp reflected by glossy card stock."""
    if cond.glare <= 0:
        return
    H, W = img.shape[:2]
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        rx, ry = rng.uniform(0.03, 0.15) * W, rng.uniform(0.02, 0.1) * H
        x0, x1 = int(max(0, cx - 2 * rx)), int(min(W, cx + 2 * rx))
        y0, y1 = int(max(0, cy - 2 * ry)), int(min(H, cy + 2 * ry))
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        blob = np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2) * 1.5)
        img[y0:y1, x0:x1] += (blob * cond.glare * rng.uniform(120, 255))[..., None]


def blur_noise_jpeg(img: np.ndarray, cond: SceneConditions, rng: np.random.Generator) -> np.ndarray:
    """Focus/motion blur, sensor noise and JPEG; float32 in, uint8 BGR out."""
    if cond.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), cond.blur_sigma)
    if cond.motion_blur >= 2:
        k = int(cond.motion_blur) | 1
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), cond.motion_angle, 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= max(kernel.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kernel)
    if cond.noise_sigma > 0:
        # generated at half resolution: demosaicing and JPEG correlate neighbouring pixels anyway
        H, W = img.shape[:2]
        h2, w2 = H // 2 + 1, W // 2 + 1
        noise = rng.standard_normal((h2, w2, 3), dtype=np.float32)
        noise[..., 1:] = noise[..., 1:] * 0.4 + noise[..., :1]  # mostly luminance, some chroma
        noise *= cond.noise_sigma
        img = img + cv2.resize(noise, (W, H), interpolation=cv2.INTER_LINEAR)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if cond.gamma != 1.0:
        lut = (255.0 * (np.arange(256) / 255.0) ** (1.0 / cond.gamma)).round().astype(np.uint8)
        out = cv2.LUT(out, lut)
    if cond.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg_quality)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ---------------------------------------------------------------- harsher cameras
# Ranges past `SceneConditions.random`'s, as cheap webcams and dim rooms give them (frame
# pixels at 1280×720). The corner detector loses most of its recall to exactly these
# (models/MODEL_CARD.md "Known weaknesses"), so its training tiles may be cut from a copy of
# the scene with one of them added (`SampleConfig.frame_faults`).
HARSH_FAULTS: tuple[str, ...] = ("focus", "motion", "noise", "dim", "jpeg")


def harsh_camera(image: np.ndarray, rng: np.random.Generator, kind: str | None = None) -> np.ndarray:
    """`image` (uint8 BGR) with one harsh camera fault added on top of what it has:
    focus blur σ 1.5–3.2 px, motion blur 8–18 px, sensor noise σ 10–24, a dim room
    (×0.3–0.6, then noise σ 5–12) or JPEG quality 10–35, each as likely (`kind`: that one)."""
    if kind is None:
        kind = HARSH_FAULTS[int(rng.integers(len(HARSH_FAULTS)))]
    elif kind not in HARSH_FAULTS:
        raise ValueError(f"unknown camera fault {kind!r} (one of {', '.join(HARSH_FAULTS)})")
    img = image.astype(np.float32)
    cond = SceneConditions()
    if kind == "focus":
        cond = replace(cond, blur_sigma=float(rng.uniform(1.5, 3.2)))
    elif kind == "motion":
        cond = replace(cond, motion_blur=float(rng.uniform(8, 18)), motion_angle=float(rng.uniform(0, 180)))
    elif kind == "noise":
        cond = replace(cond, noise_sigma=float(rng.uniform(10, 24)))
    elif kind == "dim":
        img *= float(rng.uniform(0.3, 0.6))
        cond = replace(cond, noise_sigma=float(rng.uniform(5, 12)))
    else:
        cond = replace(cond, jpeg_quality=int(rng.integers(10, 36)))
    return blur_noise_jpeg(img, cond, rng)
