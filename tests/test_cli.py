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
    layout_sub = next(a for a in sub.choices["layout"]._actions if isinstance(a, type(sub)))
    for name, p in [*((n, sub.choices[n]) for n in ("serve", "watch", "read", "eval", "annotate")),
                    ("layout auto", layout_sub.choices["auto"])]:
        (flag,) = [a for a in p._actions if "--precision" in a.option_strings]
        assert flag.default == "auto" and tuple(flag.choices) == READER_PRECISIONS, name


def test_a_wrong_precision_is_refused_by_the_parser() -> None:
    proc = subprocess.run([sys.executable, "-m", "referee", "read", "x.jpg", "--precision", "fp16"], capture_output=True, text=True)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


# ---- found by a command-line audit (7 Dec) ----------------------------------------------
def test_a_negative_camera_or_a_port_out_of_range_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    # OpenCV crashed the process (segfault, no message) on `--camera -1`
    from referee.cli.main import main

    for argv in (["serve", "--camera", "-1"], ["watch", "--camera", "-5"], ["serve", "--port", "70000"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
    assert "0 or more" in capsys.readouterr().err


def test_an_unwritable_output_path_or_bad_yaml_is_one_line(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli.main import main

    assert main(["layout", "new", "--players", "N,E,S,W", "--out", str(tmp_path / "missing" / "x" / "l.yaml")]) in (0, 2)
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\n")
    assert main(["train", "--config", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "YAML" in err[0] and "Traceback" not in err[0]
    assert main(["layout", "new", "--players", "N,E,S,W", "--out", "/proc/no/l.yaml"]) == 2
    assert "No such file or directory: /proc/no" in capsys.readouterr().err


def _serve_args(**kw: object) -> object:
    import argparse

    base = dict(game=None, players=None, teams=None, rules=None)
    return argparse.Namespace(**(base | kw))


def test_serve_archives_a_stored_game_that_the_flags_contradict(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    # `referee serve --game khmer` resumed the Kemps game kept in the default file, the flags
    # silently ignored
    from referee.cli.serve import build_header, prepare_db
    from referee.session import Session

    db = tmp_path / "game.sqlite"
    kemps = build_header(_serve_args())
    Session.create(db, kemps).close()
    prepare_db(db, kemps, _serve_args())  # no game flag: resume
    prepare_db(db, kemps, _serve_args(game="kemps"))  # the same game asked: resume
    assert db.exists() and not list(tmp_path.glob("game.sqlite.2*"))
    khmer = build_header(_serve_args(game="khmer"))
    prepare_db(db, khmer, _serve_args(game="khmer"))
    assert not db.exists() and len(list(tmp_path.glob("game.sqlite.2*[0-9]"))) == 1  # (and its -wal, -shm)
    assert "archived" in capsys.readouterr().out


@pytest.mark.parametrize("content,why", [(b"", "an empty file"), (b"\xff\xd8\xff\xe0 a JPEG", "not a game log")])
def test_serve_refuses_a_db_that_is_not_a_game_log(tmp_path, content: bytes, why: str) -> None:
    from referee.cli.main import CliError
    from referee.cli.serve import build_header, prepare_db

    db = tmp_path / "x.sqlite"
    db.write_bytes(content)
    with pytest.raises(CliError, match=why):
        prepare_db(db, build_header(_serve_args()), _serve_args())
    with pytest.raises(CliError, match="is a folder"):
        prepare_db(tmp_path, build_header(_serve_args()), _serve_args())
