"""Reveal areas with small indices read enlarged (`TrackerConfig.reveal_index_px`): `referee eval` with each size.

    .venv/bin/python benchmarks/reveal_index_px.py SET [SET ...] [--sizes none,26] [--min-seats 0] [--workers 2] [--model DIR]

Each SET is a folder of recordings (`referee synth video ... --out SET/NAME`); every size is
scored on the same recordings as `referee eval SET --workers 2 --tolerance 1.0` scores them,
with only `reveal_index_px` changed ("none": off), at tables of every size (`--min-seats 0`;
the tracker's default applies it from 6 seats, `reveal_index_min_seats`). Prints the pooled
summary per set and size, and the recordings whose reveal, result or event F1 changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main(argv: list[str] | None = None) -> int:
    from vision.evaluate.dataset import discover
    from vision.evaluate.report import summarize
    from vision.evaluate.runner import RunOptions, run_all
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
    for root in args.sets:
        roots = discover(root)
        per: dict[str, dict] = {}
        for size in sizes:
            opts = RunOptions(model_dir=args.model, tolerance_s=1.0, progress=False, tracker=TrackerConfig(reveal_index_px=size, reveal_index_min_seats=args.min_seats))
            recs = run_all(roots, opts, args.workers)
            s = summarize(recs, 1.0)
            print(f"{root} reveal_index_px {size}: market {s['market_accuracy']:.4f}  event F1 {s['event_f1']:.4f}  "
                  f"reveals {s['reveal_accuracy']}  outcomes {s['outcome_accuracy']}", flush=True)
            per[str(size)] = {r["name"]: (r["reveals"]["accuracy"], r["outcomes"]["accuracy"], round(r["events"]["f1"], 3)) for r in recs}
        base = per[str(sizes[0])]
        for size, rows in per.items():
            for name, v in rows.items():
                if v != base[name]:
                    print(f"  {name}: {sizes[0]} {base[name]} -> {size} {v}  (reveal acc, outcome acc, event F1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
