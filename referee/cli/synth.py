"""`referee synth`: synthetic training data (images) and game videos (video).

`synth images` renders table scenes from real deck designs (installed by
scripts/install_deck_art.sh) and procedural decks, and writes a YOLO dataset with
one box per visible corner index. `synth video` is implemented by vision/sim.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import Any

from referee.cli.main import CliError


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 640x640, not {text!r}") from None
    if w < 64 or h < 64 or w > 8192 or h > 8192:
        raise argparse.ArgumentTypeError(f"size {text} out of range (64..8192 per side)")
    return w, h


def _range(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO,HI in pixels, not {text!r}") from None
    if not 4 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"card height range {text} must satisfy 4 <= LO <= HI")
    return lo, hi


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("synth", help="make synthetic training images or game videos", description=__doc__)
    sub = p.add_subparsers(dest="synth_command", metavar="KIND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    im = sub.add_parser("images", help="render labelled table scenes (YOLO dataset)", description=_images.__doc__)
    im.add_argument("--out", type=Path, help="output dataset directory (images/, labels/, quads/, data.yaml); required")
    im.add_argument("--count", type=int, help="number of scenes per split; required")
    im.add_argument("--seed", type=int, default=0, help="random seed (same seed -> same bytes)")
    im.add_argument("--decks", help="comma-separated deck names (see --list-decks); 'procedural' = generated decks only")
    im.add_argument("--list-decks", action="store_true", help="print the installed decks with their split and exit")
    im.add_argument("--size", type=_size, default=(640, 640), help="image size WxH (default 640x640)")
    im.add_argument("--split", choices=["train", "val", "test", "all"], default="train", help="which deck families to use (default train)")
    im.add_argument("--procedural", type=int, default=16, help="procedural decks per split added to the real ones (default 16)")
    im.add_argument("--card-height", type=_range, help="card height range LO,HI in px (default: a 0.6-1.2 m webcam view)")
    im.add_argument("--format", choices=["jpg", "png"], default="jpg", help="image file format (default jpg)")
    im.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    im.set_defaults(func=_images)

    vid = sub.add_parser(
        "video", help="simulate a game video with its truth timeline (vision/sim)",
        description="Simulate players at a table (deal, swaps, stale markets, calls, reveals; Khmer "
        "plays, steals, discards, closes), render the overhead camera's video and write a dataset "
        "recording: video.mp4, truth.jsonl (every event with its time), cards.jsonl, meta.json and "
        "the layout. `referee eval` scores the referee on such folders (datasets/README.md).",
    )
    if _video_cli_available():
        from vision.sim.video_cli import add_arguments

        add_arguments(vid)
    vid.set_defaults(func=_video)


def _video_cli_available() -> bool:
    """vision/sim/video_cli.py is written by another module owner; absent until then."""
    try:
        return importlib.util.find_spec("vision.sim.video_cli") is not None
    except ModuleNotFoundError:
        return False


def _video(args: argparse.Namespace) -> int:
    if not _video_cli_available():
        raise CliError("synth video is not available yet (vision/sim/video_cli.py is not built)")
    from vision.sim.video_cli import run

    return int(run(args) or 0)


def _images(args: argparse.Namespace) -> int:
    """Render --count labelled scenes per split into --out (YOLO detection format).

    Labels: one box per corner index visible at least 60%, class = card (52 classes).
    quads/ holds every card's outline. Deck families never cross splits.
    """
    from tqdm import tqdm

    from vision.synth.dataset import JobSpec, decks_for_split, generate
    from vision.synth.decks import DeckArtError, available_decks
    from vision.synth.splits import split_of

    if args.list_decks:
        names = available_decks()
        if not names:
            raise CliError("no deck art installed; run `bash scripts/install_deck_art.sh`")
        from vision.synth.decks import load_deck

        for n in names:
            print(f"{n}\t{split_of(load_deck(n).family)}")
        return 0
    if args.out is None or args.count is None:
        raise CliError("--out and --count are required (or use --list-decks)")
    if args.count <= 0:
        raise CliError(f"--count must be positive (got {args.count})")
    if args.workers <= 0:
        raise CliError(f"--workers must be positive (got {args.workers})")
    if args.procedural < 0:
        raise CliError(f"--procedural must be >= 0 (got {args.procedural})")
    names = [n.strip() for n in args.decks.split(",") if n.strip()] if args.decks else None
    splits = ["train", "val", "test"] if args.split == "all" else [args.split]
    for split in splits:
        try:
            decks = decks_for_split(split, names, args.procedural, args.seed)
        except DeckArtError as exc:
            raise CliError(str(exc)) from None
        spec = JobSpec(args.out, split, args.count, args.seed, args.size, args.format, args.card_height)
        t0 = time.time()

        def bar(it: Any, total: int, split: str = split) -> Any:
            return tqdm(it, total=total, desc=f"synth {split}", unit="scene")

        n = generate(spec, decks, args.workers, bar)
        dt = time.time() - t0
        print(f"{split}: {args.count} scenes, {n} index labels, {len(decks)} decks, {args.count / dt:.1f} scenes/s -> {args.out}")
    print(f"data.yaml: {args.out / 'data.yaml'}")
    return 0
