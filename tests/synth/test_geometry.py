"""Automatic index location recovers the boxes we know (procedural decks draw them)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth.geometry import _iou, find_index_boxes
from vision.synth.procedural import make_procedural_deck


@pytest.mark.parametrize("seed", [0, 4, 6])
def test_found_boxes_match_drawn_boxes(seed: int) -> None:
    deck = make_procedural_deck(seed, height=240)
    found, report = find_index_boxes(deck.faces)
    assert report["corners"] == ["tl", "br"]
    ious = []
    for card, truth in deck.index_boxes.items():
        for t in truth:
            ious.append(max((_iou(t, f) for f in found[card]), default=0.0))
    assert np.mean(ious) > 0.7
    assert np.mean(np.array(ious) > 0.5) > 0.95


@pytest.mark.parametrize("seed", [0, 23])
def test_large_indices_keep_their_suit_and_whole_rank(seed: int) -> None:
    """Big-index designs (rank ~0.15 of the card height, as kde-nicu-white, gnome-tango):
    the rank's long strokes are glyph, not frame lines, and the suit below it belongs to
    the box (found before 2026-12-03 as the rank alone or in pieces: mean IoU 0.40 / 0.41)."""
    deck = make_procedural_deck(seed, height=300, variety=2)
    found, _ = find_index_boxes(deck.faces)
    ious = [max((_iou(t, f) for f in found[card]), default=0.0) for card, truth in deck.index_boxes.items() for t in truth]
    assert np.mean(ious) > 0.8
    assert np.mean(np.array(ious) > 0.5) > 0.95


def test_suit_only_corner_is_not_an_index() -> None:
    """Blank out the ranks: the remaining suit-only corners must be rejected."""
    deck = make_procedural_deck(0, height=240)
    faces = {}
    for card, face in deck.faces.items():
        f = face.copy()
        h, w = f.shape[:2]
        paper = f[h // 2, 3, :3].copy()
        for x1, y1, x2, y2 in deck.index_boxes[card]:
            ys, xs = slice(int(y1 * h), int(np.ceil(y2 * h))), slice(int(x1 * w), int(np.ceil(x2 * w)))
            region = f[ys, xs]
            ink_rows = np.nonzero((np.abs(region[..., :3].astype(int) - paper).sum(axis=2) > 60).any(axis=1))[0]
            # rows of the rank glyph = the first run of inked rows (rank on top when upright)
            runs = np.split(ink_rows, np.nonzero(np.diff(ink_rows) > 1)[0] + 1)
            rank_rows = runs[0] if y1 < 0.5 else runs[-1]
            region[rank_rows.min() : rank_rows.max() + 1, :, :3] = paper
        faces[card] = f
    _, report = find_index_boxes(faces)
    assert report["corners"] == []


def test_incomplete_geometry_is_not_usable() -> None:
    from vision.synth.geometry import usable

    assert usable({"corners": ["tl", "br"], "missing": []}) == (True, "ok")
    assert usable({"corners": ["tl"], "missing": []})[0] is False  # twin index not found
    assert usable({"corners": ["tr"], "missing": []}, single_index_design=True)[0] is True
    assert usable({"corners": [], "missing": []})[0] is False
    assert usable({"corners": ["tl", "br"], "missing": ["x"] * 40})[0] is False


def test_unusable_decks_are_not_listed(art_cache) -> None:  # type: ignore[no-untyped-def]
    import json

    from vision.synth.decks import available_decks

    meta = art_cache / "procedural-3" / "deck.json"
    info = json.loads(meta.read_text())
    info["usable"] = False
    meta.write_text(json.dumps(info))
    assert available_decks(art_cache) == []
    assert available_decks(art_cache, include_unusable=True) == ["procedural-3"]
