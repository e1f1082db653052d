"""Khmer (shared/rules/khmer-es.txt): two players, 16 cards, bluff and sums.

Deck: two each of 1-5 and six 6s; 6 cards each, 4 hidden. On your turn one action: PLAY a
card on your row, STEAL the opponent's most recent played card into your pile, DISCARD a 6,
CLOSE, or (in a match) FOLD. At close each total = hand + pile; the table = both rows.
The highest total not exceeding the table wins (``close_compare``); both over -> nobody;
equal -> the closer loses (``tie``). Match to ``match_target`` points: a win scores
``win_points``, a fold gives the opponent ``fold_points``; the last winner starts.

Hands may be unknown (the camera sees only the table): then plays/steals/discards are
checked against rows, piles, turn and the 16-card counts, and a close waits for the hands
to be laid face up (a ``reveal``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from referee import events as ev
from referee.cards import KHMER_DECK, khmer_value
from referee.rules.common import Illegal, Reducer, RejectCode, Step
from referee.rules.config import Rules

HAND_SIZE = 6
HIDDEN_SIZE = 4


@dataclass(frozen=True)
class KHand:
    known: tuple[int, ...]
    size: int

    @property
    def complete(self) -> bool:
        return len(self.known) == self.size


@dataclass(frozen=True)
class KhmerState:
    phase: str = "deal"  # deal | play | reveal | deal_over | over
    deal_no: int = 0
    starter: str = ""
    turn: str = ""
    hands: tuple[tuple[str, KHand], ...] = ()
    hidden: tuple[int, ...] = ()  # known hidden cards (all 4 or none)
    rows: tuple[tuple[str, tuple[int, ...]], ...] = ()
    piles: tuple[tuple[str, tuple[int, ...]], ...] = ()
    out: tuple[int, ...] = ()  # discarded 6s
    fresh: tuple[str, ...] = ()  # players whose row top was played on their last turn
    closer: str | None = None
    excess: tuple[int, ...] = ()
    match: tuple[int, ...] = ()
    results: tuple[dict[str, Any], ...] = ()
    winner: str | None = None  # match winner
    events: int = 0

    def hand(self, p: str) -> KHand:
        return dict(self.hands)[p]

    def row(self, p: str) -> tuple[int, ...]:
        return dict(self.rows)[p]

    def pile(self, p: str) -> tuple[int, ...]:
        return dict(self.piles)[p]


def _set(pairs: tuple[tuple[str, Any], ...], p: str, value: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((k, value if k == p else v) for k, v in pairs)


def _value(card: int | str, what: str) -> int:
    try:
        return khmer_value(card)
    except ValueError as exc:
        raise Illegal(RejectCode.ILLEGAL_CARD, f"{what}: {exc}") from None


@dataclass
class _Step(Step):
    state: KhmerState


class KhmerGame(Reducer):
    name = "khmer"
    step_type = _Step

    def __init__(self, header: dict[str, Any], rules: Rules, players: tuple[str, ...]) -> None:
        self.header = header
        self.rules = rules
        self.players = players
        self.teams: tuple[tuple[str, ...], ...] = tuple((p,) for p in players)
        self.deck = KHMER_DECK
        self.first = header.get("first") or players[0]
        if self.first not in players:
            raise ValueError(f"header: first player {self.first!r} is not a player")

    # ---------------------------------------------------------------- queries
    def initial_state(self) -> KhmerState:
        return KhmerState(starter=self.first, match=(0, 0))

    def other(self, p: str) -> str:
        return self.players[1 - self.players.index(p)]

    def standings(self, s: KhmerState) -> list[dict[str, Any]]:
        return [{"player": p, "points": s.match[i]} for i, p in enumerate(self.players)]

    def awaiting(self, s: KhmerState) -> dict[str, Any] | None:
        if s.phase in ("deal", "deal_over"):
            return {"kind": "deal", "first": s.starter}
        if s.phase == "play":
            return {"kind": "turn", "player": s.turn}
        if s.phase == "reveal":
            seats = [p for p, h in s.hands if not h.complete]
            # how many cards each must show: the camera waits for the whole hand
            sizes = {p: h.size for p, h in s.hands if not h.complete}
            return {"kind": "reveal", "seats": seats, "reason": "close", "sizes": sizes}
        return None

    def outcome(self, s: KhmerState) -> dict[str, Any] | None:
        if s.phase != "over":
            return None
        return {"winner": s.winner}

    def table_total(self, s: KhmerState) -> int:
        return sum(sum(r) for _, r in s.rows)

    def view(self, s: KhmerState) -> dict[str, Any]:
        return {
            "game": "khmer",
            "phase": s.phase,
            "deal": s.deal_no,
            "players": list(self.players),
            "turn": s.turn if s.phase == "play" else None,
            "starter": s.starter,
            "rows": {p: list(r) for p, r in s.rows},
            "piles": {p: list(r) for p, r in s.piles},
            "out": list(s.out),
            "table_total": self.table_total(s),
            "hands": {p: {"known": list(h.known), "size": h.size} for p, h in s.hands},
            "hidden_known": list(s.hidden),
            "match": {p: s.match[i] for i, p in enumerate(self.players)},
            "match_target": self.rules.match_target,
            "standings": self.standings(s),
            "awaiting": self.awaiting(s),
            "last_results": list(s.results[-5:]),
            "finished": s.phase == "over",
            "outcome": self.outcome(s),
        }

    def pool(self, s: KhmerState) -> Counter[int]:
        """Values of the deck whose place is unknown (hands' unknown slots, hidden cards)."""
        c: Counter[int] = Counter(self.deck)
        c.update(s.excess)
        for _, r in s.rows:
            c.subtract(r)
        for _, r in s.piles:
            c.subtract(r)
        c.subtract(s.out)
        c.subtract(s.hidden)
        for _, h in s.hands:
            c.subtract(h.known)
        return c

    def conservation_errors(self, s: KhmerState) -> list[str]:
        if not s.hands:
            return []
        total = sum(h.size for _, h in s.hands) + HIDDEN_SIZE + len(s.out)
        total += sum(len(r) for _, r in s.rows) + sum(len(r) for _, r in s.piles)
        errors = [] if total == len(self.deck) else [f"places hold {total} cards, deck 16"]
        p = self.pool(s)
        if any(n < 0 for n in p.values()):
            errors.append(f"values known in more places than the deck holds: {dict(p)}")
        slots = sum(h.size - len(h.known) for _, h in s.hands) + HIDDEN_SIZE - len(s.hidden)
        if sum(p.values()) != slots + len(s.excess):
            errors.append(f"pool {sum(p.values())} != unknown slots {slots} + {len(s.excess)} flagged")
        return errors

    # ---------------------------------------------------------------- reducer
    def _dispatch(self, step: _Step, e: ev.GameEvent) -> None:
        s = step.state
        if s.phase == "over":
            raise Illegal(RejectCode.GAME_OVER, "the match is over")
        handler = {
            ev.Deal: self._deal, ev.Play: self._play, ev.Steal: self._steal,
            ev.Discard: self._discard, ev.Close: self._close, ev.Fold: self._fold,
            ev.Reveal: self._reveal, ev.NewHand: self._new_hand, ev.Correct: self._correct,
        }.get(type(e))
        if handler is None:
            raise Illegal(RejectCode.WRONG_GAME, f"{e.type} is not a Khmer event")
        handler(step, e)

    def _on_turn(self, s: KhmerState, p: str, what: str) -> None:
        if p not in self.players:
            raise Illegal(RejectCode.UNKNOWN_PLAYER, f"{what}: {p!r} is not a player")
        if s.phase != "play":
            waiting = self.awaiting(s)
            raise Illegal(RejectCode.WRONG_PHASE,
                          f"{what}: not now (waiting for {waiting['kind'] if waiting else 'nothing'})")
        if p != s.turn:
            raise Illegal(RejectCode.NOT_YOUR_TURN, f"{what}: it is {s.turn}'s turn")

    def _anomaly(self, step: _Step, value: int, detail: str) -> None:
        if self.rules.deck_anomaly == "reject":
            raise Illegal(RejectCode.DECK_ANOMALY, detail)
        step.results.append({"kind": "anomaly", "deal": step.state.deal_no, "card": value, "detail": detail})
        step.say("anomaly", detail=detail)

    def _from_hand(self, step: _Step, p: str, value: int, what: str) -> None:
        """Remove ``value`` from ``p``'s hand, checking it can be there."""
        s = step.state
        h = s.hand(p)
        if h.size == 0:
            raise Illegal(RejectCode.NOT_IN_HAND, f"{what}: {p} has no cards left")
        known = list(h.known)
        if value in known:
            known.remove(value)
        elif h.complete:
            raise Illegal(RejectCode.NOT_IN_HAND, f"{what}: {p} does not hold a {value} (holds {sorted(h.known)})")
        elif self.pool(s)[value] <= 0:
            self._anomaly(step, value, f"{what}: every {value} of the deck is already seen")
            step.set(excess=s.excess + (value,))
        step.set(hands=_set(step.state.hands, p, KHand(tuple(known), h.size - 1)))

    # ---- deal
    def _new_hand(self, step: _Step, e: ev.NewHand) -> None:
        if step.state.phase != "deal_over":
            raise Illegal(RejectCode.WRONG_PHASE, "new_hand: the current deal is not over")
        step.set(phase="deal")

    def _deal(self, step: _Step, e: ev.Deal) -> None:
        s = step.state
        if s.phase not in ("deal", "deal_over"):
            raise Illegal(RejectCode.WRONG_PHASE, "deal: the current deal is not over")
        if e.market is not None:
            raise Illegal(RejectCode.BAD_EVENT, "deal: Khmer has no market")
        hands = {p: tuple(_value(c, f"deal {p}") for c in cs) for p, cs in (e.hands or {}).items()}
        for p, cs in hands.items():
            if p not in self.players:
                raise Illegal(RejectCode.UNKNOWN_PLAYER, f"deal: {p!r} is not a player")
            if len(cs) != HAND_SIZE:
                raise Illegal(RejectCode.BAD_EVENT, f"deal: {p} has {len(cs)} cards, hands have {HAND_SIZE}")
        hidden = tuple(_value(c, "deal hidden") for c in (e.hidden or ()))
        if hidden and len(hidden) != HIDDEN_SIZE:
            raise Illegal(RejectCode.BAD_EVENT, f"deal: {len(hidden)} hidden cards, the deal leaves {HIDDEN_SIZE}")
        seen = Counter(hidden)
        for cs in hands.values():
            seen.update(cs)
        deck = Counter(self.deck)
        for v, n in seen.items():
            if n > deck[v]:
                raise Illegal(RejectCode.IMPOSSIBLE_CARDS, f"deal: {n} cards of value {v}, the deck has {deck[v]}")
        starter = s.starter
        if e.first is not None:
            if e.first not in self.players:
                raise Illegal(RejectCode.UNKNOWN_PLAYER, f"deal: first player {e.first!r} is not a player")
            if s.deal_no > 0 and e.first != starter:
                raise Illegal(RejectCode.BAD_EVENT, f"deal: {starter} plays first (last winner)")
            starter = e.first
        step.set(
            phase="play", deal_no=s.deal_no + 1, starter=starter, turn=starter,
            hands=tuple((p, KHand(hands.get(p, ()), HAND_SIZE)) for p in self.players),
            hidden=hidden, rows=tuple((p, ()) for p in self.players),
            piles=tuple((p, ()) for p in self.players), out=(), fresh=(), closer=None, excess=(),
        )
        step.say("khmer_deal", deal=s.deal_no + 1, player=starter)

    # ---- actions
    def _end_turn(self, step: _Step, p: str) -> None:
        step.set(turn=self.other(p))

    def _play(self, step: _Step, e: ev.Play) -> None:
        s = step.state
        self._on_turn(s, e.player, "play")
        v = _value(e.card, "play")
        self._from_hand(step, e.player, v, f"play by {e.player}")
        st = step.state
        step.set(rows=_set(st.rows, e.player, st.row(e.player) + (v,)),
                 fresh=tuple(sorted(set(st.fresh) | {e.player})))
        self._end_turn(step, e.player)

    def _steal(self, step: _Step, e: ev.Steal) -> None:
        s = step.state
        self._on_turn(s, e.player, "steal")
        opp = self.other(e.player)
        row = s.row(opp)
        if not row:
            raise Illegal(RejectCode.EMPTY_ROW, f"steal: {opp} has no played card to steal")
        if self.rules.steal_from == "last_play" and opp not in s.fresh:
            raise Illegal(RejectCode.ILLEGAL_CARD, f"steal: {opp}'s top card was not played on their last turn")
        top = row[-1]
        if e.card is not None and _value(e.card, "steal") != top:
            raise Illegal(RejectCode.ILLEGAL_CARD, f"steal: {opp}'s most recent card is a {top}, not a {_value(e.card, 'steal')}")
        step.set(rows=_set(s.rows, opp, row[:-1]),
                 piles=_set(s.piles, e.player, s.pile(e.player) + (top,)),
                 fresh=tuple(p for p in s.fresh if p not in (opp, e.player)))
        self._end_turn(step, e.player)

    def _discard(self, step: _Step, e: ev.Discard) -> None:
        s = step.state
        self._on_turn(s, e.player, "discard")
        v = _value(e.card, "discard")
        if v != 6:
            raise Illegal(RejectCode.ILLEGAL_CARD, f"discard: only 6s may be discarded, not a {v}")
        self._from_hand(step, e.player, v, f"discard by {e.player}")
        step.set(out=step.state.out + (6,),
                 fresh=tuple(p for p in step.state.fresh if p != e.player))
        self._end_turn(step, e.player)

    def _correct(self, step: _Step, e: ev.Correct) -> None:
        """The camera misread a card of ``player``'s row: its most recent ``was`` is ``now``.
        Not a move: the turn stays. The hand it came from held ``now``, not ``was``."""
        s = step.state
        if s.phase not in ("play", "reveal"):
            raise Illegal(RejectCode.WRONG_PHASE, "correct: no cards in play")
        p = e.player
        if p not in self.players:
            raise Illegal(RejectCode.UNKNOWN_PLAYER, f"correct: {p!r} is not a player (a Khmer correction names the row's player)")
        was, now = _value(e.was, "correct"), _value(e.now, "correct")
        row = list(s.row(p))
        if was not in row:
            raise Illegal(RejectCode.ILLEGAL_CARD, f"correct: {p}'s row holds no {was}")
        if was == now:
            return  # the same value in another suit: nothing the rules see changes
        h = s.hand(p)
        known = list(h.known)
        if now in known:
            known[known.index(now)] = was  # the hand kept the `was` it was thought to have played
        elif h.complete:
            raise Illegal(RejectCode.NOT_IN_HAND, f"correct: {p} held no {now} to play (held {sorted(h.known)})")
        row[len(row) - 1 - row[::-1].index(was)] = now
        step.set(rows=_set(s.rows, p, tuple(row)), hands=_set(s.hands, p, KHand(tuple(known), h.size)))
        step.say("row_corrected", player=p, was=e.was, now=e.now)

    def _fold(self, step: _Step, e: ev.Fold) -> None:
        s = step.state
        self._on_turn(s, e.player, "fold")
        if self.rules.match_target is None:
            raise Illegal(RejectCode.CALL_NOT_ALLOWED, "fold: only in a match (match_target is null)")
        opp = self.other(e.player)
        pts = self.rules.fold_points
        step.say("khmer_fold", player=e.player, opponent=opp, points=pts)
        step.results.append({"kind": "fold", "deal": s.deal_no, "by": e.player, "winner": opp,
                             "points": {opp: pts}})
        self._score(step, opp, pts)

    def _close(self, step: _Step, e: ev.Close) -> None:
        s = step.state
        self._on_turn(s, e.player, "close")
        step.set(closer=e.player)
        if all(h.complete for _, h in s.hands):
            self._resolve(step)
        else:
            step.set(phase="reveal")
            step.say("khmer_reveal_request", player=e.player)

    def _reveal(self, step: _Step, e: ev.Reveal) -> None:
        s = step.state
        if s.phase not in ("reveal", "play", "deal_over"):
            raise Illegal(RejectCode.WRONG_PHASE, "reveal: no deal in progress")
        hands = {p: tuple(_value(c, f"reveal {p}") for c in cs) for p, cs in e.hands.items()}
        for p, cs in hands.items():
            if p not in self.players:
                raise Illegal(RejectCode.UNKNOWN_PLAYER, f"reveal: {p!r} is not a player")
            if len(cs) != s.hand(p).size:
                raise Illegal(RejectCode.BAD_EVENT, f"reveal: {p} shows {len(cs)} cards, holds {s.hand(p).size}")
        hidden = tuple(_value(c, "reveal hidden") for c in (e.hidden or ()))
        if hidden and len(hidden) != HIDDEN_SIZE:
            raise Illegal(RejectCode.BAD_EVENT, f"reveal: {len(hidden)} hidden cards, expected {HIDDEN_SIZE}")
        # Known cards that were not shown are anomalies; new ones must fit the deck.
        pool = self.pool(s)
        fresh: dict[str, Counter[int]] = {}
        for p, cs in hands.items():
            old, shown = Counter(s.hand(p).known), Counter(cs)
            for v, n in (old - shown).items():
                self._anomaly(step, v, f"reveal: {p} was known to hold a {v} but did not show it")
                pool[v] += n
            fresh[p] = shown - old
        if hidden:
            old, shown = Counter(s.hidden), Counter(hidden)
            for v, n in (old - shown).items():
                self._anomaly(step, v, f"reveal: a hidden {v} was expected")
                pool[v] += n
            fresh["hidden"] = shown - old
        excess = list(step.state.excess)
        for who, extra in fresh.items():
            for v in sorted(extra.elements()):
                if pool[v] > 0:
                    pool[v] -= 1
                else:
                    self._anomaly(step, v, f"reveal of {who}: every {v} of the deck is already seen")
                    excess.append(v)
        st = step.state
        new_hands = tuple((p, KHand(hands[p], h.size) if p in hands else h) for p, h in st.hands)
        step.set(hands=new_hands, excess=tuple(excess), hidden=hidden or st.hidden)
        if st.phase == "reveal" and all(h.complete for _, h in new_hands):
            self._resolve(step)

    # ---- scoring
    def _resolve(self, step: _Step) -> None:
        s = step.state
        closer = s.closer
        assert closer is not None
        table = self.table_total(s)
        totals = {p: sum(h.known) + sum(s.pile(p)) for p, h in s.hands}
        fits = {p: (t <= table if self.rules.close_compare == "le" else t < table) for p, t in totals.items()}
        opp = self.other(closer)
        winner: str | None
        if self.rules.closer_over_table == "opponent_scores" and not fits[closer]:
            winner, why = opp, "closer_over_table"
        elif not any(fits.values()):
            winner, why = None, "both_over"
        elif fits[closer] != fits[opp]:
            winner, why = (closer if fits[closer] else opp), "only_one_within"
        elif totals[closer] != totals[opp]:
            winner, why = max(totals, key=lambda p: totals[p]), "higher_total"
        else:
            winner, why = (opp if self.rules.tie == "closer_loses" else None), "tie"
        pts = self.rules.win_points if winner else 0
        step.say("khmer_close", player=closer, table=table)
        if winner:
            step.say("khmer_winner", winner=winner, total=totals[winner], table=table)
        elif why == "tie":  # both within the table, equal totals (tie: nobody)
            step.say("khmer_tie", total=totals[closer], table=table)
        else:
            step.say("khmer_nobody", table=table)
        step.results.append({
            "kind": "close", "deal": s.deal_no, "by": closer, "table": table, "totals": totals,
            "hands": {p: list(h.known) for p, h in s.hands},
            "piles": {p: list(r) for p, r in s.piles},
            "winner": winner, "reason": why, "points": {winner: pts} if winner else {},
        })
        self._score(step, winner, pts)

    def _score(self, step: _Step, winner: str | None, pts: int) -> None:
        s = step.state
        match = list(s.match)
        if winner is not None:
            match[self.players.index(winner)] += pts
        if self.rules.next_starter == "alternate":
            starter = self.other(s.starter)
        elif winner is not None:
            starter = winner
        elif self.rules.no_winner_starter == "same":
            starter = s.starter
        else:
            starter = self.other(s.starter)
        step.set(match=tuple(match), starter=starter, phase="deal_over")
        target = self.rules.match_target
        if self.rules.match_target is not None:
            step.say("match_score", score=", ".join(f"{p} {match[i]}" for i, p in enumerate(self.players)))
        if target is None:
            step.set(phase="over", winner=winner)
        elif max(match) >= target:
            champion = self.players[match.index(max(match))]
            step.set(phase="over", winner=champion)
            step.say("game_over", winner=champion)
