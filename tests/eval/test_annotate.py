"""`referee annotate`: a video becomes a draft recording that `referee eval` accepts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from referee.cli.main import main
from vision.evaluate.dataset import load_recording


def test_annotate_writes_a_loadable_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.reader.reader
    from .test_runner import OracleReader
    from vision.sim import video_cli

    src = tmp_path / "sim"
    parser = argparse.ArgumentParser()
    video_cli.add_arguments(parser)
    args = parser.parse_args(["--game", "kemps", "--minutes", "0.3", "--seed", "2", "--out", str(src), "--fps", "4",
                              "--size", "320x180", "--decks", "procedural:2000002", "--card-every", "0.25"])  # fmt: skip
    assert video_cli.run(args) == 0
    monkeypatch.setattr(vision.reader.reader.CardReader, "load", classmethod(lambda cls, model_dir=None, **_: OracleReader(src)))
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"type": "call", "call": "cut", "by": "N", "target": "E", "t": 10.0}) + "\n")
    out = tmp_path / "mine" / "game1"
    assert main(["annotate", str(src / "video.mp4"), "--game", "kemps", "--out", str(out), "--calls", str(calls),
                 "--layout", str(src / "layout.yaml")]) == 0  # fmt: skip
    rec = load_recording(out)
    assert rec.meta["source"] == "draft" and rec.meta["frames"] == 72
    assert any(e["type"] == "call" for e in rec.events)
    assert any(e["type"] == "deal" for e in rec.events)  # the tracker saw the market dealt
    assert main(["annotate", str(src / "video.mp4"), "--game", "kemps", "--out", str(out)]) == 2  # not empty
