"""Reveal areas with small indices read enlarged (`TrackerConfig.reveal_index_px`): `referee eval` with each size.

    .venv/bin/python benchmarks/reveal_index_px.py SET [SET ...] [--sizes none,26] [--min-seats 0] [--workers 2] [--model DIR]

Each SET is a folder of recordings (`referee synth video ... --out SET/NAME`); every size is
scored on the same recordings as `referee eval SET --workers 2 --tolerance 1.0` scores them,
with only `reveal_index_px` changed ("none": off), at tables of every size (`--min-seats 0`;
the tracker's default applies it from 6 seats, `reveal_index_min_seats`). Prints the pooled
summary per set and size, and the recordings whose reveal, result or event F1 changed
(`tracker_option.compare`, which A/Bs any tracker setting).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]


def main(argv: list[str] | None = None) -> int:
    from tracker_option import compare

    from vision.tracker.pipeline import TrackerConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path, help="folders of recordings")
    ap.add_argument("--sizes", default="none,26", help="comma-separated index sizes in px; 'none' = off (default: none,26)")
    ap.add_argument("--min-seats", type=int, default=0,
                    help="apply the size at tables of at least this many seats (default: 0, every table; the tracker's own default is 6)")
    ap.add_argument("--workers", type=int, default=2, help="recordings evaluated in parallel (default: 2)")
    ap.add_argument("--model", default=None, help="card reader model folder (default: models/)")
    args = ap.parse_args(argv)
    sizes = [None if v.strip() == "none" else float(v) for v in args.sizes.split(",")]
    configs = [TrackerConfig(reveal_index_px=size, reveal_index_min_seats=args.min_seats) for size in sizes]
    compare(args.sets, [f"reveal_index_px {size}" for size in sizes], configs, args.workers, args.model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
