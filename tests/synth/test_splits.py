"""Deck families never cross splits; held-out designs never reach training."""

from __future__ import annotations

from collections import defaultdict

from vision.synth.decks import DeckArt
from vision.synth.render_cache import CATALOGUE
from vision.synth.splits import PROCEDURAL_SEEDS, SPLITS, TEST_FAMILIES, TRAIN_FAMILIES, VAL_FAMILIES, family_split, procedural_seeds, split_of


def test_every_family_in_one_split_and_heldout_present() -> None:
    by_family: dict[str, set[str]] = defaultdict(set)
    for src in CATALOGUE:
        by_family[src.family].add(family_split(src.family))
    assert all(len(s) == 1 for s in by_family.values())
    splits = {next(iter(s)) for s in by_family.values()}
    assert splits == set(SPLITS)
    assert not (VAL_FAMILIES & TEST_FAMILIES) and not (TRAIN_FAMILIES & (VAL_FAMILIES | TEST_FAMILIES))
    # every catalogue family is placed by hand, and every hand-placed family exists
    assert TRAIN_FAMILIES | VAL_FAMILIES | TEST_FAMILIES == set(by_family)


def test_near_duplicates_share_a_family() -> None:
    fam = {s.name: s.family for s in CATALOGUE}
    assert fam["gnome-paris"] == fam["kde-gm-paris"]
    assert fam["gnome-bellot"] == fam["npm-svg-cards"]
    assert fam["gnome-anglo"] == fam["gnome-gnomangelo-bitmap"]
    assert fam["gnome-ornamental"] == fam["kde-nicu-ornamental"]
    assert fam["gnome-dondorf"] == fam["kde-dondorf"]


def test_procedural_seed_ranges(deck: DeckArt) -> None:
    for split in SPLITS:
        seeds = procedural_seeds(split, 5, seed=1)
        assert len(set(seeds)) == 5
        assert all(s in PROCEDURAL_SEEDS[split] for s in seeds)
        assert all(family_split(f"procedural-{s}") == split for s in seeds)
    assert split_of(deck) == "train"  # seed 3
    assert split_of("procedural:1000005") == "val"


def test_decks_for_split_keeps_families_apart(art_cache, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from vision.synth.dataset import decks_for_split

    monkeypatch.setenv("KEMPS_DECK_CACHE", str(art_cache))
    for split in SPLITS:
        decks = decks_for_split(split, None, 2, seed=0)
        assert decks and all(split_of(d) == split for d in decks)
