"""Rebuild a trainable reader network (IndexNet or BodyNet) from its exported ONNX file.

Why: a reader folder keeps only the exported files (ONNX, OpenVINO), so continuing its
index classifier on new crops, or its whole-card network on new patches, needs the torch
weights back. Both networks are `conv_trunk` + neck.2 (Linear) + head (Linear). The export folds every BatchNorm into
the convolution before it (weight·γ/σ, bias β − μγ/σ), which cannot be undone exactly; but
any BatchNorm that maps the folded convolution's output y to y + b computes the same
function. We give each BatchNorm the statistics y has on real crops (running mean m and
variance v, γ = √(v+ε), β = m + b): in eval mode the network is the ONNX one, and in train
mode, where a batch's own statistics replace m and v, it starts close to it instead of from
unit-normalised activations the later layers never saw.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from vision.train.body_model import BodyNet
from vision.train.classifier_model import IndexNet


def _onnx_weights(path: Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, np.ndarray]]:
    """(conv weight, conv bias) in graph order, and the named (Gemm) initializers."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = []
    for node in graph.node:
        if node.op_type == "Conv":
            if len(node.input) < 3:
                raise ValueError(f"{path}: a Conv without bias; not an exported reader network")
            convs.append((init[node.input[1]], init[node.input[2]]))
    return convs, init


def _pairs(model: nn.Module) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    mods = list(model.trunk.modules())
    return [(c, b) for c, b in zip(mods, mods[1:], strict=False) if isinstance(c, nn.Conv2d) and isinstance(b, nn.BatchNorm2d)]


def index_net_from_onnx(path: Path, width: int, size: int, calib: torch.Tensor) -> IndexNet:
    """The IndexNet (width, input size) of an exported ONNX file, BatchNorms calibrated on
    `calib` (N, 3, size, size network inputs, as the classifier sees them)."""
    return _load(IndexNet(width=width, size=size), Path(path), calib, "classifier.init", f"input size {size}")


def body_net_from_onnx(path: Path, width: int, size_wh: tuple[int, int], calib: torch.Tensor) -> BodyNet:
    """The BodyNet (width, patch size) of an exported card_body.onnx, BatchNorms calibrated
    on `calib` (N, 3, H, W patches, as `BodyClassifier` feeds them)."""
    return _load(BodyNet(width=width, size_wh=size_wh), Path(path), calib, "body.init_from", f"patch size {size_wh}")


def _load(model: IndexNet | BodyNet, path: Path, calib: torch.Tensor, key: str, shape_hint: str) -> IndexNet | BodyNet:
    if not path.is_file():
        raise FileNotFoundError(f"{key}: not found: {path}")
    convs, init = _onnx_weights(path)
    pairs = _pairs(model)
    width = pairs[0][0].out_channels
    if len(convs) != len(pairs):
        raise ValueError(f"{path}: {len(convs)} convolutions, a {type(model).__name__} of width {width} has {len(pairs)}")
    biases = []
    with torch.no_grad():
        for (w, b), (conv, bn) in zip(convs, pairs, strict=True):
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: convolution {tuple(w.shape)} where width {width} needs {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.tensor(w))
            biases.append(torch.tensor(b, dtype=torch.float32))
        state = model.state_dict()
        for name in ("neck.2.weight", "neck.2.bias", "head.weight", "head.bias"):
            if name not in init or tuple(init[name].shape) != tuple(state[name].shape):
                raise ValueError(f"{path}: {name} missing or of another shape ({shape_hint}?)")
            state[name].copy_(torch.tensor(init[name]))
        _calibrate(model, pairs, biases, calib)
    return model


def _calibrate(model: nn.Module, pairs: list[tuple[nn.Conv2d, nn.BatchNorm2d]], biases: list[torch.Tensor], calib: torch.Tensor) -> None:
    """First make every BatchNorm y ↦ y + b (the ONNX function), then measure y on `calib`
    and re-express the same map with those statistics."""
    for (_, bn), b in zip(pairs, biases, strict=True):
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)
        bn.weight.fill_(1.0)
        bn.bias.copy_(b)
    stats: list[tuple[torch.Tensor, torch.Tensor]] = []
    hooks = [conv.register_forward_hook(lambda _m, _i, y: stats.append((y.mean((0, 2, 3)), y.var((0, 2, 3), unbiased=False)))) for conv, _ in pairs]
    model.eval()
    try:
        model(calib)
    finally:
        for h in hooks:
            h.remove()
    for (_, bn), b, (m, v) in zip(pairs, biases, stats, strict=True):
        bn.running_mean.copy_(m)
        bn.running_var.copy_(v)
        bn.weight.copy_(torch.sqrt(v + bn.eps))
        bn.bias.copy_(m + b)
