"""The `referee` command line: every subcommand registers and has help text."""

from __future__ import annotations

import subprocess
import sys

import pytest

from referee.cli.main import COMMANDS, build_parser


def _registered() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


def test_top_level_help_lists_subcommands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "referee", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for name in _registered():
        assert name in out


@pytest.mark.parametrize("name", COMMANDS)
def test_each_subcommand_has_help(name: str) -> None:
    assert name in _registered(), f"subcommand {name} is listed in COMMANDS but does not register"
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    sp = sub.choices[name]
    assert sp.description or sp.format_help().strip()
    for action in sp._actions:
        if action.dest != "help" and action.option_strings:
            assert action.help, f"referee {name} {action.option_strings} has no help text"


def test_no_command_prints_help_and_fails() -> None:
    proc = subprocess.run([sys.executable, "-m", "referee"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "usage" in proc.stdout.lower()


def test_every_reader_command_takes_the_same_precision_flag() -> None:
    """`--precision` means the same on each subcommand that loads the card reader, with the
    reader's own choices (the parser names them without importing the reader)."""
    from referee.cli.main import READER_PRECISIONS
    from vision.reader.reader import PRECISIONS

    assert set(READER_PRECISIONS) == set(PRECISIONS)
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("serve", "watch", "read", "eval"):
        (flag,) = [a for a in sub.choices[name]._actions if "--precision" in a.option_strings]
        assert flag.default == "auto" and tuple(flag.choices) == READER_PRECISIONS, name


def test_a_wrong_precision_is_refused_by_the_parser() -> None:
    proc = subprocess.run([sys.executable, "-m", "referee", "read", "x.jpg", "--precision", "fp16"], capture_output=True, text=True)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
