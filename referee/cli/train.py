"""`referee train`: train and export the card reader (index detector + index classifier)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from referee.cli.main import CliError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train the card reader from synthetic scenes and export it",
        description="Build synthetic data, train the corner-index detector (ultralytics, from a "
        "model yaml, offline) and the index classifier, export OpenVINO/ONNX files and "
        "reader.json; the body stage trains the whole-card network (vision/reader/body.py) and "
        "adds it to the exported model. Everything is reproducible from the config file.",
    )
    p.add_argument("--config", default="configs/train/reader.yaml", help="training config YAML (default: %(default)s)")
    p.add_argument("--out", help="run folder for data, checkpoints and reports (default: the config's `out`)")
    p.add_argument("--export-dir", help="where the runtime files go (default: the config's `export_dir`, models/)")
    p.add_argument(
        "--stages", default="data,classifier,detector,export,body",
        help="comma-separated subset of data,classifier,detector,export,body-data,body (default: all but body-data, in order; body-data renders the whole-card patches only, body renders them if missing and trains)",
    )  # fmt: skip
    p.add_argument("--epochs", type=int, help="detector epochs (overrides the config, including its time budget)")
    p.add_argument("--classifier-epochs", type=int, help="classifier epochs (overrides the config)")
    p.add_argument("--classifier-init", help="continue the classifier from this checkpoint (classifier_last.pt)")
    p.add_argument("--classifier-lr", type=float, help="classifier peak learning rate (overrides the config)")
    p.add_argument("--imgsz", type=int, help="detector training tile size (overrides the config)")
    p.add_argument("--device", help="training device for the detector, e.g. cpu or 0 (overrides the config)")
    p.add_argument("--workers", type=int, help="processes rendering synthetic scenes (overrides the config)")
    p.add_argument("--resume", action="store_true", help="resume the detector from its last checkpoint")
    p.add_argument("--seed", type=int, help="data seed (overrides the config)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vision.train.offline import setup_offline

    setup_offline()
    from vision.train.config import load_config
    from vision.train.pipeline import STAGES
    from vision.train.pipeline import missing_body_inputs
    from vision.train.pipeline import run as run_pipeline

    try:
        cfg = load_config(args.config)
    except (FileNotFoundError, ValueError, TypeError) as exc:
        raise CliError(str(exc)) from None
    stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    bad = [s for s in stages if s not in STAGES]
    if bad:
        raise CliError(f"unknown stage(s) {', '.join(bad)}; choose from {', '.join(STAGES)}")
    det = cfg.detector
    if args.epochs is not None:  # an explicit epoch count replaces the config's time budget
        det = dataclasses.replace(det, epochs=args.epochs, hyp={k: v for k, v in det.hyp.items() if k != "time"})
    if args.imgsz is not None:
        det = dataclasses.replace(det, imgsz=args.imgsz)
    if args.device is not None:
        det = dataclasses.replace(det, device=args.device)
    if args.resume:
        det = dataclasses.replace(det, resume=True)
    cls_cfg = cfg.classifier
    if args.classifier_epochs is not None:
        cls_cfg = dataclasses.replace(cls_cfg, epochs=args.classifier_epochs)
    if args.classifier_init is not None:
        if not Path(args.classifier_init).is_file():
            raise CliError(f"classifier checkpoint not found: {args.classifier_init}")
        cls_cfg = dataclasses.replace(cls_cfg, init=args.classifier_init)
    if args.classifier_lr is not None:
        cls_cfg = dataclasses.replace(cls_cfg, lr=args.classifier_lr)
    data = cfg.data
    if args.workers is not None:
        data = dataclasses.replace(data, workers=args.workers)
    cfg = dataclasses.replace(cfg, detector=det, classifier=cls_cfg, data=data, seed=cfg.seed if args.seed is None else args.seed)
    out = Path(args.out or cfg.out)
    if "classifier" in stages and "data" not in stages and not (out / "cls" / "train.npz").is_file():
        raise CliError(f"no training data in {out}: run the data stage first")
    if "body" in stages and (missing := missing_body_inputs(cfg)):
        raise CliError(missing)
    report = run_pipeline(cfg, stages, out, Path(args.export_dir) if args.export_dir else None)
    print(json.dumps({k: _short(v) for k, v in report.items()}, default=str))
    return 0


def _short(v: object) -> object:
    if isinstance(v, dict):
        return {k: x for k, x in v.items() if k not in ("history", "sample", "decks")}
    return v
