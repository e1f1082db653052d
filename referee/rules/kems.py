"""Kem's scoring (shared/rules/kems-fr.txt): points, not letters.

- "Kem's" by the partner of a holder -> +1 for the team; wrong -> +1 for the other team
  (3+ teams: every other team, option ``multi_team_points``);
- "Double Kem's" (caller and partner both hold four of a kind) -> +2; only the partner
  holds -> option ``double_kems_partial`` (wrong by default, or +1 as a plain Kem's);
- "Contre Kem's" said by the rivals first -> +1 for them if the accused team holds a Kem's,
  +2 if it holds two; names no player (the other team; with 3+ teams ``target`` names a
  player of the accused team);
- wrong "Contre Kem's" -> no points; the players of that team (``wrong_contre_shows``)
  show two cards each and the team may no longer say it (``contre_ban``: round/game).
Any scored call ends the round (manche); the dealer rotates. Optional ``target_score``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee import events as ev
from referee.rules.common import Illegal, RejectCode
from referee.rules.kemps import holds_kind, teammate_seats

if TYPE_CHECKING:
    from referee.rules.table import CallRecord, Step, TableGame, TableState


class KemsScoring:
    calls = frozenset({"kems", "double_kems", "contre_kems"})

    def accused(self, g: TableGame, s: TableState, call: ev.Call | CallRecord) -> int:
        team = g.team_of[call.by]
        if call.target is not None:
            if g.team_of[call.target] == team:
                raise Illegal(RejectCode.BAD_TARGET, f"contre_kems: {call.target} is on {call.by}'s team")
            return g.team_of[call.target]
        others = g.others(s, team)
        if len(others) != 1:
            raise Illegal(RejectCode.BAD_TARGET, "contre_kems: with 3+ teams, name a player of the accused team")
        return others[0]

    def seats(self, g: TableGame, s: TableState, call: ev.Call) -> tuple[str, ...]:
        team = g.team_of[call.by]
        if call.call == "contre_kems":
            if team in s.banned:
                raise Illegal(RejectCode.CALL_NOT_ALLOWED,
                              f"contre_kems: team {'+'.join(g.teams[team])} may no longer say Contre Kem's")
            return g.teams[self.accused(g, s, call)]
        seats = teammate_seats(g, s, call, call.call)
        if call.call == "double_kems" and seats:
            return (call.by,) + seats
        return seats

    def judge(self, g: TableGame, step: Step, call: CallRecord, scored: bool) -> str:
        s = step.state
        assert s.table is not None
        team = g.team_of[call.by]
        hands = {p: s.table.known_hand(p) for p in call.seats}
        holders = {p: r for p, h in hands.items() if (r := holds_kind(g, h))}
        points: list[tuple[int, int]] = []  # (team, points)
        effect = "hand_over"
        if call.call == "contre_kems":
            correct = bool(holders)
            if correct:
                points = [(team, len(holders))]
            else:
                effect = "show"
        else:
            mates = [p for p in call.seats if p != call.by]
            mate_holds = any(p in holders for p in mates)
            if call.call == "kems":
                correct, value = mate_holds, 1
            else:
                caller_holds = call.by in holders and call.target != call.by
                correct, value = mate_holds and caller_holds, 2
                if mate_holds and not caller_holds and g.rules.double_kems_partial == "downgrade":
                    correct, value = True, 1
            if correct:
                points = [(team, value)]
            else:
                others = g.others(s, team)
                if len(others) == 1 or g.rules.multi_team_points == "all_others":
                    points = [(t, 1) for t in others]
        result: dict[str, Any] = {
            "kind": "call", "hand": s.hand_no, **call.to_dict(), "team": list(g.teams[team]),
            "correct": correct, "scored": scored, "holders": holders, "points": [],
        }
        if not scored:
            return step.late_call(call, result)
        step.say("call_correct" if correct else "call_wrong", call=call.call, by=call.by)
        for t, n in points:
            scores = step.state.scores
            total = scores[t] + n
            step.set(scores=scores[:t] + (total,) + scores[t + 1 :])
            result["points"].append({"team": list(g.teams[t]), "points": n, "total": total})
            step.say("points", team=list(g.teams[t]), points=n, total=total)
        if not points:
            step.say("no_score")
        if effect == "show":
            shower = team if g.rules.wrong_contre_shows == "callers" else self.accused(g, s, call)
            players = tuple(p for p in g.teams[shower] if p in g.active_players(s))
            step.set(banned=tuple(sorted(set(s.banned) | {team})))
            result["show"] = {"players": list(players), "count": g.rules.show_count}
            if g.rules.show_count > 0:
                step.set(show_left=players)
                step.say("show_request", players=list(players), team=list(g.teams[team]),
                         count=g.rules.show_count)
            else:
                effect = "continue"
        step.results.append(result)
        self._check_end(g, step)
        return effect

    def _check_end(self, g: TableGame, step: Step) -> None:
        target = g.rules.target_score
        s = step.state
        if target is None or max(s.scores) < target:
            return
        best = max(s.scores)
        winners = tuple(i for i, v in enumerate(s.scores) if v == best)
        losers = tuple(i for i in range(len(g.teams)) if i not in winners)
        step.set(phase="over", winners=winners, losers=losers)
        step.say("game_over", winner=", ".join("+".join(g.teams[i]) for i in winners))

    def standings(self, g: TableGame, s: TableState) -> list[dict[str, Any]]:
        return [{"team": list(team), "points": s.scores[i]} for i, team in enumerate(g.teams)]
