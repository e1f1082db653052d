"""Deck accounting for the market games (Kemps, Kem's): where every card is.

Physical places: each player's hand (``size`` cards), the market (4 face up), the reserve
(face down) and the discard pile. The referee does not always know what a hand holds (the
camera cannot see hands), so each place records what is *known*:

- ``Hand.known``: cards known to be in that hand (dealt, taken from the market, revealed);
  the other ``size - len(known)`` slots are unknown;
- ``floating``: cards taken from the market by an unnamed player (in *some* hand);
- ``reserve_known``: reserve cards whose identity is known (after a reshuffle, a redraw);
- ``excess``: extra copies accepted while flagging an anomaly (a card seen where it could
  not be). The *pool* is every card of the deck not known to be anywhere.

Invariants (checked by ``conservation_errors``): the sizes of the places add up to the deck,
the pool never goes negative, and ``|pool| == unknown slots + |excess|``.
An event that contradicts what is known is an anomaly: with ``policy == "flag"`` it is
accepted and reported, with ``"reject"`` it raises ``Illegal``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from referee.cards import SUITS, rank_of, suit_of
from referee.rules.common import Illegal, RejectCode

MARKET_SIZE = 4


@dataclass(frozen=True)
class Hand:
    known: tuple[str, ...]
    size: int

    @property
    def unknown(self) -> int:
        return self.size - len(self.known)

    @property
    def complete(self) -> bool:
        return self.unknown == 0


@dataclass(frozen=True)
class Anomaly:
    card: str
    detail: str

    def to_result(self) -> dict[str, Any]:
        return {"kind": "anomaly", "card": self.card, "detail": self.detail}


@dataclass(frozen=True)
class Table:
    deck: tuple[str, ...]
    market: tuple[str, ...]
    hands: tuple[tuple[str, Hand], ...]
    discard: tuple[str, ...] = ()
    floating: tuple[str, ...] = ()
    reserve_known: tuple[str, ...] = ()
    reserve_size: int = 0
    excess: tuple[str, ...] = ()
    reshuffles: int = 0

    def hand(self, player: str) -> Hand:
        for p, h in self.hands:
            if p == player:
                return h
        raise Illegal(RejectCode.UNKNOWN_PLAYER, f"unknown player {player!r}")

    def has_player(self, player: str) -> bool:
        return any(p == player for p, _ in self.hands)

    def with_hand(self, player: str, hand: Hand) -> Table:
        return replace(self, hands=tuple((p, hand if p == player else h) for p, h in self.hands))

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.hands)

    def known_hand(self, player: str) -> tuple[str, ...] | None:
        """The full hand if every card of it is known, else None."""
        h = self.hand(player)
        return h.known if h.complete else None


# ---------------------------------------------------------------- helpers
def _remove(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def known_cards(t: Table) -> Counter[str]:
    c: Counter[str] = Counter(t.market)
    c.update(t.discard)
    c.update(t.floating)
    c.update(t.reserve_known)
    for _, h in t.hands:
        c.update(h.known)
    return c


def pool(t: Table) -> Counter[str]:
    """Cards of the deck whose place is unknown (may include negative counts if corrupt)."""
    c: Counter[str] = Counter(t.deck)
    c.update(t.excess)
    c.subtract(known_cards(t))
    return c


def unknown_slots(t: Table) -> int:
    hands = sum(h.unknown for _, h in t.hands)
    return hands - len(t.floating) + (t.reserve_size - len(t.reserve_known))


def locate(t: Table, card: str) -> list[str]:
    """Human description of every place ``card`` is known to be."""
    places = []
    if card in t.market:
        places.append("the market")
    if card in t.discard:
        places.append("the discard pile")
    if card in t.reserve_known:
        places.append("the reserve")
    if card in t.floating:
        places.append("a hand (taken from the market)")
    places += [f"{p}'s hand" for p, h in t.hands if card in h.known]
    return places


def conservation_errors(t: Table) -> list[str]:
    """Empty when the accounting is consistent (used by tests and the dashboard)."""
    errors = []
    total = sum(h.size for _, h in t.hands) + len(t.market) + t.reserve_size + len(t.discard)
    if total != len(t.deck):
        errors.append(f"places hold {total} cards, deck has {len(t.deck)}")
    p = pool(t)
    negative = sorted(c for c, n in p.items() if n < 0)
    if negative:
        errors.append(f"cards known in more places than the deck holds: {negative}")
    if sum(n for n in p.values() if n > 0) != unknown_slots(t) + len(t.excess):
        errors.append(
            f"pool of {sum(p.values())} unknown cards for {unknown_slots(t)} unknown slots"
            f" + {len(t.excess)} flagged"
        )
    if any(len(h.known) > h.size for _, h in t.hands):
        errors.append("a hand holds more known cards than its size")
    if len(t.reserve_known) > t.reserve_size:
        errors.append("more known reserve cards than the reserve holds")
    return errors


class _Ledger:
    """Mutable scratch copy used while applying one event; frozen again by ``table()``."""

    def __init__(self, t: Table, policy: str) -> None:
        self.t = t
        self.policy = policy
        self.pool = +pool(t)
        self.anomalies: list[Anomaly] = []
        self.excess = list(t.excess)
        self.floating = list(t.floating)

    def anomaly(self, card: str, detail: str) -> None:
        if self.policy == "reject":
            raise Illegal(RejectCode.DECK_ANOMALY, detail)
        self.anomalies.append(Anomaly(card, detail))

    def claim_unseen(self, card: str, context: str, allow_floating: bool = True) -> None:
        """``card`` comes out of an unknown place (a hand slot or the reserve)."""
        if allow_floating and card in self.floating:
            self.floating.remove(card)
            return
        if self.pool[card] > 0:
            self.pool[card] -= 1
            return
        where = locate(self.t, card)
        seen = f"already seen in {', '.join(where)}" if where else "all its copies already seen"
        self.anomaly(card, f"{context}: {card} {seen}")
        self.excess.append(card)

    def table(self, **changes: Any) -> Table:
        return replace(
            self.t, excess=tuple(self.excess), floating=tuple(self.floating), **changes
        )


def check_counts(deck: tuple[str, ...], cards: Iterable[str], what: str) -> None:
    """One event may not show more copies of a card than the deck has."""
    have = Counter(deck)
    for card, n in Counter(cards).items():
        if n > have[card]:
            copies = "is not in this deck" if have[card] == 0 else f"appears {n} times"
            raise Illegal(RejectCode.IMPOSSIBLE_CARDS, f"{what}: {card} {copies}")


# ---------------------------------------------------------------- operations
def deal(
    deck: tuple[str, ...],
    players: tuple[str, ...],
    hand_size: int,
    market: tuple[str, ...],
    hands: Mapping[str, tuple[str, ...]] | None,
) -> Table:
    """A new deck cycle: hands (all, some or none known) and the four market cards."""
    if len(market) != MARKET_SIZE:
        raise Illegal(RejectCode.BAD_EVENT, f"deal: the market needs {MARKET_SIZE} cards, got {len(market)}")
    hands = dict(hands or {})
    for p, cards in hands.items():
        if p not in players:
            raise Illegal(RejectCode.UNKNOWN_PLAYER, f"deal: {p!r} is not playing this hand")
        if len(cards) != hand_size:
            raise Illegal(RejectCode.BAD_EVENT, f"deal: {p} has {len(cards)} cards, hands have {hand_size}")
    all_cards = list(market) + [c for cards in hands.values() for c in cards]
    check_counts(deck, all_cards, "deal")
    reserve = len(deck) - MARKET_SIZE - hand_size * len(players)
    if reserve < 0:
        raise Illegal(RejectCode.NOT_ENOUGH_CARDS, "deal: not enough cards for every hand")
    return Table(
        deck=deck,
        market=tuple(market),
        hands=tuple((p, Hand(tuple(hands.get(p, ())), hand_size)) for p in players),
        reserve_size=reserve,
    )


def swap(t: Table, player: str | None, give: str, take: str, policy: str) -> tuple[Table, list[Anomaly]]:
    """``player`` (maybe unknown) takes ``take`` from the market and puts ``give`` there."""
    if take not in t.market:
        raise Illegal(RejectCode.NOT_IN_MARKET, f"swap: {take} is not in the market ({' '.join(t.market)})")
    if give == take:
        raise Illegal(RejectCode.BAD_EVENT, f"swap: gives and takes the same card {give}")
    if player is None:
        holders = [p for p, h in t.hands if give in h.known]
        if len(holders) == 1 and give not in t.floating and pool(t)[give] <= 0:
            player = holders[0]  # only one hand can have given it
    market = list(t.market)
    market[market.index(take)] = give
    if player is None:
        return _swap_unnamed(t, give, take, tuple(market), policy)
    led = _Ledger(t, policy)
    h = t.hand(player)
    if give in h.known:
        known = _remove(h.known, give)
    elif h.unknown > 0:
        led.claim_unseen(give, f"swap by {player}")
        known = h.known
    else:
        raise Illegal(
            RejectCode.NOT_IN_HAND, f"swap: {player} does not hold {give} (holds {' '.join(h.known)})"
        )
    new = led.table(market=tuple(market))
    return new.with_hand(player, Hand(known + (take,), h.size)), led.anomalies


def correct(t: Table, was: str, now: str, policy: str) -> tuple[Table, list[Anomaly]]:
    """The market card read as ``was`` is really ``now`` (a misread the camera fixed; no hand
    moved). ``was`` goes back to the unknown cards; ``now`` comes out of them, and is an
    anomaly when every copy of it is already seen elsewhere. After a stale call the old
    market still lies on the table until the reset: it is the top of the discard pile then."""
    if was == now:
        raise Illegal(RejectCode.BAD_EVENT, f"correct: {was} corrected to itself")
    n = len(t.discard)
    if was in t.market:
        i = t.market.index(was)
        rest = replace(t, market=t.market[:i] + t.market[i + 1 :])
        fix = {"market": t.market[:i] + (now,) + t.market[i + 1 :]}
    elif not t.market and was in t.discard[-MARKET_SIZE:]:
        i = n - 1 - t.discard[::-1].index(was)
        rest = replace(t, discard=t.discard[:i] + t.discard[i + 1 :])
        fix = {"discard": t.discard[:i] + (now,) + t.discard[i + 1 :]}
    else:
        raise Illegal(RejectCode.NOT_IN_MARKET, f"correct: {was} is not in the market ({' '.join(t.market)})")
    if was in rest.excess:  # the misread had been flagged as a card seen twice: no longer
        excess = list(rest.excess)
        excess.remove(was)
        rest = replace(rest, excess=tuple(excess))
    # the ledger sees the table without the corrected card, so its pool holds `was` again
    # and `now` only if no other place has it
    led = _Ledger(rest, policy)
    led.claim_unseen(now, "correct", allow_floating=False)
    return led.table(**fix), led.anomalies


def _swap_unnamed(t: Table, give: str, take: str, market: tuple[str, ...], policy: str) -> tuple[Table, list[Anomaly]]:
    """A swap by an unseen player. When several hands may have given ``give`` we *forget*
    what we knew (those records become unknown slots) rather than guess: forgetting never
    produces a false anomaly later, guessing can."""
    holders = [p for p, h in t.hands if give in h.known]
    forgotten = bool(holders) or give in t.floating
    t = replace(t, floating=tuple(c for c in t.floating if c != give))
    for p in holders:
        h = t.hand(p)
        t = t.with_hand(p, Hand(tuple(c for c in h.known if c != give), h.size))
    hidden_slots = sum(h.unknown for _, h in t.hands) - len(t.floating)
    if not forgotten and hidden_slots <= 0:
        raise Illegal(RejectCode.NOT_IN_HAND, f"swap: no hand can hold {give}")
    led = _Ledger(t, policy)
    led.claim_unseen(give, "swap", allow_floating=False)
    led.floating.append(take)
    return led.table(market=market), led.anomalies


def stale(t: Table) -> Table:
    """The four market cards go to the discard pile."""
    return replace(t, market=(), discard=t.discard + t.market)


def reshuffle(t: Table) -> Table:
    """Empty reserve: the discard pile (now known) becomes the reserve."""
    return replace(
        t,
        reserve_known=t.reserve_known + t.discard,
        reserve_size=t.reserve_size + len(t.discard),
        discard=(),
        reshuffles=t.reshuffles + 1,
    )


def reset(t: Table, cards: tuple[str, ...], policy: str) -> tuple[Table, list[Anomaly], bool]:
    """Deal four new market cards from the reserve (reshuffling the discard if needed).

    Returns the table, anomalies and whether a reshuffle happened.
    """
    if t.market:
        raise Illegal(RejectCode.BAD_EVENT, "reset: the market is not empty")
    if len(cards) != MARKET_SIZE:
        raise Illegal(RejectCode.BAD_EVENT, f"reset: the market needs {MARKET_SIZE} cards, got {len(cards)}")
    check_counts(t.deck, cards, "reset")
    reshuffled = t.reserve_size < MARKET_SIZE
    if reshuffled:
        if t.reserve_size + len(t.discard) < MARKET_SIZE:
            raise Illegal(RejectCode.NOT_ENOUGH_CARDS, "reset: reserve and discard hold fewer than 4 cards")
        t = reshuffle(t)
    led = _Ledger(t, policy)
    reserve_known = list(t.reserve_known)
    unknown = t.reserve_size - len(t.reserve_known)
    for card in cards:
        if card in reserve_known:
            reserve_known.remove(card)
        elif unknown > 0 and led.pool[card] > 0:
            led.pool[card] -= 1
            unknown -= 1
        else:
            where = locate(t, card)
            if where:
                seen = f"already in {', '.join(where)}"
            elif led.pool[card] > 0:  # unseen, but the reserve's cards are all known: a hand holds it
                seen = "the reserve holds no unseen card (it must be in a hand)"
            else:
                seen = "all its copies already seen"
            led.anomaly(card, f"reset: {card} dealt from the reserve but {seen}")
            led.excess.append(card)
            if unknown > 0:
                unknown -= 1
            elif reserve_known:
                reserve_known.pop()  # some reserve card was misread: its identity is lost
    new = led.table(market=tuple(cards), reserve_known=tuple(reserve_known),
                    reserve_size=t.reserve_size - MARKET_SIZE)
    return new, led.anomalies, reshuffled


def reveal(t: Table, hands: Mapping[str, tuple[str, ...]], policy: str) -> tuple[Table, list[Anomaly]]:
    """Hands laid face up: check them against everything known, then record them."""
    for p, cards in hands.items():
        size = t.hand(p).size
        if len(cards) != size:
            raise Illegal(RejectCode.BAD_EVENT, f"reveal: {p} shows {len(cards)} cards, holds {size}")
    check_counts(t.deck, [c for cs in hands.values() for c in cs], "reveal")
    led = _Ledger(t, policy)
    fresh: dict[str, Counter[str]] = {}
    for p, cards in hands.items():
        old, shown = Counter(t.hand(p).known), Counter(cards)
        for card, n in (old - shown).items():
            led.anomaly(card, f"reveal: {p} was known to hold {card} but did not show it")
            led.pool[card] += n
        fresh[p] = shown - old
    for p, extra in fresh.items():
        for card in sorted(extra.elements()):
            led.claim_unseen(card, f"reveal of {p}")
    new = led.table()
    for p, cards in hands.items():
        new = new.with_hand(p, Hand(tuple(cards), new.hand(p).size))
    if new.floating and all(h.complete for _, h in new.hands):
        for card in new.floating:
            led.anomaly(card, f"reveal: {card} was taken from the market but no hand shows it")
        new = replace(new, floating=())
    return new, led.anomalies


def show(t: Table, player: str, cards: tuple[str, ...], policy: str) -> tuple[Table, list[Anomaly]]:
    """A player shows some cards of their hand; they become known."""
    h = t.hand(player)
    check_counts(t.deck, cards, "show")
    extra = Counter(cards) - Counter(h.known)
    if sum(extra.values()) > h.unknown:
        missing = " ".join(sorted(extra.elements()))
        raise Illegal(RejectCode.NOT_IN_HAND, f"show: {player} does not hold {missing}")
    led = _Ledger(t, policy)
    for card in sorted(extra.elements()):
        led.claim_unseen(card, f"show by {player}")
    new_known = h.known + tuple(sorted(extra.elements()))
    return led.table().with_hand(player, Hand(new_known, h.size)), led.anomalies


def stock_unseen(t: Table) -> int:
    """Reserve cards not seen yet: what a Kem's redraw can draw "others" from (cards put back
    by an earlier redraw lie under the stock and are known)."""
    return t.reserve_size - len(t.reserve_known)


def redraw(
    t: Table, player: str, shown: tuple[str, ...], drawn: tuple[str, ...] | None, policy: str
) -> tuple[Table, list[Anomaly]]:
    """Kem's deal: ``shown`` go back under the stock, as many cards are drawn from the top."""
    t, anomalies = show(t, player, shown, policy)
    h = t.hand(player)
    known = list(h.known)
    for card in shown:
        known.remove(card)
    n = len(shown)
    if stock_unseen(t) < n:
        # the referee never asks for such a redraw (it is waived, see TableGame._redraws_due)
        raise Illegal(RejectCode.NOT_ENOUGH_CARDS,
                      f"redraw: the stock holds {stock_unseen(t)} unseen cards, {player} would draw {n}:"
                      " the redraw is waived, the hand is kept")
    t = replace(t, reserve_known=t.reserve_known + tuple(shown))
    led = _Ledger(t, policy)
    if drawn is not None:
        if len(drawn) != n:
            raise Illegal(RejectCode.BAD_EVENT, f"redraw: {player} put back {n} cards, drew {len(drawn)}")
        check_counts(t.deck, drawn, "redraw")
        for card in drawn:
            led.claim_unseen(card, f"redraw by {player}", allow_floating=False)
        known += list(drawn)
    new = led.table().with_hand(player, Hand(tuple(known), h.size))
    return new, anomalies + led.anomalies


# ---------------------------------------------------------------- hand analysis
def kinds(cards: Iterable[str], kind_size: int, any_suits: bool = True) -> list[str]:
    """Ranks of which ``cards`` hold at least ``kind_size`` (distinct suits if not any_suits)."""
    by_rank: dict[str, list[str]] = {}
    for c in cards:
        by_rank.setdefault(rank_of(c), []).append(suit_of(c))
    out = []
    for rank, suits in by_rank.items():
        n = len(suits) if any_suits else len(set(suits) & set(SUITS))
        if n >= kind_size:
            out.append(rank)
    return sorted(out)
