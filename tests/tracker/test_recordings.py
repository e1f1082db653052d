"""Integration: the pipeline on simulator recordings, scored against their truth.

- committed samples (datasets/samples/*) with the shipped reader, when both exist;
- (slow) a fresh simulator recording with cards.jsonl on every frame, reads taken from it
  (an oracle reader), so the video decoding, motion gating, occlusion handling and event
  logic are tested on rendered arms, lighting and noise independently of the model.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

SAMPLES = sorted(p.parent for p in (REPO / "datasets" / "samples").glob("*/truth.jsonl"))
MODEL = REPO / "models" / "reader.json"


def _every_frame(root: Path) -> bool:
    """cards.jsonl holds every frame (what the oracle reader needs)."""
    try:
        meta = json.loads((root / "meta.json").read_text())
        lines = (root / "cards.jsonl").read_text().splitlines()
    except (OSError, ValueError):
        return False
    return len(lines) >= int(meta.get("frames", 10**9))


ORACLE_SAMPLES = [p for p in SAMPLES if _every_frame(p)]


@pytest.mark.skipif(not ORACLE_SAMPLES, reason="needs datasets/samples recordings with cards.jsonl on every frame")
@pytest.mark.parametrize("root", ORACLE_SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize(
    ("drop", "misread", "min_f1", "min_market"), [(0.0, 0.0, 0.95, 0.93), (0.1, 0.02, 0.8, 0.85)], ids=["clean", "noisy"]
)
def test_committed_sample_with_oracle_reads(root: Path, drop: float, misread: float, min_f1: float, min_market: float) -> None:
    """Decoding, motion gating, occlusion and event logic on the committed samples, with
    reads from their cards.jsonl (clean, then with 10 % missed and 2 % wrong card reads)."""
    from bench_tracker import bench_recording

    out = bench_recording(root, None, oracle=True, max_s=None, drop=drop, misread=misread)
    assert out["referee_rejected"] == [], out["referee_rejected"][:3]
    assert out["event_f1"] >= min_f1, json.dumps({"missed": out["missed"], "extra": out["extra"]})
    assert out["latency_median_s"] is None or out["latency_median_s"] <= 0.5
    if out["reveals"]["truth"]:
        assert out["reveals"]["accuracy"] == 1.0
    if out["market_accuracy"] is not None:
        assert out["market_accuracy"] >= min_market


def _shipped(root: Path) -> dict:
    from bench_tracker import bench_recording

    return bench_recording(root, None, oracle=False, max_s=None)


@pytest.mark.skipif(not SAMPLES or not MODEL.is_file(), reason="needs datasets/samples recordings and the shipped model")
@pytest.mark.parametrize("root", SAMPLES, ids=lambda p: p.name)
def test_committed_sample_with_shipped_reader_floor(root: Path) -> None:
    """Regression floor for the shipped reader + tracker on the held-out-deck samples.

    The floor sits below what the shipped model measures (event F1 1.0 Kemps, 0.86 Kem's,
    1.0 Khmer), so a clearly worse model or tracker fails here.
    """
    out = _shipped(root)
    assert out["event_f1"] >= 0.6, (out["missed"], out["extra"])


# The Khmer and Kemps samples reach the target (event F1 1.0). The Kemps sample did not with
# the round-3 reader before the per-spot identity vote (0.77: 6H read as 8H on two unsure
# reads at the deal, now out-voted before the deal is sent; round 4 reads it right). The
# Kem's sample does not (0.86 with round 4, 0.80 with round 3): KC is read as KS on every
# read of the deal, so the deal is wrong. Round 5 keeps the Kemps events right but reads its
# 6D as 8D after the deal (a wrong quiet correction: the market, not asserted here, is wrong
# until the reset; MODEL_CARD.md).
_TARGET_SAMPLES = [
    pytest.param(p, marks=pytest.mark.xfail(reason="KC read as KS on every read of the Kem's deal (MODEL_CARD.md)", strict=False))
    if p.name.startswith("kems") else p
    for p in SAMPLES
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(not SAMPLES or not MODEL.is_file(), reason="needs datasets/samples recordings and the shipped model")
@pytest.mark.parametrize("root", _TARGET_SAMPLES, ids=lambda p: getattr(p, "name", str(p)))
def test_committed_sample_with_shipped_reader_target(root: Path) -> None:
    """The target: the referee accepts every vision event and event F1 >= 0.9."""
    out = _shipped(root)
    assert out["referee_rejected"] == [], out["referee_rejected"][:3]
    assert out["event_f1"] >= 0.9, (out["missed"], out["extra"])


@pytest.mark.slow
@pytest.mark.parametrize("game", ["kemps", "khmer"])
def test_fresh_simulator_recording_with_oracle_reads(game: str, tmp_path: Path) -> None:
    from bench_tracker import bench_recording

    rec = tmp_path / game
    subprocess.run(
        [str(REPO / ".venv" / "bin" / "referee"), "synth", "video", "--game", game, "--minutes", "0.75", "--seed", "11",
         "--out", str(rec), "--card-every", "0.0001"],
        check=True, capture_output=True,
    )  # fmt: skip
    out = bench_recording(rec, None, oracle=True, max_s=None)
    assert out["referee_rejected"] == [], out["referee_rejected"][:3]
    detail = json.dumps({"missed": out["missed"], "extra": out["extra"]})
    if game == "khmer":
        # Known limit (issue 6 note): the Khmer deal is only seen when the first card reaches
        # the table, so its time can fall outside the 1 s tolerance. Every other event must match.
        assert {e["type"] for e in out["missed"] + out["extra"]} <= {"deal"}, detail
        assert out["event_f1"] >= 0.9, detail
    else:
        assert out["event_f1"] >= 0.95, detail
    assert out["latency_median_s"] is None or out["latency_median_s"] <= 0.5


@pytest.mark.skipif(not SAMPLES or not MODEL.is_file(), reason="needs datasets/samples recordings and the shipped model")
def test_watch_prints_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli.main import main

    assert main(["watch", str(SAMPLES[0]), "--json", "--max-seconds", "15"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all("type" in ev and "t" in ev for ev in lines)
    assert [ev["t"] for ev in lines] == sorted(ev["t"] for ev in lines)


def _filmed_copy(root: Path, dest: Path, transform: Any) -> Path:
    """The recording `root` as another camera would have filmed it: `transform(frame)` of
    every frame, truth and layout files unchanged (the layout keeps its 1280x720
    coordinates; the pipeline scales it to the frames)."""
    import shutil

    import cv2

    dest.mkdir(parents=True)
    for f in root.iterdir():
        if f.name != "video.mp4":
            shutil.copy(f, dest / f.name)
    cap = cv2.VideoCapture(str(root / "video.mp4"))
    ok, frame = cap.read()
    h, w = transform(frame).shape[:2]
    out = cv2.VideoWriter(str(dest / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), cap.get(cv2.CAP_PROP_FPS), (w, h))
    while ok:
        out.write(transform(frame))
        ok, frame = cap.read()
    out.release()
    return dest


def _resized(size: tuple[int, int]) -> Any:
    import cv2

    return lambda f: cv2.resize(f, size, interpolation=cv2.INTER_AREA if size[0] < f.shape[1] else cv2.INTER_CUBIC)


KEMPS_SAMPLE = next((p for p in SAMPLES if p.name.startswith("kemps")), None)


@pytest.mark.skipif(KEMPS_SAMPLE is None or not MODEL.is_file(), reason="needs the Kemps sample recording and the shipped model")
@pytest.mark.parametrize("size", [(640, 360), (1920, 1080)], ids=["360p", "1080p"])
def test_another_camera_resolution_gives_the_same_game(size: tuple[int, int], tmp_path: Path) -> None:
    """A camera filming the same table at 640x360 or 1920x1080 instead of 1280x720: the
    layout (in 1280x720 coordinates) is scaled to the frames and the reader, which works at
    the scale of the cards' indices, reads the same game (measured 2026-12-02: the same
    event stream as at 720p, market order aside)."""
    assert KEMPS_SAMPLE is not None
    out = _shipped(_filmed_copy(KEMPS_SAMPLE, tmp_path / KEMPS_SAMPLE.name, _resized(size)))
    assert out["referee_rejected"] == [], out["referee_rejected"][:3]
    assert out["event_f1"] >= 0.9, (out["missed"], out["extra"])


@pytest.mark.skipif(KEMPS_SAMPLE is None or not MODEL.is_file(), reason="needs the Kemps sample recording and the shipped model")
def test_a_camera_out_of_focus_is_told_once_and_a_sharp_one_never(tmp_path: Path) -> None:
    """The Kemps sample blurred once more (sigma 1.6 px): the reader misses market cards and
    the game goes wrong, so the table is told to focus the camera, once; the sample as
    recorded (and at 1080p, enlarged) gives no such notice."""
    import cv2

    assert KEMPS_SAMPLE is not None
    blurred = _shipped(_filmed_copy(KEMPS_SAMPLE, tmp_path / "blur", lambda f: cv2.GaussianBlur(f, (0, 0), 1.6)))
    told = [n for n in blurred["notices"] if n["type"].startswith("camera_")]
    assert [n["type"] for n in told] == ["camera_blurred"] and told[0]["t"] < 10, told
    for root in (KEMPS_SAMPLE, _filmed_copy(KEMPS_SAMPLE, tmp_path / "1080p", _resized((1920, 1080)))):
        assert not [n for n in _shipped(root)["notices"] if n["type"].startswith("camera_")]
