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
import math
import os
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


def _number(value: str, kind: type, what: str) -> float:
    try:
        return kind(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {value!r}") from None


def camera_index(value: str) -> int:
    """argparse type: a webcam index, 0 or more (OpenCV crashes the process on a negative one)."""
    n = int(_number(value, int, "a camera index"))
    if n < 0:
        raise argparse.ArgumentTypeError(f"a camera index is 0 or more, not {n}")
    return n


def port_number(value: str) -> int:
    """argparse type: a TCP port, 1-65535, or 0 for any free one."""
    n = int(_number(value, int, "a port number"))
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535 (0: any free one), not {n}")
    return n


def positive_float(value: str) -> float:
    """argparse type: a finite number over 0 (a time, a rate, a tolerance)."""
    x = _number(value, float, "a number")
    if not (math.isfinite(x) and x > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number over 0, not {value}")
    return x


def nonnegative_float(value: str) -> float:
    """argparse type: a finite number, 0 or more."""
    x = _number(value, float, "a number")
    if not (math.isfinite(x) and x >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more, not {value}")
    return x


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
    except Exception as exc:
        # A file the user named that cannot be written or read as text, or a YAML file that
        # does not parse, is the user's to fix: one line, not a traceback (REFEREE_TRACEBACK=1
        # shows it). Anything else is a bug and keeps its traceback.
        message = environment_error(exc)
        if message is None or os.environ.get("REFEREE_TRACEBACK"):
            raise
        print(f"referee {args.command}: error: {message}", file=sys.stderr)
        return 2


def environment_error(exc: BaseException) -> str | None:
    """One line for an error of the user's files or machine, else None."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    if isinstance(exc, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if type(exc).__module__.split(".")[0] == "yaml":  # yaml.YAMLError and its kinds
        return f"a YAML file does not parse: {' '.join(str(exc).split())}"
    return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
