"""Whole readers side by side on the VAL families: random tables and cascades, the same scenes.

    .venv/bin/python benchmarks/compare_readers.py MODEL_DIR [MODEL_DIR ...] [--frames 20] [--seeds 777,55]

Each model folder is loaded as the camera path loads it (`CardReader.load`: float detector,
turned look, second view, whole-card network, reader.json's thresholds) and reads the same
frames: per seed, `--frames` random 1280×720 tables of each val family and as many cascades
and hands. Scored as bench_reader.py scores (reader_eval.py). For choosing between candidate
networks without touching the test families (bench_reader.py reads those); tune_reader.py
replays the corner thresholds alone, without the whole-card network.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]


def val_scenes(frames: int, seeds: list[int]) -> list[tuple[str, object]]:
    """(kind, scene) for every seed: `frames` tables per val family, then `frames` cascades."""
    from bench_reader import FRAME, cascade_scene, held_out_decks
    from vision.synth.layouts import random_scene

    decks = {k: v for k, v in held_out_decks(6).items() if k.endswith("(val)")}
    names = list(decks)
    out: list[tuple[str, object]] = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        out += [("tables", random_scene(rng, ds, size=FRAME)) for ds in decks.values() for _ in range(frames)]
        for k in range(frames):
            ds = decks[names[k % len(names)]]
            out.append(("cascades", cascade_scene(rng, ds[int(rng.integers(len(ds)))], FRAME)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="reader model folders (e.g. models runs/reader12/export-cand)")
    ap.add_argument("--frames", type=int, default=20, help="tables per val family, and cascades, per seed (default 20)")
    ap.add_argument("--seeds", default="777,55", help="comma-separated scene seeds (default 777,55)")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    from reader_eval import Score, score_frame
    from vision.reader.reader import CardReader

    for m in args.models:
        if not (Path(m) / "reader.json").is_file():
            ap.error(f"{m}: not a reader model folder (no reader.json)")
    scenes = val_scenes(args.frames, [int(s) for s in args.seeds.split(",")])
    print("| model | detector | tables F1 (P / R) | cascades F1 (P / R) | indices read right / missed |")
    print("|---|---|---|---|---|")
    for m in args.models:
        reader = CardReader.load(m)
        scores = {"tables": Score(), "cascades": Score()}
        for kind, scene in tqdm(scenes, desc=Path(m).name, leave=False):
            scores[kind].add(score_frame(scene, *reader.read_with_indices(scene.image)))  # type: ignore[attr-defined]
        both = Score()
        for s in scores.values():
            both.add(s)
        row = both.row()
        cells = " | ".join(f"{s.f1:.4f} ({s.precision:.3f} / {s.recall:.3f})" for s in scores.values())
        print(f"| {m} | {reader.detector_file} | {cells} | {row['index_read_ok']:.3f} / {row['index_missed']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
