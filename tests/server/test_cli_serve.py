"""`referee serve` argument handling (the server itself is tested through the API)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from referee.cli.main import CliError, main
from referee.cli.serve import build_header, parse_rules, parse_teams


def args(**kw: object) -> argparse.Namespace:
    base = {"game": None, "players": None, "teams": None, "rules": None}
    base.update(kw)
    return argparse.Namespace(**base)


def test_no_camera_at_that_index_is_one_clear_line(capsys):
    assert main(["serve", "--camera", "97"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no camera at index 97" in err and "--demo" in err


def test_missing_video_is_one_clear_line(capsys, tmp_path: Path):
    assert main(["serve", "--video", str(tmp_path / "nope.mp4")]) == 2
    assert "video file not found" in capsys.readouterr().err


def test_a_corrupt_video_is_one_clear_line_before_the_server_starts(capsys, tmp_path: Path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(range(256)) * 20)
    db = tmp_path / "g.sqlite"
    assert main(["serve", "--video", str(bad), "--port", "0", "--db", str(db)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and str(bad) in out.err, out
    assert not db.exists()


def test_a_port_in_use_is_one_clear_line_before_anything_is_printed_or_opened(capsys, tmp_path: Path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        db = tmp_path / "game.sqlite"
        assert main(["serve", "--demo", "--port", str(port), "--db", str(db)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip() == f"referee serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert not db.exists()


def test_header_defaults_and_teams():
    header = build_header(args())
    assert header == {"game": "kemps", "rules": {}, "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]}
    assert build_header(args(game="khmer"))["players"] == ["N", "S"]
    assert parse_teams("Ana+Cy,Bo+Di", ["Ana", "Bo", "Cy", "Di"]) == [["Ana", "Cy"], ["Bo", "Di"]]
    with pytest.raises(CliError):
        parse_teams("NX", ["N", "E", "S", "W"])


def test_a_table_the_rules_refuse_is_one_clear_error_before_serving():
    """It was a traceback at the app's startup (no teams for an odd table, a table too big)."""
    assert build_header(args(game="kems", players="A,B,C,D,E,F,G,H,I"))["teams"] == [["A", "D", "G"], ["B", "E", "H"], ["C", "F", "I"]]
    with pytest.raises(CliError, match="7 players do not sit in teams of two or three evenly; give --teams"):
        build_header(args(game="kems", players="A,B,C,D,E,F,G"))
    with pytest.raises(CliError, match="kemps needs 4-10 players, got 12"):
        build_header(args(players=",".join("ABCDEFGHIJKL")))
    with pytest.raises(CliError, match="partners A and B sit side by side"):
        build_header(args(players="A,B,C,D", teams="AB,CD"))


def test_rules_by_variant_name_or_file(tmp_path: Path):
    assert parse_rules("cash") == {"variant": "cash"}
    f = tmp_path / "house.yaml"
    f.write_text("word: CUT\nhand_size: 5\n")
    assert parse_rules(str(f)) == {"word": "CUT", "hand_size": 5}
    with pytest.raises(CliError):
        build_header(args(rules="no_such_variant"))


def test_a_recordings_meta_fills_the_header():
    meta = {"game": "kems", "rules": {}, "players": ["A", "B", "C", "D"], "teams": [["A", "C"], ["B", "D"]]}
    header = build_header(args(), meta)
    assert header["game"] == "kems" and header["players"] == ["A", "B", "C", "D"] and header["teams"] == meta["teams"]
    assert build_header(args(players="N,E,S,W"), meta)["teams"] == [["N", "S"], ["E", "W"]]


def test_no_video_source_says_how_to_add_one(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # start, print, stop
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "game.sqlite"), "--no-voice"]) == 0
    out = capsys.readouterr().out
    assert "video: none" in out and "--camera N" in out and "--demo" in out


def test_a_recording_folder_is_served_with_its_own_video_players_and_layout(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`--video` takes a recording folder, as `referee watch` and `referee eval` do (it said
    "is a folder, not a video file" from the frame thread, after the server had started)."""
    import shutil

    import uvicorn

    from referee.cli.serve import folder_video

    samples = Path(__file__).resolve().parents[2] / "datasets" / "samples"
    sample = next(p for p in sorted(samples.iterdir()) if (p / "meta.json").is_file())
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    assert main(["serve", "--video", str(sample), "--port", "0", "--db", str(tmp_path / "g.sqlite"), "--no-voice"]) == 0
    assert f"video: {sample}/video.mp4" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CliError, match="0 videos and no meta.json"):
        folder_video(empty)
    one = tmp_path / "one"
    shutil.copytree(sample, one)
    (one / "meta.json").unlink()
    assert folder_video(one) == one / "video.mp4"
