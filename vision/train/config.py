"""The training config (configs/train/*.yaml): one file reproduces a shipped model."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from vision.train.samples import SampleConfig
from vision.train.train_classifier import ClassifierConfig
from vision.train.train_detector import DetectorConfig


@dataclass(frozen=True, slots=True)
class DataConfig:
    frame: tuple[int, int] = (1280, 720)  # rendered scene size (the webcam frame)
    scenes: dict[str, int] = field(default_factory=lambda: {"train": 3000, "val": 250, "test": 250})
    chunk_scenes: int = 60
    decks_per_chunk: int = 6
    workers: int = 2
    # procedural seeds per split, as [first, last) ranges: different seeds = different designs
    procedural: dict[str, tuple[int, int]] = field(
        default_factory=lambda: {"train": (0, 400), "val": (1_000_000, 1_000_012), "test": (2_000_000, 2_000_012)}
    )
    # 2: training designs drawn with wider index layouts (vision.synth.procedural._widen);
    # held-out designs always keep variety 1, so benchmarks compare across rounds
    procedural_variety: int = 1
    real_decks: bool = True  # add the art cache's decks, split by family (vision.synth.splits)
    real_weight: float = 0.5  # share of chunks drawn from real decks when both exist
    # Which splits' real deck families the training scenes draw from. ("train",): the
    # held-out families stay unseen (every round that chose a setting). ("train", "val"): a
    # final fit after the choices are made, with the validation designs too (more real
    # designs for decks nobody has; the val families then no longer measure it). "test" is
    # refused: the test families are the one measure no training may see.
    train_real_splits: tuple[str, ...] = ("train",)
    detector_tiles: bool = True  # false: classifier crops only (a classifier-only data round)
    sample: SampleConfig = field(default_factory=SampleConfig)

    def __post_init__(self) -> None:
        bad = [s for s in self.train_real_splits if s not in ("train", "val")]
        if bad or "train" not in self.train_real_splits:
            raise ValueError(f"data.train_real_splits must be [train] or [train, val], not {list(self.train_real_splits)}")


@dataclass(frozen=True, slots=True)
class SecondViewConfig:
    """An earlier round's classifier shipped beside this one as a second view of each index
    (vision.reader.classifier.TwoViewClassifier): e.g. round 2's tight 1.25-side crops at
    40 px next to round 3's wide 2.2-side crops. Empty `classifier_from` = one view."""

    classifier_from: str = ""  # that round's exported float classifier (index_classifier.onnx)
    size: int = 40  # its input size and crop pad, as it was trained
    pad: float = 1.25
    weight: float = 0.3  # its share in the fused rank/suit distributions
    below: float = 1.0  # run it only where the first view's rank_p × suit_p is below this


@dataclass(frozen=True, slots=True)
class BodyConfig:
    """The whole-card reader (vision/reader/body.py): its data, training and the fusion
    settings written to reader.json (`runtime`: ReaderMeta body_* fields)."""

    scenes: dict[str, int] = field(default_factory=lambda: {"train": 4000, "val": 300, "test": 400})
    chunk_scenes: int = 20
    decks_per_chunk: int = 6
    procedural: dict[str, tuple[int, int]] = field(
        default_factory=lambda: {"train": (8000, 8600), "val": (1_000_000, 1_000_012), "test": (2_000_000, 2_000_012)}
    )
    procedural_variety: int = 2  # training designs only, as for the corner reader
    real_weight: float = 0.5
    workers: int = 2
    seed: int = 0
    epochs: int = 8
    batch: int = 128
    lr: float = 2e-3
    width: int = 16  # network width (channels of its first block)
    threads: int = 2
    minutes: float | None = None  # time box for training
    runtime: dict[str, Any] = field(default_factory=dict)
    # Continue an earlier round instead of starting afresh: its body_last.pt (same width)
    # and its train.npz files, joined to this run's own training patches.
    init_from: str = ""  # body_last.pt, or an exported card_body.onnx (e.g. a copy of models/)
    extra_train: tuple[str, ...] = ()
    # Share of training patches whose black ink is recoloured (augment.tint_ink), as for the
    # index classifier's `ink_tint`: four-colour decks print spades and clubs in colour.
    ink_tint: float = 0.0
    # Distillation from `init_from` (train_body.BodyTrainConfig.distill): 0 = off.
    distill: float = 0.0


@dataclass(frozen=True, slots=True)
class TrainConfig:
    out: str = "runs/reader"
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    classifier: ClassifierConfig = field(default_factory=ClassifierConfig)
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    export_dir: str = "models"
    int8: bool = False  # also write INT8 copies (NNCF) and make reader.json load them
    int8_scenes: int = 96  # calibration tables (training designs only)
    # runtime thresholds written to reader.json (ReaderMeta fields), chosen on val families
    runtime: dict[str, Any] = field(default_factory=dict)
    second_view: SecondViewConfig = field(default_factory=SecondViewConfig)
    body: BodyConfig = field(default_factory=BodyConfig)


def _build(cls: type, raw: dict[str, Any] | None, where: str) -> Any:
    raw = dict(raw or {})
    names = {f.name: f for f in fields(cls)}
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}")
    nested = {"data": DataConfig, "classifier": ClassifierConfig, "detector": DetectorConfig, "sample": SampleConfig, "second_view": SecondViewConfig, "body": BodyConfig}
    kwargs: dict[str, Any] = {}
    for k, v in raw.items():
        if k in nested and isinstance(v, dict):
            kwargs[k] = _build(nested[k], v, f"{where}.{k}")
        elif isinstance(v, list) and k not in ("hyp", "runtime"):
            kwargs[k] = tuple(v)
        elif k == "procedural" and isinstance(v, dict):
            kwargs[k] = {s: tuple(r) for s, r in v.items()}
        else:
            kwargs[k] = v
    return cls(**kwargs)


def load_config(path: str | Path | None) -> TrainConfig:
    """Defaults, overridden by the YAML file; unknown keys are errors (typos never pass)."""
    if path is None:
        return TrainConfig()
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"training config not found: {p}")
    raw = yaml.safe_load(p.read_text()) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{p}: expected a mapping at the top level")
    return _build(TrainConfig, raw, p.name)
