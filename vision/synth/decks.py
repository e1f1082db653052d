"""Deck artwork: one `DeckArt` per design, loaded from the render cache.

The cache is made by `scripts/install_deck_art.sh` (never committed: the art is
third-party). Layout of the cache directory:

    <cache>/<deck>/deck.json      name, family, source, licence, index_boxes, notes
    <cache>/<deck>/<card>.png     RGBA face, ~300 px tall ("10H.png", "AS.png")
    <cache>/<deck>/back.png       RGBA back

Faces are RGBA (not OpenCV's BGRA) so they can be shown with any image library;
the scene composer converts once per deck.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
INSTALL_HINT = "run `bash scripts/install_deck_art.sh` (or `bash scripts/install.sh --art`)"

Box = tuple[float, float, float, float]


def all_cards() -> tuple[str, ...]:
    """The 52 cards in class-id order: referee.cards.ALL_CARDS when it exists.

    Fallback (until referee/cards.py lands): rank-major `AC AD AH AS 2C ... KS`.
    """
    try:
        from referee.cards import ALL_CARDS  # type: ignore[import-not-found]

        return tuple(ALL_CARDS)
    except ImportError:
        return tuple(r + s for r in RANKS for s in SUITS)


CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)


class DeckArtError(RuntimeError):
    """Deck art is missing or a deck name is unknown (one readable line)."""


@dataclass
class DeckArt:
    """One deck design.

    faces: card string -> RGBA uint8 (H, W, 4), all the same size within a deck.
    index_boxes: card string -> corner index boxes (rank + suit together), each
        (x1, y1, x2, y2) in normalized face coordinates 0..1. Empty list: the card
        has no readable index (e.g. guyenne-classic court cards).
    """

    name: str
    family: str
    faces: dict[str, np.ndarray]
    back: np.ndarray
    index_boxes: dict[str, list[Box]]
    meta: dict[str, object] = field(default_factory=dict)

    @property
    def size(self) -> tuple[int, int]:
        """Face (width, height) in pixels."""
        any_face = next(iter(self.faces.values()))
        return int(any_face.shape[1]), int(any_face.shape[0])

    @property
    def cards(self) -> list[str]:
        return [c for c in CARDS if c in self.faces]


def default_cache_dir() -> Path:
    env = os.environ.get("KEMPS_DECK_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "kemps-referee" / "decks"


def available_decks(cache_dir: str | Path | None = None, include_unusable: bool = False) -> list[str]:
    """Names of the decks rendered in the cache (empty when nothing is installed).

    Decks whose index geometry could not be found completely (deck.json "usable": false)
    are left out: they would teach the detector that a printed index is background."""
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if not root.is_dir():
        return []
    names = []
    for p in sorted(root.glob("*/deck.json")):
        if include_unusable or json.loads(p.read_text()).get("usable", True):
            names.append(p.parent.name)
    return names


def _read_rgba(path: Path) -> np.ndarray:
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise DeckArtError(f"unreadable deck image {path}; re-run the deck art install")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)


def load_deck(name: str, cache_dir: str | Path | None = None) -> DeckArt:
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    deck_dir = root / name
    meta = json.loads((deck_dir / "deck.json").read_text())
    faces = {c: _read_rgba(deck_dir / f"{c}.png") for c in CARDS if (deck_dir / f"{c}.png").exists()}
    if len(faces) != 52:
        raise DeckArtError(f"deck {name!r} has {len(faces)} of 52 faces in {deck_dir}; {INSTALL_HINT}")
    boxes = {c: [tuple(map(float, b)) for b in meta.get("index_boxes", {}).get(c, [])] for c in CARDS}
    return DeckArt(
        name=name,
        family=str(meta.get("family", name)),
        faces=faces,
        back=_read_rgba(deck_dir / "back.png"),
        index_boxes=boxes,  # type: ignore[arg-type]
        meta={k: v for k, v in meta.items() if k != "index_boxes"},
    )


def load_decks(names: list[str] | None = None, cache_dir: str | Path | None = None) -> list[DeckArt]:
    """Load decks from the render cache (all of them when `names` is None).

    Raises DeckArtError with one clear line when no art is installed or a name is unknown.
    """
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    have = available_decks(root)
    if not have:
        raise DeckArtError(f"no deck art installed in {root}; {INSTALL_HINT}")
    wanted = have if names is None else list(names)
    unknown = [n for n in wanted if n not in have]
    unusable = [n for n in unknown if n in available_decks(root, include_unusable=True)]
    if unusable:
        reasons = [json.loads((root / n / "deck.json").read_text()).get("unusable_reason", "") for n in unusable]
        raise DeckArtError(
            "deck(s) not usable for labels: " + ", ".join(f"{n} ({r})" for n, r in zip(unusable, reasons)) + f"; usable: {', '.join(have)}"
        )
    if unknown:
        raise DeckArtError(f"unknown deck(s) {', '.join(unknown)}; available: {', '.join(have)}")
    return [load_deck(n, root) for n in wanted]
