"""Card F1 under one camera fault at a time, each stronger than the synthetic engine's draws.

    .venv/bin/python benchmarks/condition_probe.py [--model models] [--tables 8] [--seed 41] [--split val|test]

Each random 1280×720 table of every held-out family except oxygen (unreadable by corners in
any condition) is rendered several times from the same layout, deck and random draw of
conditions: once as drawn, once with a clean camera (no blur, noise or compression), and
once per fault below, which replaces only its own fields. The training engine draws focus
blur σ ≤ 1.8 px, motion blur ≤ 9 px, noise σ ≤ 9, JPEG quality ≥ 35, tilt ≤ 30° and
brightness ≥ 0.45 (vision/synth/conditions.py); these probes go past that, as real cameras
and rooms do. Scored as the reader benchmark scores (reader_eval.py). It measures, it tunes
nothing: no threshold or model is chosen on it. `--split val` keeps the val families only: a
candidate network may be chosen on that (the test families stay untouched).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

# name -> fields replaced on the drawn conditions (None: the draw as it is)
_CLEAN_CAMERA: dict[str, Any] = {"blur_sigma": 0.0, "motion_blur": 0.0, "noise_sigma": 0.0, "jpeg_quality": None}
FAULTS: dict[str, dict[str, Any] | None] = {
    "as drawn": None,
    "clean camera": _CLEAN_CAMERA,
    "focus blur σ 2.5 px": {**_CLEAN_CAMERA, "blur_sigma": 2.5},
    "motion blur 14 px": {**_CLEAN_CAMERA, "motion_blur": 14.0},
    "sensor noise σ 16": {**_CLEAN_CAMERA, "noise_sigma": 16.0},
    "JPEG quality 15": {**_CLEAN_CAMERA, "jpeg_quality": 15},
    "dim room (×0.35, noise σ 8)": {**_CLEAN_CAMERA, "brightness": 0.35, "noise_sigma": 8.0},
    "strong glare": {**_CLEAN_CAMERA, "glare": 1.0},
    "camera tilt 42°": {**_CLEAN_CAMERA, "tilt_deg": 42.0},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="reader model folder (default: models/)")
    ap.add_argument("--tables", type=int, default=8, help="tables per held-out family")
    ap.add_argument("--seed", type=int, default=41, help="scene seed")
    ap.add_argument("--split", choices=("val", "test"), help="only that split's families (default: both)")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    from bench_reader import FRAME, held_out_decks
    from reader_eval import Score, score_frame
    from vision.reader.reader import CardReader
    from vision.synth.conditions import SceneConditions
    from vision.synth.layouts import random_layout
    from vision.synth.scene import DEFAULT_MIN_VISIBLE, compose_table

    reader = CardReader.load(args.model)
    decks = {k: v for k, v in held_out_decks(4).items() if not k.startswith("oxygen") and (args.split is None or k.endswith(f"({args.split})"))}
    scores = {f: Score() for f in FAULTS}
    rng = np.random.default_rng(args.seed)
    with tqdm(total=len(decks) * args.tables, desc="condition probe") as bar:
        for ds in decks.values():
            for _ in range(args.tables):
                deck = ds[int(rng.integers(len(ds)))]
                placements, occluders = random_layout(rng, FRAME, deck)
                drawn = SceneConditions.random(rng)
                render_seed = int(rng.integers(2**31))
                for fault, fields in FAULTS.items():
                    cond = drawn if fields is None else replace(drawn, **fields)
                    # the same seed for every fault: the same arms, shadows and glare spots
                    scene = compose_table(placements, deck, FRAME, cond, np.random.default_rng(render_seed), occluders,
                                          min_visible=DEFAULT_MIN_VISIBLE)  # fmt: skip
                    scores[fault].add(score_frame(scene, reader.read(scene.image)))
                bar.update()
    split = f"{args.split} " if args.split else ""
    print(f"{len(decks)} held-out {split}families (no oxygen) × {args.tables} tables, {args.model}")
    print("| condition | card F1 | precision | recall |")
    print("|---|---|---|---|")
    for fault, s in scores.items():
        print(f"| {fault} | {s.f1:.3f} | {s.precision:.3f} | {s.recall:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
