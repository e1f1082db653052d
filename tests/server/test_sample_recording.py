"""The server with the real table tracker on the committed sample recording.

The card reader here is an oracle built from the sample's own labels (`cards.jsonl`),
because the trained reader is exercised elsewhere (tests/e2e runs it when an export is in
models/). This checks the plumbing the dashboard depends on: frames → TablePipeline →
public events → the session, in order, with the market the recording shows.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = next(iter(sorted((REPO / "datasets" / "samples").glob("kemps*"))), None)


class OracleReader:
    """Returns the labelled cards of the frame being processed inside the requested crop."""

    def __init__(self, labels: list[dict[str, Any]]) -> None:
        self.labels = sorted(labels, key=lambda x: x["t"])
        self.t = 0.0

    def read(self, image_bgr: np.ndarray, roi: tuple[int, int, int, int] | None = None,
             two_decks: bool = False, cards: Any = None, min_p: Any = None, index_px: Any = None) -> Any:
        from vision.types import CardDetections

        now = [x for x in self.labels if x["t"] <= self.t + 1e-6]
        cards = now[-1]["cards"] if now else []
        if roi is not None:
            x1, y1, x2, y2 = roi
            cards = [c for c in cards if x1 <= (c["box"][0] + c["box"][2]) / 2 <= x2
                     and y1 <= (c["box"][1] + c["box"][3]) / 2 <= y2]
        return CardDetections(np.array([c["box"] for c in cards], np.float32).reshape(-1, 4),
                              np.full(len(cards), 0.95, np.float32), [c["card"] for c in cards])


class OraclePipeline:
    """The real TablePipeline; only the reader is the oracle (told the frame time)."""

    def __init__(self, layout: Any, header: dict[str, Any], fps: float, labels: list[dict[str, Any]]) -> None:
        from vision.tracker.pipeline import TablePipeline

        self.reader = OracleReader(labels)
        self.inner = TablePipeline(layout, self.reader, header, fps)
        self.reveals = self.inner.reveals

    def process(self, frame: Any) -> Any:
        self.reader.t = frame.t
        return self.inner.process(frame)

    def request_reveal(self, seats: list[str], t: float, expected: object = None) -> None:
        self.inner.request_reveal(seats, t, expected)  # type: ignore[arg-type]

    def new_hand(self, t: float) -> None:
        self.inner.new_hand(t)


@pytest.mark.skipif(SAMPLE is None or not (SAMPLE / "cards.jsonl").exists(), reason="no kemps sample recording")
def test_tracker_events_from_the_sample_reach_the_session(make_client):
    from referee.server.settings import VideoSource

    assert SAMPLE is not None
    meta = json.loads((SAMPLE / "meta.json").read_text())
    header = {k: meta[k] for k in ("game", "rules", "players", "teams")}
    labels = [json.loads(x) for x in (SAMPLE / "cards.jsonl").read_text().splitlines() if x.strip()]
    truth = [json.loads(x) for x in (SAMPLE / "truth.jsonl").read_text().splitlines()[1:] if x.strip()]
    first_deal = next(e for e in truth if e["type"] == "deal")
    factory = {"pipeline_factory": lambda settings, layout, fps: OraclePipeline(layout, header, fps, labels)}
    source = VideoSource(path=SAMPLE / "video.mp4", realtime=False)
    with make_client(header=header, source=source, layout_path=SAMPLE / "layout.yaml", app_kwargs=factory) as client:
        for _ in range(600):
            state = client.get("/api/state").json()
            if not state["feed"]["running"] and state["feed"]["frames"]:
                break
            client.portal.call(asyncio.sleep, 0.1)
        assert state["feed"]["reader"] == "ok", state["feed"]
        camera = [e for e in state["game"]["log"] if e["source"] == "camera"]
        assert camera, state["game"]["log"]
        deal = camera[0]
        assert deal["event"]["type"] == "deal" and deal["accepted"], deal
        assert sorted(deal["event"]["market"]) == sorted(first_deal["market"])
        assert abs(deal["event"]["t"] - first_deal["t"]) < 1.5
        # The same public events as the recording's truth, in order, up to the first call
        # (calls, reveals and new hands come from people; nobody calls in this test).
        human = next((i for i, e in enumerate(truth) if e["type"] == "call"), len(truth))
        want = truth[:human]
        kinds = [e["event"]["type"] for e in camera if e["accepted"]]
        assert kinds[:len(want)] == [e["type"] for e in want], (kinds, want)
        got_markets = [sorted(e["event"]["market"]) for e in camera if e["event"].get("market")][:len(want)]
        assert got_markets == [sorted(e["market"]) for e in want if e.get("market")][:len(got_markets)]
