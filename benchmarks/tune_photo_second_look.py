"""Photo mode's second look (reader.json `photo_second_look`), chosen on the VAL families.

    .venv/bin/python benchmarks/tune_photo_second_look.py [--split val] [--scenes 70] [--seeds 777,778] [--kind photo|frame]

Photo mode (`referee read`) picks one detector scale per image, the one that fits the
median index. This reads each scene once at the picked scale, once more at each factor in
--factors times it, merges the two sets of indices (`CardReader.second_look`)
and prints card-level F1 for every (factor, photo_min_card_p) pair; "none" is photo mode
without the second look. Scenes: the reader benchmark's photo-like images (`--kind photo`,
any size, big cards) or 1280×720 overhead tables read in photo mode (`--kind frame`).
`--split test` is for the report only, once a setting has been chosen on val.
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
    ap.add_argument("--split", choices=("val", "test"), default="val")
    ap.add_argument("--scenes", type=int, default=70, help="scenes per seed")
    ap.add_argument("--seeds", default="777,778", help="comma-separated scene seeds")
    ap.add_argument("--kind", choices=("photo", "frame"), default="photo")
    ap.add_argument("--factors", default="1.4,1.7,2.0", help="second-look factors tried")
    ap.add_argument("--floors", default="0.4,0.6,0.7", help="photo_min_card_p values tried")
    args = ap.parse_args()

    from bench_reader import held_out_decks, photo_scene
    from tqdm import tqdm
    from vision.reader.reader import CardReader
    from vision.synth.layouts import random_scene

    reader = CardReader.load(args.model)
    factors: list[float | None] = [None, *(float(f) for f in args.factors.split(","))]
    floors = [float(m) for m in args.floors.split(",")]
    decks = {k: v for k, v in held_out_decks(4).items() if k.endswith(f"({args.split})")}
    fams = list(decks)
    scores = {(f, m): Score() for f in factors for m in floors}
    seeds = [int(s) for s in args.seeds.split(",")]
    bar = tqdm(total=len(seeds) * args.scenes, desc=f"{args.split} {args.kind}s")
    for seed in seeds:
        rng = np.random.default_rng(seed)
        for k in range(args.scenes):
            ds = decks[fams[k % len(fams)]]
            scene = photo_scene(rng, ds) if args.kind == "photo" else random_scene(rng, ds, size=(1280, 720))
            image = scene.image
            outlines = reader._start_outlines(image)  # searched once; a finished future is read again
            scale, picked = reader.photo_scale(image)
            for f in factors:
                indices = picked if f is None else reader.second_look(image, scale, picked, f)
                for m in floors:
                    det = reader.with_bodies(image, reader.detections_from(indices, min_p=m), outlines=outlines)
                    scores[(f, m)].add(score_frame(scene, det))
            bar.update()
    bar.close()
    print(f"{args.split} families, {args.kind}s, seeds {args.seeds}: factor  photo_min_card_p  P  R  F1")
    for (f, m), s in scores.items():
        print(f"{'none' if f is None else f:>6}  {m:.2f}  {s.precision:.3f}  {s.recall:.3f}  {s.f1:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
