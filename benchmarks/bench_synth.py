"""Scenes per second of the synthetic data engine (render cache -> labelled scene).

    .venv/bin/python benchmarks/bench_synth.py [--count 300] [--workers 2] [--size 640x640]
                                               [--decks procedural|all] [--write DIR]

Measures `random_scene` (compose + conditions + labels) in `--workers` forked processes,
after a warm-up that fills the per-process texture and deck caches; `--write` also
encodes and writes the YOLO files (what `referee synth images` does). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import tempfile
import time
from pathlib import Path

import numpy as np

DECKS: list = []


def _init() -> None:
    import cv2

    cv2.setNumThreads(1)
    from vision.synth.conditions import SURFACE_VARIANTS, SURFACES, _surface_at

    # warm-up: every table texture this process can draw
    for kind in SURFACES:
        for v in range(SURFACE_VARIANTS):
            _surface_at(kind, v, max(SIZE))


SIZE = (640, 640)
OUT: Path | None = None


def _work(k: int) -> tuple[int, float]:
    from vision.synth.scene import random_scene

    t = time.process_time()
    rng = np.random.default_rng([7, k])
    scene = random_scene(rng, DECKS, SIZE)
    if OUT is not None:
        from vision.synth.labels import write_sample

        write_sample(OUT, "train", f"b{k:06d}", scene)
    return len(scene.labels), time.process_time() - t


def main() -> None:
    global DECKS, SIZE, OUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--size", default="640x640")
    ap.add_argument("--decks", default="all", help="'all' (installed decks, else procedural) or 'procedural'")
    ap.add_argument("--write", action="store_true", help="also write jpg + YOLO txt + quads json to a temp dir")
    a = ap.parse_args()
    SIZE = tuple(int(v) for v in a.size.split("x"))  # type: ignore[assignment]
    from vision.synth.decks import available_decks, load_decks
    from vision.synth.procedural import make_procedural_deck

    t0 = time.time()
    if a.decks == "all" and available_decks():
        DECKS = load_decks()
    else:
        DECKS = [make_procedural_deck(s) for s in range(8)]
    load_s = time.time() - t0
    tmp = tempfile.TemporaryDirectory() if a.write else None
    if tmp is not None:
        OUT = Path(tmp.name)
        for sub in ("images", "labels", "quads"):
            (OUT / sub / "train").mkdir(parents=True)
    ctx = mp.get_context("fork")
    with ctx.Pool(a.workers, initializer=_init) as pool:
        pool.map(_work, range(10**6, 10**6 + 4 * a.workers))  # warm-up: deck pyramids, imports
        t = time.time()
        res = pool.map(_work, range(a.count), chunksize=8)
        dt = time.time() - t
    labels = sum(n for n, _ in res)
    cpu = sum(c for _, c in res) / a.count
    print(json.dumps({
        "scenes_per_s": round(a.count / dt, 1),
        "cpu_ms_per_scene": round(cpu * 1000, 1),
        "scenes_per_s_if_cores_free": round(a.workers / cpu, 1),
        "count": a.count,
        "workers": a.workers,
        "size": a.size,
        "decks": len(DECKS),
        "write": a.write,
        "labels_per_scene": round(labels / a.count, 1),
        "deck_load_s": round(load_s, 1),
        "cpus": os.cpu_count(),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
