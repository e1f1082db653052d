"""Card reader benchmark: accuracy on held-out deck families and speed on 2 cores.

    .venv/bin/python benchmarks/bench_reader.py [--model models] [--frames 30] [--cascades 40]
        [--photos 60] [--closeups 60] [--speed-frames 40] [--map-data runs/reader/det/data.yaml] [--out FILE]
        [--split all|val|test]

Accuracy: synthetic 1280×720 tables rendered from decks the model never trained on (the
val and test families of vision.synth.splits, plus held-out procedural seeds), scored per
family (card-level precision / recall / F1, see reader_eval.py), plus a set of overlapped
cascades and hands. Index-level confusions are listed. Optional: mAP50 of the detector
via ultralytics val on the held-out detector tiles.

Speed: the same frames read by our runtime (OpenVINO, 2 threads, all stages) and, in the
same loop, by ultralytics' default PyTorch predict at imgsz 640 (2 torch threads) with
(a) a yolo11n 52-class model (the one-stage baseline design) and (b) our own detector.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

# torch's OpenMP workers spin after each call by default and would steal the 2 cores from
# the OpenVINO runtime timed right after them; passive waiting makes the side-by-side fair.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from reader_eval import Score, score_frame  # noqa: E402
from vision.reader.reader import PRECISIONS  # noqa: E402

FRAME = (1280, 720)


def held_out_decks(n_proc: int) -> dict[str, list]:
    """family -> DeckArt list, for every family outside training."""
    from vision.synth.procedural import make_procedural_deck
    from vision.synth.splits import procedural_seeds
    from vision.train.pipeline import real_deck_pools

    fams: dict[str, list] = {}
    for split, specs in real_deck_pools().items():
        if split == "train":
            continue
        for spec in specs:
            fams.setdefault(f"{spec.family} ({split})", []).append(spec)
    out = {k: [s.load() for s in v] for k, v in sorted(fams.items())}
    cfg_ranges = {"val": 1_000_000, "test": 2_000_000}
    for split, start in cfg_ranges.items():
        out[f"procedural ({split})"] = [make_procedural_deck(start + i) for i in range(n_proc)]
    _ = procedural_seeds  # same seed ranges as training's held-out splits
    return out


def cascade_scene(rng: np.random.Generator, deck, size: tuple[int, int]):  # noqa: ANN001, ANN201
    """Overlapped cascades (each card shifted so its top index shows) and a hand row."""
    from vision.synth.conditions import SceneConditions
    from vision.synth.layouts import _rot, default_card_height_range
    from vision.synth.scene import CardPlacement, compose_table

    W, H = size
    lo, hi = default_card_height_range(size)
    ch = float(rng.uniform(lo, hi))
    cw = ch * deck.size[0] / deck.size[1]
    pool = list(rng.permutation(deck.cards))
    placements = []
    for g in range(int(rng.integers(2, 4))):
        seat = float(rng.choice([0, 90, 180, 270])) + float(rng.normal(0, 8))
        u, v = _rot(seat)
        anchor = np.array([W * (0.2 + 0.3 * g) + rng.normal(0, 30), H * rng.uniform(0.35, 0.65)])
        n = int(rng.integers(3, 8))
        if rng.random() < 0.6:  # Khmer-style cascade: shifted down the card
            step = v * ch * rng.uniform(0.17, 0.32)
        else:  # a hand laid in a row: shifted sideways
            step = u * cw * rng.uniform(0.25, 0.5)
        start = anchor - step * (n - 1) / 2
        for k in range(n):
            c = start + step * k + rng.normal(0, 0.01 * ch, 2)
            placements.append(CardPlacement(str(pool.pop()), (float(c[0]), float(c[1])), seat + float(rng.normal(0, 2)), ch))
    return compose_table(placements, deck, size, SceneConditions.random(rng), rng)


def closeup_scene(rng: np.random.Generator, deck):  # noqa: ANN001, ANN201
    """A close-up photo of one card: 60-95 % of the image height, near the middle, turned
    up to ~20°, any photo size (`--closeups`)."""
    from vision.synth.conditions import SceneConditions
    from vision.synth.scene import CardPlacement, compose_table

    w, h = PHOTO_SIZES[int(rng.integers(len(PHOTO_SIZES)))]
    ch = float(rng.uniform(0.6, 0.95)) * h
    centre = (w / 2 + float(rng.normal(0, 0.05 * w)), h / 2 + float(rng.normal(0, 0.03 * h)))
    card = CardPlacement(str(rng.choice(deck.cards)), centre, float(rng.normal(0, 10)), ch)
    return compose_table([card], deck, (w, h), SceneConditions.random(rng), rng)


PHOTO_SIZES = ((520, 400), (400, 520), (640, 480), (800, 600), (1024, 768), (1280, 960), (1600, 1200), (1200, 1600))


def photo_scene(rng: np.random.Generator, decks: list):  # noqa: ANN201
    """A photo of unknown scale: any image size, cards 35–90 % of the image height (a
    close-up of one card, a hand, part of a table)."""
    from vision.synth.layouts import random_scene

    w, h = PHOTO_SIZES[int(rng.integers(len(PHOTO_SIZES)))]
    lo = float(rng.uniform(0.35, 0.7))
    return random_scene(rng, decks, size=(w, h), card_height_range=(lo * h, min(0.9, lo + 0.2) * h))


def accuracy(  # noqa: ANN001
    reader, decks: dict[str, list], frames: int, cascades: int, seed: int, photos: int = 0, closeups: int = 0
) -> dict:
    from tqdm import tqdm
    from vision.synth.layouts import random_scene

    per: dict[str, Score] = {}
    casc = Score()
    photo_modes = {"photo_mode": Score(), "camera_scale": Score()}
    rng = np.random.default_rng(seed)
    total = len(decks) * frames + cascades + photos + closeups
    close = Score()
    bar = tqdm(total=total, desc="accuracy")
    for fam, ds in decks.items():
        s = Score()
        for _ in range(frames):
            scene = random_scene(rng, ds, size=FRAME)
            det, idx = reader.read_with_indices(scene.image)
            s.add(score_frame(scene, det, idx))
            bar.update()
        per[fam] = s
    fam_names = list(decks)
    for k in range(cascades):
        ds = decks[fam_names[k % len(fam_names)]]
        scene = cascade_scene(rng, ds[int(rng.integers(len(ds)))], FRAME)
        casc.add(score_frame(scene, *reader.read_with_indices(scene.image)))
        bar.update()
    prng = np.random.default_rng(seed + 7)  # photos: their own stream (frames stay as they were)
    for k in range(photos):
        ds = decks[fam_names[k % len(fam_names)]]
        scene = photo_scene(prng, ds)
        photo_modes["photo_mode"].add(score_frame(scene, reader.read(scene.image, multiscale=True)))
        photo_modes["camera_scale"].add(score_frame(scene, reader.read(scene.image)))
        bar.update()
    crng = np.random.default_rng(seed + 11)  # close-ups: their own stream too
    for k in range(closeups):
        ds = decks[fam_names[k % len(fam_names)]]
        scene = closeup_scene(crng, ds[int(crng.integers(len(ds)))])
        close.add(score_frame(scene, reader.read(scene.image, multiscale=True)))
        bar.update()
    bar.close()
    overall = Score()
    for s in per.values():
        overall.add(s)
    conf = Counter()
    for s in [*per.values(), casc]:
        conf.update(s.confusion)
    wrong = [(t, p, n) for (t, p), n in conf.items() if t != p]
    wrong.sort(key=lambda x: -x[2])
    n_idx = sum(conf.values())
    return {
        "per_family": {k: v.row() for k, v in per.items()},
        "overall_random_tables": overall.row(),
        "cascades_and_hands": casc.row(),
        **({"photos": {k: v.row() for k, v in photo_modes.items()}} if photos else {}),
        **({"closeups_photo_mode": close.row()} if closeups else {}),
        "index_readings": {
            "total": n_idx,
            "correct": sum(n for (t, p), n in conf.items() if t == p),
            "missed": sum(n for (t, p), n in conf.items() if p == "miss"),
            "top_confusions": [{"truth": t, "read": p, "count": n} for t, p, n in wrong[:25]],
        },
    }


def speed(reader, model_dir: Path, images: list[np.ndarray], baseline: bool) -> dict:  # noqa: ANN001
    """Median ms per 1280×720 frame, ours and the baselines interleaved on the same frames
    (each frame timed by every method, in a shuffled order)."""
    times: dict[str, list[float]] = {}
    models = {}
    if baseline:
        from vision.train.offline import setup_offline

        setup_offline()
        import torch
        from ultralytics import YOLO

        from ultralytics.nn.tasks import DetectionModel

        torch.set_num_threads(2)
        # The one-stage design: yolo11n with a 52-card head, built from the yaml (untrained:
        # speed does not depend on the weights; no hub download).
        base = YOLO("yolo11n.yaml")
        base.model = DetectionModel("yolo11n.yaml", nc=52, verbose=False)
        base.model.names = {i: str(i) for i in range(52)}
        models["baseline_yolo11n_52cls_pt640"] = base
        if (model_dir / "index_detector.pt").is_file():
            models["our_detector_pt640"] = YOLO(str(model_dir / "index_detector.pt"))
        for name, m in models.items():
            m.predict(images[0], imgsz=640, device="cpu", verbose=False)  # warm-up
    # the other detector file timed beside the loaded one: the faster one depends on the CPU
    # (bf16 on AMX; INT8 on an AMD EPYC with AVX512-BF16), the float one reads better
    # (models/MODEL_CARD.md "Speed"); `other_key` names it
    other, other_key = None, None
    if reader.meta.detector_bf16_file:
        from vision.reader.reader import CardReader

        float_loaded = reader.detector_file != reader.meta.detector_file
        other_key = "reader_full_int8_detector" if float_loaded else "reader_full_float_detector"
        other = CardReader.from_meta(model_dir, reader.meta, precision="int8" if float_loaded else "auto")
        other.read(images[0])
    twin = float_twin(reader, model_dir)
    if twin is not None:
        twin.read(images[0])
    reader.read(images[0])

    def corners_only(img: np.ndarray) -> None:  # the same reader without its whole-card network
        body, reader.body = reader.body, None
        try:
            reader.read(img)
        finally:
            reader.body = body

    runs: dict[str, Callable[[np.ndarray], object]] = {
        "reader_full": reader.read,
        "reader_detector_only": reader._detect,
        "reader_zone_640x360": lambda img: reader.read(img, roi=(320, 180, 960, 540)),
    }
    if other is not None:
        runs[other_key] = other.read
    if twin is not None:
        runs["reader_full_float"] = twin.read
    if reader.body is not None:
        runs["reader_corners_only"] = corners_only
    for name, m in models.items():
        runs[name] = lambda img, m=m: m.predict(img, imgsz=640, device="cpu", verbose=False)
    # A fresh order per frame: whatever runs first after PyTorch's predict pays for its
    # OpenMP threads still spinning and for the caches it evicted (2026-12-07: the same
    # networks timed 1.5 ms slower in first place than in third, and 28 ms instead of 19
    # with OMP_WAIT_POLICY=ACTIVE); a fixed order put our full reader there on every frame.
    order = np.random.default_rng(0)
    for img in images:
        for name in order.permutation(list(runs)):
            t = time.perf_counter()
            runs[name](img)
            times.setdefault(name, []).append(time.perf_counter() - t)
    res = {k: {"median_ms": round(1000 * float(np.median(v)), 1), "p90_ms": round(1000 * float(np.percentile(v, 90)), 1)}
           for k, v in times.items() if v}  # fmt: skip
    base = res.get("baseline_yolo11n_52cls_pt640", {}).get("median_ms")
    if base:
        res["speedup_vs_baseline"] = round(base / res["reader_full"]["median_ms"], 2)
        if "reader_corners_only" in res:
            res["speedup_corners_only_vs_baseline"] = round(base / res["reader_corners_only"]["median_ms"], 2)
        for key, name in (("reader_full_int8_detector", "int8"), ("reader_full_float_detector", "float")):
            if key in res:
                res[f"speedup_{name}_detector_vs_baseline"] = round(base / res[key]["median_ms"], 2)
    res["detector_file"] = reader.detector_file
    res["frames"] = len(images)
    res["cpu_count_visible"] = os.cpu_count()
    res["load_avg_at_end"] = os.getloadavg()
    return res


def float_twin(reader, model_dir: Path):  # noqa: ANN001, ANN201
    """The same reader with the float networks, when the shipped one loads INT8 copies (computed
    in OpenVINO's default float precision for the CPU: bf16 on AVX512-BF16 or AMX, see the report's
    `cpu_float_precision`)."""
    import dataclasses

    from vision.reader.reader import CardReader

    m = reader.meta
    if "int8" not in m.detector_file + m.classifier_file:
        return None
    meta = dataclasses.replace(m, detector_file="index_detector.xml", classifier_file="index_classifier.onnx")
    if m.classifier2_file:
        meta = dataclasses.replace(meta, classifier2_file="index_classifier2.onnx")
    if m.body_file and "int8" in m.body_file:
        meta = dataclasses.replace(meta, body_file="card_body.onnx")
    return CardReader.from_meta(model_dir, meta)


def map50(model_dir: Path, data_yaml: Path) -> dict:
    from vision.train.offline import setup_offline

    setup_offline()
    from ultralytics import YOLO

    r = YOLO(str(model_dir / "index_detector.pt")).val(data=str(data_yaml), imgsz=320, batch=16, device="cpu", plots=False, verbose=False)
    return {"data": str(data_yaml), "mAP50": round(float(r.box.map50), 4), "mAP50-95": round(float(r.box.map), 4),
            "precision": round(float(r.box.mp), 4), "recall": round(float(r.box.mr), 4)}  # fmt: skip


def default_report(speed_only: bool) -> Path:
    """Where the report goes without --out: speed-only runs have their own file."""
    return REPO / "benchmarks" / "results" / ("reader_speed.json" if speed_only else "reader.json")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="model folder (default: models/)")
    ap.add_argument("--frames", type=int, default=30, help="random tables per held-out family")
    ap.add_argument("--cascades", type=int, default=40, help="cascade/hand frames")
    ap.add_argument("--closeups", type=int, default=0, help="close-up photos of one card (60-95 %% of the image height), read in photo mode")
    ap.add_argument("--photos", type=int, default=0, help="photo-like scenes of any size and scale (read in photo mode and at camera scale)")
    ap.add_argument("--speed-frames", type=int, default=30, help="frames timed")
    ap.add_argument("--procedural-decks", type=int, default=6, help="held-out procedural decks per split")
    ap.add_argument("--no-baseline", action="store_true", help="skip the ultralytics PyTorch baselines")
    ap.add_argument("--map-data", help="detector data.yaml whose val split gives mAP50 (ultralytics val)")
    ap.add_argument("--seed", type=int, default=12345, help="scene seed")
    ap.add_argument("--index-px-range", type=float, nargs=2, metavar=("LO", "HI"),
                    help="override reader.json index_px_range (detector-scale index size that triggers a rescale)")
    ap.add_argument("--det-conf", type=float, help="override reader.json detector_conf")
    ap.add_argument("--min-index-p", type=float, help="override reader.json min_index_p")
    ap.add_argument("--precision", choices=PRECISIONS, default="auto",
                    help="detector precision (CardReader.load): auto = the float detector, bf16 where the CPU computes it natively, else f32")
    ap.add_argument("--split", choices=("all", "val", "test"), default="all",
                    help="held-out families read (default all; test: the one measure of a reader trained on the val families too)")
    ap.add_argument("--skip-speed", action="store_true", help="accuracy only")
    ap.add_argument("--skip-accuracy", action="store_true", help="speed only (run it on a quiet machine)")
    ap.add_argument("--out", help="JSON report path (default: benchmarks/results/reader.json, or reader_speed.json "
                    "with --skip-accuracy, so a speed run never overwrites the accuracy report)")
    args = ap.parse_args(argv)

    from vision.reader.reader import CardReader
    from vision.reader.runtime import cpu_float_precision
    from vision.synth.layouts import random_scene

    model_dir = Path(args.model)
    reader = CardReader.load(model_dir, precision=args.precision)
    if args.index_px_range:
        reader.meta.index_px_range = tuple(args.index_px_range)
    if args.det_conf is not None:
        reader.meta.detector_conf = reader.detector.conf = args.det_conf
    if args.min_index_p is not None:
        reader.meta.min_index_p = args.min_index_p
    decks = {k: v for k, v in held_out_decks(args.procedural_decks).items() if args.split == "all" or k.endswith(f"({args.split})")}
    report: dict = {"model": str(model_dir), "index_px_range": list(reader.meta.index_px_range),
                    "detector_conf": reader.meta.detector_conf, "min_index_p": reader.meta.min_index_p,
                    "detector_file": reader.detector_file, "cpu_float_precision": cpu_float_precision(),
                    "split": args.split, "families": {k: [d.name for d in v] for k, v in decks.items()}}  # fmt: skip
    if not args.skip_accuracy:
        report["accuracy"] = accuracy(reader, decks, args.frames, args.cascades, args.seed, args.photos, args.closeups)
    rng = np.random.default_rng(args.seed + 1)
    all_decks = [d for ds in decks.values() for d in ds]
    images = [random_scene(rng, all_decks, size=FRAME).image for _ in range(args.speed_frames)]
    if not args.skip_speed:
        report["speed"] = speed(reader, model_dir, images, not args.no_baseline)
    if args.map_data:
        report["detector_map"] = map50(model_dir, Path(args.map_data))
    out = Path(args.out) if args.out else default_report(args.skip_accuracy)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    acc = report.get("accuracy", {"per_family": {}, "overall_random_tables": None, "cascades_and_hands": None})
    print(f"{'family':34s} frames   P      R      F1    exact  idx_ok idx_miss  boxIoU IoU>=.5")
    for fam, r in [*acc["per_family"].items(), ("ALL random tables", acc["overall_random_tables"]),
                   ("cascades + hands", acc["cascades_and_hands"]),
                   *[(f"photos, {k.replace('_', ' ')}", v) for k, v in acc.get("photos", {}).items()],
                   ("close-ups of one card, photo mode", acc.get("closeups_photo_mode"))]:  # fmt: skip
        if r is None:
            continue
        print(f"{fam:34s} {r['frames']:5d}  {r['precision']:.3f}  {r['recall']:.3f}  {r['f1']:.3f}  {r['exact_frames']:.2f}"
              f"   {r['index_read_ok']:.3f}  {r['index_missed']:.3f}   {_f(r.get('box_iou_mean'))}  {_f(r.get('box_iou_over_0.5'))}")
    print(json.dumps(report.get("speed")))
    if "detector_map" in report:
        print(json.dumps(report["detector_map"]))
    print(f"report: {out}")
    return 0


def _f(v: float | None) -> str:
    return "  -  " if v is None else f"{v:.3f}"


if __name__ == "__main__":
    sys.exit(main())
