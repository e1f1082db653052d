"""Choose the index classifier's turned second look on the VAL families only.

    .venv/bin/python benchmarks/tune_turned.py [--model models] [--frames 40] [--below none,0.5,0.8,0.95,1.01]

`classifier_turned_below` (reader.json; vision/reader/classifier.py): index crops the first
classifier is unsure of (rank_p × suit_p below the value) are read again turned by 180° and
the two readings fused. Each value is run through the whole reader (detector, both
classifiers, grouping, whole cards) on the same random 1280×720 tables and cascades of the
val families (oxygen is a test family), and card-level F1 is printed with the median time
a frame (on a busy machine the times are only indicative; bench_reader.py measures speed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]


def parse_below(text: str) -> list[float | None]:
    return [None if v.strip().lower() in ("none", "off") else float(v) for v in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="model folder (default: models/)")
    ap.add_argument("--frames", type=int, default=40, help="random tables per val family (cascades: a quarter of it)")
    ap.add_argument("--seed", type=int, default=777, help="scene seed (differs from the benchmark's)")
    ap.add_argument("--below", default="none,0.5,0.8,0.95,1.01", help="values tried, comma-separated ('none': off)")
    args = ap.parse_args(argv)
    from bench_reader import FRAME, cascade_scene, held_out_decks
    from reader_eval import Score, score_frame
    from tqdm import tqdm
    from vision.reader.reader import CardReader
    from vision.synth.layouts import random_scene

    reader = CardReader.load(args.model)
    first = getattr(reader.classifier, "primary", reader.classifier)  # a TwoViewClassifier's first view
    decks = {k: v for k, v in held_out_decks(6).items() if k.endswith("(val)")}
    rng = np.random.default_rng(args.seed)
    scenes = []
    for ds in tqdm(list(decks.values()), desc="rendering val families"):
        scenes += [("table", random_scene(rng, ds, size=FRAME)) for _ in range(args.frames)]
        scenes += [("cascade", cascade_scene(rng, ds[int(rng.integers(len(ds)))], FRAME)) for _ in range(args.frames // 4)]
    print(f"{len(scenes)} val frames ({', '.join(decks)})")
    print("turned_below  F1 all  tables  cascades  P      R      index read ok  ms/frame")
    for below in parse_below(args.below):
        first.turned_below = below
        scores = {"all": Score(), "table": Score(), "cascade": Score()}
        times = []
        for kind, scene in scenes:
            t = time.perf_counter()
            det, indices = reader.read_with_indices(scene.image)
            times.append(time.perf_counter() - t)
            s = score_frame(scene, det, indices)
            scores[kind].add(s)
            scores["all"].add(s)
        a = scores["all"]
        print(f"{below!s:12}  {a.f1:.4f}  {scores['table'].f1:.4f}  {scores['cascade'].f1:.4f}    {a.precision:.3f}  "
              f"{a.recall:.3f}  {a.row()['index_read_ok']:.4f}         {1000 * float(np.median(times)):.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
