"""Simulated players: what happens at the table, decided card by card.

A *brain* owns the physical cards (hands, market, reserve, discard; Khmer rows, piles,
hidden cards) and decides the next `Decision`: who does what, after how long a
hesitation, and the exact public event that results. The director (`director.py`) turns
decisions into timed truth and motions; the rules engine validates every event (a
rejected event is a simulator bug, never written to the truth).

Players see their own hands (the simulator knows everything); their choices are simple
heuristics at human pace, with deliberate mistakes (wrong calls) so the referee has
something to judge.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee.cards import ALL_CARDS, khmer_value, rank_of
from referee.rules.engine import new_game

# Physical Khmer deck: ace = 1, 2-6 of any suit; the six 6s need two decks, so 6C and 6D
# appear twice.
KHMER_CARDS: tuple[str, ...] = (
    "AH", "AS", "2H", "2S", "3H", "3S", "4H", "4S", "5H", "5S", "6C", "6D", "6H", "6S", "6C", "6D",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Decision:
    """One thing a player (or the dealer) does next.

    kind:   deal | swap | stale | reset | call | reveal | new_hand | play | steal | discard
            | close | fold
    seat:   whose arm performs it (None for a spoken call or the referee's stale)
    wait_s: hesitation before the motion starts
    event:  the public event it produces (no "t"; the director adds it)
    """

    kind: str
    seat: str | None
    wait_s: float
    event: dict[str, Any]


class SimError(RuntimeError):
    """The simulation produced an event the rules engine rejects (a simulator bug)."""


# --------------------------------------------------------------------------- Kemps / Kem's


@dataclass
class MarketBrain:
    """Kemps and Kem's players around a 4-card market.

    Each player collects the rank they hold most of; they swap for a market card of that
    rank, giving their least useful card. When nobody wants a market card, the market goes
    stale and the dealer resets it. A complete four of a kind is called by the partner
    (Kemps) or, sometimes, cut first by a rival; after `patience_s` without one, someone
    makes a wrong call so every hand ends.
    """

    game: str  # "kemps" | "kems"
    players: list[str]
    teams: list[list[str]]
    rng: random.Random
    patience_s: tuple[float, float] = (25.0, 110.0)  # long hands run the reserve out: reshuffles
    deck: tuple[str, ...] = ALL_CARDS
    stale_after_s: float = 5.0
    hands: dict[str, list[str]] = field(default_factory=dict)
    market: list[str] = field(default_factory=list)
    reserve: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    dealer_index: int = 0
    phase: str = "deal"  # deal | play | stale | reveal | done
    hand_started: float = 0.0
    patience: float = 30.0
    call: dict[str, Any] | None = None

    @property
    def dealer(self) -> str:
        return self.players[self.dealer_index % len(self.players)]

    def team_of(self, seat: str) -> list[str]:
        return next(t for t in self.teams if seat in t)

    def partners(self, seat: str) -> list[str]:
        return [p for p in self.team_of(seat) if p != seat]

    def rivals(self, seat: str) -> list[str]:
        return [p for p in self.players if p not in self.team_of(seat)]

    def has_four(self, seat: str) -> bool:
        return max(Counter(rank_of(c) for c in self.hands[seat]).values()) >= 4

    def target_rank(self, seat: str) -> str:
        counts = Counter(rank_of(c) for c in self.hands[seat])
        best = max(counts.values())
        return sorted(r for r, n in counts.items() if n == best)[0]

    # ---- decisions ----------------------------------------------------------------
    def next(self, now: float) -> Decision:
        if self.phase == "deal":
            return self._deal(now)
        if self.phase == "stale":
            return Decision("reset", self.dealer, self.rng.uniform(0.8, 1.6), {"type": "reset", "market": self._draw_market()})
        if self.phase == "reveal":
            return Decision("reveal", None, self.rng.uniform(0.6, 1.2), {"type": "reveal", "hands": {p: list(h) for p, h in self.hands.items()}})
        if self.phase == "done":
            return Decision("new_hand", None, self.rng.uniform(2.5, 3.5), {"type": "new_hand"})
        call = self._call(now)
        if call is not None:
            return call
        swap = self._swap()
        if swap is not None:
            return swap
        return Decision("stale", None, self.stale_after_s, {"type": "stale"})

    def _deal(self, now: float) -> Decision:
        deck = list(self.deck)
        while True:
            self.rng.shuffle(deck)
            hands = {p: deck[i * 4 : i * 4 + 4] for i, p in enumerate(self.players)}
            # Kem's: a hand of three or four identical cards is redrawn at the deal; we
            # deal again instead (the outcome the rule wants: nobody starts with 3+).
            if self.game != "kems" or all(max(Counter(rank_of(c) for c in h).values()) < 3 for h in hands.values()):
                break
        n = 4 * len(self.players)
        self.hands = {p: list(h) for p, h in hands.items()}
        self.market = deck[n : n + 4]
        self.reserve = deck[n + 4 :]
        self.discard = []
        self.hand_started = now
        self.patience = self.rng.uniform(*self.patience_s)
        return Decision("deal", self.dealer, self.rng.uniform(0.5, 1.0), {"type": "deal", "hands": {p: list(h) for p, h in hands.items()}, "market": list(self.market)})

    def _draw_market(self) -> list[str]:
        if len(self.reserve) < 4:  # empty reserve: the discard pile is shuffled in
            # the stale market is part of it when nothing else is (12 Kem's players: no
            # reserve at all), as the referee's `stale` puts it there before the reset
            pile = list(self.discard)
            if len(self.reserve) + len(pile) < 4:
                pile += self.market
                self.market = []  # so the reset does not discard it again
            self.rng.shuffle(pile)
            self.reserve = pile + self.reserve
            self.discard = []
        new = [self.reserve.pop() for _ in range(4)]
        return new

    def _swap(self) -> Decision | None:
        """A player takes a market card of the rank they collect, or (less eagerly) one
        that pairs a card they hold, giving a card they do not need."""
        wants: list[tuple[str, str, str]] = []
        for seat in self.players:
            if self.has_four(seat):
                continue
            rank = self.target_rank(seat)
            counts = Counter(rank_of(c) for c in self.hands[seat])
            for take in self.market:
                r = rank_of(take)
                pairs_up = r != rank and counts.get(r, 0) == 1 and counts[rank] == 1 and self.rng.random() < 0.5
                if r == rank or pairs_up:
                    spare = [c for c in self.hands[seat] if rank_of(c) not in (rank, r)] or [
                        c for c in self.hands[seat] if rank_of(c) != r
                    ]
                    if spare:
                        wants.append((seat, self.rng.choice(spare), take))
        if not wants:
            return None
        seat, give, take = self.rng.choice(wants)
        return Decision("swap", seat, self.rng.uniform(0.8, 3.0), {"type": "swap", "player": seat, "give": give, "take": take})

    def _call(self, now: float) -> Decision | None:
        holders = [p for p in self.players if self.has_four(p)]
        overdue = now - self.hand_started > self.patience
        if holders:
            holder = holders[0]
            rival = self.rng.choice(self.rivals(holder))
            if self.rng.random() < 0.25:  # a rival reads the signal first
                return self._make_call(rival, "cut" if self.game == "kemps" else "contre_kems", holder)
            partner = self.rng.choice(self.partners(holder))
            if self.game == "kems":
                kind = "double_kems" if self.has_four(partner) else "kems"
                return self._make_call(partner, kind, holder)
            return self._make_call(partner, "kemps", holder)
        if overdue:  # a wrong call ends a hand that drags on
            caller = self.rng.choice(self.players)
            if self.game == "kems":
                return self._make_call(caller, "kems", self.rng.choice(self.partners(caller)))
            if self.rng.random() < 0.5:
                return self._make_call(caller, "cut", self.rng.choice(self.rivals(caller)))
            return self._make_call(caller, "kemps", self.rng.choice(self.partners(caller)))
        return None

    def _make_call(self, by: str, kind: str, target: str | None) -> Decision:
        ev: dict[str, Any] = {"type": "call", "call": kind, "by": by}
        # a Contre Kem's names the accused team only where it is not the one other team
        if target is not None and (kind != "contre_kems" or len(self.teams) > 2):
            ev["target"] = target
        return Decision("call", None, self.rng.uniform(0.5, 2.0), ev)

    # ---- commit (after the engine accepted the event) ------------------------------
    def commit(self, d: Decision, now: float) -> None:
        ev = d.event
        if d.kind == "deal":
            self.phase = "play"
        elif d.kind == "swap":
            hand = self.hands[ev["player"]]
            hand[hand.index(ev["give"])] = ev["take"]
            self.market[self.market.index(ev["take"])] = ev["give"]
        elif d.kind == "stale":
            self.phase = "stale"
        elif d.kind == "reset":
            self.discard.extend(self.market)
            self.market = list(ev["market"])
            self.phase = "play"
        elif d.kind == "call":
            self.call = ev
            self.phase = "reveal"
        elif d.kind == "reveal":
            self.phase = "done"
        elif d.kind == "new_hand":
            if self.game == "kems":
                self.dealer_index += 1  # the dealer rotates each manche
            self.phase = "deal"


# --------------------------------------------------------------------------- Khmer


@dataclass
class KhmerBrain:
    """Two Khmer players taking turns: play, steal, discard a 6, close (rarely fold).

    A player compares their total (hand + pile) with the table (both rows): over the
    table they shed cards (discard a 6, play); under it they steal when that keeps them
    under, and close when close enough (with some bluffing noise).
    """

    players: list[str]
    rng: random.Random
    hands: dict[str, list[str]] = field(default_factory=dict)
    rows: dict[str, list[str]] = field(default_factory=dict)
    piles: dict[str, list[str]] = field(default_factory=dict)
    discards: dict[str, list[str]] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)
    first: str = ""
    turn: str = ""
    turns: int = 0
    phase: str = "deal"  # deal | play | reveal | done
    closer: str | None = None

    def other(self, seat: str) -> str:
        return next(p for p in self.players if p != seat)

    def total(self, seat: str) -> int:
        return sum(khmer_value(c) for c in self.hands[seat] + self.piles[seat])

    def table(self) -> int:
        return sum(khmer_value(c) for row in self.rows.values() for c in row)

    def next(self, now: float) -> Decision:
        if self.phase == "deal":
            return self._deal()
        if self.phase == "reveal":
            ev: dict[str, Any] = {"type": "reveal", "hands": {p: list(self.hands[p]) for p in self.players}}
            return Decision("reveal", None, self.rng.uniform(0.5, 1.0), ev)
        if self.phase == "done":
            return Decision("new_hand", None, self.rng.uniform(2.5, 3.5), {"type": "new_hand"})
        return self._turn()

    def _deal(self) -> Decision:
        deck = list(KHMER_CARDS)
        self.rng.shuffle(deck)
        a, b = self.players
        self.hands = {a: deck[0:6], b: deck[6:12]}
        self.hidden = deck[12:16]
        self.rows = {p: [] for p in self.players}
        self.piles = {p: [] for p in self.players}
        self.discards = {p: [] for p in self.players}
        self.first = self.first or self.players[0]
        self.turn = self.first
        self.turns = 0
        ev = {"type": "deal", "hands": {p: list(h) for p, h in self.hands.items()}, "hidden": list(self.hidden), "first": self.first}
        return Decision("deal", self.first, self.rng.uniform(0.5, 1.0), ev)

    def _turn(self) -> Decision:
        me, opp = self.turn, self.other(self.turn)
        mine, table = self.total(me), self.table()
        wait = self.rng.uniform(1.2, 3.0)
        hand = self.hands[me]
        can_steal = bool(self.rows[opp])
        if self.turns >= 4 and mine <= table and (table - mine <= 3 or self.rng.random() < 0.15):
            return Decision("close", None, wait, {"type": "close", "player": me})
        if self.turns >= 16 or not hand and not can_steal:
            return Decision("close", None, wait, {"type": "close", "player": me})
        if mine > table and "6" in [rank_of(c) for c in hand] and self.rng.random() < 0.35:
            six = next(c for c in hand if rank_of(c) == "6")
            return Decision("discard", me, wait, {"type": "discard", "player": me, "card": six})
        if can_steal:
            top = khmer_value(self.rows[opp][-1])
            if mine + top <= table - top and self.rng.random() < 0.7:
                return Decision("steal", me, wait, {"type": "steal", "player": me})
        if hand:
            card = max(hand, key=khmer_value) if mine > table else self.rng.choice(hand)
            return Decision("play", me, wait, {"type": "play", "player": me, "card": card})
        return Decision("steal", me, wait, {"type": "steal", "player": me})

    def commit(self, d: Decision, now: float) -> None:
        ev = d.event
        if d.kind == "deal":
            self.phase = "play"
            return
        if d.kind in ("play", "steal", "discard"):
            me = ev["player"]
            if d.kind == "play":
                self.hands[me].remove(ev["card"])
                self.rows[me].append(ev["card"])
            elif d.kind == "steal":
                self.piles[me].append(self.rows[self.other(me)].pop())
            else:
                self.hands[me].remove(ev["card"])
                self.discards[me].append(ev["card"])
            self.turn = self.other(me)
            self.turns += 1
        elif d.kind == "close":
            self.closer = ev["player"]
            self.phase = "reveal"
        elif d.kind == "reveal":
            self.phase = "done"
        elif d.kind == "new_hand":
            self.phase = "deal"


def make_brain(header: dict[str, Any], rng: random.Random, stale_after_s: float) -> MarketBrain | KhmerBrain:
    game = header["game"]
    if game == "khmer":
        return KhmerBrain(players=list(header["players"]), rng=rng)
    # the referee's own deck for this table: one deck, or two shuffled together from
    # `two_decks_from` players (Kemps: 8), piquet's 32 cards when the rules say so
    deck = new_game(header).deck
    return MarketBrain(
        game=game, players=list(header["players"]), teams=[list(t) for t in header["teams"]], rng=rng,
        stale_after_s=stale_after_s, deck=deck,
    )
