"""An exported classifier rebuilt for training computes what the ONNX file computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from vision.train.classifier_model import IndexNet
from vision.train.from_onnx import index_net_from_onnx
from vision.train.train_classifier import export_onnx


def _trained_like(width: int, size: int) -> IndexNet:
    """An IndexNet whose BatchNorms hold non-trivial statistics, as a trained one does."""
    torch.manual_seed(0)
    net = IndexNet(width=width, size=size)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return net


def test_rebuilt_net_matches_the_onnx_file_and_trains_from_it(tmp_path: Path) -> None:
    width, size = 4, 24
    onnx_path = export_onnx(_trained_like(width, size), size, tmp_path / "cls.onnx")
    calib = torch.rand(64, 3, size, size)
    net = index_net_from_onnx(onnx_path, width, size, calib)

    x = torch.rand(8, 3, size, size)
    want = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"crops": x.numpy()})[0]
    net.eval()
    with torch.no_grad():
        assert np.allclose(net(x).numpy(), want, atol=1e-4)
        # Train mode (batch statistics) on the calibration batch computes the same trunk:
        # training starts from the shipped function, not from re-normalised activations.
        eval_trunk = net.trunk(calib)
        net.train()
        assert torch.allclose(net.trunk(calib), eval_trunk, atol=1e-4)


def test_wrong_width_is_one_clear_error(tmp_path: Path) -> None:
    onnx_path = export_onnx(_trained_like(4, 24), 24, tmp_path / "cls.onnx")
    with pytest.raises(ValueError, match="width 8"):
        index_net_from_onnx(onnx_path, 8, 24, torch.rand(4, 3, 24, 24))
    with pytest.raises(FileNotFoundError, match="classifier.init"):
        index_net_from_onnx(tmp_path / "missing.onnx", 4, 24, torch.rand(4, 3, 24, 24))


def test_exported_body_network_is_rebuilt_too(tmp_path: Path) -> None:
    """The whole-card network (same trunk, neck and head names) comes back from its ONNX
    file the same way, so a shipped card_body.onnx can be continued."""
    from vision.train.body_data import PATCH_WH
    from vision.train.body_model import BodyNet
    from vision.train.from_onnx import body_net_from_onnx
    from vision.train.train_body import export_body_onnx

    torch.manual_seed(1)
    body = BodyNet(width=4, size_wh=PATCH_WH)
    with torch.no_grad():
        for m in body.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    onnx_path = export_body_onnx(body, tmp_path / "card_body.onnx")
    w, h = PATCH_WH
    net = body_net_from_onnx(onnx_path, 4, PATCH_WH, torch.rand(32, 3, h, w))
    x = torch.rand(5, 3, h, w)
    want = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"cards": x.numpy()})[0]
    net.eval()
    with torch.no_grad():
        assert np.allclose(net(x).numpy(), want, atol=1e-4)
    with pytest.raises(ValueError, match="width 6"):
        body_net_from_onnx(onnx_path, 6, PATCH_WH, torch.rand(4, 3, h, w))
