"""Khmer (khmer-es.txt): actions, legality, close resolution rows and match options."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.cards import KHMER_DECK
from referee.rules import RejectCode, new_game

from .helpers import header, play, points, rejected


def deal(n, s, **extra):
    rest = Counter(KHMER_DECK) - Counter(n) - Counter(s)
    return {"type": "deal", "hands": {"N": n, "S": s}, "hidden": sorted(rest.elements()), **extra}


def act(kind, player, card=None):
    e = {"type": kind, "player": player}
    if card is not None:
        e["card"] = card
    return e


def closes(results):
    return [r for r in results if r["kind"] in ("close", "fold")]


# Each scenario: N and S hands, actions, then S or N closes. (rules, winner, reason, totals, table)
SCENARIOS = [
    pytest.param({}, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6],
                 [act("play", "N", 6), act("play", "S", 6), act("play", "N", 5), act("play", "S", 5), act("close", "N")],
                 "S", "tie", {"N": 10, "S": 10}, 22, id="tie: the closer loses"),
    pytest.param({"tie": "nobody"}, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6],
                 [act("play", "N", 6), act("play", "S", 6), act("play", "N", 5), act("play", "S", 5), act("close", "N")],
                 None, "tie", {"N": 10, "S": 10}, 22, id="option: tie, nobody wins"),
    pytest.param({}, [6, 6, 6, 1, 2, 3], [1, 2, 4, 4, 5, 5],
                 [act("play", "N", 6), act("play", "S", 5), act("play", "N", 6), act("play", "S", 5),
                  act("discard", "N", 6), act("play", "S", 4), act("close", "N")],
                 "S", "higher_total", {"N": 6, "S": 7}, 26, id="higher total within the table"),
    pytest.param({}, [5, 5, 4, 4, 3, 3], [6, 6, 6, 1, 1, 2],
                 [act("play", "N", 3), act("play", "S", 6), act("play", "N", 3), act("play", "S", 6), act("close", "N")],
                 "N", "higher_total", {"N": 18, "S": 10}, 18, id="total equal to the table wins (le)"),
    pytest.param({"variant": "strict_less"}, [5, 5, 4, 4, 3, 3], [6, 6, 6, 1, 1, 2],
                 [act("play", "N", 3), act("play", "S", 6), act("play", "N", 3), act("play", "S", 6), act("close", "N")],
                 "S", "only_one_within", {"N": 18, "S": 10}, 18, id="option lt: equal to the table loses"),
    pytest.param({}, [1, 2, 3, 6, 6, 5], [1, 2, 4, 6, 6, 4],
                 [act("play", "N", 6), act("play", "S", 4), act("steal", "N"), act("steal", "S"),
                  act("play", "N", 5), act("discard", "S"), act("play", "N", 3), act("play", "S", 4), act("close", "N")],
                 None, "both_over", {"N": 13, "S": 15}, 12, id="both over: nobody (piles count)"),
    pytest.param({"variant": "closer_over_table"}, [1, 2, 3, 6, 6, 5], [1, 2, 4, 6, 6, 4],
                 [act("play", "N", 6), act("play", "S", 4), act("steal", "N"), act("steal", "S"),
                  act("play", "N", 5), act("discard", "S"), act("play", "N", 3), act("play", "S", 4), act("close", "N")],
                 "S", "closer_over_table", {"N": 13, "S": 15}, 12, id="variant: closer over gives the win"),
    pytest.param({}, [6, 6, 5, 4, 4, 3], [6, 6, 5, 1, 2, 3],
                 [act("play", "N", 6), act("steal", "S"), act("play", "N", 6), act("play", "S", 6),
                  act("steal", "N"), act("play", "S", 6), act("play", "N", 4), act("play", "S", 5),
                  act("play", "N", 4), act("close", "S")],
                 "N", "higher_total", {"N": 14, "S": 12}, 25, id="stolen cards count for the stealer"),
]


@pytest.mark.parametrize("rules,n,s,actions,winner,reason,totals,table", SCENARIOS)
@pytest.mark.parametrize("hidden", [False, True], ids=["known", "revealed"])
def test_close_rows(rules, n, s, actions, winner, reason, totals, table, hidden):
    d = deal(n, s)
    if hidden:
        d = {"type": "deal"}
    game, state, results, _ = play(header("khmer", rules), [d] + actions)
    if hidden:
        aw = game.awaiting(state)
        assert aw is not None and {k: aw[k] for k in ("kind", "seats", "reason")} == {"kind": "reveal", "seats": ["N", "S"], "reason": "close"}
        hands = {"N": list(n), "S": list(s)}
        for a in actions:
            if a["type"] in ("play", "discard"):
                hands[a["player"]].remove(a.get("card", 6))
        assert aw["sizes"] == {p: len(h) for p, h in hands.items()}  # the camera waits for whole hands
        r = game.apply(state, {"type": "reveal", "hands": hands})
        state, results = r.state, results + r.results
    (c,) = closes(results)
    assert (c["winner"], c["reason"], c["totals"], c["table"]) == (winner, reason, totals, table)
    expected = {"N": 0, "S": 0}
    if winner:
        expected[winner] = 2
    assert points(game, state) == expected


def test_fold_and_match_to_six_and_last_winner_starts():
    n, s = [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]
    game, state, results, _ = play(header("khmer"), [
        deal(n, s), act("fold", "N"),            # S +1, S starts next
        deal(n, s), act("fold", "S"),            # N +1, N starts
        deal(n, s), act("play", "N", 6), act("play", "S", 6), act("play", "N", 5), act("play", "S", 5),
        act("close", "N"),                       # tie: S +2 (3), S starts
        deal(n, s), act("play", "S", 6), act("play", "N", 6), act("play", "S", 5), act("play", "N", 5),
        act("close", "S"),                       # tie: N +2 (3), N starts
        deal(n, s), act("fold", "N"),            # S 4
        deal(n, s), act("play", "S", 6), act("play", "N", 1), act("play", "S", 5),
        act("close", "N"),                       # N 20 over 12, S 10: S 6 -> match over
    ])
    assert [c.get("winner") for c in closes(results)] == ["S", "N", "S", "N", "S", "S"]
    assert points(game, state) == {"N": 3, "S": 6}
    assert game.is_finished(state) and game.outcome(state) == {"winner": "S"}
    assert rejected(game, state, deal(n, s)).code == RejectCode.GAME_OVER


@pytest.mark.parametrize("rules,starters", [({}, ["N", "S", "S"]), ({"variant": "alternate_start"}, ["N", "S", "N"]),
                                            ({"no_winner_starter": "alternate"}, ["N", "S", "N"])])
def test_who_starts(rules, starters):
    game = new_game(header("khmer", rules))
    state = game.initial_state()
    seen = []
    d1 = deal([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    state = game.apply(state, d1).state
    seen.append(state.turn)
    state = game.apply(state, act("fold", "N")).state  # S scores
    state = game.apply(state, {"type": "deal"}).state
    seen.append(state.turn)
    state = game.apply(state, act("close", state.turn)).state
    hands_over = {"type": "reveal", "hands": {"N": [6, 6, 6, 6, 6, 6], "S": [6, 6, 5, 5, 4, 4]}}
    r = game.apply(state, hands_over)  # 36 vs 30 on an empty table: nobody
    assert r.results[-1]["winner"] is None, r.results
    state = game.apply(r.state, {"type": "deal"}).state
    seen.append(state.turn)
    assert seen == starters


def _started(rules=None, n=(1, 2, 3, 4, 5, 6), s=(1, 2, 3, 4, 5, 6)):
    game, state, _, _ = play(header("khmer", rules or {}), [deal(list(n), list(s))])
    return game, state


@pytest.mark.parametrize("events,code", [
    ([act("play", "S", 3)], RejectCode.NOT_YOUR_TURN),
    ([act("play", "X", 3)], RejectCode.UNKNOWN_PLAYER),
    ([act("steal", "N")], RejectCode.EMPTY_ROW),
    ([act("discard", "N", 5)], RejectCode.ILLEGAL_CARD),
    ([act("play", "N", 6), act("discard", "S", 5)], RejectCode.ILLEGAL_CARD),
    ([act("play", "N", 6), act("steal", "S", 5)], RejectCode.ILLEGAL_CARD),
    ([act("play", "N", 6), act("play", "S", 6), act("play", "N", 6)], RejectCode.NOT_IN_HAND),
    ([{"type": "deal"}], RejectCode.WRONG_PHASE),
    ([{"type": "swap", "give": "2C", "take": "3C"}], RejectCode.WRONG_GAME),
    ([{"type": "call", "call": "kemps", "by": "N"}], RejectCode.WRONG_GAME),
    ([{"type": "new_hand"}], RejectCode.WRONG_PHASE),
])
def test_illegal_actions(events, code):
    game, state = _started()
    for e in events[:-1]:
        state = game.apply(state, e).state
    assert rejected(game, state, events[-1]).code == code


def test_pile_cards_cannot_be_stolen():
    game, state = _started()
    for e in [act("play", "N", 6), act("steal", "S")]:
        state = game.apply(state, e).state
    assert state.row("N") == () and state.pile("S") == (6,)
    assert rejected(game, state, act("steal", "N")).code == RejectCode.EMPTY_ROW


@pytest.mark.parametrize("rules,allowed", [({}, True), ({"steal_from": "last_play"}, False)])
def test_steal_row_top_or_last_play_only(rules, allowed):
    game, state = _started(rules)
    for e in [act("play", "N", 5), act("play", "S", 5), act("play", "N", 4), act("steal", "S", 4),
              act("discard", "N")]:
        state = game.apply(state, e).state
    # N's row top is the 5 it played three turns ago; N's last action was a discard
    assert state.row("N") == (5,) and state.turn == "S"
    r = game.apply(state, act("steal", "S"))
    assert r.ok is allowed
    if not allowed:
        assert r.code == RejectCode.ILLEGAL_CARD


def test_fold_only_in_a_match():
    game, state = _started({"variant": "single_deal"})
    assert rejected(game, state, act("fold", "N")).code == RejectCode.CALL_NOT_ALLOWED


def test_bad_deals():
    game = new_game(header("khmer"))
    s = game.initial_state()
    too_many_ones = {"type": "deal", "hands": {"N": [1, 1, 1, 2, 3, 4], "S": [2, 3, 4, 5, 5, 6]}}
    assert rejected(game, s, too_many_ones).code == RejectCode.IMPOSSIBLE_CARDS
    assert rejected(game, s, {"type": "deal", "hands": {"N": [1, 2, 3]}}).code == RejectCode.BAD_EVENT
    assert rejected(game, s, {"type": "deal", "market": ["2C", "3C", "4C", "5C"]}).code == RejectCode.BAD_EVENT
    assert rejected(game, s, {"type": "deal", "hidden": [6, 6]}).code == RejectCode.BAD_EVENT
    assert rejected(game, s, {"type": "deal", "hands": {"N": ["7H", 1, 2, 3, 4, 5]}}).code == RejectCode.ILLEGAL_CARD
    g2, s2 = _started()
    s2 = g2.apply(s2, act("fold", "N")).state
    assert rejected(g2, s2, {"type": "deal", "first": "N"}).code == RejectCode.BAD_EVENT
    assert g2.apply(s2, {"type": "deal", "first": "S"}).ok
    with pytest.raises(ValueError, match="exactly 2"):
        new_game({"game": "khmer", "players": ["N", "E", "S"]})


def test_hidden_hands_are_checked_against_counts():
    game, state, _, _ = play(header("khmer"), [
        {"type": "deal"}, act("play", "N", 6), act("play", "S", 6), act("discard", "N"), act("discard", "S"),
        act("play", "N", 6), act("play", "S", 6),
    ])
    # all six 6s are seen: a seventh is an anomaly
    r = game.apply(state, act("play", "N", 6))
    assert [x["kind"] for x in r.results] == ["anomaly"]
    strict = new_game(header("khmer", {"deck_anomaly": "reject"}))
    s = strict.initial_state()
    for e in [{"type": "deal"}, act("play", "N", 6), act("play", "S", 6), act("discard", "N"), act("discard", "S"),
              act("play", "N", 6), act("play", "S", 6)]:
        s = strict.apply(s, e).state
    assert rejected(strict, s, act("play", "N", 6)).code == RejectCode.DECK_ANOMALY
    # close waits for the reveal; a reveal with the wrong number of cards is refused
    s = game.apply(state, act("close", "N")).state
    assert s.phase == "reveal"
    assert rejected(game, s, {"type": "reveal", "hands": {"N": [1, 2]}}).code == RejectCode.BAD_EVENT
    r = game.apply(s, {"type": "reveal", "hands": {"N": [1, 1, 2]}})
    assert r.state.phase == "reveal" and game.awaiting(r.state)["seats"] == ["S"]
    r2 = game.apply(r.state, {"type": "reveal", "hands": {"S": [1, 2, 3]}})
    kinds = [x["kind"] for x in r2.results]
    assert kinds == ["anomaly", "close"]  # a third 1
    assert r2.results[1]["table"] == 24


def test_known_hands_close_resolves_at_once_and_view():
    game, state = _started()
    state = game.apply(state, act("play", "N", 3)).state
    v = game.view(state)
    assert v["rows"] == {"N": [3], "S": []} and v["turn"] == "S" and v["table_total"] == 3
    assert v["hands"]["N"]["size"] == 5 and v["match"] == {"N": 0, "S": 0}
    r = game.apply(state, act("close", "S"))
    assert r.results[-1]["winner"] is None  # 18 and 21 over a table of 3
    assert game.awaiting(r.state) == {"kind": "deal", "first": "N"}


def test_a_correction_renames_a_row_card_without_taking_a_turn():
    # hands unknown (the camera's game): N's 4 was a misread 1
    game, state, _, _ = play(header("khmer"), [{"type": "deal"}, act("play", "N", "4S"), act("play", "S", 2)])
    r = game.apply(state, {"type": "correct", "player": "N", "was": "4S", "now": "AS"})
    assert r.state.row("N") == (1,) and r.state.turn == "N"
    assert [a.key for a in r.announcements] == ["row_corrected"]
    # another suit of the same value changes nothing the rules see
    same = game.apply(r.state, {"type": "correct", "player": "N", "was": "AS", "now": "AC"})
    assert same.state.row("N") == (1,) and same.announcements == []
    assert rejected(game, state, {"type": "correct", "player": "N", "was": "5S", "now": "AS"}).code == RejectCode.ILLEGAL_CARD
    assert rejected(game, state, {"type": "correct", "was": "4S", "now": "AS"}).code == RejectCode.UNKNOWN_PLAYER


def test_a_correction_gives_a_known_hand_back_the_card_it_did_not_play():
    game, state = _started(n=(1, 2, 3, 4, 5, 6))
    state = game.apply(state, act("play", "N", 4)).state
    assert sorted(state.hand("N").known) == [1, 2, 3, 5, 6]
    state = game.apply(state, {"type": "correct", "player": "N", "was": "4S", "now": "3S"}).state
    assert state.row("N") == (3,) and sorted(state.hand("N").known) == [1, 2, 4, 5, 6]
    # a known hand cannot have played a card it never held: N's 1, 2, 4, 5, 6 hold no second 3
    s2 = game.apply(state, act("play", "S", 1)).state
    s2 = game.apply(s2, act("play", "N", 6)).state
    assert rejected(game, s2, {"type": "correct", "player": "N", "was": "6S", "now": "3S"}).code == RejectCode.NOT_IN_HAND
