"""`referee eval DATASET`: run the full pipeline on recordings and score it against truth."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee.cli.main import add_precision_arg, positive_float


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "eval",
        help="score the referee on recorded videos with truth (metrics.json + report.html)",
        description=(
            "Run video → card reader → table tracker → rules referee on every recording of DATASET "
            "and compare with its truth timeline. Calls (Kemps!/Cut!/Kem's/Khmer close) are "
            "injected from the truth at their times. Prints the pooled figures, then the same by deck "
            "family when the recordings use several (a deck the reader cannot read sinks every "
            "recording made with it). Format: datasets/README.md."
        ),
    )
    p.add_argument("dataset", metavar="DATASET", help="a dataset folder (manifest.json), a folder of recordings, or one recording folder")
    p.add_argument("--out", default="runs/eval", help="report folder for metrics.json and report.html (default: runs/eval)")
    p.add_argument("--workers", type=int, default=1, help="recordings evaluated in parallel (default: 1; the machine has few cores)")
    p.add_argument("--model", default=None, help="card reader model folder (default: the reader's own default)")
    add_precision_arg(p)
    p.add_argument(
        "--tolerance", type=positive_float, default=1.0,
        help="time tolerance in seconds for matching events, also the market slack around a truth change "
        "(the strict market figure has none; datasets/README.md) (default: 1.0)",
    )  # fmt: skip
    p.add_argument(
        "--oracle-reader", action="store_true",
        help="diagnostic: read cards from the recording's card truth instead of the image, to measure the "
        "table tracker alone (needs card truth on every frame; card figures are then 1.0 by construction)",
    )
    p.add_argument(
        "--oracle-noise", default=None, metavar="SPEC",
        help="with --oracle-reader: seeded read errors, to measure the tracker under misreads: a preset "
        "(light, heavy) and/or keys, e.g. 'heavy,seed=2' or 'drop=0.2,misread=0.05,extra=0.02,persist=0.5' "
        "(datasets/README.md)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from referee.cli.main import CliError
    from vision.evaluate.dataset import DatasetError, discover, load_recording
    from vision.evaluate.report import by_deck_family, summarize, write_html, write_metrics
    from vision.evaluate.runner import RunOptions, open_video, run_all

    if args.workers < 1:
        raise CliError("--workers must be at least 1")
    if args.tolerance <= 0:
        raise CliError("--tolerance must be positive")
    if args.oracle_noise is not None:
        from vision.evaluate.oracle import ReadNoise

        if not args.oracle_reader:
            raise CliError("--oracle-noise needs --oracle-reader (it perturbs the perfect reads)")
        try:
            ReadNoise.parse(args.oracle_noise)
        except ValueError as exc:
            raise CliError(f"--oracle-noise: {exc}") from None
    try:
        roots = discover(Path(args.dataset))
        for root in roots:  # fail fast, before minutes of work, on any broken file
            rec = load_recording(root)
            cap = open_video(rec)
            ok, _ = cap.read()
            cap.release()
            if not ok:
                raise DatasetError(f"{rec.video_path}: no frame could be decoded")
            if args.oracle_reader:
                from vision.evaluate.oracle import OracleReader

                OracleReader(rec, int(rec.meta.get("frames") or 0))  # card truth on every frame?
        if not args.oracle_reader:
            from vision.reader.reader import CardReader
            from vision.reader.runtime import ModelError

            try:
                CardReader.load(args.model, precision=args.precision)  # fail fast: a missing model is one line, not a traceback
            except ModelError as exc:
                raise CliError(f"{exc} (train one, pass --model DIR, or use --oracle-reader to measure the tracker alone)") from None
        opts = RunOptions(
            model_dir=args.model, precision=args.precision, tolerance_s=args.tolerance, progress=True, oracle=args.oracle_reader,
            oracle_noise=args.oracle_noise,
        )  # fmt: skip
        recs = run_all(roots, opts, workers=args.workers)
    except DatasetError as exc:
        raise CliError(str(exc)) from None
    except (ImportError, FileNotFoundError) as exc:
        raise CliError(f"cannot run the pipeline: {exc}") from None
    summary = summarize(recs, args.tolerance)
    flags = f" --workers {args.workers}" + (f" --model {args.model}" if args.model else "")
    flags += f" --precision {args.precision}" if args.precision != "auto" else ""
    flags += f" --tolerance {args.tolerance}" + (" --oracle-reader" if args.oracle_reader else "")
    flags += f" --oracle-noise '{args.oracle_noise}'" if args.oracle_noise else ""
    info = {"dataset": str(args.dataset), "command": f"referee eval {args.dataset} --out {args.out}{flags}"}
    out = Path(args.out)
    mpath = write_metrics(out, summary, recs, info)
    hpath = write_html(out, summary, recs, info)
    if args.json:
        print(json.dumps(summary, default=str))
    else:
        for k, v in summary.items():
            print(f"{k:26s} {v:.4f}" if isinstance(v, float) else f"{k:26s} {v}")
        _print_families(by_deck_family(recs, args.tolerance))
        print(f"wrote {mpath} and {hpath}")
    return 0


def _print_families(families: dict[str, dict[str, Any]]) -> None:
    """Per deck family: recordings, market accuracy, event F1 (only when there are several)."""
    if len(families) < 2:
        return
    print("by deck family             recordings  market  event F1")
    for fam, v in families.items():
        mkt, f1 = v["market_accuracy"], v["event_f1"]
        print(f"  {fam:24s} {v['recordings']:10d}  {'-' if mkt is None else f'{mkt:.4f}':>6s}  {f1:.4f}")
