"""`referee layout` and `referee watch`: help, clear one-line errors, a calibration round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli.main import main
from vision.tracker.layout import LAYOUT_DIR, load_layout


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_layout_validate_reports_wrong_key_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((LAYOUT_DIR / "kemps-4.yaml").read_text().replace("market:", "markt:"))
    code, out, err = run(["layout", "validate", str(bad)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "unknown key 'markt'" in err and str(bad) in err


def test_layout_validate_warns_of_overlapping_reveal_areas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.tracker.layout import load_layout

    lay = load_layout("kemps-4").set_zone("reveal:W", [[500, 520], [700, 520], [700, 700], [500, 700]])  # onto S's
    path = lay.save(tmp_path / "over.yaml")
    code, out, _ = run(["layout", "validate", str(path)], capsys)
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].endswith("ok (4 seats, 5 zones)")
    assert len(lines) == 2 and "warning: reveal:S and reveal:W overlap" in lines[1], out


def test_layout_new_set_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "six.yaml"
    assert run(["layout", "new", "--players", "A,B,C,D,E,F", "--out", str(path)], capsys)[0] == 0
    out2 = tmp_path / "six2.yaml"
    code, _, _ = run(["layout", "set", str(path), "--zone", "reveal:C", "--polygon", "1,1 50,1 50,40", "--out", str(out2)], capsys)
    assert code == 0 and load_layout(out2).seats["C"].reveal == ((1, 1), (50, 1), (50, 40))
    code, out, _ = run(["layout", "show", str(out2)], capsys)
    assert code == 0 and "6 seats (A, B, C, D, E, F)" in out
    code, _, err = run(["layout", "set", str(path), "--zone", "reveal:Z", "--polygon", "1,1 2,2 3,1", "--out", str(out2)], capsys)
    assert code == 2 and "unknown seat 'Z'" in err


def test_layout_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cv2
    import numpy as np

    img = tmp_path / "still.png"
    cv2.imwrite(str(img), np.zeros((360, 640, 3), np.uint8))
    out = tmp_path / "zones.png"
    assert run(["layout", "draw", "kemps-4", str(img), "--out", str(out)], capsys)[0] == 0
    drawn = cv2.imread(str(out))
    assert drawn.shape == (360, 640, 3) and drawn.any()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["watch", "/nonexistent/game.mp4"], "video file not found"),
        (["watch", "--camera", "57"], "no camera at index 57"),
        (["watch"], "give a VIDEO or --camera N"),
        (["watch", "--camera", "0", "--layout", "nope"], "unknown layout 'nope'"),
    ],
)
def test_watch_bad_inputs_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert code == 2 and message in err and err.count("\n") == 1


def test_watch_unreadable_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00\x01 definitely not a video" * 50)
    code, _, err = run(["watch", str(bad)], capsys)
    assert code == 2 and "cannot read video" in err and err.count("\n") == 1


def test_a_notice_is_described_by_its_own_message() -> None:
    from referee.cli.watch import describe

    assert describe({"type": "camera_blurred", "message": "Focus the camera."}) == "camera_blurred: Focus the camera."
    assert describe({"type": "reshuffle"}) == "reshuffle"


def test_watch_a_table_size_without_a_bundled_layout_gets_a_ring_layout() -> None:
    """Seven players have no kemps-7.yaml: watch builds a ring layout, as serve does (it said
    "unknown layout 'kemps-7'")."""
    import argparse

    from referee.cli.watch import _recording_info

    ns = argparse.Namespace(video=None, camera=0, layout=None, game=None, players="A,B,C,D,E,F,G")
    header, layout_ref, _ = _recording_info(ns)
    assert header["players"] == list("ABCDEFG") and layout_ref is None
    ns.players = "A,B,C,D,E,F"
    assert _recording_info(ns)[1] == "kemps-6"
