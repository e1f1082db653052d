"""Batch augmentation of stored context crops, in torch (cheap on CPU, no per-image loop).

A stored crop covers `stored_pad` index sides; the runtime crop covers `runtime_pad`.
`sample_view` cuts the runtime view out of the stored one with box jitter, small
rotations and quarter turns (cards lie at any angle), and rotates the reading-direction
label with the pixels. Colour changes are strong on purpose: unseen decks differ most in
colour (four-colour suits, tinted faces), so shape must carry the decision.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def sample_view(
    x: torch.Tensor, up: torch.Tensor, out: int, zoom: float, train: bool, gen: torch.Generator | None = None,
    wide_aspect: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """x (N,3,S,S) float; up (N,2). zoom = runtime_pad / stored_pad. Returns (views, up).
    `wide_aspect` (N,) bool: those views get a width / height ratio of e^±0.3 (×0.74–1.35: a
    narrow or a wide typeface), the others e^±0.2 (×0.82–1.22)."""
    n = x.shape[0]
    if train:
        def u(lo: float, hi: float) -> torch.Tensor:
            return torch.rand(n, generator=gen) * (hi - lo) + lo

        scale = zoom * torch.exp(u(math.log(0.85), math.log(1.2)))
        aspect = torch.exp(u(-0.1, 0.1))
        if wide_aspect is not None and bool(wide_aspect.any()):
            aspect = torch.where(wide_aspect, torch.exp(u(-0.15, 0.15)), aspect)  # width / height × e^±0.3
        angle = u(-12, 12) * math.pi / 180 + torch.randint(0, 4, (n,), generator=gen) * (math.pi / 2)
        tx, ty = u(-0.12, 0.12) * scale, u(-0.12, 0.12) * scale
    else:
        scale = torch.full((n,), zoom)
        aspect = torch.ones(n)
        angle = torch.zeros(n)
        tx = ty = torch.zeros(n)
    cos, sin = torch.cos(angle), torch.sin(angle)
    sx, sy = scale * aspect, scale / aspect
    theta = torch.stack(
        [torch.stack([cos * sx, -sin * sy, tx], 1), torch.stack([sin * sx, cos * sy, ty], 1)], 1
    )
    grid = F.affine_grid(theta, (n, 3, out, out), align_corners=False)
    views = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # output(p) = input(A p): content (and its direction) turns by -angle
    c, s = torch.cos(-angle), torch.sin(-angle)
    new_up = torch.stack([c * up[:, 0] - s * up[:, 1], s * up[:, 0] + c * up[:, 1]], 1)
    return views, new_up


def colour(x: torch.Tensor, gen: torch.Generator | None = None, ink_tint: float = 0.0) -> torch.Tensor:
    """Photometric changes on (N,3,H,W) in 0..1. `ink_tint`: share of images whose ink is
    recoloured first (`tint_ink`)."""
    n = x.shape[0]

    def r(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=gen)

    if ink_tint > 0:
        x = tint_ink(x, r(n) < ink_tint, gen)
    # random colour mixing near identity, sometimes a channel permutation or grey
    mix = torch.eye(3).repeat(n, 1, 1) + (r(n, 3, 3) - 0.5) * 0.35
    perm = r(n) < 0.25
    if perm.any():
        idx = torch.stack([torch.randperm(3, generator=gen) for _ in range(int(perm.sum()))])
        mix[perm] = torch.eye(3)[idx]
    grey = r(n) < 0.2
    mix[grey] = torch.full((3, 3), 1 / 3)
    x = torch.einsum("nij,njhw->nihw", mix, x)
    gain = 0.55 + r(n, 1, 1, 1) * 0.8
    bias = (r(n, 1, 1, 1) - 0.5) * 0.3
    x = (x - 0.5) * (0.6 + r(n, 1, 1, 1) * 0.7) + 0.5  # contrast
    x = x * gain + bias
    # low resolution / blur: down then up
    low = r(n) < 0.35
    if low.any():
        h, w = x.shape[-2:]  # square index crops; whole-card patches are taller than wide
        k = int(torch.randint(max(12, h // 3), h - 4, (1,), generator=gen))
        small = (k, max(8, round(k * w / h)))
        x[low] = F.interpolate(F.interpolate(x[low], size=small, mode="area"), size=(h, w), mode="bilinear", align_corners=False)
    x = x + torch.randn(x.shape, generator=gen) * (r(n, 1, 1, 1) * 0.06)
    return x.clamp(0, 1)


def stroke_weight(x: torch.Tensor, which: torch.Tensor, gen: torch.Generator | None = None) -> torch.Tensor:
    """Ink strokes made bolder or thinner on the images `which` selects: a 3×3 minimum (dark
    ink spreads by a pixel) or maximum (it shrinks), blended in by a random 0.35–1.

    Why: unseen decks differ in typeface as much as in colour: a tall thin rank (nicu-white),
    a big bold one (tango); the crops a classifier trains on come from a few hundred fonts, at
    the weights those fonts have. With `sample_view`'s wider stretch this varies the glyphs'
    proportions and weight without new scenes."""
    if not bool(which.any()):
        return x
    k = int(which.sum())
    sel = x[which]
    bold = torch.rand(k, generator=gen) < 0.5
    pooled = torch.where(bold[:, None, None, None], -F.max_pool2d(-sel, 3, 1, 1), F.max_pool2d(sel, 3, 1, 1))
    a = (0.35 + 0.65 * torch.rand(k, 1, 1, 1, generator=gen))
    x = x.clone()
    x[which] = sel + a * (pooled - sel)
    return x


def tint_ink(x: torch.Tensor, which: torch.Tensor, gen: torch.Generator | None = None) -> torch.Tensor:
    """Dark ink printed in a random colour on the images `which` selects (a screen blend:
    paper stays white, black becomes the colour, red ink turns a lighter red).

    Why: a channel permutation or a grey mix never makes black ink coloured, so every
    coloured index a network saw was a red suit, and it learned "coloured ink = hearts or
    diamonds". Four-colour decks print spades and clubs in blue, green, purple or gold; a
    probe of the round-6 classifier on val-family tables with the black ink tinted (2026-12-06)
    read 48 % of blue spades and 57 % of gold spades as red suits (2 % untinted)."""
    if not bool(which.any()):
        return x
    k = int(which.sum())
    c = torch.rand(k, 3, 1, 1, generator=gen) * 0.85  # the ink's colour: any hue, never near white
    x = x.clone()
    x[which] = 1 - (1 - x[which]) * (1 - c)
    return x
