"""`referee watch`: run the table pipeline on a video or a camera and print its events."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from referee.cli.main import CliError, add_precision_arg, camera_index, nonnegative_float, positive_float
from referee.cli.recording import folder_meta

GAMES = ("kemps", "kems", "khmer")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "watch",
        help="print the table events seen in a video or a live camera",
        description="Run the camera pipeline (motion gating, card reader, table tracker) on a "
        "video file or a camera and print the event stream: deal, swap, stale, reset, reveal, "
        "Khmer play/steal/discard, plus notices (anomalies, reshuffles, reveal time-outs). "
        "A recording folder's truth.jsonl header and meta.json layout are used when present.",
    )
    p.add_argument("video", nargs="?", metavar="VIDEO", help="video file (or a recording folder)")
    p.add_argument("--camera", type=camera_index, metavar="N", help="webcam index instead of a video")
    p.add_argument("--layout", metavar="FILE", help="layout YAML or name in configs/layouts (default: from the recording or the game)")
    p.add_argument("--model", metavar="DIR", help="card-reader model folder (default: the repo's models/)")
    add_precision_arg(p)
    p.add_argument("--json", action="store_true", help='one JSON object per line, e.g. {"type": "swap", "give": "2C", "take": "KD", "t": 12.3}')
    p.add_argument("--game", choices=GAMES, help="game when there is no recording header (default kemps)")
    p.add_argument("--players", metavar="P,P,…", help="seats in play order when there is no recording header (default N,E,S,W; Khmer S,N)")
    p.add_argument("--stale-after", type=positive_float, metavar="S", help="seconds of a quiet full market before it is called stale (default 5)")
    p.add_argument("--reveal-at", type=nonnegative_float, action="append", default=[], metavar="T",
                   help="request a reveal of every seat at T seconds (repeatable; the dashboard does this after a call)")  # fmt: skip
    p.add_argument("--max-seconds", type=positive_float, metavar="S", help="stop after S seconds of video")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vision.capture import CaptureError, open_source
    from vision.tracker.layout import LayoutError, load_layout, ring_layout
    from vision.tracker.pipeline import TablePipeline, TrackerConfig

    if (args.video is None) == (args.camera is None):
        raise CliError("give a VIDEO or --camera N (one of them)")
    header, layout_ref, video = _recording_info(args)
    try:
        layout = load_layout(layout_ref) if layout_ref else ring_layout(header["players"], khmer=header["game"] == "khmer")
    except LayoutError as exc:
        raise CliError(str(exc)) from None
    try:
        source = open_source(args.camera if args.camera is not None else str(video), on_status=_status_printer(args.json))
    except CaptureError as exc:
        raise CliError(str(exc)) from None
    try:
        reader = _load_reader(args.model, args.precision)
    except CliError:
        source.close()
        raise
    if args.stale_after is not None:
        header["stale_after_s"] = args.stale_after
    # A live camera must never fall behind: the reader gets at most 60 % of real time.
    config = TrackerConfig(max_reader_share=0.6) if source.live else None
    try:
        pipe = TablePipeline(layout, reader, header, source.fps, config)
    except LayoutError as exc:
        raise CliError(str(exc)) from None
    reveal_at = sorted(args.reveal_at)
    frames, start = 0, time.perf_counter()
    bar = _progress(source)
    try:
        for frame in source:
            if args.max_seconds is not None and frame.t > args.max_seconds:
                break
            while reveal_at and frame.t >= reveal_at[0]:
                pipe.request_reveal(list(pipe.layout.seats), reveal_at.pop(0))
            step = pipe.process(frame)
            for ev in sorted(step.events + step.notices, key=lambda e: e.get("t", frame.t)):
                _print_event(ev, args.json)
            frames += 1
            if bar is not None:
                bar.update(1)
    except CaptureError as exc:
        raise CliError(str(exc)) from None
    finally:
        source.close()
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    fps = frames / wall if wall > 0 else 0.0
    print(f"watch: {frames} frames in {wall:.1f} s ({fps:.1f} fps, {pipe.reads} reader calls)", file=sys.stderr)
    expected = getattr(source, "frame_count", None)
    stopped_early = args.max_seconds is not None and frames and frame.t > args.max_seconds
    if expected and frames < 0.95 * expected and not stopped_early:  # a cut or damaged file ends quietly otherwise
        print(f"watch: warning: the video ended at frame {frames} of the {expected} it announces "
              "(a truncated or damaged file?)", file=sys.stderr)
    if frames <= 1 and not source.live:
        print("watch: warning: one frame only: is this an image rather than a video?", file=sys.stderr)
    return 0


def _recording_info(args: argparse.Namespace) -> tuple[dict[str, Any], str | None, Path | None]:
    """Header, layout reference and video path: from a recording folder when there is one."""
    header: dict[str, Any] | None = None
    layout_ref: str | None = args.layout
    video: Path | None = None
    if args.video is not None:
        video = Path(args.video)
        folder = video if video.is_dir() else video.parent
        meta = folder_meta(folder)
        if video.is_dir():
            if "video" not in meta:
                raise CliError(f"{video} is a folder without meta.json naming its video")
            video = folder / str(meta["video"])
        truth = folder / "truth.jsonl"
        if truth.is_file() and args.game is None and args.players is None:
            try:
                header = json.loads(truth.read_text(encoding="utf-8-sig").splitlines()[0])
            except (json.JSONDecodeError, IndexError):
                raise CliError(f"{truth}: first line is not a JSON header") from None
            if not isinstance(header, dict) or not isinstance(header.get("players"), list):
                raise CliError(f"{truth}: first line is not a game header ({{\"game\", \"players\", …}})")
        if header is not None and isinstance(meta.get("stale_after_s"), int | float):
            header["stale_after_s"] = float(meta["stale_after_s"])  # the table's quiet time
        if layout_ref is None and meta.get("layout"):
            lay = meta["layout"]
            ref = (lay.get("file") or lay.get("name")) if isinstance(lay, dict) else lay
            cand = folder / str(ref)
            layout_ref = str(cand) if cand.is_file() else str(ref)
    if header is None:
        game = args.game or "kemps"
        default = "S,N" if game == "khmer" else "N,E,S,W"
        players = [p.strip() for p in (args.players or default).split(",") if p.strip()]
        if len(set(players)) != len(players):
            raise CliError("--players: each seat must have a different name")
        header = {"game": game, "players": players}
    if layout_ref is None:  # the bundled layout for this table size; None: a ring layout (as serve)
        from vision.tracker.layout import stock_layout_name

        layout_ref = stock_layout_name(len(header["players"]), khmer=header["game"] == "khmer")
    return dict(header), layout_ref, video


def _load_reader(model: str | None, precision: str = "auto") -> Any:
    from vision.reader.reader import CardReader

    try:
        return CardReader.load(model, precision=precision)
    except Exception as exc:  # ModelError and friends: one line for the user
        raise CliError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


def _progress(source: Any) -> Any:
    if not sys.stderr.isatty() or source.frame_count is None:
        return None
    from tqdm import tqdm

    return tqdm(total=source.frame_count, unit="frame", desc="watch", file=sys.stderr)


def _status_printer(as_json: bool) -> Any:
    def show(msg: dict[str, Any]) -> None:
        if as_json:
            print(json.dumps(msg), flush=True)
        else:
            print(f"camera: {msg['message']}", file=sys.stderr, flush=True)

    return show


def _print_event(ev: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(ev), flush=True)
        return
    print(f"{ev.get('t', 0.0):9.2f}s  {describe(ev)}", flush=True)


def describe(ev: dict[str, Any]) -> str:
    """One human line for an event or notice."""
    kind = ev["type"]
    who = f"{ev['player']} " if ev.get("player") else ""
    if kind in ("deal", "reset"):
        return f"{kind:<8} market {' '.join(ev['market'])}"
    if kind == "swap":
        return f"swap     {who}gives {ev['give']}, takes {ev['take']}"
    if kind == "reveal":
        return "reveal   " + "; ".join(f"{s}: {' '.join(map(str, c))}" for s, c in ev["hands"].items())
    if kind in ("play", "discard"):
        return f"{kind:<8} {who}{ev['card']}"
    if kind == "steal":
        return f"steal    {who}".rstrip()
    if kind == "anomaly":
        return f"ANOMALY  {ev.get('message', ev.get('kind'))}"
    if kind == "reveal_timeout":
        return f"REVEAL?  {ev['prompt']}"
    return f"{kind}: {ev['message']}" if ev.get("message") else kind  # notices carry their own words
