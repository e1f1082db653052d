"""`referee train`: data -> classifier -> detector -> export, each stage resumable.

Everything lands under the config's `out` folder; `export` copies the runtime files into
the model folder (`models/` by default) with `reader.json`, which `CardReader.load` reads.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from pathlib import Path

import numpy as np

from vision.reader.grouping import CardGeometry
from vision.reader.labels import RANKS, SUITS
from vision.reader.reader import META_FILE, ReaderMeta
from vision.train.config import DataConfig, TrainConfig
from vision.train.dataset import DeckSpec, build, make_jobs

STAGES = ("data", "classifier", "detector", "export", "body-data", "body")


def deck_pools(cfg: DataConfig) -> tuple[dict[str, list[DeckSpec]], dict[str, list[DeckSpec]]]:
    """(procedural pools, real-deck pools) per split. Real decks are split by family by the
    synth engine (`vision.synth.splits`), so no family is in two splits."""
    from vision.synth.splits import PROCEDURAL_SEEDS

    for split, (a, b) in cfg.procedural.items():
        seeds = PROCEDURAL_SEEDS.get(split)
        if seeds is None or a not in seeds or (b - 1) not in seeds:
            raise ValueError(f"procedural seeds {a}..{b} are not all in the {split} range of vision.synth.splits")
    def kind(split: str) -> str:
        return f"procedural-v{cfg.procedural_variety}" if split == "train" and cfg.procedural_variety != 1 else "procedural"

    proc = {s: [DeckSpec(f"{kind(s)}:{i}", f"procedural-{s}") for i in range(a, b)] for s, (a, b) in cfg.procedural.items()}
    real: dict[str, list[DeckSpec]] = {}
    if cfg.real_decks:
        real = real_deck_pools()
        # a final fit: the training scenes draw from the validation families too
        real["train"] = [d for split in cfg.train_real_splits for d in real.get(split, [])]
    return proc, real


def real_deck_pools(cache_dir: Path | None = None) -> dict[str, list[DeckSpec]]:
    """Decks of the art cache by split of their family (read from each deck.json)."""
    from vision.synth.decks import available_decks, default_cache_dir
    from vision.synth.splits import family_split

    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    pools: dict[str, list[DeckSpec]] = {}
    for name in available_decks(root):
        family = str(json.loads((root / name / "deck.json").read_text()).get("family", name))
        pools.setdefault(family_split(family), []).append(DeckSpec(name, family))
    return pools


def stage_data(cfg: TrainConfig, out: Path) -> dict:
    d = cfg.data
    proc, real = deck_pools(d)
    jobs = []
    for split, n in d.scenes.items():
        n_real = int(round(n * d.real_weight)) if real.get(split) else 0
        if not proc.get(split):
            n_real = n if real.get(split) else 0
        for pools, count in ((real, n_real), (proc, n - n_real)):
            jobs += make_jobs(
                pools, {split: count}, out, cfg.seed + len(jobs), d.chunk_scenes, d.decks_per_chunk, d.frame, d.sample,
                tiles_for=("train", "val") if d.detector_tiles else (),
            )  # fmt: skip
    jobs = [dataclasses.replace(j, chunk=i) for i, j in enumerate(jobs)]
    # held-out chunks first (small), then training chunks alternating real/procedural, so an
    # interrupted build still has validation data and a balanced partial training set
    held = [j for j in jobs if j.split != "train"]
    train = [j for j in jobs if j.split == "train"]
    real_names = {s.name for p in real.values() for s in p}
    tr_real = [j for j in train if j.decks and j.decks[0].name in real_names]
    tr_proc = [j for j in train if not (j.decks and j.decks[0].name in real_names)]
    mixed = [j for pair in zip(tr_real, tr_proc) for j in pair]
    mixed += tr_real[len(tr_proc) :] + tr_proc[len(tr_real) :]
    jobs = held + mixed
    t0 = time.time()
    summary = build(jobs, out, d.workers)
    summary["seconds"] = time.time() - t0
    summary["decks"] = {
        split: sorted({s.name for j in jobs if j.split == split for s in j.decks}) for split in d.scenes
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def stage_classifier(cfg: TrainConfig, out: Path) -> dict:
    from vision.train.train_classifier import CropSet, evaluate, export_onnx, predict, train_classifier

    train = CropSet.load(out / "cls" / "train.npz")
    if cfg.classifier.extra_train:
        missing = [p for p in cfg.classifier.extra_train if not Path(p).is_file()]
        if missing:
            raise FileNotFoundError(f"classifier.extra_train: not found: {', '.join(missing)}")
        train = CropSet.concat([train, *(CropSet.load(Path(p)) for p in cfg.classifier.extra_train)])
    val = CropSet.load(out / "cls" / "val.npz") if (out / "cls" / "val.npz").is_file() else None
    t0 = time.time()
    model, info = train_classifier(train, val, cfg.classifier, out)
    report = {"seconds": time.time() - t0, "history": info["history"]}
    for split in ("val", "test"):
        p = out / "cls" / f"{split}.npz"
        if p.is_file():
            cs = CropSet.load(p)
            report[split] = evaluate(predict(model, cs, cfg.classifier), cs)
    export_onnx(model, cfg.classifier.size, out / "index_classifier.onnx")
    (out / "classifier_report.json").write_text(json.dumps(report, indent=1))
    return report


def stage_detector(cfg: TrainConfig, out: Path) -> dict:
    from vision.train.train_detector import train_detector

    if cfg.detector.weights_from:  # a classifier-only round keeps an earlier round's detector
        src = Path(cfg.detector.weights_from)
        if not src.is_file():
            raise FileNotFoundError(f"detector.weights_from: not found: {src}")
        shutil.copyfile(src, out / "index_detector.pt")
        return {"seconds": 0.0, "weights": str(src), "trained": False}
    t0 = time.time()
    best = train_detector(out / "det" / "data.yaml", cfg.detector, out)
    shutil.copyfile(best, out / "index_detector.pt")
    return {"seconds": time.time() - t0, "weights": str(best)}


def stage_export(cfg: TrainConfig, out: Path, export_dir: Path) -> dict:
    from vision.train.train_detector import export_detector

    export_dir.mkdir(parents=True, exist_ok=True)
    files = export_detector(out / "index_detector.pt", export_dir, cfg.detector.export_hw)
    shutil.copyfile(out / "index_classifier.onnx", export_dir / "index_classifier.onnx")
    geom = CardGeometry()
    gpath = out / "geometry.json"
    if gpath.is_file():
        g = json.loads(gpath.read_text())
        geom = dataclasses.replace(geom, cx=g["cx"], cy=g["cy"], width=g["width"], height=g["height"])
    s = cfg.data.sample
    meta = ReaderMeta(
        detector_file=files["xml"].name,
        detector_input_hw=tuple(cfg.detector.export_hw),  # type: ignore[arg-type]
        index_px_range=(float(s.index_px_range[0]) + 1, float(s.index_px_range[1]) - 2),
        index_px_target=float(np.sqrt(s.index_px_range[0] * s.index_px_range[1]) + 1),
        classifier_file="index_classifier.onnx",
        classifier_size=cfg.classifier.size,
        classifier_pad=cfg.classifier.runtime_pad,
        ranks=RANKS,
        suits=SUITS,
        geometry=geom,
    )
    scenes = None
    if cfg.int8:  # measured ~2x (detector) and ~4x (classifier) less CPU: MODEL_CARD.md
        from vision.train.quantize import calibration_scenes, quantize_reader

        scenes = calibration_scenes(cfg.int8_scenes)  # drawn once, for every network quantized
        q = quantize_reader(export_dir, meta.detector_input_hw, meta.classifier_size, meta.classifier_pad, scenes=scenes)
        # the float detector stays for CPUs that compute it in bf16, where it beats INT8
        # (ReaderMeta.detector_bf16_file)
        meta = dataclasses.replace(
            meta, detector_file=q["detector"].name, classifier_file=q["classifier"].name,
            detector_bf16_file=meta.detector_file,
        )  # fmt: skip
        files.update({"detector_int8": q["detector"], "classifier_int8": q["classifier"]})
    if cfg.second_view.classifier_from:
        meta = export_second_view(cfg, export_dir, meta, files, scenes)
    unknown = set(cfg.runtime) - set(ReaderMeta.__dataclass_fields__)
    if unknown:
        raise ValueError(f"runtime: unknown reader.json key(s) {', '.join(sorted(unknown))}")
    runtime = dict(cfg.runtime)
    if "geometry" in runtime:  # grouping settings (e.g. reassign_below) on top of the measured shape
        g = dict(runtime.pop("geometry"))
        bad = set(g) - set(CardGeometry.__dataclass_fields__)
        if bad:
            raise ValueError(f"runtime.geometry: unknown key(s) {', '.join(sorted(bad))}")
        meta = dataclasses.replace(meta, geometry=dataclasses.replace(meta.geometry, **g))
    meta = dataclasses.replace(meta, **{k: tuple(v) if isinstance(v, list) else v for k, v in runtime.items()})
    (export_dir / META_FILE).write_text(json.dumps(meta.to_json(), indent=1))
    return {k: str(v) for k, v in files.items()}


def export_second_view(
    cfg: TrainConfig, export_dir: Path, meta: ReaderMeta, files: dict, scenes: list | None = None
) -> ReaderMeta:
    """Copy (and quantize, on `scenes` or freshly drawn calibration tables) an earlier
    round's classifier as the reader's second view."""
    sv = cfg.second_view
    src = Path(sv.classifier_from)
    if not src.is_file():
        raise FileNotFoundError(f"second_view.classifier_from: not found: {src}")
    dst = export_dir / "index_classifier2.onnx"
    shutil.copyfile(src, dst)
    files["classifier2"] = dst
    if cfg.int8:
        from vision.train.quantize import calibration_scenes, quantize_classifier

        if scenes is None:
            scenes = calibration_scenes(cfg.int8_scenes)
        dst = quantize_classifier(dst, scenes, export_dir / "index_classifier2_int8.xml", sv.size, sv.pad)
        files["classifier2_int8"] = dst
    return dataclasses.replace(
        meta, classifier2_file=dst.name, classifier2_size=sv.size, classifier2_pad=sv.pad,
        classifier2_weight=sv.weight, classifier2_below=sv.below,
    )  # fmt: skip


def body_jobs(cfg: TrainConfig, data_dir: Path) -> list:
    """The whole-card data's render jobs: per split, `real_weight` of the scenes from the
    art cache's decks of that split, the rest from procedural designs."""
    from vision.train.body_data import make_body_jobs

    b = cfg.body
    real = real_deck_pools()
    jobs: list = []
    for split in ("val", "test", "train"):
        n = b.scenes.get(split, 0)
        a, z = b.procedural.get(split, (0, 0))
        kind = f"procedural-v{b.procedural_variety}" if split == "train" and b.procedural_variety != 1 else "procedural"
        proc = [DeckSpec(f"{kind}:{i}", f"procedural-{split}") for i in range(a, z)]
        n_real = int(n * b.real_weight) if real.get(split) else 0
        jobs += make_body_jobs({split: real.get(split, [])}, {split: n_real}, data_dir, b.seed + len(jobs) + 11, b.chunk_scenes, b.decks_per_chunk)
        jobs += make_body_jobs({split: proc}, {split: n - n_real}, data_dir, b.seed + len(jobs) + 12, b.chunk_scenes, b.decks_per_chunk)
    return [dataclasses.replace(j, chunk=i) for i, j in enumerate(jobs)]


def missing_body_inputs(cfg: TrainConfig) -> str:
    """What a continued whole-card round lacks of its earlier round's files ("" if nothing)."""
    b = cfg.body
    missing = [f for f in (b.init_from, *b.extra_train) if f and not Path(f).is_file()]
    return f"body.init_from / body.extra_train: no such file: {', '.join(missing)} (train that round first)" if missing else ""


def stage_body_data(cfg: TrainConfig, out: Path) -> dict:
    """Render the whole-card patches of `body.scenes` into out/body (kept: a later run with
    the same out reuses them). Alone (`--stages body-data`) it makes a patch set that another
    round joins through `body.extra_train`."""
    from vision.train.body_data import build_body_data

    b, data_dir = cfg.body, out / "body"
    splits = [s for s, n in b.scenes.items() if n > 0]
    report: dict = {}
    if not all((data_dir / f"{s}.npz").is_file() for s in splits):
        t0 = time.time()
        report["patches"] = build_body_data(body_jobs(cfg, data_dir), data_dir, b.workers)
        report["data_seconds"] = time.time() - t0
    return report


def stage_body(cfg: TrainConfig, out: Path, export_dir: Path) -> dict:
    """Data, training and export of the whole-card network; it joins the model in
    `export_dir` (card_body.onnx, reader.json's body_* fields) when one is there."""
    from vision.train.train_body import BodyTrainConfig, evaluate, export_body_onnx, load_patches, predict, train_body

    b, data_dir = cfg.body, out / "body"
    missing = missing_body_inputs(cfg)
    if missing:  # before any rendering: a continued round needs the earlier one
        raise FileNotFoundError(missing)
    report = stage_body_data(cfg, out)
    if not (data_dir / "train.npz").is_file():
        raise FileNotFoundError(f"no whole-card training patches in {data_dir}: body.scenes has no train scenes")
    train = load_patches(data_dir / "train.npz", *map(Path, b.extra_train))
    val = load_patches(data_dir / "val.npz") if (data_dir / "val.npz").is_file() else None
    tcfg = BodyTrainConfig(
        epochs=b.epochs, batch=b.batch, lr=b.lr, width=b.width, threads=b.threads, seed=b.seed, minutes=b.minutes, init=b.init_from,
        ink_tint=b.ink_tint, distill=b.distill,
    )  # fmt: skip
    t0 = time.time()
    model = train_body(train, val, tcfg, out)
    report["train_seconds"] = time.time() - t0
    for split in ("val", "test"):
        if (data_dir / f"{split}.npz").is_file():
            d = load_patches(data_dir / f"{split}.npz")
            report[split] = evaluate(predict(model, d["patches"]), d)
    onnx = export_body_onnx(model, out / "card_body.onnx")
    runtime_file = onnx
    if cfg.int8:  # as for the corner reader: calibrated on training patches only
        from vision.train.quantize import quantize_body

        runtime_file = quantize_body(onnx, train["patches"], out / "card_body_int8.xml")
    (out / "body_report.json").write_text(json.dumps(report, indent=1))
    meta_path = export_dir / META_FILE
    if meta_path.is_file():
        for f in {onnx, runtime_file, runtime_file.with_suffix(".bin")}:
            if f.is_file():
                shutil.copyfile(f, export_dir / f.name)
        unknown = {k for k in b.runtime if not k.startswith("body_")} | (set(b.runtime) - set(ReaderMeta.__dataclass_fields__))
        if unknown:
            raise ValueError(f"body.runtime: not a reader.json body_* key: {', '.join(sorted(unknown))}")
        meta = ReaderMeta.from_json(json.loads(meta_path.read_text()))
        meta = dataclasses.replace(meta, body_file=runtime_file.name, **b.runtime)
        meta_path.write_text(json.dumps(meta.to_json(), indent=1))
        report["export"] = str(export_dir / runtime_file.name)
    return report


def run(cfg: TrainConfig, stages: tuple[str, ...] = STAGES, out: Path | None = None, export_dir: Path | None = None) -> dict:
    out = Path(out or cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=1, default=list))
    report: dict = {}
    if "data" in stages:
        report["data"] = stage_data(cfg, out)
    if "classifier" in stages:
        report["classifier"] = stage_classifier(cfg, out)
    if "detector" in stages:
        report["detector"] = stage_detector(cfg, out)
    if "export" in stages:
        report["export"] = stage_export(cfg, out, Path(export_dir or cfg.export_dir))
    if "body-data" in stages and "body" not in stages:
        report["body_data"] = stage_body_data(cfg, out)
    if "body" in stages:
        report["body"] = stage_body(cfg, out, Path(export_dir or cfg.export_dir))
    return report
