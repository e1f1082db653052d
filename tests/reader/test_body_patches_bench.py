"""benchmarks/body_patches.py: whole-card networks side by side on one patch file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch


def test_two_networks_scored_on_the_same_patches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], load_script: Callable[[str], ModuleType]
) -> None:
    from vision.train.body_data import PATCH_WH
    from vision.train.body_model import BodyNet
    from vision.train.train_body import evaluate, export_body_onnx, load_patches, predict

    rng = np.random.default_rng(0)
    n = 12
    np.savez(tmp_path / "val.npz", patches=rng.integers(0, 255, (n, PATCH_WH[1], PATCH_WH[0], 3), dtype=np.uint8),
             rank=rng.integers(-1, 13, n), suit=rng.integers(0, 4, n), family=np.array(["a"] * 6 + ["b"] * 6))  # fmt: skip
    nets = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        net = BodyNet(width=4, size_wh=PATCH_WH)
        nets.append((net, export_body_onnx(net, tmp_path / f"body{seed}.onnx")))
    mod = load_script("benchmarks/body_patches.py")
    assert mod.main([str(tmp_path / "val.npz"), "--body", str(nets[0][1]), "--body", str(nets[1][1]), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    data = load_patches(tmp_path / "val.npz")
    for net, path in nets:  # the same figures as torch's own evaluation of that network
        want = evaluate(predict(net, data["patches"]), data)
        assert set(got[str(path)]) == {"all", "a", "b"}
        assert got[str(path)]["all"]["card_acc"] == pytest.approx(want["all"]["card_acc"], nan_ok=True)
    with pytest.raises(SystemExit):
        mod.main([str(tmp_path / "missing.npz"), "--body", str(nets[0][1])])
