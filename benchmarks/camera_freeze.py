"""A camera that freezes: `referee eval` on recordings whose view stops around some moves.

    .venv/bin/python benchmarks/camera_freeze.py SET [SET ...] --every 3 --before 1.5 --after 2.5 [--variant "…"]

A USB webcam that stalls repeats its last frame; so does a stream that stutters. Here, around
every `--every`-th move of the truth (Khmer play, steal, discard; Kemps swap), the video shows
the last frame from `--before` seconds before the move until `--after` seconds after it, so
the arm (and, with a long enough freeze, the whole move) is never seen. Times stay true: the
referee is scored exactly as `referee eval --tolerance 1.0` scores it, on the same truth.
`--every 0` freezes nothing (the plain eval, for a baseline in the same run).

`--variant` (repeatable, as in tracker_option.py: "field=value …", "" = the defaults) scores
each tracker setting on the same frozen recordings; the first is the reference. Prints the
pooled event F1, reveals and outcomes per variant, and the recordings whose outcome changed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

MOVES = ("play", "steal", "discard", "swap")


def freezes(root: Path, every: int, before: float, after: float) -> list[tuple[float, float]]:
    """The frozen stretches (start, end) in seconds: around every `every`-th move of the truth."""
    if every <= 0:
        return []
    lines = (root / "truth.jsonl").read_text().splitlines()[1:]
    times = [float(e["t"]) for e in map(json.loads, filter(str.strip, lines)) if e.get("type") in MOVES]
    return [(t - before, t + after) for t in times[every - 1 :: every]]


class FrozenCapture:
    """An OpenCV capture that repeats the last frame shown while inside a frozen stretch."""

    def __init__(self, cap: Any, fps: float, stretches: list[tuple[float, float]]) -> None:
        self.cap, self.fps, self.stretches = cap, fps, stretches
        self.index, self.last = 0, None

    def read(self) -> tuple[bool, Any]:
        ok, image = self.cap.read()
        t = self.index / self.fps
        self.index += 1
        if not ok:
            return ok, image
        if self.last is not None and any(a <= t < b for a, b in self.stretches):
            return True, self.last.copy()
        self.last = image
        return ok, image

    def get(self, prop: int) -> float:
        return float(self.cap.get(prop)) if prop != 0 else -1.0  # no timestamps: index / fps

    def release(self) -> None:
        self.cap.release()


def _job(args: tuple[str, int, float, float, Any]) -> tuple[str, int, dict[str, Any]]:
    root, every, before, after, tracker = args
    import vision.evaluate.runner as R

    stretches = freezes(Path(root), every, before, after)
    plain = getattr(R, "_plain_open_video", R.open_video)
    R._plain_open_video = plain  # type: ignore[attr-defined]  # a worker runs many jobs: patch once
    R.open_video = lambda rec: FrozenCapture(plain(rec), rec.fps, stretches)
    return root, len(stretches), R.evaluate_recording(root, R.RunOptions(progress=False, tolerance_s=1.0, tracker=tracker))


def run(roots: list[Path], every: int, before: float, after: float, tracker: Any, workers: int) -> list[tuple[str, int, dict[str, Any]]]:
    jobs = [(str(r), every, before, after, tracker) for r in roots]
    if workers <= 1:
        return [_job(j) for j in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_job, jobs))


def main(argv: list[str] | None = None) -> int:
    from tracker_option import with_option

    from vision.evaluate.dataset import discover
    from vision.tracker.pipeline import TrackerConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path, help="folders of recordings")
    ap.add_argument("--every", type=int, default=3, help="freeze around every Nth move (0: no freeze; default 3)")
    ap.add_argument("--before", type=float, default=1.5, help="seconds frozen before the move (default 1.5)")
    ap.add_argument("--after", type=float, default=2.5, help="seconds frozen after the move (default 2.5)")
    ap.add_argument("--variant", action="append", default=[], help='tracker settings "field=value …" ("" = defaults); repeatable')
    ap.add_argument("--workers", type=int, default=2, help="recordings in parallel (default 2)")
    args = ap.parse_args(argv)
    roots = [r for s in args.sets for r in discover(s)]
    variants = args.variant or [""]
    base: dict[str, float] = {}
    for spec in variants:
        cfg = TrackerConfig()
        for item in spec.split():
            key, _, raw = item.partition("=")
            cfg = with_option(cfg, key, yaml.safe_load(raw))
        res = run(roots, args.every, args.before, args.after, cfg, args.workers)
        outcomes = {Path(r).name: m["outcomes"]["accuracy"] for r, _, m in res}
        print(f"[{spec or 'defaults'}] {len(res)} recordings, {sum(n for _, n, _ in res)} freezes: "
              f"event F1 {statistics.mean(m['events']['f1'] for _, _, m in res):.3f}  "
              f"reveals {sum(m['reveals']['correct'] for _, _, m in res)} of {sum(m['reveals']['truth'] for _, _, m in res)}  "
              f"outcomes {statistics.mean(outcomes.values()):.3f}", flush=True)
        for name, v in outcomes.items():
            if base and v != base.get(name):
                print(f"  {name}: outcome accuracy {base[name]:.3f} -> {v:.3f}")
        base = base or outcomes
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
