"""Train the index classifier on stored context crops; evaluate per deck family; export ONNX."""

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
from vision.train.augment import colour, sample_view, stroke_weight
from vision.train.classifier_model import IndexNet


@dataclass(frozen=True, slots=True)
class ClassifierConfig:
    epochs: int = 12
    batch: int = 256
    lr: float = 3e-3
    weight_decay: float = 5e-4
    size: int = 40  # network input
    runtime_pad: float = 1.25  # crop side / index long side at run time
    width: int = 16
    threads: int = 2
    seed: int = 0
    init: str | None = None  # continue from a checkpoint (classifier_last.pt) or an exported .onnx instead of scratch
    extra_train: tuple[str, ...] = ()  # more cls/train.npz files (earlier data rounds) to train on
    ink_tint: float = 0.0  # share of training crops whose ink is recoloured (augment.tint_ink)
    # share of training crops given another typeface's proportions and weight: a width / height
    # ratio of ×0.74–1.35 (`sample_view`'s wide_aspect) and bolder or thinner strokes
    # (augment.stroke_weight). Measured in round 11 (MODEL_CARD.md): no gain; 0 draws nothing.
    glyph_shape: float = 0.0


@dataclass(slots=True)
class CropSet:
    crops: np.ndarray  # (N, S, S, 3) uint8 BGR
    rank: np.ndarray  # (N,) -1 = not an index
    suit: np.ndarray
    up: np.ndarray  # (N, 2)
    family: np.ndarray  # (N,) str
    stored_pad: float

    @classmethod
    def load(cls, path: Path) -> CropSet:
        z = np.load(path, allow_pickle=False)
        return cls(z["crops"], z["rank"], z["suit"], z["up"], z["family"], float(z["stored_pad"]))

    def __len__(self) -> int:
        return len(self.rank)

    @classmethod
    def concat(cls, sets: list[CropSet]) -> CropSet:
        """One set from several data rounds (same stored crop geometry required)."""
        pads = {s.stored_pad for s in sets}
        sizes = {s.crops.shape[1:] for s in sets}
        if len(pads) != 1 or len(sizes) != 1:
            raise ValueError(f"crop sets differ in stored geometry (pads {sorted(pads)}, sizes {sorted(sizes)})")
        return cls(
            np.concatenate([s.crops for s in sets]), np.concatenate([s.rank for s in sets]),
            np.concatenate([s.suit for s in sets]), np.concatenate([s.up for s in sets]),
            np.concatenate([s.family for s in sets]), sets[0].stored_pad,
        )  # fmt: skip


def _batch_tensors(cs: CropSet, idx: np.ndarray) -> tuple[torch.Tensor, ...]:
    x = torch.from_numpy(to_input(cs.crops[idx]))
    return x, torch.from_numpy(cs.rank[idx]).long(), torch.from_numpy(cs.suit[idx]).long(), torch.from_numpy(cs.up[idx]).float()


def losses(out: torch.Tensor, rank: torch.Tensor, suit: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    nr, ns = len(RANKS), len(SUITS)
    pos = rank >= 0
    l_idx = F.binary_cross_entropy_with_logits(out[:, nr + ns], pos.float())
    if not pos.any():
        return l_idx
    o = out[pos]
    l_rank = F.cross_entropy(o[:, :nr], rank[pos], label_smoothing=0.05)
    l_suit = F.cross_entropy(o[:, nr : nr + ns], suit[pos], label_smoothing=0.05)
    l_up = F.mse_loss(o[:, nr + ns + 1 : nr + ns + 3], up[pos])
    return l_rank + l_suit + l_idx + 0.5 * l_up


def _eval_views(cs: CropSet, idx: np.ndarray, cfg: ClassifierConfig) -> torch.Tensor:
    """The network inputs of crops `idx` as the runtime sees them (no augmentation)."""
    x, _, _, up = _batch_tensors(cs, idx)
    return sample_view(x, up, cfg.size, cfg.runtime_pad / cs.stored_pad, train=False)[0]


@torch.no_grad()
def predict(model: IndexNet, cs: CropSet, cfg: ClassifierConfig) -> np.ndarray:
    model.eval()
    outs = [model(_eval_views(cs, np.arange(i, min(i + 512, len(cs))), cfg)).numpy() for i in range(0, len(cs), 512)]
    return np.concatenate(outs) if outs else np.zeros((0, len(RANKS) + len(SUITS) + 3), np.float32)


def evaluate(out: np.ndarray, cs: CropSet) -> dict[str, dict[str, float]]:
    """Per family and overall: rank / suit / card accuracy on indices, index-head accuracy,
    reading-direction error (degrees, median)."""
    nr, ns = len(RANKS), len(SUITS)
    pos = cs.rank >= 0
    res: dict[str, dict[str, float]] = {}
    fams = ["all", *sorted(set(cs.family.tolist()))]
    for fam in fams:
        m = np.ones(len(cs), bool) if fam == "all" else cs.family == fam
        p = m & pos
        r_ok = out[p, :nr].argmax(1) == cs.rank[p]
        s_ok = out[p, nr : nr + ns].argmax(1) == cs.suit[p]
        is_idx = out[m, nr + ns] > 0
        u = out[p, nr + ns + 1 : nr + ns + 3]
        ang = np.degrees(np.abs(np.angle((u[:, 0] + 1j * u[:, 1]) / (cs.up[p, 0] + 1j * cs.up[p, 1] + 1e-9))))
        res[fam] = {
            "indices": int(p.sum()),
            "rank_acc": float(r_ok.mean()) if p.any() else math.nan,
            "suit_acc": float(s_ok.mean()) if p.any() else math.nan,
            "card_acc": float((r_ok & s_ok).mean()) if p.any() else math.nan,
            "index_head_acc": float((is_idx == pos[m]).mean()) if m.any() else math.nan,
            "up_err_med_deg": float(np.median(ang)) if p.any() else math.nan,
            "up_err_gt90_frac": float((ang > 90).mean()) if p.any() else math.nan,
        }
    return res


def load_matching(model: IndexNet, path: Path) -> list[str]:
    """Load a checkpoint's weights wherever the shapes match; returns the keys left fresh.

    The convolution trunk does not depend on the input size, the flattening neck does: a
    run at a new crop size keeps the learnt trunk and starts the neck afresh."""
    if not path.is_file():
        raise FileNotFoundError(f"classifier.init: not found: {path}")
    saved = torch.load(path, map_location="cpu", weights_only=True)["model"]
    own = model.state_dict()
    fresh = [k for k in own if k not in saved or saved[k].shape != own[k].shape]
    model.load_state_dict({k: v for k, v in saved.items() if k in own and v.shape == own[k].shape}, strict=False)
    if fresh:
        print(f"classifier.init: {len(fresh)} tensors start fresh (shape changed): {', '.join(fresh)}", flush=True)
    return fresh


def _from_onnx(path: Path, train: CropSet, cfg: ClassifierConfig, rng: np.random.Generator) -> IndexNet:
    """A shipped (exported) classifier continued: its BatchNorms calibrated on training crops
    seen as at run time (vision/train/from_onnx.py)."""
    from vision.train.from_onnx import index_net_from_onnx

    idx = np.sort(rng.choice(len(train), size=min(2048, len(train)), replace=False))
    return index_net_from_onnx(path, cfg.width, cfg.size, _eval_views(train, idx, cfg))


def train_classifier(train: CropSet, val: CropSet | None, cfg: ClassifierConfig, out_dir: Path) -> tuple[IndexNet, dict]:
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    gen = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    if cfg.init and cfg.init.endswith(".onnx"):
        model = _from_onnx(Path(cfg.init), train, cfg, rng)
    else:
        model = IndexNet(len(RANKS), len(SUITS), cfg.width, cfg.size)
        if cfg.init:
            load_matching(model, Path(cfg.init))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps = cfg.epochs * math.ceil(len(train) / cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=max(steps, 1), pct_start=0.15)
    zoom = cfg.runtime_pad / train.stored_pad
    history = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for epoch in range(cfg.epochs):
        model.train()
        perm = rng.permutation(len(train))
        t0, total, nb = time.time(), 0.0, 0
        bar = tqdm(range(0, len(perm), cfg.batch), desc=f"classifier {epoch + 1}/{cfg.epochs}", leave=False)
        for i in bar:
            x, rank, suit, up = _batch_tensors(train, np.sort(perm[i : i + cfg.batch]))
            glyph = torch.rand(len(x), generator=gen) < cfg.glyph_shape if cfg.glyph_shape > 0 else None
            v, up = sample_view(x, up, cfg.size, zoom, train=True, gen=gen, wide_aspect=glyph)
            if glyph is not None:
                v = stroke_weight(v, glyph, gen)
            v = colour(v, gen, cfg.ink_tint)
            loss = losses(model(v), rank, suit, up)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total, nb = total + loss.item(), nb + 1
            bar.set_postfix(loss=f"{total / nb:.3f}")
        row = {"epoch": epoch + 1, "loss": total / max(nb, 1), "seconds": time.time() - t0}
        if val is not None and len(val):
            row["val"] = evaluate(predict(model, val, cfg), val)["all"]
        history.append(row)
        print(json.dumps(row), flush=True)
        torch.save({"model": model.state_dict(), "config": asdict(cfg), "epoch": epoch + 1}, out_dir / "classifier_last.pt")
    (out_dir / "classifier_history.json").write_text(json.dumps(history, indent=1))
    return model, {"history": history}


def export_onnx(model: IndexNet, size: int, path: Path) -> Path:
    """ONNX with a dynamic batch axis; checked against torch with ONNX Runtime."""
    import onnxruntime as ort

    model.eval()
    x = torch.rand(3, 3, size, size)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model, (x,), str(path), input_names=["crops"], output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False,
    )  # fmt: skip
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"crops": x.numpy()})[0]
    with torch.no_grad():
        want = model(x).numpy()
    if not np.allclose(got, want, atol=1e-3):
        raise RuntimeError(f"ONNX export of the classifier differs from torch (max {np.abs(got - want).max():.2e})")
    return path
