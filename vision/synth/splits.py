"""Deck families -> train / val / test.

A family groups near-duplicate designs (deck-art.md trap 7: gnome paris ≈ kde gm-paris,
bellot = svg-cards, anglo ≈ gnomangelo ≈ their bitmaps, ...); the family is set by the
render catalogue (`render_cache.CATALOGUE`) and stored in each deck's deck.json. A whole
family goes to one split, so validation and test decks are designs the model never saw.

Held-out families are chosen by hand to cover the hard cases on both sides: French
letters, four colours, dark faces, small indices. Families not listed (new decks) are
split by a stable hash. Procedural decks split by seed range.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from vision.synth.decks import DeckArt

SPLITS: tuple[str, ...] = ("train", "val", "test")

# Every catalogue family is placed by hand (render_cache.CATALOGUE): four-colour, French-
# letter and Cyrillic designs exist on each side. Only families added later are hashed.
TRAIN_FAMILIES: frozenset[str] = frozenset(
    {
        "ancient-french", "anglo", "anglo-modern", "atlasnye", "bellot", "bonded", "dondorf",
        "guyenne", "jolly-royal", "kde-standard", "orell", "ornamental", "paris", "penguins",
        "plastic", "rheinland", "simplistic", "slavic-costumes", "tarocco", "tigullio", "xskat-french",
    }
)
VAL_FAMILIES: frozenset[str] = frozenset({"tango", "nicu-white", "berlin", "kennard"})
TEST_FAMILIES: frozenset[str] = frozenset({"neoclassical", "ancient-egyptians", "oxygen", "lattmann", "aguilar"})

# Procedural decks: the seed names the design; each split owns a seed range.
PROCEDURAL_SEEDS: dict[str, range] = {
    "train": range(0, 1_000_000),
    "val": range(1_000_000, 2_000_000),
    "test": range(2_000_000, 3_000_000),
}


def family_split(family: str) -> str:
    if family.startswith("procedural-"):
        try:
            seed = int(family.rsplit("-", 1)[1])
        except ValueError:
            seed = -1
        for split, seeds in PROCEDURAL_SEEDS.items():
            if seed in seeds:
                return split
    if family in TRAIN_FAMILIES:
        return "train"
    if family in VAL_FAMILIES:
        return "val"
    if family in TEST_FAMILIES:
        return "test"
    h = zlib.crc32(family.encode()) % 10
    return "val" if h == 0 else "test" if h == 1 else "train"


def family_of_name(name: str, cache_dir: str | None = None) -> str:
    """The family of an installed deck name ("procedural:17" / "procedural-17" too); else the name."""
    import json

    from vision.synth.decks import default_cache_dir

    if name.startswith("procedural:"):
        return "procedural-" + name.split(":", 1)[1]
    meta = (default_cache_dir() if cache_dir is None else Path(cache_dir)) / name / "deck.json"
    if meta.is_file():
        return str(json.loads(meta.read_text()).get("family", name))
    return name


def split_of(deck: DeckArt | str) -> str:
    """Split of a deck, an installed deck's name, or a family name."""
    return family_split(deck.family if isinstance(deck, DeckArt) else family_of_name(deck))


def procedural_seeds(split: str, count: int, seed: int) -> list[int]:
    """`count` distinct procedural deck seeds for `split`, chosen by `seed`."""
    import numpy as np

    r = PROCEDURAL_SEEDS[split]
    rng = np.random.default_rng([seed, SPLITS.index(split)])
    picks = rng.choice(len(r), size=count, replace=False) if count else []
    return [r.start + int(k) for k in picks]
