"""`referee eval` end to end on a small simulated recording, with test doubles for the
vision pipeline: a perfect one must score 1.0 everywhere, a degraded one exactly what
it missed. (The real tracker and reader are measured by running `referee eval`.)"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cli.main import main
from vision.evaluate import metrics as M
from vision.evaluate.dataset import load_recording
from vision.types import CardDetections, TableState

VISIBLE_DELAY = {"value": 0.0, "drop_first_swap": False}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vision.sim import video_cli

    out = tmp_path_factory.mktemp("ds") / "kemps-5"
    parser = argparse.ArgumentParser()
    video_cli.add_arguments(parser)
    args = parser.parse_args(["--game", "kemps", "--minutes", "1", "--seed", "5", "--out", str(out), "--fps", "4",
                              "--size", "320x180", "--decks", "procedural:2000005", "--card-every", "2"])  # fmt: skip
    assert video_cli.run(args) == 0
    return out


class OracleReader:
    """Reads a frame by looking its decoded bytes up in the truth (cards.jsonl)."""

    def __init__(self, root: Path) -> None:
        rec = load_recording(root)
        truth = {f.frame: f for f in rec.frames}
        self.by_hash: dict[str, list[tuple[str, tuple[float, ...]]]] = {}
        cap = cv2.VideoCapture(str(rec.video_path))
        i = 0
        while True:
            ok, img = cap.read()
            if not ok:
                break
            if i in truth:
                self.by_hash[hashlib.sha1(img.tobytes()).hexdigest()] = [(c.card, c.box) for c in truth[i].cards]
            i += 1

    def read(self, image: np.ndarray, roi: Any = None, two_decks: bool = False, cards: Any = None, min_p: Any = None, index_px: Any = None) -> CardDetections:
        cards = self.by_hash.get(hashlib.sha1(image.tobytes()).hexdigest(), [])
        if not cards:
            return CardDetections.empty()
        return CardDetections(np.array([b for _, b in cards], np.float32), np.ones(len(cards)), [c for c, _ in cards])


class TruthPipeline:
    """Reports the truth's visible events at their times (optionally late / with a miss)."""

    truth: list[dict[str, Any]] = []

    def __init__(self, layout: Any, reader: Any, header: dict[str, Any], fps: float) -> None:
        self.pending = [e for e in self.truth if e["type"] not in M.INJECTED_TYPES]
        if VISIBLE_DELAY["drop_first_swap"]:
            first = next(i for i, e in enumerate(self.pending) if e["type"] == "swap")
            del self.pending[first]
        self.requested: set[str] = set()

    def request_reveal(self, seats: list[str], t: float, expected: object = None) -> None:
        self.requested |= set(seats)

    def new_hand(self, t: float) -> None:
        pass

    def process(self, frame: Any) -> Any:
        delay = VISIBLE_DELAY["value"]
        out = []
        while self.pending and self.pending[0]["t"] + delay <= frame.t + 1e-9:
            ev = dict(self.pending.pop(0))
            ev["t"] = round(ev["t"] + delay, 3)
            if ev["type"] == "deal":
                ev.pop("hands", None)  # the camera cannot see the dealt hands
            if ev["type"] == "reveal":
                assert set(ev["hands"]) <= self.requested, "eval must request the reveal it injects a call for"
            out.append(ev)
        market = M.market_at_times(self.truth, [frame.t - delay])[0] or ()
        state = TableState(t=frame.t, market=tuple(market), market_confidence=(1.0,) * len(market), market_occluded=False)

        class Step:
            pass

        step = Step()
        step.state, step.events, step.detections = state, out, None  # type: ignore[attr-defined]
        return step


def run_eval(recording: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch, delay: float = 0.0, drop: bool = False) -> dict:
    import vision.reader.reader
    import vision.tracker.layout
    import vision.tracker.pipeline

    TruthPipeline.truth = load_recording(recording).events
    VISIBLE_DELAY.update(value=delay, drop_first_swap=drop)
    monkeypatch.setattr(vision.tracker.pipeline, "TablePipeline", TruthPipeline)
    monkeypatch.setattr(vision.reader.reader.CardReader, "load", classmethod(lambda cls, model_dir=None, **_: OracleReader(recording)))
    out = tmp / "report"
    assert main(["eval", str(recording), "--out", str(out)]) == 0
    assert (out / "report.html").read_text().count("data:image/png;base64,") >= 3
    return json.loads((out / "metrics.json").read_text())


def test_perfect_pipeline_scores_one(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = run_eval(recording, tmp_path, monkeypatch)
    s = m["summary"]
    for key in ("market_accuracy", "card_f1", "event_f1", "reveal_accuracy", "outcome_accuracy"):
        assert s[key] == 1.0, (key, s)
    assert s["event_latency_median_s"] == 0.0 and s["fps"] > 0 and s["real_time_factor"] > 0
    rec = m["recordings"][0]
    assert rec["outcomes"]["results_truth"] >= 1  # a call was injected and judged
    assert rec["referee_rejected"] == []


def test_late_and_missing_events_counted(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = run_eval(recording, tmp_path, monkeypatch, delay=0.5, drop=True)
    ev = m["recordings"][0]["events"]
    rec = load_recording(recording)
    last = (rec.meta["frames"] - 1) / rec.fps
    cut_off = sum(1 for e in rec.events if e["type"] not in M.INJECTED_TYPES and e["t"] + 0.5 > last)
    assert ev["matched"] == ev["pred"] == ev["truth"] - 1 - cut_off
    assert ev["by_type"]["swap"]["recall"] < 1.0
    assert m["summary"]["event_latency_median_s"] == pytest.approx(0.5, abs=0.01)
    assert m["summary"]["market_accuracy_strict"] < 1.0
    assert m["summary"]["market_accuracy"] == 1.0  # 0.5 s late is within the 1 s slack at each change


def test_oracle_reader_needs_every_frame(recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", str(recording), "--out", str(recording.parent / "r"), "--oracle-reader"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "cards.jsonl" in err and "every frame" in err and len(err.splitlines()) == 1


def test_real_tracker_runs_end_to_end(tmp_path: Path) -> None:
    """The real table tracker, fed by the oracle reader, through the whole eval."""
    from vision.sim import video_cli

    out = tmp_path / "khmer-3"
    parser = argparse.ArgumentParser()
    video_cli.add_arguments(parser)
    args = parser.parse_args(["--game", "khmer", "--minutes", "0.5", "--seed", "44", "--out", str(out), "--fps", "5",
                              "--size", "640x360", "--decks", "procedural:2000044", "--card-every", "0"])  # fmt: skip
    assert video_cli.run(args) == 0
    assert main(["eval", str(out), "--out", str(tmp_path / "rep"), "--oracle-reader"]) == 0
    s = json.loads((tmp_path / "rep" / "metrics.json").read_text())["summary"]
    assert s["reader"] == "oracle" and s["card_f1"] == 1.0 and s["market_accuracy"] is None  # Khmer: no market
    for key in ("event_f1", "outcome_accuracy"):
        assert 0.0 <= s[key] <= 1.0
    # the same recording with seeded read errors: the reader is named, cards are no longer perfect
    assert main(["eval", str(out), "--out", str(tmp_path / "noisy"), "--oracle-reader", "--oracle-noise", "heavy,seed=3"]) == 0
    n = json.loads((tmp_path / "noisy" / "metrics.json").read_text())["summary"]
    assert n["reader"].startswith("oracle+noise") and n["card_f1"] < 1.0


def test_oracle_noise_flag_errors_are_one_line(recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(recording), "--oracle-noise", "light"]) == 2
    assert "needs --oracle-reader" in capsys.readouterr().err
    assert main(["eval", str(recording), "--oracle-reader", "--oracle-noise", "drop=lots"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--oracle-noise" in err and "number" in err and len(err.splitlines()) == 1


def test_parallel_workers_give_the_serial_figures(tmp_path: Path) -> None:
    from vision.evaluate.dataset import write_manifest
    from vision.sim import video_cli

    parser = argparse.ArgumentParser()
    video_cli.add_arguments(parser)
    for game, seed in (("kemps", 181), ("khmer", 12)):
        args = parser.parse_args(["--game", game, "--minutes", "0.3", "--seed", str(seed), "--out", str(tmp_path / "ds" / game),
                                  "--fps", "4", "--size", "480x270", "--decks", "procedural:2000001", "--card-every", "0"])  # fmt: skip
        assert video_cli.run(args) == 0
    write_manifest(tmp_path / "ds")
    summaries = []
    for workers in ("1", "2"):
        out = tmp_path / f"rep{workers}"
        assert main(["eval", str(tmp_path / "ds"), "--out", str(out), "--oracle-reader", "--workers", workers]) == 0
        s = json.loads((out / "metrics.json").read_text())["summary"]
        summaries.append({k: v for k, v in s.items() if k not in ("fps", "real_time_factor")})
    assert summaries[0] == summaries[1] and summaries[0]["recordings"] == 2
    fam = json.loads((tmp_path / "rep1" / "metrics.json").read_text())["by_deck_family"]
    assert list(fam) == ["procedural-2000001"] and fam["procedural-2000001"]["recordings"] == 2


def test_figures_by_deck_family_pool_each_familys_recordings() -> None:
    from vision.evaluate.report import by_deck_family

    def rec(family: str | None, market_ok: int, matched: int) -> dict:
        return {
            "deck_family": family, "market_frames": 10, "market_correct_frames": market_ok, "frames": 10,
            "processing_s": 1.0, "duration_s": 1.0, "cards": None, "referee_rejected": [],
            "events": {"matched": matched, "pred": 2, "truth": 2, "latencies_s": []},
            "reveals": {"truth": 0, "correct": 0},
            "outcomes": {"results_truth": 0, "results_correct": 0, "standings_correct": True},
        }  # fmt: skip

    fam = by_deck_family([rec("oxygen", 1, 0), rec("aguilar", 9, 2), rec("oxygen", 0, 0), rec(None, 10, 2)], 1.0)
    assert list(fam) == ["aguilar", "oxygen", "unknown"]
    assert fam["oxygen"]["recordings"] == 2 and fam["oxygen"]["market_accuracy"] == pytest.approx(0.05)
    assert fam["aguilar"]["market_accuracy"] == pytest.approx(0.9) and fam["aguilar"]["event_f1"] == 1.0
