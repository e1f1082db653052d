"""The whole-card network: a small CNN on a rectified 44×64 card with three heads.

Output (N, R + S + 1): rank logits, suit logits, "is a face-up card" logit. As for the
index classifier, rank and suit are separate outputs (13 + 4, not 52 combinations).
"""

from __future__ import annotations

import torch
from torch import nn

from vision.train.classifier_model import conv_trunk


class BodyNet(nn.Module):
    def __init__(self, n_ranks: int = 13, n_suits: int = 4, width: int = 16, size_wh: tuple[int, int] = (44, 64)) -> None:
        super().__init__()
        w = width
        self.trunk = conv_trunk(w, 6 * w)
        cells = (size_wh[0] // 8) * (size_wh[1] // 8)
        # Flatten, not global pooling: pip positions are what tell a 7 from an 8.
        self.neck = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(6 * w * cells, 160), nn.ReLU(inplace=True))
        self.n_ranks, self.n_suits = n_ranks, n_suits
        self.head = nn.Linear(160, n_ranks + n_suits + 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.neck(self.trunk(x)))
