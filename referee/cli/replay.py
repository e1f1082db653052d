"""`referee replay LOG.jsonl [--json]`: audit a game log through the rules."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "replay",
        help="re-run a game log (JSONL) through the rules and print the outcome",
        description="Audit a game log: header line + one event per line (docs/game-log.md). "
        "Exit 0 when every event is accepted, 1 when some event is rejected, 2 on a bad file.",
    )
    p.add_argument("log", metavar="LOG.jsonl", help="game log: header line, then one event per line")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (game, finished, standings, results, rejected, ...)")
    p.add_argument("--lang", choices=("en", "fr", "es"), default="en",
                   help="language of the announcements in the text output (default: en)")
    p.add_argument("--quiet", action="store_true",
                   help="text output: only results, rejections and standings, no announcements")
    p.set_defaults(func=run)


def _standing(s: dict[str, Any]) -> str:
    who = "+".join(s["team"]) if "team" in s else s["player"]
    if "letters" in s:
        return f"{who:<12} {s['letters'] or '-'}" + ("  (out)" if s.get("out") else "")
    return f"{who:<12} {s['points']}"


def run(args: argparse.Namespace) -> int:
    from referee.cli.main import CliError
    from referee.replay import replay_log

    try:
        report = replay_log(args.log)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        players = " ".join(report.header.get("players", []))
        print(f"game: {report.game}  players: {players}  events accepted: {report.events}")
        if not args.quiet:
            for line, a in report.announcements:
                print(f"  line {line}: {a.text[args.lang]}")
        for r in report.rejected:
            print(f"  line {r['line']}: REJECTED ({r['code']}): {r['reason']}")
        print("standings:")
        for s in report.standings:
            print(f"  {_standing(s)}")
        print(f"finished: {'yes' if report.finished else 'no'}"
              + (f"  outcome: {json.dumps(report.outcome)}" if report.outcome else ""))
    if report.rejected:
        import sys

        for r in report.rejected:
            print(f"referee replay: line {r['line']} rejected: {r['reason']}", file=sys.stderr)
        return 1
    return 0
