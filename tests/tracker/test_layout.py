"""Layouts: shipped YAML files, strict keys, zone masks, auto-placement, calibration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.tracker.layout import (
    LAYOUT_DIR,
    LayoutError,
    ZoneMasks,
    auto_place_market,
    load_layout,
    ring_layout,
)
from vision.types import CardDetections


@pytest.mark.parametrize("path", sorted(LAYOUT_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_layouts_load(path: Path) -> None:
    lay = load_layout(path)
    assert 2 <= len(lay.seats) <= 12
    masks = ZoneMasks(lay, lay.size)
    assert masks.zone_of(np.array([lay.size]) / 2) == ["market"] or lay.khmer


def test_layout_by_name_and_unknown_name() -> None:
    assert load_layout("kemps-4").name == "kemps-4"
    with pytest.raises(LayoutError, match="unknown layout 'nope'"):
        load_layout("nope")


def test_unknown_key_names_key_and_file(tmp_path: Path) -> None:
    text = (LAYOUT_DIR / "kemps-4.yaml").read_text().replace("    at:", "    at_:", 1)
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(LayoutError) as exc:
        load_layout(bad)
    msg = str(exc.value)
    assert "unknown key 'seats.S.at_'" in msg and str(bad) in msg and "\n" not in msg


def test_top_level_unknown_key_and_bad_polygon(tmp_path: Path) -> None:
    bad = tmp_path / "b.yaml"
    bad.write_text("size: [10, 10]\nmarket: [[0,0],[1,1],[2,0]]\nseats: {}\nmarkets: 1\n")
    with pytest.raises(LayoutError, match="unknown key 'markets'"):
        load_layout(bad)
    bad.write_text("size: [10, 10]\nmarket: [[0,0]]\nseats: {A: {at: [0,0], reveal: [[0,0],[1,0],[1,1]]}, B: {at: [9,9], reveal: [[0,0],[1,0],[1,1]]}}\n")
    with pytest.raises(LayoutError, match="'market' must be a polygon"):
        load_layout(bad)


def test_zone_lookup_is_vectorised_and_scaled() -> None:
    lay = load_layout("kemps-4")
    masks = ZoneMasks(lay, (640, 360))  # half size: zones scale
    pts = np.array([[320, 180], [320, 300], [5, 5], [100, 180]])
    assert masks.zone_of(pts) == ["market", "reveal:S", None, "reveal:W"]
    x1, y1, x2, y2 = masks.roi("market", margin=0.0)
    assert (x1, y1, x2, y2) == (256, 133, 384, 227)


def test_auto_place_market_finds_the_central_group() -> None:
    boxes = [[600, 320, 650, 390], [660, 320, 710, 390], [600, 400, 650, 470], [660, 400, 710, 470],  # centre
             [100, 600, 150, 670], [160, 600, 210, 670]]  # a hand at the edge  # fmt: skip
    det = CardDetections(np.array(boxes, np.float32), np.full(6, 0.9), ["AC", "2C", "3C", "4C", "5C", "6C"])
    poly = auto_place_market(det, (1280, 720))
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    assert min(xs) < 600 and max(xs) > 710 and min(ys) < 320 and max(ys) > 470
    assert min(xs) > 210 and max(ys) < 600
    with pytest.raises(LayoutError, match="no cards"):
        auto_place_market(CardDetections.empty(), (1280, 720))


def test_calibration_roundtrip(tmp_path: Path) -> None:
    lay = ring_layout(["P1", "P2", "P3", "P4", "P5", "P6"])
    lay = lay.set_zone("market", [[500, 300], [700, 300], [700, 420], [500, 420]])
    lay = lay.set_zone("reveal:P2", [[10, 10], [60, 10], [60, 60]])
    lay = lay.set_seat("P7", (0, 0), [[0, 0], [50, 0], [50, 50], [0, 50]])
    out = lay.save(tmp_path / "cal.yaml")
    back = load_layout(out)
    assert back.market == ((500, 300), (700, 300), (700, 420), (500, 420))
    assert back.seats["P2"].reveal == ((10, 10), (60, 10), (60, 60)) and "P7" in back.seats
    with pytest.raises(LayoutError, match="unknown seat 'Z'"):
        lay.set_zone("reveal:Z", [[0, 0], [1, 0], [1, 1]])
    with pytest.raises(LayoutError, match="unknown zone"):
        lay.set_zone("table", [[0, 0], [1, 0], [1, 1]])


def test_outside_share_per_zone() -> None:
    from dataclasses import replace

    lay = load_layout("khmer-2")
    assert max(lay.outside_share().values()) < 1e-9
    w, _ = lay.size
    half_out = ((w - 50.0, 100.0), (w + 50.0, 100.0), (w + 50.0, 200.0), (w - 50.0, 200.0))
    shares = replace(lay, market=half_out).outside_share()
    assert abs(shares["market"] - 0.5) < 1e-9
    gone = ((w + 10.0, 0.0), (w + 60.0, 0.0), (w + 60.0, 50.0))
    assert replace(lay, market=gone).outside_share()["market"] == 1.0


@pytest.mark.parametrize("seats", [2, 4, 6, 8, 9, 10, 12])
def test_ring_layouts_keep_reveal_areas_apart_and_the_stock_files_match(seats: int) -> None:
    """From 10 seats neighbours' reveal areas used to overlap by a third, and a hand laid in
    the overlap was counted for the neighbour; the areas now give up width instead."""
    stock = load_layout(f"kemps-{seats}") if seats >= 4 else None
    lay = ring_layout(list(stock.seats) if stock else [f"P{i + 1}" for i in range(seats)])
    assert lay.reveal_overlaps() == {}
    assert not lay.out_of_view()
    widths = [max(x for x, _ in s.reveal) - min(x for x, _ in s.reveal) for s in lay.seats.values()]
    assert min(widths) >= 0.1 * lay.size[0]  # still room for a laid hand
    if stock is not None:
        assert {n: s.reveal for n, s in stock.seats.items()} == {n: s.reveal for n, s in lay.seats.items()}


def test_a_card_in_two_reveal_areas_counts_for_the_seat_being_read() -> None:
    lay = ring_layout(["A", "B", "C", "D"], (640, 360))
    lay = lay.set_zone("reveal:A", [[100, 100], [300, 100], [300, 200], [100, 200]])
    lay = lay.set_zone("reveal:B", [[250, 100], [450, 100], [450, 200], [250, 200]])  # overlaps A at x 250-300
    assert set(lay.reveal_overlaps()) == {("reveal:A", "reveal:B")}
    masks = ZoneMasks(lay, lay.size)
    pts = np.array([[275, 150], [150, 150], [400, 150], [5, 5]], np.float32)
    assert masks.zone_of(pts) == ["reveal:B", "reveal:A", "reveal:B", None]  # the later zone wins
    assert masks.zone_of(pts, prefer=["reveal:A"]) == ["reveal:A", "reveal:A", "reveal:B", None]
    assert masks.zone_of(pts, prefer=["reveal:A", "reveal:B"]) == ["reveal:B", "reveal:A", "reveal:B", None]
