"""`referee listen`: spot spoken calls in a WAV file or from the microphone."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from referee.cli.main import CliError

DEFAULT_NAMES = "north,east,south,west"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "listen",
        help="hear spoken calls (Kemps, Cut <name>, Kem's…) in a WAV file or from the microphone",
        description="Keyword-spot the active rules' calls, offline (pocketsphinx). One line per "
        "call; --json prints JSON lines "
        '{"t": 12.31, "call": "cut", "target": "east", "confidence": 0.8, "provisional": false}. '
        "One-word calls are provisional (shown for a one-tap confirmation).",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--wav", type=Path, metavar="FILE", help="WAV file to listen to (integer PCM or float, any rate and channels; resampled to 16 kHz mono)")
    src.add_argument("--mic", action="store_true", help="listen to this machine's microphone until Ctrl-C")
    p.add_argument("--names", default=DEFAULT_NAMES, help=f"players' spoken names, comma-separated (default {DEFAULT_NAMES})")
    p.add_argument("--rules", default="kemps", help="kemps, kems, kemps:VARIANT or a variant name such as no_cut (default kemps)")
    p.add_argument("--config", type=Path, default=None, help="voice settings (default configs/voice.yaml)")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of readable lines")
    p.set_defaults(func=run)


def _print(call: Any, as_json: bool) -> None:
    if as_json:
        d = call.to_dict()
        out = {k: d[k] for k in ("t", "call", "target", "confidence", "provisional", "phrase")}
        print(json.dumps(out), flush=True)
        return
    who = f" {call.target}" if call.target else ""
    mark = "  (provisional: confirm?)" if call.provisional else ""
    print(f"{call.t:8.2f}s  {call.call.upper()}{who}  [{call.phrase!r}, confidence {call.confidence:.2f}]{mark}", flush=True)


def run(args: argparse.Namespace) -> int:
    from referee.voice.grammar import VoiceConfigError
    from referee.voice.sources import AudioFileError, Microphone, MicUnavailable, read_wav

    names = [n.strip() for n in args.names.split(",") if n.strip()]
    if not names:
        raise CliError("--names needs at least one name")
    try:
        from referee.voice.listener import CallListener

        listener = CallListener(args.rules, names, args.config)
    except VoiceConfigError as exc:
        raise CliError(str(exc)) from exc
    for w in listener.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.wav is not None:
        try:
            pcm = read_wav(args.wav)
        except AudioFileError as exc:
            raise CliError(str(exc)) from exc
        step = 16000 * listener.config.chunk_ms // 1000 * 2
        for i in range(0, len(pcm), step):
            for call in listener.feed(pcm[i : i + step]):
                _print(call, args.json)
        for call in listener.flush():
            _print(call, args.json)
        return 0
    try:
        mic = Microphone()
        if not args.json:
            print(f"listening on {mic.name!r} (Ctrl-C to stop)", file=sys.stderr)
        start = time.monotonic()
        with mic:
            first = True
            for pcm in mic.chunks():
                t0 = time.monotonic() - start if first else None
                first = False
                for call in listener.feed(pcm, t0=t0):
                    _print(call, args.json)
    except MicUnavailable as exc:
        raise CliError(str(exc)) from exc
    except KeyboardInterrupt:
        for call in listener.flush():
            _print(call, args.json)
    return 0
