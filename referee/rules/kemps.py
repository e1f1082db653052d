"""Kemps scoring (shared/rules/kemps-es.txt): letters of a penalty word.

Rows of the text and how each is judged (``judge``):
- correct Kemps call (a teammate of the caller holds four of a kind) -> the other team
  gets a letter (3+ teams: every other team, option ``correct_kemps_multi``);
- wrong Kemps call -> the calling team; a call on one's own hand is wrong (``self_call``);
- correct Cut (the named rival holds a Kemps) -> the named player's team; this is also the
  "Kemps held but cut first" row (``missed_kemps_extra_letter`` adds a second letter);
- wrong Cut -> the cutting team.
The first team to complete the word loses (``end_mode``); letters persist across hands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee import events as ev
from referee.rules import market as mk
from referee.rules.common import Illegal, RejectCode

if TYPE_CHECKING:
    from referee.rules.table import CallRecord, Step, TableGame, TableState


def holds_kind(g: TableGame, cards: tuple[str, ...] | None) -> list[str]:
    if cards is None:
        return []
    return mk.kinds(cards, g.rules.kind_size, g.rules.kind_any_suits)


def teammate_seats(g: TableGame, s: TableState, call: ev.Call, what: str) -> tuple[str, ...]:
    """Who must hold four of a kind for a partner call (Kemps, Kem's) to be right."""
    if call.target == call.by:
        if g.rules.self_call == "reject":
            raise Illegal(RejectCode.BAD_TARGET, f"{what}: {call.by} cannot call on their own hand")
        return ()
    if call.target is not None:
        if g.team_of[call.target] != g.team_of[call.by]:
            raise Illegal(RejectCode.BAD_TARGET,
                          f"{what}: {call.target} is not a teammate of {call.by}")
        return (call.target,)
    mates = tuple(p for p in g.teammates(call.by) if p in g.active_players(s))
    if len(mates) > 1 and g.rules.kemps_call_holder == "named":
        raise Illegal(RejectCode.BAD_TARGET, f"{what}: name the teammate who holds it")
    return mates


class KempsScoring:
    calls = frozenset({"kemps", "cut"})

    def seats(self, g: TableGame, s: TableState, call: ev.Call) -> tuple[str, ...]:
        if call.call == "kemps":
            return teammate_seats(g, s, call, "kemps")
        if not g.rules.cut_allowed:
            raise Illegal(RejectCode.CALL_NOT_ALLOWED, "cut: not allowed in the no-Cut variant")
        if call.target is None:
            raise Illegal(RejectCode.BAD_TARGET, "cut: name the player who holds the Kemps")
        if g.team_of[call.target] == g.team_of[call.by]:
            raise Illegal(RejectCode.BAD_TARGET, f"cut: {call.target} is on {call.by}'s own team")
        return (call.target,)

    def judge(self, g: TableGame, step: Step, call: CallRecord, scored: bool) -> str:
        s = step.state
        assert s.table is not None
        team = g.team_of[call.by]
        holders = {p: r for p in call.seats if (r := holds_kind(g, s.table.known_hand(p)))}
        correct = bool(holders)
        if call.call == "kemps":
            if correct:
                others = g.others(s, team)
                multi = len(g.active_teams(s)) > 2 and g.rules.correct_kemps_multi == "none"
                letter_teams = [] if multi else others
            else:
                letter_teams = [team]
        else:  # cut
            if correct:
                named = g.team_of[call.seats[0]]
                letter_teams = [named] * (2 if g.rules.missed_kemps_extra_letter else 1)
            else:
                letter_teams = [team]
        result: dict[str, Any] = {
            "kind": "call", "hand": s.hand_no, **call.to_dict(), "team": list(g.teams[team]),
            "correct": correct, "scored": scored,
            "holders": {p: r for p, r in holders.items()}, "letters": [],
        }
        if not scored:
            return step.late_call(call, result)
        step.say("call_correct" if correct else "call_wrong", call=call.call, by=call.by)
        for t in letter_teams:
            result["letters"].append(self._add_letter(g, step, t))
        step.results.append(result)
        self._check_end(g, step)
        return "hand_over"

    def _add_letter(self, g: TableGame, step: Step, team: int) -> dict[str, Any]:
        s = step.state
        word = g.rules.word
        n = min(s.scores[team] + 1, len(word))
        step.set(scores=s.scores[:team] + (n,) + s.scores[team + 1 :])
        step.say("letter", team=list(g.teams[team]), letters=word[:n])
        return {"team": list(g.teams[team]), "letter": word[n - 1], "letters": word[:n]}

    def _check_end(self, g: TableGame, step: Step) -> None:
        """The game ends exactly when a word is complete (or one team is left)."""
        s = step.state
        word = g.rules.word
        done = tuple(i for i in g.active_teams(s) if s.scores[i] >= len(word))
        if not done:
            return
        if g.rules.end_mode == "first_to_finish_loses":
            winners = tuple(i for i in g.active_teams(s) if i not in done)
            step.set(phase="over", losers=s.out + done, winners=winners)
        else:
            out = s.out + done
            step.set(out=out)
            for i in done:
                step.say("team_out", team=list(g.teams[i]), word=word)
            left = tuple(i for i in range(len(g.teams)) if i not in out)
            if len(left) <= 1:
                step.set(phase="over", winners=left, losers=out)
        if step.state.phase == "over":
            names = ["+".join(g.teams[i]) for i in step.state.winners]
            step.say("game_over", winner=", ".join(names) if names else None)

    def standings(self, g: TableGame, s: TableState) -> list[dict[str, Any]]:
        word = g.rules.word
        return [
            {"team": list(team), "letters": word[: s.scores[i]], "out": i in s.out or i in s.losers}
            for i, team in enumerate(g.teams)
        ]
