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


# The card reader's detector precisions, as `vision.reader.reader.PRECISIONS` (kept equal by a
# test; named here so that building the parser imports no numpy or OpenVINO).
READER_PRECISIONS: tuple[str, ...] = ("auto", "int8", "bf16", "f32")


def add_precision_arg(p: argparse.ArgumentParser) -> None:
    """`--precision`, the same on every subcommand that loads the card reader."""
    p.add_argument(
        "--precision", choices=READER_PRECISIONS, default="auto",
        help="card reader's detector precision: auto (default) = the float detector, in bf16 where "
        "the CPU computes it natively, else f32; int8 = faster on CPUs without AVX-512 but reads "
        "small cards worse (models/MODEL_CARD.md, 'Detector precision')",
    )  # fmt: skip


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
