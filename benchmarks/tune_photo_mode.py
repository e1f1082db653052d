"""Photo mode design check on the VAL families only: how should `referee read` pick a scale?

    .venv/bin/python benchmarks/tune_photo_mode.py [--model models] [--scenes 9]

Photos have no known scale (a close-up of one card, a phone photo of a table). Compared
on held-out val designs: the camera's fixed scale, picking the best detector scale
(`CardReader.photo_scale` without its refinement), and picking then refining (the
shipped photo mode). Two of every three scenes are photo-like (any size, big cards), the
third a 1280×720 overhead frame, reported separately.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from reader_eval import Score, score_frame  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="model folder")
    ap.add_argument("--scenes", type=int, default=9, help="scenes per val family")
    ap.add_argument("--seed", type=int, default=4242, help="scene seed (differs from the benchmark's)")
    args = ap.parse_args()

    from bench_reader import held_out_decks, photo_scene
    from tqdm import tqdm
    from vision.reader.reader import CardReader
    from vision.synth.layouts import random_scene

    reader = CardReader.load(args.model)

    def picked(image: np.ndarray, refine: bool):  # noqa: ANN202
        return reader.detections_from(reader.photo_scale(image, refine=refine)[1])

    decks = {k: v for k, v in held_out_decks(4).items() if k.endswith("(val)")}
    rng = np.random.default_rng(args.seed)
    shipped = "pick + refine" if reader.meta.photo_refine else "pick a scale"
    modes = ("camera scale", "pick a scale", "pick + refine")
    res = {kind: {m: Score() for m in modes} for kind in ("photos", "1280x720 frames")}
    for _fam, ds in tqdm(list(decks.items()), desc="val families"):
        for i in range(args.scenes):
            photo = i % 3 != 0
            scene = photo_scene(rng, ds) if photo else random_scene(rng, ds, size=(1280, 720))
            r = res["photos" if photo else "1280x720 frames"]
            r[modes[0]].add(score_frame(scene, reader.read(scene.image)))
            r[modes[1]].add(score_frame(scene, picked(scene.image, False)))
            r[modes[2]].add(score_frame(scene, picked(scene.image, True)))
    for kind, r in res.items():
        print(kind)
        for m, s in r.items():
            tag = " (shipped)" if m == shipped else ""
            print(f"  {m + tag:26s} F1 {s.f1:.3f}  P {s.precision:.3f}  R {s.recall:.3f}  ({s.frames} scenes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
