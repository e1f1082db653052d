"""The shared flow of the market games (Kemps, Kem's): deal, swaps, stale market, calls,
reveals, new hands. Scoring lives in ``kemps.py`` / ``kems.py`` (a ``Scoring`` each).

A ``TableGame`` is a pure reducer: ``apply(state, event)`` returns ``Applied`` with a new
``TableState`` or ``Rejected``; it never mutates its input, reads no clock and no file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from referee import events as ev
from referee.rules import market as mk
from referee.rules.common import Applied, Illegal, Reducer, Rejected, RejectCode
from referee.rules.common import Step as BaseStep
from referee.rules.config import Rules

LIVE = ("play", "reset")  # a hand in progress, calls allowed


@dataclass(frozen=True)
class CallRecord:
    call: str
    by: str
    target: str | None
    seats: tuple[str, ...]  # hands needed to judge it

    def to_dict(self) -> dict[str, Any]:
        d = {"call": self.call, "by": self.by}
        if self.target:
            d["target"] = self.target
        return d


@dataclass(frozen=True)
class TableState:
    phase: str = "deal"  # deal | play | reset | reveal | show | redraw | hand_over | over
    hand_no: int = 0
    dealer: str = ""
    table: mk.Table | None = None
    scores: tuple[int, ...] = ()  # per team: letters (Kemps) or points (Kem's)
    out: tuple[int, ...] = ()  # teams out of play (Kemps, last team standing)
    pending: tuple[CallRecord, ...] = ()  # calls waiting for a reveal
    judged: int = 0  # calls already judged in this hand's reveal
    # Players whose call was judged in this reveal: with `all_judged` each player's first call
    # is scored and a repeat is only logged (else "cut N" said four times scored four letters).
    callers: tuple[str, ...] = ()
    banned: tuple[int, ...] = ()  # Kem's: teams that may not say Contre Kem's
    show_left: tuple[str, ...] = ()  # Kem's: players who still have to show cards
    redraw_left: tuple[str, ...] = ()  # Kem's: players who must redraw
    swapped: bool = False  # any swap in this hand (the redraw window is the deal)
    ended: bool = False  # a judged call ended this hand
    results: tuple[dict[str, Any], ...] = ()
    winners: tuple[int, ...] = ()
    losers: tuple[int, ...] = ()
    events: int = 0


@dataclass
class Step(BaseStep):
    """One ``apply`` of Kemps/Kem's: the shared collector plus deck anomalies."""

    state: TableState

    def late_call(self, call: CallRecord, result: dict[str, Any]) -> str:
        """Log a call made after the first one of this reveal: recorded, never scored."""
        table = self.state.table
        if table is not None and any(table.known_hand(p) is None for p in call.seats):
            result["correct"] = None  # a late call on hands nobody showed: not judged
        self.results.append(result)
        self.say("call_late", call=call.call, by=call.by)
        return "continue"

    def anomalies(self, items: list[mk.Anomaly]) -> None:
        for a in items:
            res = a.to_result() | {"hand": self.state.hand_no}
            self.results.append(res)
            self.say("anomaly", detail=a.detail)


class Scoring(Protocol):
    calls: frozenset[str]

    def seats(self, g: TableGame, s: TableState, call: ev.Call) -> tuple[str, ...]: ...

    def judge(self, g: TableGame, step: Step, call: CallRecord, scored: bool) -> str:
        """Judge ``call`` on the known hands, record the result; return the effect:
        ``"hand_over"``, ``"show"`` or ``"continue"``."""
        ...

    def standings(self, g: TableGame, s: TableState) -> list[dict[str, Any]]: ...


class TableGame(Reducer):
    """Kemps or Kem's, chosen by ``scoring``."""

    step_type = Step

    def __init__(self, name: str, header: dict[str, Any], rules: Rules, players: tuple[str, ...],
                 teams: tuple[tuple[str, ...], ...], deck: tuple[str, ...], scoring: Scoring) -> None:
        self.name = name
        self.header = header
        self.rules = rules
        self.players = players
        self.teams = teams
        self.team_of = {p: i for i, team in enumerate(teams) for p in team}
        self.deck = deck
        self.scoring = scoring
        self.first_dealer = header.get("dealer") or players[0]

    # ---------------------------------------------------------------- queries
    def initial_state(self) -> TableState:
        return TableState(dealer=self.first_dealer, scores=tuple(0 for _ in self.teams))

    def active_players(self, s: TableState) -> tuple[str, ...]:
        return tuple(p for p in self.players if self.team_of[p] not in s.out)

    def active_teams(self, s: TableState) -> list[int]:
        return [i for i in range(len(self.teams)) if i not in s.out]

    def standings(self, state: TableState) -> list[dict[str, Any]]:
        return self.scoring.standings(self, state)

    def awaiting(self, s: TableState) -> dict[str, Any] | None:
        if s.phase == "over":
            return None
        if s.phase == "deal":
            return {"kind": "deal", "dealer": s.dealer}
        if s.phase == "hand_over":
            return {"kind": "deal", "dealer": self._next_dealer(s)}
        if s.phase == "reset":
            return {"kind": "reset", "dealer": s.dealer}
        if s.phase == "reveal":
            seats = sorted({p for c in s.pending for p in c.seats}, key=self.players.index)
            return {"kind": "reveal", "seats": seats, "reason": s.pending[0].call}
        if s.phase == "show":
            return {"kind": "show", "players": list(s.show_left), "count": self.rules.show_count}
        if s.phase == "redraw":
            return {"kind": "redraw", "players": list(s.redraw_left)}
        return None

    def outcome(self, s: TableState) -> dict[str, Any] | None:
        if s.phase != "over":
            return None
        return {"winners": [list(self.teams[i]) for i in s.winners],
                "losers": [list(self.teams[i]) for i in s.losers]}

    def view(self, s: TableState) -> dict[str, Any]:
        t = s.table
        known: dict[str, Any] = {}
        if t is not None:
            known = {p: {"known": list(h.known), "size": h.size} for p, h in t.hands}
        return {
            "game": self.name,
            "phase": s.phase,
            "hand": s.hand_no,
            "dealer": s.dealer,
            "players": list(self.players),
            "teams": [list(team) for team in self.teams],
            "market": list(t.market) if t else [],
            "reserve": t.reserve_size if t else 0,
            "discard": len(t.discard) if t else 0,
            "discard_cards": list(t.discard) if t else [],
            "reshuffles": t.reshuffles if t else 0,
            "hands": known,
            "standings": self.standings(s),
            "awaiting": self.awaiting(s),
            "banned_contre": [list(self.teams[i]) for i in s.banned],
            "last_results": list(s.results[-5:]),
            "finished": s.phase == "over",
            "outcome": self.outcome(s),
            "anomalies": sum(1 for r in s.results if r.get("kind") == "anomaly"),
        }

    # ---------------------------------------------------------------- reducer
    def _dispatch(self, step: Step, e: ev.GameEvent) -> None:
        s = step.state
        if s.phase == "over" and not isinstance(e, ev.Reveal):
            raise Illegal(RejectCode.GAME_OVER, "the game is over")
        handler = {
            ev.Deal: self._deal, ev.Swap: self._swap, ev.Correct: self._correct, ev.Stale: self._stale, ev.Reset: self._reset,
            ev.Call: self._call, ev.Reveal: self._reveal, ev.NewHand: self._new_hand,
            ev.Show: self._show, ev.Redraw: self._redraw,
        }.get(type(e))
        if handler is None:
            raise Illegal(RejectCode.WRONG_GAME, f"{e.type} is not an event of {self.name}")
        handler(step, e)

    def _need_phase(self, s: TableState, phases: tuple[str, ...], what: str) -> None:
        if s.phase not in phases:
            waiting = self.awaiting(s)
            why = f", waiting for {waiting['kind']}" if waiting else ""
            raise Illegal(RejectCode.WRONG_PHASE, f"{what} not allowed now (phase {s.phase}{why})")

    def _player(self, s: TableState, p: str | None, what: str) -> None:
        if p is not None and p not in self.active_players(s):
            known = "is out of the game" if p in self.players else "is not a player"
            raise Illegal(RejectCode.UNKNOWN_PLAYER, f"{what}: {p!r} {known}")

    # ---- deal / new hand
    def _next_dealer(self, s: TableState) -> str:
        if self.rules.dealer == "fixed" and s.dealer in self.active_players(s):
            return s.dealer
        order = self.players
        i = order.index(s.dealer)
        for k in range(1, len(order) + 1):
            cand = order[(i + k) % len(order)]
            if self.team_of[cand] not in s.out:
                return cand
        return s.dealer

    def _new_hand(self, step: Step, e: ev.GameEvent) -> None:
        s = step.state
        if s.phase == "deal":
            raise Illegal(RejectCode.WRONG_PHASE, "new_hand: no hand has been dealt yet")
        if s.phase != "hand_over":
            step.say("hand_abandoned")
        dealer = self._next_dealer(s)
        banned = s.banned if self.rules.get("contre_ban") == "game" else ()
        step.set(phase="deal", table=None, pending=(), judged=0, callers=(), show_left=(), redraw_left=(),
                 swapped=False, dealer=dealer, banned=banned, ended=False)
        step.say("new_hand", dealer=dealer)

    def _deal(self, step: Step, e: ev.Deal) -> None:
        if step.state.phase == "hand_over":
            self._new_hand(step, e)
        s = step.state
        self._need_phase(s, ("deal",), "deal")
        if e.market is None:
            raise Illegal(RejectCode.BAD_EVENT, "deal: the market (4 cards) is required")
        if e.hidden is not None or e.first is not None:
            raise Illegal(RejectCode.BAD_EVENT, "deal: hidden/first are Khmer fields")
        hands = self._card_hands(e.hands or {}, "deal")
        players = self.active_players(s)
        table = mk.deal(self.deck, players, self.rules.hand_size, e.market, hands)
        step.set(phase="play", table=table, hand_no=s.hand_no + 1, pending=(), judged=0, callers=(),
                 swapped=False, ended=False)
        step.say("deal", hand=s.hand_no + 1, dealer=s.dealer)
        self._after_deal(step)

    def _after_deal(self, step: Step) -> None:
        """Kem's: who must redraw; then open the hunt."""
        if not self.rules.get("deal_redraw"):
            if self.name == "kems":
                step.say("hunt_open")
            return
        t = step.state.table
        assert t is not None
        need, waived = self._redraws_due(t, t.players)
        if waived:
            step.say("redraw_waived", players=list(waived))
        if need:
            step.set(phase="redraw", redraw_left=need)
            step.say("redraw_request", players=list(need))
        else:
            step.set(phase="play", redraw_left=())
            step.say("hunt_open")

    def _redraws_due(self, t: mk.Table, players: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Of ``players`` whose known hand holds ``redraw_min`` identical cards: those whose
        redraw the stock can supply, and those whose redraw it cannot (waived). The text ("en
        piocher respectivement trois ou quatre autres") does not say what happens when the
        stock has too few unseen cards (12 players with one 52-card deck leave none at all);
        house rule: that redraw is waived and the player keeps the hand, rather than the game
        waiting for a redraw nobody can make.
        With several redraws due, each one drawn may use up what a later one needed."""
        due, waived = [], []
        for p in players:
            h = t.hand(p)
            if not h.complete:
                continue
            counts = [sum(1 for c in h.known if c[:-1] == r)
                      for r in mk.kinds(h.known, self.rules.redraw_min, True)]
            if counts:
                (due if min(counts) <= mk.stock_unseen(t) else waived).append(p)
        return tuple(due), tuple(waived)

    def _card_hands(self, hands: dict[str, tuple[Any, ...]], what: str) -> dict[str, tuple[str, ...]]:
        for p, cards in hands.items():
            if any(not isinstance(c, str) for c in cards):
                raise Illegal(RejectCode.BAD_EVENT, f"{what}: {p}'s cards must be cards like '7H'")
        return {p: tuple(cards) for p, cards in hands.items()}

    # ---- market
    def _swap(self, step: Step, e: ev.Swap) -> None:
        s = step.state
        self._need_phase(s, ("play",), "swap")
        self._player(s, e.player, "swap")
        assert s.table is not None
        table, anomalies = mk.swap(s.table, e.player, e.give, e.take, self.rules.deck_anomaly)
        step.set(table=table, swapped=True)
        step.anomalies(anomalies)

    def _correct(self, step: Step, e: ev.Correct) -> None:
        s = step.state
        self._need_phase(s, ("play", "redraw", "reveal", "reset"), "correct")
        assert s.table is not None
        table, anomalies = mk.correct(s.table, e.was, e.now, self.rules.deck_anomaly)
        step.set(table=table)  # not a swap: `swapped` (Kem's redraw window) stays as it was
        step.say("market_corrected", was=e.was, now=e.now)
        step.anomalies(anomalies)

    def _stale(self, step: Step, e: ev.Stale) -> None:
        s = step.state
        self._need_phase(s, ("play",), "stale")
        assert s.table is not None
        step.set(table=mk.stale(s.table), phase="reset", swapped=True)
        step.say("stale")

    def _reset(self, step: Step, e: ev.Reset) -> None:
        s = step.state
        self._need_phase(s, ("reset",), "reset")
        assert s.table is not None
        table, anomalies, reshuffled = mk.reset(s.table, e.market, self.rules.deck_anomaly)
        if reshuffled:
            step.say("reshuffle")
        step.set(table=table, phase="play")
        step.anomalies(anomalies)

    # ---- Kem's deal redraw and show
    def _redraw(self, step: Step, e: ev.Redraw) -> None:
        s = step.state
        if not self.rules.get("deal_redraw"):
            raise Illegal(RejectCode.WRONG_GAME, f"redraw is not a rule of this {self.name} game")
        if s.phase == "play" and s.swapped:
            raise Illegal(RejectCode.WRONG_PHASE, "redraw: only during the deal, before any exchange")
        self._need_phase(s, ("play", "redraw"), "redraw")
        self._player(s, e.player, "redraw")
        if s.phase == "redraw" and e.player not in s.redraw_left:
            raise Illegal(RejectCode.WRONG_PHASE, f"redraw: waiting for {', '.join(s.redraw_left)}")
        ranks = {c[:-1] for c in e.shown}
        if len(ranks) != 1 or len(e.shown) < self.rules.redraw_min:
            raise Illegal(RejectCode.BAD_EVENT,
                          f"redraw: shows {' '.join(e.shown)}, needs {self.rules.redraw_min}+ identical cards")
        assert s.table is not None
        # the text: three or four identical cards are shown and put back, "respectivement
        # trois ou quatre": a known hand must show every card of that rank it holds
        held = s.table.hand(e.player)
        rank = next(iter(ranks))
        same = [c for c in held.known if c[:-1] == rank]
        if held.complete and len(same) > len(e.shown):
            raise Illegal(RejectCode.BAD_EVENT,
                          f"redraw: {e.player} holds {' '.join(same)}: show all {len(same)} and draw as many")
        table, anomalies = mk.redraw(s.table, e.player, e.shown, e.drawn, self.rules.deck_anomaly)
        step.set(table=table)
        step.anomalies(anomalies)
        step.say("redrawn", player=e.player, cards=list(e.shown))
        # this redraw used up stock: whoever it can no longer serve is waived too
        waiting = tuple(p for p in s.redraw_left if p != e.player) + (e.player,)
        left, waived = self._redraws_due(table, waiting)
        if waived:
            step.say("redraw_waived", players=list(waived))
        if left:
            step.set(phase="redraw", redraw_left=left)
        else:
            step.set(phase="play", redraw_left=())
            if s.phase == "redraw":
                step.say("hunt_open")

    def _show(self, step: Step, e: ev.Show) -> None:
        s = step.state
        self._need_phase(s, ("show",), "show")
        if e.player not in s.show_left:
            raise Illegal(RejectCode.BAD_TARGET, f"show: waiting for {', '.join(s.show_left)} to show")
        if len(e.cards) != self.rules.show_count:
            raise Illegal(RejectCode.BAD_EVENT, f"show: {self.rules.show_count} cards each, got {len(e.cards)}")
        assert s.table is not None
        table, anomalies = mk.show(s.table, e.player, e.cards, self.rules.deck_anomaly)
        left = tuple(p for p in s.show_left if p != e.player)
        after = "play" if table.market else "reset"  # the call may have come during a reset
        step.set(table=table, show_left=left, phase="show" if left else after)
        step.anomalies(anomalies)
        step.say("shown", player=e.player, cards=list(e.cards))

    # ---- calls
    def _call(self, step: Step, e: ev.Call) -> None:
        s = step.state
        if e.call not in self.scoring.calls:
            raise Illegal(RejectCode.CALL_NOT_ALLOWED,
                          f"{e.call} is not a call of {self.name} ({', '.join(sorted(self.scoring.calls))})")
        self._need_phase(s, LIVE + ("reveal", "hand_over"), f"call {e.call}")
        if s.phase == "hand_over" and not s.judged:
            raise Illegal(RejectCode.WRONG_PHASE, f"call {e.call}: the hand is over, deal again")
        self._player(s, e.by, f"call {e.call}")
        self._player(s, e.target, f"call {e.call} target")
        seats = self.scoring.seats(self, s, e)
        record = CallRecord(e.call, e.by, e.target, seats)
        first_only = self.rules.simultaneous_calls == "first_judged"
        if s.phase == "hand_over" and (first_only or e.by in s.callers):
            self._judge_one(step, record, scored=False)
            return
        if s.phase == "reveal":
            step.set(pending=s.pending + (record,))
        else:
            step.set(pending=(record,), phase="reveal")
            if s.phase in LIVE:
                step.set(judged=0, callers=())
        if not self._try_resolve(step):
            seats = list(self.awaiting(step.state)["seats"])
            step.say("reveal_request", call=e.call, by=e.by, seats=seats)

    def _try_resolve(self, step: Step) -> bool:
        """Judge the pending calls if every hand they need is known."""
        s = step.state
        assert s.table is not None
        if any(s.table.known_hand(p) is None for c in s.pending for p in c.seats):
            return False
        effects = []
        first_only = self.rules.simultaneous_calls == "first_judged"
        for call in s.pending:
            scored = (
                not (first_only and step.state.judged > 0)
                and call.by not in step.state.callers
                and step.state.phase != "over"
            )
            effects.append(self._judge_one(step, call, scored))
        if step.state.phase == "over":
            step.set(pending=())
            return True
        ended = step.state.ended or "hand_over" in effects
        if ended:
            phase = "hand_over"
        elif "show" in effects:
            phase = "show"
        else:
            phase = "play" if step.state.table and step.state.table.market else "reset"
        step.set(pending=(), phase=phase, ended=ended)
        return True

    def _judge_one(self, step: Step, call: CallRecord, scored: bool) -> str:
        effect = self.scoring.judge(self, step, call, scored)
        step.set(judged=step.state.judged + 1, callers=(*step.state.callers, call.by))
        return effect

    def _reveal(self, step: Step, e: ev.Reveal) -> None:
        s = step.state
        if s.table is None:
            raise Illegal(RejectCode.WRONG_PHASE, "reveal: no hand has been dealt")
        if e.hidden is not None:
            raise Illegal(RejectCode.BAD_EVENT, "reveal: hidden is a Khmer field")
        for p in e.hands:
            if not s.table.has_player(p):
                raise Illegal(RejectCode.UNKNOWN_PLAYER, f"reveal: {p!r} has no hand")
        hands = self._card_hands(dict(e.hands), "reveal")
        table, anomalies = mk.reveal(s.table, hands, self.rules.deck_anomaly)
        step.set(table=table)
        step.anomalies(anomalies)
        if s.phase == "reveal":
            self._try_resolve(step)
            if step.state.phase == "reveal":
                step.say("reveal_request", call=s.pending[0].call, by=s.pending[0].by,
                         seats=list(self.awaiting(step.state)["seats"]))

    # ---- helpers for scorings
    def others(self, s: TableState, team: int) -> list[int]:
        return [i for i in self.active_teams(s) if i != team]

    def teammates(self, player: str) -> tuple[str, ...]:
        return tuple(p for p in self.teams[self.team_of[player]] if p != player)
