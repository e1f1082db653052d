"""Canonical card strings and the decks the three games use.

A card is rank + suit: ranks ``A 2 3 4 5 6 7 8 9 10 J Q K``, suits ``C D H S``
(``"10H"``, ``"QS"``, ``"AC"``). Everything outside this module handles cards as
these canonical strings; ``parse_card`` is the single place that accepts looser
spellings.
"""

from __future__ import annotations

from collections import Counter

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")

# Rank-major order: AC AD AH AS 2C ... KS. The index is the vision class id.
ALL_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(ALL_CARDS)}

PIQUET_RANKS: tuple[str, ...] = ("7", "8", "9", "10", "J", "Q", "K", "A")

# Khmer: two each of 1..5 and six 6s (ace = 1).
KHMER_DECK: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6, 6, 6, 6)

_RANK_ALIASES = {"T": "10", "1": "A", "0": "10"}


def parse_card(s: str) -> str:
    """Return the canonical spelling of a card, or raise ``ValueError``.

    Accepts any case, surrounding spaces and ``T`` for ten (``"th"`` -> ``"10H"``).

    >>> parse_card("10h"), parse_card("TH"), parse_card(" qs ")
    ('10H', '10H', 'QS')
    """
    if not isinstance(s, str):
        raise ValueError(f"card must be a string like '10H', got {s!r}")
    text = s.strip().upper()
    if len(text) < 2:
        raise ValueError(f"not a card: {s!r} (expected rank + suit, e.g. '10H', 'QS')")
    rank, suit = text[:-1], text[-1]
    rank = _RANK_ALIASES.get(rank, rank)
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {s!r} (ranks A 2-10 J Q K, suits C D H S)")
    return rank + suit


def rank_of(card: str) -> str:
    """``"10H" -> "10"``."""
    return parse_card(card)[:-1]


def suit_of(card: str) -> str:
    """``"10H" -> "H"``."""
    return parse_card(card)[-1]


def standard_deck(copies: int = 1) -> tuple[str, ...]:
    """The 52-card deck, ``copies`` times (two decks for 8-10 Kemps players)."""
    return ALL_CARDS * copies


def piquet_deck(copies: int = 1) -> tuple[str, ...]:
    """The 32-card deck (7 to ace), in ``ALL_CARDS`` order."""
    return tuple(c for c in ALL_CARDS if rank_of(c) in PIQUET_RANKS) * copies


DECK_KINDS = ("standard", "piquet", "khmer")


def deck_identities(kind: str) -> frozenset[str]:
    """Every card identity a deck holds: standard (52), piquet (7 to ace), khmer (A-6 of any suit)."""
    if kind == "khmer":
        return frozenset(c for c in ALL_CARDS if rank_of(c) in {"A", "2", "3", "4", "5", "6"})
    if kind == "piquet":
        return frozenset(piquet_deck())
    if kind == "standard":
        return frozenset(ALL_CARDS)
    raise ValueError(f"unknown deck {kind!r} (known: {', '.join(DECK_KINDS)})")


def deck_counter(cards: tuple[str, ...]) -> Counter[str]:
    return Counter(cards)


def khmer_value(card: str | int) -> int:
    """Khmer value of a card: ace = 1, 2-6 = face value; ints 1-6 pass through.

    Raises ``ValueError`` for any other rank (7 and up are not in the Khmer deck).
    """
    if isinstance(card, bool):
        raise ValueError(f"not a Khmer card: {card!r}")
    if isinstance(card, int):
        if 1 <= card <= 6:
            return card
        raise ValueError(f"Khmer values are 1-6, got {card}")
    rank = rank_of(card)
    if rank == "A":
        return 1
    if rank in ("2", "3", "4", "5", "6"):
        return int(rank)
    raise ValueError(f"{parse_card(card)} is not in the Khmer deck (ace and 2-6 only)")
