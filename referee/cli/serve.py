"""`referee serve`: the live referee in the browser (dashboard, phones as buzzers, voice)."""

from __future__ import annotations

import argparse
import re
import socket
import time
from pathlib import Path
from typing import Any

from referee.cli.main import CliError, add_precision_arg, camera_index, nonnegative_float, port_number
from referee.cli.recording import folder_meta, folder_video, videos_in

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "datasets" / "samples"
DEFAULT_PLAYERS = {"kemps": "N,E,S,W", "kems": "N,E,S,W", "khmer": "N,S"}


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the live referee: dashboard, phones, voice",
                       description="Serve the referee dashboard at http://HOST:PORT. The game is kept in an "
                                   "SQLite event log (--db): restart with the same --db and the game resumes.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", type=camera_index, metavar="N", help="webcam index (0 is the first camera)")
    src.add_argument("--video", type=Path, metavar="PATH", help="a video file or a recording folder to referee, played in real time")
    src.add_argument("--demo", action="store_true",
                     help="play the bundled sample recording of the chosen game in a loop (no camera needed)")
    p.add_argument("--game", choices=("kemps", "kems", "khmer"),
                   help="kemps (letters), kems (French points) or khmer (default: kemps, or the recording's "
                        "own game when its folder has a meta.json)")
    p.add_argument("--rules", metavar="NAME_OR_FILE",
                   help="a variant name from configs/rules/<game>.yaml, or a YAML file of rule overrides")
    p.add_argument("--players", metavar="N,E,S,W",
                   help="seats in order around the table (default N,E,S,W; N,S for khmer)")
    p.add_argument("--teams", metavar="NS,EW",
                   help="teams as comma-separated groups of seats written together when seats are "
                        "one letter, or with '+' (Ana+Bo,Cy+Di); default: partners facing")
    p.add_argument("--db", type=Path,
                   help="the game's SQLite event log (default runs/serve/game.sqlite; with --demo a new "
                        "runs/serve/demo-TIME.sqlite); an existing one resumes exactly where it was, unless "
                        "--game, --players, --teams or --rules ask for another game: then it is archived "
                        "beside it (never deleted) and the new game starts")
    p.add_argument("--layout", help="table layout (name in configs/layouts/ or a YAML file)")
    p.add_argument("--model", type=Path, help="card reader model folder (default: the bundled export)")
    add_precision_arg(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=port_number, default=8000, help="port (default 8000; 0: any free one)")
    p.add_argument("--lan", action="store_true",
                   help="reachable from the local network; phones join with the code shown as a QR code")
    p.add_argument("--join-code", metavar="DIGITS", help="fix the join code instead of a random one")
    p.add_argument("--no-voice", action="store_true", help="refuse microphone streams (/ws/mic)")
    p.add_argument("--call-window", type=nonnegative_float, default=0.15, metavar="S",
                   help="seconds calls are held to order them by their own time (default 0.15)")
    p.set_defaults(func=run)


def parse_rules(value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    path = Path(value)
    if path.suffix in (".yaml", ".yml") or path.exists():
        import yaml

        if not path.exists():
            raise CliError(f"rules file not found: {path}")
        data = yaml.safe_load(path.read_text())
        if not isinstance(data, dict):
            raise CliError(f"{path}: a rules file must be a mapping of options")
        return data
    return {"variant": value}


def parse_teams(value: str | None, players: list[str]) -> list[list[str]] | None:
    if not value:  # partners facing (i and i + n/2), or threes spread around an odd table
        from referee.rules.engine import default_teams

        return default_teams(players)
    teams = []
    for group in value.split(","):
        members = group.split("+") if "+" in group else list(group)
        unknown = [m for m in members if m not in players]
        if unknown:
            raise CliError(f"--teams: {', '.join(unknown)} not in --players {','.join(players)}")
        teams.append(members)
    return teams


def build_header(args: argparse.Namespace, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """From the flags; a recording's meta.json fills what the flags leave out."""
    meta = meta or {}
    game = args.game or meta.get("game") or "kemps"
    same = meta.get("game") == game
    if args.players:
        players = [p.strip() for p in args.players.split(",") if p.strip()]
    elif same and meta.get("players"):
        players = [str(p) for p in meta["players"]]
    else:
        players = DEFAULT_PLAYERS[game].split(",")
    if len(set(players)) != len(players):
        raise CliError("--players: each seat must have a different name")
    from referee.server.models import SEAT_PATTERN

    bad = [p for p in players if not re.fullmatch(SEAT_PATTERN, p)]
    if bad:  # the API refuses calls by such a seat: refuse the game instead of a dead seat
        raise CliError(f"--players: {', '.join(map(repr, bad))}: a name is 1-24 letters, digits, spaces or _ ' . -")
    rules = parse_rules(args.rules) if args.rules else (dict(meta.get("rules") or {}) if same else {})
    header: dict[str, Any] = {"game": game, "rules": rules, "players": players}
    if game != "khmer":
        teams = (meta.get("teams") if same and not args.players and not args.teams else None) or parse_teams(args.teams, players)
        if not teams:
            raise CliError(f"--players: {len(players)} players do not sit in teams of two or three evenly; "
                           "give --teams, e.g. --teams A+C,B+D")
        header["teams"] = teams
    from referee.rules.engine import new_game

    try:  # the referee's own checks (player count, team sizes, partners side by side), before serving
        new_game(header)
    except ValueError as exc:
        raise CliError(str(exc).removeprefix("header: ")) from None
    return header


def demo_video(game: str) -> Path:
    """datasets/samples/<game>/video.* (or the first <game>* sample folder with a video)."""
    folders = [SAMPLES / game] + sorted(p for p in SAMPLES.glob(f"{game}*") if p.name != game)
    for folder in folders:
        videos = videos_in(folder)
        if videos:
            return videos[0]
    raise CliError(f"no sample recording in {SAMPLES / game} (run `referee serve --video PATH` with your own)")


def prepare_db(db: Path, header: dict[str, Any], args: argparse.Namespace) -> None:
    """Check `--db` before serving: a folder or a file that is no game log is one clear error;
    a stored game that the game flags contradict is archived (a plain `serve --game khmer`
    used to resume the Kemps game kept in the default file, flags silently ignored)."""
    if db.is_dir():
        raise CliError(f"--db {db}: is a folder; give a file path such as {db / 'game.sqlite'}")
    if not db.exists():
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"--db {db}: cannot create its folder ({exc.strerror or exc})") from None
        return
    stored = stored_header(db)
    asked = [k for k in ("game", "players", "teams", "rules") if getattr(args, k, None)]
    changed = [k for k in asked if k != "rules" and header.get(k) != stored.get(k)]
    if "rules" in asked and (header.get("rules") or {}) != (stored.get("rules") or {}):
        changed.append("rules")
    if changed:
        from referee.server.service import archive_game

        archived = archive_game(db)
        print(f"{db} held another game ({', '.join(f'{k}: {stored.get(k)!r}' for k in changed)}); "
              f"archived as {archived.name}, a new game starts", flush=True)


def stored_header(db: Path) -> dict[str, Any]:
    """The header of the game kept in `db`, or one clear error when it is no game log."""
    import sqlite3

    try:
        with open(db, "rb") as f:
            magic = f.read(16)
    except OSError as exc:
        raise CliError(f"--db {db}: cannot be read ({exc.strerror or exc})") from None
    if magic != b"SQLite format 3\x00":
        what = "an empty file" if not magic else "not a game log (an SQLite file written by referee serve)"
        raise CliError(f"--db {db}: {what}; give another path, or move it away")
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT body FROM header WHERE id = 1").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise CliError(f"--db {db}: not a game log ({exc})") from None
    if row is None:
        raise CliError(f"--db {db}: holds no game (no header)")
    import json

    return dict(json.loads(row[0]))


def stable_join_code(db: Path, make: Any) -> str:
    """One code per game file, kept beside it, so phones need not rescan after a restart."""
    side = Path(f"{db}.join-code")
    if side.exists() and side.read_text().strip().isdigit():
        return side.read_text().strip()
    code = str(make())
    side.parent.mkdir(parents=True, exist_ok=True)
    side.write_text(code + "\n")
    return code


def recorded_calls(video: Path) -> tuple[tuple[float, tuple[tuple[str, Any], ...]], ...]:
    """What the recorded players said or declared in a sample recording (its truth.jsonl), for
    --demo: calls, and Khmer closes and folds (no camera sees those). Without the close a Khmer
    demo's first deal never ended, and the loop's new hand was refused: the board froze."""
    import json

    truth = video.parent / "truth.jsonl"
    if not truth.exists():
        return ()
    calls = []
    for line in truth.read_text().splitlines()[1:]:
        event = json.loads(line) if line.strip() else {}
        if event.get("type") in ("call", "close", "fold") and "t" in event:
            body = {k: v for k, v in event.items() if k in ("type", "call", "by", "target", "player")}
            calls.append((float(event["t"]), tuple(sorted(body.items()))))
    return tuple(calls)


def lan_address() -> str:
    """The address other machines on this network reach us at (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.168.0.1", 9))
            return str(s.getsockname()[0])
        except OSError:
            return socket.gethostbyname(socket.gethostname())


def check_camera(index: int) -> None:
    from vision.capture import CaptureError, open_source

    try:
        open_source(index).close()
    except CaptureError as exc:
        raise CliError(f"{exc}; with no camera, try `referee serve --demo`") from None


def check_video(path: Path) -> None:
    """One clear line now for a video that cannot be played (corrupt, not a video), rather
    than a traceback from the frame thread after the server has started."""
    from vision.capture import CaptureError, open_source

    try:
        open_source(str(path)).close()
    except CaptureError as exc:
        raise CliError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from referee.server.settings import ServerSettings, VideoSource, new_join_code

    video = None
    if args.camera is not None:
        check_camera(args.camera)
        source = VideoSource(camera=args.camera)
    elif args.video is not None:
        if not args.video.exists():
            raise CliError(f"video file not found: {args.video}")
        video = folder_video(args.video) if args.video.is_dir() else args.video
        check_video(video)
        source = VideoSource(path=video)
    elif args.demo:
        video = demo_video(args.game or "kemps")
        source = VideoSource(path=video, loop=True, calls=recorded_calls(video))
    else:
        source = VideoSource()
    header = build_header(args, folder_meta(video.parent) if video is not None else None)
    layout = args.layout
    if layout is None and video is not None and (video.parent / "layout.yaml").exists():
        layout = str(video.parent / "layout.yaml")  # a recording's own calibration
    if args.join_code is not None and not (args.join_code.isdigit() and 4 <= len(args.join_code) <= 12):
        raise CliError("--join-code: 4 to 12 digits")
    host = args.host
    public_url = None
    if args.lan:
        # Bind this machine's LAN address (plus 127.0.0.1 for the laptop's own browser).
        host = lan_address() if host == "127.0.0.1" else host
        public_url = f"http://{host}:{args.port}"
    db = args.db
    if db is None:
        db = Path(f"runs/serve/demo-{time.strftime('%Y%m%d-%H%M%S')}.sqlite") if args.demo else Path("runs/serve/game.sqlite")
    prepare_db(db, header, args)
    settings = ServerSettings(
        db_path=db, header=header, source=source, host=host, port=args.port, lan=args.lan,
        join_code=args.join_code or stable_join_code(db, new_join_code), public_url=public_url,
        layout_path=Path(layout) if layout else None, model_dir=args.model, precision=args.precision,
        voice=not args.no_voice, call_window_s=args.call_window,
    )
    return serve(settings)


def serve(settings: Any) -> int:
    import uvicorn

    from referee.server.app import create_app
    from referee.server.qr import qr_text

    # The port first: a port in use is one clear error before anything is opened or printed.
    wildcard = settings.host in ("0.0.0.0", "::")
    hosts = [settings.host] if not settings.lan or wildcard else sorted({"127.0.0.1", settings.host})
    sockets = [bind(h, settings.port) for h in hosts]
    if settings.port == 0:  # any free port: say the one the system gave
        from dataclasses import replace as _replace

        settings = _replace(settings, port=int(sockets[0].getsockname()[1]))
    app = create_app(settings)
    local = f"http://127.0.0.1:{settings.port}"
    resumed = " (resuming the game it holds)" if settings.db_path.exists() else ""
    print(f"Kemps Referee: dashboard at {local}  game log: {settings.db_path}{resumed}", flush=True)
    if settings.source.spec is not None:
        print(f"video: {settings.source.spec}{' (looping demo)' if settings.source.loop else ''}", flush=True)
    else:  # a valid mode (a table refereed by hand), but one a newcomer may not have meant
        print("video: none, calls and cards by buttons and phones only "
              "(watch a table with --camera N or --video PATH; the bundled recording: --demo)", flush=True)
    if settings.source.calls:
        print(f"demo: the {len(settings.source.calls)} call(s) the recorded players made are replayed as "
              "'recording' calls; every card is read by the camera", flush=True)
    phone_url = f"{settings.public_url or local}/phone?code={settings.join_code}"
    print(f"phones: open {phone_url}  join code {settings.join_code}", flush=True)
    if settings.lan:
        print(qr_text(phone_url), flush=True)
    config = uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20)
    uvicorn.Server(config).run(sockets=sockets)
    return 0


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
