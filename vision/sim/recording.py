"""Simulate one game and write it as a recording folder (format: datasets/README.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.rules.engine import default_teams, new_game
from vision.evaluate.dataset import RECORDING_FORMAT
from vision.sim.director import Timeline, cascade_for, direct
from vision.sim.render import render_video
from vision.tracker.layout import Layout, load_layout

DEFAULT_LAYOUTS = {"kemps": "kemps-4", "kems": "kemps-4", "khmer": "khmer-2"}
STALE_AFTER_S = 5.0  # the tracker's default quiet time before a market is stale


def default_header(game: str, layout: Layout | None = None) -> dict[str, Any]:
    """Two Khmer players; or the layout's seats in facing pairs, in threes when their number is
    odd (Kemps, Kem's; default: N, E, S, W as N+S against E+W)."""
    if game == "khmer":
        return {"game": "khmer", "rules": {}, "players": ["S", "N"]}
    if layout is None or set(layout.seats) == {"N", "E", "S", "W"}:
        return {"game": game, "rules": {}, "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]}
    seats = list(layout.seats)  # clockwise around the table: partners spread evenly (facing, for pairs)
    return {"game": game, "rules": {}, "players": seats, "teams": default_teams(seats)}


def layout_for(game: str, players: int) -> str:
    """The stock layout for a game and a number of players."""
    return "khmer-2" if game == "khmer" else f"kemps-{players}"


def tracker_stale_after() -> float:
    try:
        from vision.tracker.pipeline import TrackerConfig

        return float(TrackerConfig().stale_after_s)
    except ImportError:
        return STALE_AFTER_S


@dataclass
class SimSpec:
    game: str
    minutes: float
    seed: int
    out: Path
    fps: float = 15.0
    size: tuple[int, int] = (1280, 720)
    deck: Any = None  # DeckArt
    layout: str | None = None
    players: int = 4
    rules: dict[str, Any] = field(default_factory=dict)  # rule overrides (the simulator plays deck=piquet too)
    card_every_s: float = 1.0
    progress: bool = True
    noise_sigma: float | None = None
    generator: str | None = None  # the command line that made it


def simulate(spec: SimSpec) -> dict[str, Any]:
    """Play, render and write one recording; returns its meta.json content."""
    layout: Layout = load_layout(spec.layout or layout_for(spec.game, spec.players)).scaled(spec.size)
    header = default_header(spec.game, layout)
    header["rules"] = dict(spec.rules)
    try:  # the referee's own checks: player count, teams, whether the deck holds the deal
        new_game(header)
    except ValueError as exc:
        raise ValueError(f"layout {layout.name} seats {len(header['players'])} players: {str(exc).removeprefix('header: ')}") from None
    stale = tracker_stale_after()
    tl: Timeline = direct(header, layout, spec.minutes, spec.seed, stale_after_s=stale, cascade=cascade_for(spec.deck))
    spec.out.mkdir(parents=True, exist_ok=True)
    info = render_video(tl, spec.deck, spec.out / "video.mp4", spec.fps, spec.size, spec.seed, spec.card_every_s, spec.progress, spec.noise_sigma)
    assert info.layout is not None
    info.layout.save(spec.out / "layout.yaml")
    with open(spec.out / "truth.jsonl", "w", encoding="utf-8") as fh:
        fh.write(json.dumps(header) + "\n")
        for ev in tl.events:
            fh.write(json.dumps(ev) + "\n")
    with open(spec.out / "cards.jsonl", "w", encoding="utf-8") as fh:
        for row in info.card_frames:
            fh.write(json.dumps(row) + "\n")
    meta = {
        "format": RECORDING_FORMAT,
        "source": "synthetic",
        "game": spec.game,
        "rules": header.get("rules", {}),
        "players": header["players"],
        "teams": header.get("teams"),
        "seats": {p: {"at": list(info.layout.seats[p].at)} for p in header["players"]},
        "layout": {"name": layout.name, "file": "layout.yaml"},
        "video": "video.mp4",
        "truth": "truth.jsonl",
        "cards": "cards.jsonl",
        "fps": spec.fps,
        "size": list(spec.size),
        "frames": info.frames,
        "duration_s": round(info.frames / spec.fps, 3),
        "stale_after_s": stale,
        "deck": {"name": spec.deck.name, "family": spec.deck.family},
        "camera": {"kind": "simulated overhead webcam", "conditions": info.conditions},
        "seed": spec.seed,
        "generator": spec.generator or f"referee synth video --game {spec.game} --minutes {spec.minutes} --seed {spec.seed}",
        "events": len(tl.events),
    }
    (spec.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return meta
