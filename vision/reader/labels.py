"""Class vocabularies of the index classifier: ranks and suits as separate outputs.

Order matches the project's card convention (rank + suit, `"10H"`); the classifier's
heads are indexed by these tuples, and `models/reader.json` stores them so a shipped model
never depends on this file's order silently.
"""

from __future__ import annotations

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")


def split_card(card: str) -> tuple[int, int]:
    """`"10H"` -> (rank index, suit index). Raises ValueError on anything else."""
    card = card.strip().upper()
    rank, suit = card[:-1], card[-1:]
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {card!r}")
    return RANKS.index(rank), SUITS.index(suit)


def join_card(rank: int, suit: int) -> str:
    return RANKS[rank] + SUITS[suit]
