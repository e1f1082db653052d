"""The index classifier network: a small CNN with four heads on one trunk.

Output (N, R + S + 1 + 2): rank logits, suit logits, "is an index" logit, reading
direction (x, y). Rank and suit are separate so every rank is learnt from all four suits
and every suit from thirteen ranks (13 + 4 outputs instead of 52 combinations).
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def conv_trunk(w: int, out: int) -> nn.Sequential:
    """Three double-conv blocks (w, 2w, 4w channels), each halving the size, then one conv
    to `out` channels: the trunk of both reader networks (index and whole card)."""
    return nn.Sequential(
        _block(3, w), nn.MaxPool2d(2),
        _block(w, 2 * w), nn.MaxPool2d(2),
        _block(2 * w, 4 * w), nn.MaxPool2d(2),
        nn.Conv2d(4 * w, out, 3, padding=1, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True),
    )  # fmt: skip


class IndexNet(nn.Module):
    def __init__(self, n_ranks: int = 13, n_suits: int = 4, width: int = 16, size: int = 40) -> None:
        super().__init__()
        w = width
        self.trunk = conv_trunk(w, 8 * w)
        cells = (size // 8) ** 2
        # Flatten (not global pooling): where things are matters (rank above suit, 6 vs 9).
        self.neck = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(8 * w * cells, 192), nn.ReLU(inplace=True))
        self.n_ranks, self.n_suits = n_ranks, n_suits
        self.head = nn.Linear(192, n_ranks + n_suits + 1 + 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.neck(self.trunk(x)))
