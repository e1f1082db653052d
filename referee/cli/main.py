"""The `referee` command line: one entry point, one module per subcommand.

Each subcommand lives in `referee/cli/<name>.py` and exposes
`register(subparsers) -> None`, which adds its parser and sets `func` (a callable
taking the parsed args and returning an exit code). Modules are imported lazily so
`referee --help` stays fast and a missing optional dependency only breaks its own
subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from referee import __version__

# Order is the order shown in `referee --help`.
COMMANDS: tuple[str, ...] = (
    "serve",
    "watch",
    "read",
    "replay",
    "synth",
    "train",
    "eval",
    "listen",
    "annotate",
    "layout",
)


class CliError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="Computer-vision table referee for Kemps, Kem's and Khmer.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module_name = f"referee.cli.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"referee {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
