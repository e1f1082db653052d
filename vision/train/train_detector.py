"""The corner-index detector: ultralytics training from a model yaml, export for the runtime."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.train.offline import REPO_ROOT, setup_offline


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    model: str = "configs/train/models/yolo11t-index.yaml"  # a yaml: never hub weights
    epochs: int = 8
    imgsz: int = 320
    batch: int = 16
    device: str = "cpu"
    workers: int = 0
    patience: int = 100
    save_period: int = 1
    export_hw: tuple[int, int] = (384, 640)  # runtime input: a 1280×720 frame at ÷2, padded
    resume: bool = False
    hyp: dict[str, Any] = field(default_factory=dict)  # ultralytics train overrides
    extra_train: tuple[str, ...] = ()  # more det/images/train folders (earlier data rounds)
    weights_from: str | None = None  # use these trained weights (.pt) as this round's detector, no training


def _model_path(model: str) -> str:
    p = Path(model)
    if not p.is_absolute() and (REPO_ROOT / p).is_file():
        return str(REPO_ROOT / p)
    if p.suffix == ".pt" and not p.is_file():
        raise FileNotFoundError(f"detector weights {model} not found (nothing is downloaded)")
    return str(p)


def train_detector(data_yaml: Path, cfg: DetectorConfig, out_dir: Path, name: str = "detector") -> Path:
    """Train (or resume) and return the path of best.pt."""
    setup_offline()
    from ultralytics import YOLO

    run_dir = out_dir / name
    last = run_dir / "weights" / "last.pt"
    if cfg.resume and last.is_file():
        model = YOLO(str(last))
        model.train(resume=True)
    else:
        if cfg.extra_train:
            data_yaml = _with_extra_train(data_yaml, cfg.extra_train)
        model = YOLO(_model_path(cfg.model))
        args = dict(
            data=str(data_yaml), epochs=cfg.epochs, imgsz=cfg.imgsz, batch=cfg.batch, device=cfg.device,
            workers=cfg.workers, patience=cfg.patience, save_period=cfg.save_period, project=str(out_dir.resolve()),
            name=name, exist_ok=True, plots=False, amp=False, pretrained=False, verbose=True, seed=0, deterministic=False,
        )  # fmt: skip
        args.update(cfg.hyp)
        model.train(**args)
    best = run_dir / "weights" / "best.pt"
    return best if best.is_file() else last


def _with_extra_train(data_yaml: Path, extra: tuple[str, ...]) -> Path:
    """A copy of data.yaml whose train entry lists the extra image folders too."""
    import yaml

    d = yaml.safe_load(data_yaml.read_text())
    root = Path(d.get("path", data_yaml.parent))
    train = d["train"] if isinstance(d["train"], list) else [d["train"]]
    dirs = [str(root / t) for t in train]
    for e in extra:
        p = Path(e).resolve()
        if not p.is_dir():
            raise FileNotFoundError(f"detector.extra_train: not a folder: {e}")
        dirs.append(str(p))
    d["train"] = dirs
    out = data_yaml.with_name("data_extra.yaml")
    out.write_text(yaml.safe_dump(d))
    return out


def export_detector(weights: Path, dest_dir: Path, export_hw: tuple[int, int], stem: str = "index_detector") -> dict[str, Path]:
    """OpenVINO IR (runtime default) + ONNX (fallback), both at the fixed rectangular size.

    Returns {"xml", "bin", "onnx", "pt"} paths inside dest_dir.
    """
    setup_offline()
    from ultralytics import YOLO

    dest_dir.mkdir(parents=True, exist_ok=True)
    work = dest_dir / f".export_{stem}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    pt = work / f"{stem}.pt"
    shutil.copyfile(weights, pt)
    out: dict[str, Path] = {}
    onnx = Path(YOLO(str(pt)).export(format="onnx", imgsz=list(export_hw), dynamic=False, simplify=True, half=False))
    out["onnx"] = dest_dir / f"{stem}.onnx"
    shutil.copyfile(onnx, out["onnx"])
    ov_dir = Path(YOLO(str(pt)).export(format="openvino", imgsz=list(export_hw), dynamic=False, half=False))
    for ext in ("xml", "bin"):
        src = next(ov_dir.glob(f"*.{ext}"))
        out[ext] = dest_dir / f"{stem}.{ext}"
        shutil.copyfile(src, out[ext])
    out["pt"] = dest_dir / f"{stem}.pt"
    shutil.copyfile(weights, out["pt"])
    shutil.rmtree(work)
    return out
