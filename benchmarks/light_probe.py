"""Card F1 under coloured and dim light: the same held-out tables read as rendered, with a warm
(tungsten) or cool (LED / daylight) white balance, and at half brightness.

    .venv/bin/python benchmarks/light_probe.py [--model models] [--model OTHER …] [--tables 8]

Random 1280×720 tables of every held-out family except oxygen (unreadable by corners at any
light), scored as the reader benchmark scores them (reader_eval.py). The light is applied as BGR
gains on the finished image; the synthetic engine already varies white balance a little
(vision/synth/conditions.py), these are stronger than its usual draws. Several `--model`s are
read on the same tables, side by side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

LIGHTS: dict[str, tuple[float, float, float] | None] = {
    "as rendered": None, "warm light": (0.72, 0.95, 1.25), "cool light": (1.25, 1.0, 0.78), "dim ×0.5": (0.5, 0.5, 0.5),
}


def lit(image: np.ndarray, gains: tuple[float, float, float] | None) -> np.ndarray:
    if gains is None:
        return image
    return np.clip(image.astype(np.float32) * np.asarray(gains, np.float32), 0, 255).astype(np.uint8)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="append", help="reader model folder; repeat to compare (default: models/)")
    ap.add_argument("--tables", type=int, default=8, help="tables per held-out family")
    ap.add_argument("--seed", type=int, default=31, help="scene seed")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    from bench_reader import FRAME, held_out_decks
    from reader_eval import Score, score_frame
    from vision.reader.reader import CardReader
    from vision.synth.layouts import random_scene

    models = {m: CardReader.load(m) for m in (args.model or [str(REPO / "models")])}
    decks = {k: v for k, v in held_out_decks(4).items() if not k.startswith("oxygen")}
    scores = {(m, light): Score() for m in models for light in LIGHTS}
    rng = np.random.default_rng(args.seed)
    with tqdm(total=len(decks) * args.tables, desc="light probe") as bar:
        for ds in decks.values():
            for _ in range(args.tables):
                scene = random_scene(rng, ds, size=FRAME)
                for light, gains in LIGHTS.items():
                    image = lit(scene.image, gains)
                    for m, reader in models.items():
                        scores[(m, light)].add(score_frame(scene, reader.read(image)))
                bar.update()
    print(f"{len(decks)} families × {args.tables} tables; card F1 per model")
    print("| light | " + " | ".join(models) + " |")
    print("|---" * (len(models) + 1) + "|")
    for light in LIGHTS:
        print(f"| {light} | " + " | ".join(f"{scores[(m, light)].f1:.3f}" for m in models) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
