"""Dataset discovery and validation: a broken dataset gives one clear line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli.main import main
from vision.evaluate.dataset import DatasetError, discover, load_recording, write_manifest

HEADER = {"game": "kemps", "rules": {}, "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]}


def make_recording(root: Path, frames: int = 4) -> Path:
    root.mkdir(parents=True)
    writer = cv2.VideoWriter(str(root / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 10, (160, 120))
    for i in range(frames):
        writer.write(np.full((120, 160, 3), 40 * i, np.uint8))
    writer.release()
    lines = [HEADER, {"type": "deal", "market": ["7C", "KD", "3S", "4H"], "t": 0.1}, {"type": "stale", "t": 0.2}]
    (root / "truth.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    meta = {"game": "kemps", "players": HEADER["players"], "fps": 10, "size": [160, 120], "video": "video.mp4",
            "frames": frames, "layout": {"name": "kemps-4"}}  # fmt: skip
    (root / "meta.json").write_text(json.dumps(meta))
    return root


def eval_error(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["eval", str(path), "--out", str(path.parent / "report")])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    return err


def test_valid_recording_loads(tmp_path: Path) -> None:
    rec = load_recording(make_recording(tmp_path / "r1"))
    assert rec.game == "kemps" and len(rec.events) == 2 and rec.fps == 10


def test_discover_three_shapes(tmp_path: Path) -> None:
    a = make_recording(tmp_path / "ds" / "a")
    make_recording(tmp_path / "ds" / "b")
    assert discover(a) == [a]  # one recording
    assert [p.name for p in discover(tmp_path / "ds")] == ["a", "b"]  # folder, no manifest
    write_manifest(tmp_path / "ds")
    (tmp_path / "ds" / "b" / "meta.json").rename(tmp_path / "ds" / "b" / "gone.json")
    with pytest.raises(DatasetError, match=r"manifest.json: recordings\[1\] 'b'"):
        discover(tmp_path / "ds")
    with pytest.raises(DatasetError, match="no recordings found"):
        discover(_empty(tmp_path))


def _empty(tmp_path: Path) -> Path:
    p = tmp_path / "empty"
    p.mkdir()
    return p


def test_bad_truth_line_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_recording(tmp_path / "r1")
    with open(root / "truth.jsonl", "a") as fh:
        fh.write('{"type": "swap", "give": "2C"\n')
    err = eval_error(root, capsys)
    assert "truth.jsonl:4" in err and "not valid JSON" in err


def test_event_without_time(tmp_path: Path) -> None:
    root = make_recording(tmp_path / "r1")
    with open(root / "truth.jsonl", "a") as fh:
        fh.write('{"type": "stale"}\n')
    with pytest.raises(DatasetError, match=r"truth.jsonl:4: event needs a time"):
        load_recording(root)


def test_events_out_of_order(tmp_path: Path) -> None:
    root = make_recording(tmp_path / "r1")
    with open(root / "truth.jsonl", "a") as fh:
        fh.write('{"type": "stale", "t": 0.05}\n')
    with pytest.raises(DatasetError, match="out of time order"):
        load_recording(root)


def test_corrupt_video_names_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_recording(tmp_path / "r1")
    (root / "video.mp4").write_bytes(b"\x00not a video at all" * 100)
    err = eval_error(root, capsys)
    assert "video.mp4" in err and ("cannot be opened" in err or "no frame" in err)


def test_missing_meta_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_recording(tmp_path / "r1")
    meta = json.loads((root / "meta.json").read_text())
    del meta["fps"]
    (root / "meta.json").write_text(json.dumps(meta))
    err = eval_error(root, capsys)
    assert "meta.json: missing key(s) fps" in err


def test_files_saved_by_a_windows_editor_load(tmp_path: Path) -> None:
    """Truth and meta hand-corrected in Notepad (a byte-order mark, CRLF) load as before."""
    root = make_recording(tmp_path / "r1")
    for name in ("truth.jsonl", "meta.json"):
        path = root / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_text().replace("\n", "\r\n").encode())
    rec = load_recording(root)
    assert rec.game == "kemps" and rec.fps == 10


def test_game_mismatch(tmp_path: Path) -> None:
    root = make_recording(tmp_path / "r1")
    meta = json.loads((root / "meta.json").read_text())
    meta["game"] = "khmer"
    (root / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(DatasetError, match="differs from the truth header"):
        load_recording(root)


def test_missing_model_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_recording(tmp_path / "r1")
    code = main(["eval", str(root), "--out", str(tmp_path / "rep"), "--model", str(tmp_path / "no-model")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "no-model" in err and len(err.splitlines()) == 1, err
