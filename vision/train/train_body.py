"""Train the whole-card network (`body_model.BodyNet`) on `body_data` patches; export ONNX.

Augmentation in torch on whole batches: a small affine jitter (outlines found at run time
are a few px off and a card may lie either way up), the index classifier's colour changes
(`augment.colour`: unseen decks differ most in colour) and low resolution.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from vision.reader.classifier import to_input
from vision.reader.labels import RANKS, SUITS
from vision.train.augment import colour
from vision.train.body_data import PATCH_WH
from vision.train.body_model import BodyNet


@dataclass(frozen=True, slots=True)
class BodyTrainConfig:
    epochs: int = 8
    batch: int = 128
    lr: float = 2e-3
    weight_decay: float = 1e-4
    width: int = 16
    threads: int = 2
    seed: int = 0
    minutes: float | None = None  # time box: stop after the epoch that passes it
    init: str = ""  # a body_last.pt or an exported card_body.onnx to start from (continuing an earlier round)
    ink_tint: float = 0.0  # share of batches' patches whose ink is recoloured (augment.tint_ink); 0 = off
    # Weight of a distillation term: the starting network (`init`, frozen) reads each patch
    # before any colour change and the trained one must agree on the changed patch. Why:
    # continued on new patches alone the network lost val accuracy (forgetting); a teacher
    # should keep what it knew while the tint teaches colour-blind suits. Measured 2026-12-06:
    # it did not recover the loss (models/MODEL_CARD.md, whole-card round 3). 0 = off.
    distill: float = 0.0


def load_patches(path: Path, *more: Path) -> dict[str, np.ndarray]:
    """Patches, labels and families of one npz file, or of several joined."""
    parts = [np.load(p) for p in (path, *more)]
    return {k: np.concatenate([d[k] for d in parts]) for k in ("patches", "rank", "suit", "family")}


def to_tensor(patches: np.ndarray) -> torch.Tensor:
    """(N, H, W, 3) BGR uint8 -> (N, 3, H, W) RGB float 0..1, as `BodyClassifier` feeds it."""
    return torch.from_numpy(to_input(patches))


def jitter(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    n = x.shape[0]

    def u(lo: float, hi: float) -> torch.Tensor:
        return torch.rand(n, generator=gen) * (hi - lo) + lo

    s = torch.exp(u(math.log(0.93), math.log(1.07)))
    a = u(-3, 3) * math.pi / 180 + (torch.rand(n, generator=gen) < 0.5) * math.pi  # either way up
    cos, sin = torch.cos(a) * s, torch.sin(a) * s
    theta = torch.stack([torch.stack([cos, -sin, u(-0.04, 0.04)], 1), torch.stack([sin, cos, u(-0.04, 0.04)], 1)], 1)
    grid = F.affine_grid(theta, tuple(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def losses(out: torch.Tensor, rank: torch.Tensor, suit: torch.Tensor) -> torch.Tensor:
    r, s = len(RANKS), len(SUITS)
    pos = rank >= 0
    loss = F.binary_cross_entropy_with_logits(out[:, r + s], pos.float())
    if pos.any():
        loss = loss + F.cross_entropy(out[pos, :r], rank[pos], label_smoothing=0.05)
        loss = loss + F.cross_entropy(out[pos, r : r + s], suit[pos], label_smoothing=0.05)
    return loss


def distill_loss(out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the student's rank and suit distributions against the teacher's,
    and of its "is a card" output against the teacher's probability."""
    r, s = len(RANKS), len(SUITS)
    loss = F.binary_cross_entropy_with_logits(out[:, r + s], torch.sigmoid(target[:, r + s]))
    for a, b in ((0, r), (r, r + s)):
        loss = loss - (F.softmax(target[:, a:b], 1) * F.log_softmax(out[:, a:b], 1)).sum(1).mean()
    return loss


def _teacher(model: BodyNet, cfg: BodyTrainConfig) -> BodyNet | None:
    """A frozen copy of the starting network (eval mode), when `distill` asks for one."""
    if cfg.distill <= 0:
        return None
    if not cfg.init:
        raise ValueError("body.distill needs body.init_from: the network to distil from")
    import copy

    teacher = copy.deepcopy(model).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher


@torch.no_grad()
def predict(model: BodyNet, patches: np.ndarray, batch: int = 512) -> np.ndarray:
    model.eval()
    outs = [model(to_tensor(patches[i : i + batch])).numpy() for i in range(0, len(patches), batch)]
    return np.concatenate(outs) if outs else np.zeros((0, len(RANKS) + len(SUITS) + 1), np.float32)


def evaluate(out: np.ndarray, data: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per family and overall: card (rank and suit) accuracy on positives, and the
    face-up-card decision's precision / recall at 0.5."""
    r, s = len(RANKS), len(SUITS)
    pos = data["rank"] >= 0
    said = out[:, r + s] > 0
    right = (out[:, :r].argmax(1) == data["rank"]) & (out[:, r : r + s].argmax(1) == data["suit"])
    res: dict[str, dict[str, float]] = {}
    for fam in ["all", *sorted(set(data["family"].tolist()))]:
        m = np.ones(len(pos), bool) if fam == "all" else data["family"] == fam
        p = pos & m
        res[fam] = {
            "cards": int(p.sum()),
            "card_acc": float(right[p].mean()) if p.any() else float("nan"),
            "suit_acc": float((out[p, r : r + s].argmax(1) == data["suit"][p]).mean()) if p.any() else float("nan"),
            "rank_acc": float((out[p, :r].argmax(1) == data["rank"][p]).mean()) if p.any() else float("nan"),
            "is_card_precision": float(pos[said & m].mean()) if (said & m).any() else float("nan"),
            "is_card_recall": float(said[p].mean()) if p.any() else float("nan"),
        }
    return res


def _start(train: dict[str, np.ndarray], cfg: BodyTrainConfig, rng: np.random.Generator) -> BodyNet:
    """A fresh BodyNet, or an earlier round's: its body_last.pt, or its exported ONNX file
    (shipped reader folders keep only that; vision/train/from_onnx.py), BatchNorms then
    calibrated on up to 1,024 training patches as the network sees them at run time."""
    if cfg.init.endswith(".onnx"):
        from vision.train.from_onnx import body_net_from_onnx

        pick = np.sort(rng.choice(len(train["rank"]), size=min(1024, len(train["rank"])), replace=False))
        return body_net_from_onnx(Path(cfg.init), cfg.width, PATCH_WH, to_tensor(train["patches"][pick]))
    model = BodyNet(len(RANKS), len(SUITS), cfg.width, PATCH_WH)
    if cfg.init:
        model.load_state_dict(torch.load(cfg.init, map_location="cpu", weights_only=True)["model"])
    return model


def train_body(train: dict[str, np.ndarray], val: dict[str, np.ndarray] | None, cfg: BodyTrainConfig, out_dir: Path) -> BodyNet:
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    gen = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    model = _start(train, cfg, rng)
    teacher = _teacher(model, cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    n = len(train["rank"])
    steps = cfg.epochs * math.ceil(n / cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=max(steps, 1), pct_start=0.15)
    out_dir.mkdir(parents=True, exist_ok=True)
    history, start = [], time.time()
    for epoch in range(cfg.epochs):
        model.train()
        perm, total, nb, t0 = rng.permutation(n), 0.0, 0, time.time()
        bar = tqdm(range(0, n, cfg.batch), desc=f"body {epoch + 1}/{cfg.epochs}", leave=False)
        for i in bar:
            idx = np.sort(perm[i : i + cfg.batch])
            x0 = jitter(to_tensor(train["patches"][idx]), gen)
            out = model(colour(x0, gen, cfg.ink_tint))
            loss = losses(out, torch.from_numpy(train["rank"][idx]), torch.from_numpy(train["suit"][idx]))
            if teacher is not None:
                with torch.no_grad():
                    target = teacher(x0)
                loss = loss + cfg.distill * distill_loss(out, target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total, nb = total + loss.item(), nb + 1
            bar.set_postfix(loss=f"{total / nb:.3f}")
        row: dict = {"epoch": epoch + 1, "loss": total / max(nb, 1), "seconds": round(time.time() - t0, 1)}
        if val is not None and len(val["rank"]):
            row["val"] = evaluate(predict(model, val["patches"]), val)["all"]
        history.append(row)
        print(json.dumps(row), flush=True)
        torch.save({"model": model.state_dict(), "config": asdict(cfg), "epoch": epoch + 1}, out_dir / "body_last.pt")
        if cfg.minutes is not None and time.time() - start > cfg.minutes * 60:
            break
    (out_dir / "body_history.json").write_text(json.dumps(history, indent=1))
    return model


def export_body_onnx(model: BodyNet, path: Path) -> Path:
    """ONNX with a dynamic batch axis, checked against torch with ONNX Runtime."""
    import onnxruntime as ort

    model.eval()
    w, h = PATCH_WH
    x = torch.rand(4, 3, h, w)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model, (x,), str(path), input_names=["cards"], output_names=["logits"],
        dynamic_axes={"cards": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False,
    )  # fmt: skip
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"cards": x.numpy()})[0]
    with torch.no_grad():
        want = model(x).numpy()
    if not np.allclose(got, want, atol=1e-3):
        raise RuntimeError(f"ONNX export of the body network differs from torch (max {np.abs(got - want).max():.2e})")
    return path
