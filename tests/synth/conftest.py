"""Fixtures for the synth tests: small procedural decks only (no deck packages needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.synth.decks import DeckArt
from vision.synth.procedural import make_procedural_deck


@pytest.fixture(scope="session")
def deck() -> DeckArt:
    return make_procedural_deck(3, height=200)


@pytest.fixture(scope="session")
def deck_b() -> DeckArt:
    return make_procedural_deck(11, height=200)


@pytest.fixture()
def art_cache(tmp_path: Path, deck: DeckArt) -> Path:
    """A deck art cache holding one procedural deck written in the cache format."""
    from vision.synth.render_cache import write_deck

    root = tmp_path / "decks"
    root.mkdir()
    write_deck(deck, root, {"source": "test"}, contact=False)
    return root
