"""`referee annotate VIDEO`: turn your own recording into a dataset recording (draft truth).

Runs the full pipeline (reader → table tracker → referee) over the video and writes a
recording folder: the video, `truth.jsonl` (header + what the referee saw, each event with
"t"), `meta.json` (source "draft") and `layout.yaml`. Correct the truth by hand, then
score the referee with `referee eval` (steps: datasets/README.md, "From your own video").
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from referee.cli.main import add_precision_arg


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "annotate",
        help="make a draft dataset recording (truth to correct by hand) from your own video",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("video", metavar="VIDEO", help="the overhead video of a game (any format OpenCV reads)")
    p.add_argument("--game", choices=("kemps", "kems", "khmer"), required=True, help="the game played in the video")
    p.add_argument("--out", required=True, help="recording folder to write (must not exist, or be empty)")
    p.add_argument("--layout", default=None, help="table layout name or YAML file for this framing (default: kemps-4 / khmer-2)")
    p.add_argument("--players", default=None, help="seat names in order, comma-separated (default: N,E,S,W; Khmer: S,N)")
    p.add_argument("--teams", default=None, help="teams as seat groups, e.g. N+S,E+W (default: facing pairs)")
    p.add_argument("--calls", default=None, help="optional JSONL of timed calls/new_hand ({'type':'call',…,'t':…}) to inject so reveals are read")
    p.add_argument("--model", default=None, help="card reader model folder (default: models/)")
    add_precision_arg(p)
    p.add_argument("--link", action="store_true", help="symlink the video instead of copying it")
    p.set_defaults(func=run)


def _header(args: argparse.Namespace) -> dict[str, Any]:
    from referee.cli.main import CliError
    from vision.sim.recording import default_header

    from referee.cli.serve import parse_teams
    from referee.rules.engine import new_game

    header = default_header(args.game)
    if args.players:
        header["players"] = [p.strip() for p in args.players.split(",") if p.strip()]
    if args.game != "khmer" and (args.players or args.teams):
        # the same team syntax as `serve` (NS,EW or N+S,E+W; default: partners facing)
        teams = parse_teams(args.teams, header["players"])
        if not teams:
            raise CliError(f"--players: {len(header['players'])} players do not sit in teams of two or three "
                           "evenly; give --teams, e.g. --teams A+C,B+D")
        header["teams"] = teams
    try:  # the referee's own checks (unique names, player count, partners side by side)
        new_game(header)
    except ValueError as exc:
        raise CliError(str(exc).removeprefix("header: ")) from None
    return header


def _load_calls(path: str | None) -> list[dict[str, Any]]:
    if path is None:
        return []
    from referee.cli.main import CliError
    from vision.evaluate.dataset import DatasetError, _read_jsonl

    try:
        rows = _read_jsonl(Path(path))
    except DatasetError as exc:
        raise CliError(str(exc)) from None
    out = []
    for no, ev in rows:
        if not isinstance(ev, dict) or not isinstance(ev.get("t"), (int, float)) or not isinstance(ev.get("type"), str):
            raise CliError(f"{path}:{no}: each line needs a 'type' and a time 't'")
        out.append(ev)
    return sorted(out, key=lambda e: float(e["t"]))


def run(args: argparse.Namespace) -> int:
    import cv2
    from tqdm import tqdm

    from referee.cli.main import CliError
    from vision.capture import FileClock, pts_of
    from vision.evaluate.dataset import RECORDING_FORMAT
    from vision.evaluate.runner import Referee
    from vision.reader.reader import CardReader
    from vision.sim.recording import DEFAULT_LAYOUTS
    from vision.tracker.layout import LayoutError, load_layout
    from vision.tracker.pipeline import TablePipeline
    from vision.types import Frame

    video = Path(args.video)
    out = Path(args.out)
    if not video.is_file():
        raise CliError(f"{video}: {'is a folder, not a video' if video.is_dir() else 'no such file'}")
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: is a file; give a folder to write the recording into")
    if out.exists() and any(out.iterdir()):
        raise CliError(f"{out}: exists and is not empty")
    cap = cv2.VideoCapture(str(video))
    ok, first = cap.read() if cap.isOpened() else (False, None)
    if not ok:
        raise CliError(f"{video}: cannot be decoded as a video")
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 0) or 15.0
    total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0) or None
    size = (int(first.shape[1]), int(first.shape[0]))
    header = _header(args)
    calls = _load_calls(args.calls)
    try:
        layout = load_layout(args.layout or DEFAULT_LAYOUTS[args.game]).scaled(size)
        reader = CardReader.load(args.model, precision=args.precision)
    except (LayoutError, RuntimeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    pipe = TablePipeline(layout, reader, dict(header), fps)
    ref = Referee.start(header)
    events: list[dict[str, Any]] = []
    index, k, image = 0, 0, first
    clock, pts = FileClock(fps), pts_of(cap)
    with tqdm(total=total, desc="annotate", unit="frame") as bar:
        while ok:
            t = clock(index, pts)  # index / fps, or the file's own times (a phone's variable frame rate)
            while k < len(calls) and float(calls[k]["t"]) <= t:
                if calls[k]["type"] == "new_hand":
                    pipe.new_hand(t)
                if ref.apply(calls[k]):
                    seats = ref.awaited_seats(header["players"])
                    if seats:
                        pipe.request_reveal(seats, t, ref.awaited_sizes())
                events.append(calls[k])
                k += 1
            step = pipe.process(Frame(image=image, t=t, index=index))
            for ev in step.events:
                ev = {**ev, "t": round(float(ev.get("t", t)), 3)}
                events.append(ev)
                ref.apply(ev, camera=True)  # a move read late is held, as live (referee/late_events.py)
            index += 1
            bar.update(1)
            ok, image = cap.read()
            pts = pts_of(cap)
    cap.release()
    events += calls[k:]
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"video{video.suffix.lower() or '.mp4'}"
    if args.link:
        target.symlink_to(video.resolve())
    else:
        shutil.copyfile(video, target)
    layout.save(out / "layout.yaml")
    with open(out / "truth.jsonl", "w", encoding="utf-8") as fh:
        fh.write(json.dumps(header) + "\n")
        for ev in sorted(events, key=lambda e: float(e["t"])):
            fh.write(json.dumps(ev) + "\n")
    meta = {
        "format": RECORDING_FORMAT,
        "source": "draft",  # set to "recorded" once the truth has been corrected by hand
        "game": args.game,
        "rules": header.get("rules", {}),
        "players": header["players"],
        "teams": header.get("teams"),
        "seats": {p: {"at": list(s.at)} for p, s in layout.seats.items()},
        "layout": {"name": layout.name, "file": "layout.yaml"},
        "video": target.name,
        "truth": "truth.jsonl",
        "fps": fps,
        "size": list(size),
        "frames": index,
        "duration_s": round(index / fps, 3),
        "camera": {"kind": "recorded"},
        "deck": {"name": "unknown"},
        "annotated_from": str(video),
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"wrote draft recording {out}: {index} frames, {len(events)} events; correct truth.jsonl by hand (datasets/README.md)")
    return 0
