"""Distillation of the whole-card network from its starting round (train_body.distill)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from vision.train.train_body import BodyTrainConfig, distill_loss, train_body


def test_distill_loss_is_least_where_the_student_agrees_with_the_teacher() -> None:
    torch.manual_seed(0)
    target = torch.randn(16, 18) * 3
    at = distill_loss(target.clone().requires_grad_(True), target)
    for _ in range(5):
        assert distill_loss(target + torch.randn(16, 18), target) > at
    x = target.clone().requires_grad_(True)
    distill_loss(x, target).backward()
    assert x.grad is not None and float(x.grad.abs().max()) < 1e-6  # a minimum, not just lower


def test_distillation_without_a_starting_network_is_one_clear_error(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    data = {"patches": rng.integers(0, 255, (8, 64, 44, 3), dtype=np.uint8), "rank": rng.integers(-1, 13, 8),
            "suit": rng.integers(0, 4, 8), "family": np.array(["f"] * 8)}  # fmt: skip
    with pytest.raises(ValueError, match="init_from"):
        train_body(data, None, BodyTrainConfig(epochs=1, width=8, threads=1, distill=1.0), tmp_path)
