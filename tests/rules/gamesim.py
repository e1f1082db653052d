"""A seeded physical-table simulator that writes random but *legal* game logs.

It shuffles real decks and moves real cards, so every log it writes is consistent by
construction: the referee must accept every event and never flag an anomaly. Used by the
property tests and the session crash test.
"""

from __future__ import annotations

import random
from typing import Any

from referee.cards import KHMER_DECK, rank_of
from referee.rules import new_game
from referee.rules.market import kinds

TABLE_HEADERS: list[dict[str, Any]] = [
    {"game": "kemps", "rules": {}, "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]},
    {"game": "kemps", "rules": {"variant": ["cut", "last_team_standing"]},
     "players": ["A", "B", "C", "D", "E", "F"], "teams": [["A", "D"], ["B", "E"], ["C", "F"]]},
    {"game": "kemps", "rules": {"variant": ["cash", "three_card", "piquet"]},
     "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]},
    {"game": "kemps", "rules": {"variant": "five_card_deal"},
     "players": ["A", "B", "C", "D", "E", "F", "G", "H"],
     "teams": [["A", "E"], ["B", "F"], ["C", "G"], ["D", "H"]]},
    {"game": "kems", "rules": {"target_score": 6}, "players": ["N", "E", "S", "W"],
     "teams": [["N", "S"], ["E", "W"]]},
]


class TableSim:
    """Plays a Kemps / Kem's table; ``hidden=True`` writes logs as the camera sees them."""

    def __init__(self, header: dict[str, Any], seed: int, hidden: bool = False) -> None:
        self.header = header
        self.game = new_game(header)
        self.rng = random.Random(seed)
        self.hidden = hidden
        self.state = self.game.initial_state()

    def _shuffle(self) -> None:
        deck = list(self.game.deck)
        self.rng.shuffle(deck)
        self.reserve = deck
        players = self.game.active_players(self.state)
        n = self.game.rules.hand_size
        self.hands = {p: [self.reserve.pop() for _ in range(n)] for p in players}
        self.market = [self.reserve.pop() for _ in range(4)]
        self.discard: list[str] = []

    def _deal(self) -> dict[str, Any]:
        self._shuffle()
        ev: dict[str, Any] = {"type": "deal", "market": list(self.market)}
        if not self.hidden:
            ev["hands"] = {p: list(h) for p, h in self.hands.items()}
        return ev

    def _redraws(self) -> list[dict[str, Any]]:
        out = []
        rules = self.game.rules
        if not rules.get("deal_redraw"):
            return out
        for p, h in self.hands.items():
            while True:
                ranks = kinds(h, rules.redraw_min, True)
                if not ranks:
                    break
                shown = [c for c in h if rank_of(c) == ranks[0]]
                for c in shown:
                    h.remove(c)
                drawn = [self.reserve.pop() for _ in shown]
                self.reserve[:0] = shown  # under the stock
                h.extend(drawn)
                ev: dict[str, Any] = {"type": "redraw", "player": p, "shown": shown}
                if not self.hidden:
                    ev["drawn"] = drawn
                out.append(ev)
        return out

    def _call(self) -> dict[str, Any]:
        g = self.game
        players = list(g.active_players(self.state))
        by = self.rng.choice(players)
        calls = sorted(g.scoring.calls)
        if g.name == "kemps" and not g.rules.cut_allowed:
            calls = ["kemps"]
        if g.name == "kems" and g.team_of[by] in self.state.banned:
            calls = ["kems", "double_kems"]
        call = self.rng.choice(calls)
        ev: dict[str, Any] = {"type": "call", "call": call, "by": by}
        rivals = [p for p in players if g.team_of[p] != g.team_of[by]]
        if call == "cut" or (call == "contre_kems" and len(g.active_teams(self.state)) > 2):
            ev["target"] = self.rng.choice(rivals)
        return ev

    def events(self, max_events: int = 120) -> list[dict[str, Any]]:
        """Generate events (applying them) until the game ends or ``max_events``."""
        out: list[dict[str, Any]] = []

        def push(ev: dict[str, Any]) -> None:
            result = self.game.apply(self.state, ev)
            assert result.ok, f"simulator wrote a rejected event {ev}: {result.reason}"
            self.state = result.state
            out.append(ev)

        while len(out) < max_events and not self.game.is_finished(self.state):
            phase = self.state.phase
            if phase in ("deal", "hand_over"):
                if phase == "hand_over" and self.rng.random() < 0.5:
                    push({"type": "new_hand"})
                push(self._deal())
                if self.state.phase == "redraw" or (self.hidden and self.rng.random() < 0.5):
                    for ev in self._redraws():
                        push(ev)
            elif phase == "reveal":
                seats = self.game.awaiting(self.state)["seats"]
                push({"type": "reveal", "hands": {p: list(self.hands[p]) for p in seats}})
            elif phase == "reset":
                if len(self.reserve) < 4:
                    self.rng.shuffle(self.discard)
                    self.reserve = self.discard + self.reserve
                    self.discard = []
                self.market = [self.reserve.pop() for _ in range(4)]
                push({"type": "reset", "market": list(self.market)})
            elif phase == "show":
                p = self.state.show_left[0]
                cards = self.rng.sample(self.hands[p], self.game.rules.show_count)
                push({"type": "show", "player": p, "cards": cards})
            else:
                r = self.rng.random()
                if r < 0.08:
                    push(self._call())
                elif r < 0.2:
                    self.discard += self.market
                    self.market = []
                    push({"type": "stale"})
                else:
                    self._swap(push)
        return out

    def _swap(self, push: Any) -> None:
        p = self.rng.choice(list(self.hands))
        # Bias towards collecting: take a market card of a rank the player already holds.
        h = self.hands[p]
        take = next((c for c in self.market if any(rank_of(c) == rank_of(x) for x in h)),
                    self.rng.choice(self.market))
        keep = rank_of(take)
        candidates = [c for c in h if rank_of(c) != keep] or h
        give = self.rng.choice(candidates)
        if give == take:
            return
        h.remove(give)
        h.append(take)
        self.market[self.market.index(take)] = give
        ev: dict[str, Any] = {"type": "swap", "give": give, "take": take}
        if not self.hidden or self.rng.random() < 0.5:
            ev["player"] = p
        push(ev)


class KhmerSim:
    """Plays Khmer deals with random legal actions."""

    def __init__(self, header: dict[str, Any], seed: int, hidden: bool = False) -> None:
        self.header = header
        self.game = new_game(header)
        self.rng = random.Random(seed)
        self.hidden = hidden
        self.state = self.game.initial_state()

    def events(self, max_events: int = 200) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []

        def push(ev: dict[str, Any]) -> None:
            result = self.game.apply(self.state, ev)
            assert result.ok, f"simulator wrote a rejected event {ev}: {result.reason}"
            self.state = result.state
            out.append(ev)

        players = self.game.players
        while len(out) < max_events and not self.game.is_finished(self.state):
            s = self.state
            if s.phase in ("deal", "deal_over"):
                deck = list(KHMER_DECK)
                self.rng.shuffle(deck)
                self.hands = {players[0]: deck[:6], players[1]: deck[6:12]}
                ev: dict[str, Any] = {"type": "deal"}
                if not self.hidden:
                    ev["hands"] = {p: list(h) for p, h in self.hands.items()}
                    ev["hidden"] = deck[12:]
                push(ev)
                continue
            if s.phase == "reveal":
                push({"type": "reveal", "hands": {p: list(h) for p, h in self.hands.items()}})
                continue
            p = s.turn
            opp = self.game.other(p)
            options = ["close"]
            if self.hands[p]:
                options += ["play"] * 6
            if 6 in self.hands[p]:
                options.append("discard")
            if s.row(opp) and (self.game.rules.steal_from == "row_top" or opp in s.fresh):
                options += ["steal"] * 2
            if self.game.rules.match_target is not None:
                options.append("fold")
            action = self.rng.choice(options)
            if action == "play":
                card = self.rng.choice(self.hands[p])
                self.hands[p].remove(card)
                push({"type": "play", "player": p, "card": card})
            elif action == "discard":
                self.hands[p].remove(6)
                push({"type": "discard", "player": p, "card": 6})
            else:
                push({"type": action, "player": p})
        return out
