"""Table-tracker settings A/B: `referee eval` on the same recordings with each variant.

    .venv/bin/python benchmarks/tracker_option.py SET [SET ...] --option reveal.hold_short --values false,true [--workers 2] [--model DIR]
    .venv/bin/python benchmarks/tracker_option.py SET [SET ...] --variant "reveal.hold_short=false reveal.consistent=3" --variant ""

`--option` is a `TrackerConfig` field, dotted into its nested configs (`reveal.consistent`,
`market_filter.deck_prior`, `reveal_index_px`); each of `--values` is read as YAML (true, 4,
0.5, null). `--variant` (repeatable) instead names whole variants, each a space-separated list
of `field=value` ("": the defaults). Every variant is scored on the same recordings exactly as
`referee eval SET --workers 2 --tolerance 1.0` scores them; the first is the reference. Prints
the pooled summary per set and variant, and the recordings whose reveal, result or event F1
changed.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def with_option(config: Any, path: str, value: Any) -> Any:
    """`config` (a frozen dataclass) with the dotted field `path` set to `value`."""
    head, _, rest = path.partition(".")
    names = {f.name for f in dataclasses.fields(config)}
    if head not in names:
        raise SystemExit(f"tracker_option: {type(config).__name__} has no field {head!r} (fields: {', '.join(sorted(names))})")
    inner = with_option(getattr(config, head), rest, value) if rest else value
    return dataclasses.replace(config, **{head: inner})


def _fig(x: float | None) -> str:
    """A pooled figure, or "–" where the set has none (no market in a Khmer-only set)."""
    return "–" if x is None else f"{x:.4f}"


def compare(sets: list[Path], labels: list[str], configs: list[Any], workers: int = 2, model: str | None = None) -> None:
    """Score every set with each tracker config (the first is the reference) and print the
    pooled figures, then the recordings whose reveal, result or event F1 changed."""
    from vision.evaluate.dataset import discover
    from vision.evaluate.report import summarize
    from vision.evaluate.runner import RunOptions, run_all

    for root in sets:
        roots = discover(root)
        per: dict[str, dict] = {}
        for label, cfg in zip(labels, configs):
            recs = run_all(roots, RunOptions(model_dir=model, tolerance_s=1.0, progress=False, tracker=cfg), workers)
            s = summarize(recs, 1.0)
            print(f"{root} [{label}]: market {_fig(s['market_accuracy'])}  event F1 {_fig(s['event_f1'])}  "
                  f"reveals {s['reveal_accuracy']}  outcomes {s['outcome_accuracy']}", flush=True)
            per[label] = {r["name"]: (r["reveals"]["accuracy"], r["outcomes"]["accuracy"], round(r["events"]["f1"], 3)) for r in recs}
        base = per[labels[0]]
        for label, rows in per.items():
            for name, v in rows.items():
                if v != base[name]:
                    print(f"  {name}: {labels[0]} {base[name]} -> {label} {v}  (reveal acc, outcome acc, event F1)")


def main(argv: list[str] | None = None) -> int:
    from vision.tracker.pipeline import TrackerConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path, help="folders of recordings")
    ap.add_argument("--option", help="dotted TrackerConfig field, e.g. reveal.hold_short")
    ap.add_argument("--values", help="comma-separated YAML values, the reference first (e.g. false,true)")
    ap.add_argument("--variant", action="append", default=[],
                    help='a whole variant, "field=value field=value" ("" = the defaults); repeat it, the reference first')
    ap.add_argument("--workers", type=int, default=2, help="recordings evaluated in parallel (default: 2)")
    ap.add_argument("--model", default=None, help="card reader model folder (default: models/)")
    args = ap.parse_args(argv)
    if bool(args.option) == bool(args.variant) or bool(args.option) != bool(args.values):
        ap.error("give --option with --values, or --variant (at least two)")
    if args.option:
        args.variant = [f"{args.option}={v}" for v in args.values.split(",")]
    values, configs = [], []
    for spec in args.variant:  # each parsed now, so a wrong name fails before any work
        cfg = TrackerConfig()
        for item in spec.split():
            key, sep, raw = item.partition("=")
            if not sep:
                ap.error(f"--variant items are field=value, not {item!r}")
            cfg = with_option(cfg, key, yaml.safe_load(raw))
        values.append(spec or "defaults")
        configs.append(cfg)
    compare(args.sets, values, configs, args.workers, args.model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
