"""`referee listen`: JSON lines from a WAV; clear one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli.main import main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "voice"


def test_listen_wav_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pocketsphinx")
    assert main(["listen", "--wav", str(FIX / "kemps_pink20.wav"), "--names", "north,east,south,west", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["call"], x["target"]) for x in lines] == [("cut", "south"), ("cut", None)]
    assert {"t", "call", "target", "confidence", "provisional"} <= set(lines[0])
    assert isinstance(lines[0]["provisional"], bool) and 0 <= lines[0]["confidence"] <= 1


def test_listen_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pocketsphinx")
    assert main(["listen", "--wav", str(FIX / "kems_calls.wav"), "--rules", "kems"]) == 0
    out = capsys.readouterr().out
    assert "DOUBLE_KEMS" in out and "CONTRE_KEMS" in out and "KEMS " in out and "provisional" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--wav", "nope.wav"], "no such file"),
        (["--wav", "x.wav", "--rules", "khmer"], "Khmer has no spoken calls"),
        (["--mic"], "no microphone"),
    ],
)
def test_listen_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pocketsphinx")
    from referee.voice import sources

    def no_sd() -> None:
        raise sources.MicUnavailable("no microphone: the PortAudio library is missing")

    monkeypatch.setattr(sources, "_sounddevice", no_sd)
    assert main(["listen", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and err.startswith("referee listen: error:")
