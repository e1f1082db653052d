"""Generate a YOLO dataset of synthetic scenes (used by `referee synth images`).

Scene k of a run is rendered from `np.random.default_rng([seed, split_no, k])`, so the
output bytes do not depend on the number of workers or on the order they finish in.
Workers are forked after the decks are loaded (copy-on-write, no re-decoding).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.synth.decks import DeckArt, DeckArtError, available_decks, load_decks
from vision.synth.labels import class_ids, write_data_yaml, write_sample
from vision.synth.procedural import make_procedural_deck
from vision.synth.splits import SPLITS, procedural_seeds, split_of

PROCEDURAL = "procedural"


@dataclass(frozen=True)
class JobSpec:
    out: Path
    split: str
    count: int
    seed: int
    size: tuple[int, int]
    fmt: str = "jpg"
    card_height_range: tuple[float, float] | None = None


def decks_for_split(
    split: str, names: Sequence[str] | None, procedural: int, seed: int, cache_dir: str | Path | None = None
) -> list[DeckArt]:
    """Real decks of `split` (or the named ones) plus `procedural` generated decks of that split.

    `names` may contain "procedural" to use procedural decks only (no art needed).
    """
    names = list(names) if names else None
    real_names: list[str]
    if names is not None:
        real_names = [n for n in names if n != PROCEDURAL]
    else:
        have = available_decks(cache_dir)
        if not have:
            raise DeckArtError(
                "no deck art installed; run `bash scripts/install_deck_art.sh`, or pass --decks procedural"
            )
        real_names = have
    decks = load_decks(real_names, cache_dir) if real_names else []
    if names is None:  # whole catalogue: keep only this split's families
        decks = [d for d in decks if split_of(d) == split]
    if procedural > 0 or not decks:
        n = max(procedural, 1 if not decks else 0)
        decks += [make_procedural_deck(s) for s in procedural_seeds(split, n, seed)]
    return sorted(decks, key=lambda d: d.name)


_DECKS: list[DeckArt] = []
_SPEC: JobSpec | None = None


def _init_worker() -> None:
    import cv2

    cv2.setNumThreads(1)


def _render_one(k: int) -> int:
    from vision.synth.scene import random_scene

    assert _SPEC is not None
    spec = _SPEC
    rng = np.random.default_rng([spec.seed, SPLITS.index(spec.split), k])
    scene = random_scene(rng, _DECKS, spec.size, spec.card_height_range)
    write_sample(spec.out, spec.split, f"{spec.split}_{spec.seed}_{k:07d}", scene, spec.fmt, _IDS)
    return len(scene.labels)


_IDS = class_ids()


def generate(spec: JobSpec, decks: list[DeckArt], workers: int = 1, progress: Callable[[Iterator[int], int], Iterator[int]] | None = None) -> int:
    """Render `spec.count` scenes into spec.out; returns the number of index labels written."""
    global _DECKS, _SPEC
    for sub in ("images", "labels", "quads"):
        (spec.out / sub / spec.split).mkdir(parents=True, exist_ok=True)
    _DECKS, _SPEC = decks, spec
    total = 0
    if workers <= 1:
        _init_worker()
        it: Iterator[int] = map(_render_one, range(spec.count))
        for n in progress(it, spec.count) if progress else it:
            total += n
    else:
        ctx = mp.get_context("fork")
        with ctx.Pool(workers, initializer=_init_worker) as pool:
            it = pool.imap_unordered(_render_one, range(spec.count), chunksize=8)
            for n in progress(it, spec.count) if progress else it:
                total += n
    write_data_yaml(spec.out)
    return total
