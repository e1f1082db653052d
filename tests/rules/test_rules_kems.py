"""Kem's (kems-fr.txt): every scoring row, the deal redraw and every option, table-driven."""

from __future__ import annotations

import pytest

from referee.rules import RejectCode, new_game

from .helpers import calls, header, play, points, rejected

NR = {"deal_redraw": False}  # rows are tested on dealt four-of-a-kinds
HANDS = {"N": ["7H", "7S", "7C", "7D"], "E": ["AC", "AD", "AH", "AS"],
         "S": ["KC", "KD", "KH", "KS"], "W": ["2C", "3C", "4C", "5C"]}
DEAL = {"type": "deal", "hands": HANDS, "market": ["9C", "9D", "9H", "10S"]}
NONE_EW = dict(HANDS, E=["AC", "AD", "2H", "2S"])
DEAL_NONE_EW = {"type": "deal", "hands": NONE_EW, "market": ["9C", "9D", "9H", "10S"]}
HIDDEN = {"type": "deal", "market": ["9C", "9D", "9H", "10S"]}


def call(kind, by, target=None):
    e = {"type": "call", "call": kind, "by": by}
    if target:
        e["target"] = target
    return e


ROWS = [
    pytest.param(call("kems", "S"), {}, {"N+S": 1, "E+W": 0}, True, id="kems: +1"),
    pytest.param(call("kems", "N"), {}, {"N+S": 1, "E+W": 0}, True, id="kems by N"),
    pytest.param(call("kems", "W"), {}, {"N+S": 0, "E+W": 1}, True, id="kems by W"),
    pytest.param(call("kems", "E"), {}, {"N+S": 1, "E+W": 0}, False, id="wrong kems: +1 other team"),
    pytest.param(call("kems", "N", "N"), {}, {"N+S": 0, "E+W": 1}, False, id="kems on own hand: wrong"),
    pytest.param(call("double_kems", "N"), {}, {"N+S": 2, "E+W": 0}, True, id="double kems: +2"),
    pytest.param(call("double_kems", "E"), {}, {"N+S": 1, "E+W": 0}, False, id="double kems, partner none"),
    pytest.param(call("double_kems", "W"), {}, {"N+S": 1, "E+W": 0}, False, id="double kems, caller none"),
    pytest.param(call("double_kems", "W"), {"double_kems_partial": "downgrade"}, {"N+S": 0, "E+W": 1}, True,
                 id="option: partial double kems scores 1"),
    pytest.param(call("contre_kems", "E"), {}, {"N+S": 0, "E+W": 2}, True, id="contre kems on two kems: +2"),
    pytest.param(call("contre_kems", "N"), {}, {"N+S": 1, "E+W": 0}, True, id="contre kems on one kems: +1"),
]


@pytest.mark.parametrize("hidden", [False, True], ids=["hands known", "hands revealed"])
@pytest.mark.parametrize("event,rules,expected,correct", ROWS)
def test_point_rows(event, rules, expected, correct, hidden):
    game, state, results, _ = play(header("kems", NR | rules), [HIDDEN if hidden else DEAL, event])
    if hidden and state.phase == "reveal":
        seats = game.awaiting(state)["seats"]
        r = game.apply(state, {"type": "reveal", "hands": {p: HANDS[p] for p in seats}})
        state, results = r.state, results + r.results
    (c,) = calls(results)
    assert (c["correct"], c["scored"]) == (correct, True)
    assert points(game, state) == expected
    assert state.phase == "hand_over"


@pytest.mark.parametrize("rules,showers", [({}, ["N", "S"]), ({"variant": "accused_show"}, ["E", "W"])])
def test_wrong_contre_kems_shows_two_cards_and_bans(rules, showers):
    game, state, results, said = play(header("kems", NR | rules), [DEAL_NONE_EW, call("contre_kems", "N")])
    (c,) = calls(results)
    assert c["correct"] is False and c["points"] == [] and c["show"]["players"] == showers
    assert points(game, state) == {"N+S": 0, "E+W": 0}
    assert game.awaiting(state) == {"kind": "show", "players": showers, "count": 2}
    assert "show_request" in said
    assert rejected(game, state, {"type": "swap", "player": "N", "give": "7H", "take": "9C"}).code \
        == RejectCode.WRONG_PHASE
    other = "E" if showers[0] == "N" else "N"
    assert rejected(game, state, {"type": "show", "player": other, "cards": HANDS[other][:2]}).code \
        == RejectCode.BAD_TARGET
    hands = NONE_EW
    first = {"type": "show", "player": showers[0], "cards": hands[showers[0]][:3]}
    assert rejected(game, state, first).code == RejectCode.BAD_EVENT
    bogus = {"type": "show", "player": showers[0], "cards": ["QD", "QH"]}
    assert rejected(game, state, bogus).code == RejectCode.NOT_IN_HAND
    for p in showers:
        state = game.apply(state, {"type": "show", "player": p, "cards": hands[p][:2]}).state
    assert state.phase == "play"
    # the erring team may no longer say Contre Kem's this round; the others still can
    assert rejected(game, state, call("contre_kems", "S")).code == RejectCode.CALL_NOT_ALLOWED
    assert game.apply(state, call("kems", "S")).ok
    assert game.view(state)["banned_contre"] == [["N", "S"]]


@pytest.mark.parametrize("rules,banned_after", [({}, False), ({"contre_ban": "game"}, True)])
def test_contre_ban_round_or_game(rules, banned_after):
    game, state, _, _ = play(header("kems", NR | rules), [
        DEAL_NONE_EW, call("contre_kems", "N"),
        {"type": "show", "player": "N", "cards": ["7H", "7S"]},
        {"type": "show", "player": "S", "cards": ["KC", "KD"]},
        call("kems", "N"), {"type": "new_hand"}, DEAL,
    ])
    r = game.apply(state, call("contre_kems", "N"))
    assert (r.code == RejectCode.CALL_NOT_ALLOWED) if banned_after else r.ok


def test_wrong_contre_with_hidden_hands_needs_the_accused_hands_then_show():
    game, state, _, _ = play(header("kems", NR), [HIDDEN, call("contre_kems", "N")])
    assert game.awaiting(state) == {"kind": "reveal", "seats": ["E", "W"], "reason": "contre_kems"}
    r = game.apply(state, {"type": "reveal", "hands": {"E": NONE_EW["E"], "W": NONE_EW["W"]}})
    assert game.awaiting(r.state) == {"kind": "show", "players": ["N", "S"], "count": 2}
    s = game.apply(r.state, {"type": "show", "player": "N", "cards": ["7H", "2D"]}).state
    assert s.table.hand("N").known == ("2D", "7H")


def test_redraw_for_three_or_four_identical_cards():
    game, state, _, said = play(header("kems"), [DEAL])
    assert game.awaiting(state) == {"kind": "redraw", "players": ["N", "E", "S"]}
    assert "redraw_request" in said and "hunt_open" not in said
    assert rejected(game, state, {"type": "swap", "player": "W", "give": "2C", "take": "9C"}).code \
        == RejectCode.WRONG_PHASE
    assert rejected(game, state, call("kems", "S")).code == RejectCode.WRONG_PHASE
    assert rejected(game, state, {"type": "redraw", "player": "W", "shown": ["2C", "3C", "4C"]}).code \
        == RejectCode.WRONG_PHASE
    assert rejected(game, state, {"type": "redraw", "player": "N", "shown": ["7H", "7S"]}).code \
        == RejectCode.BAD_EVENT
    assert rejected(game, state, {"type": "redraw", "player": "N", "shown": ["7H", "7S", "2C"]}).code \
        == RejectCode.BAD_EVENT
    steps = [
        {"type": "redraw", "player": "N", "shown": ["7H", "7S", "7C", "7D"], "drawn": ["6C", "6D", "8C", "8D"]},
        {"type": "redraw", "player": "E", "shown": ["AC", "AD", "AH", "AS"], "drawn": ["QC", "QD", "6H", "8H"]},
        # S draws three jacks: a new redraw is due
        {"type": "redraw", "player": "S", "shown": ["KC", "KD", "KH", "KS"], "drawn": ["JD", "JH", "JS", "10C"]},
    ]
    for e in steps:
        state = game.apply(state, e).state
    assert game.awaiting(state) == {"kind": "redraw", "players": ["S"]}
    r = game.apply(state, {"type": "redraw", "player": "S", "shown": ["JD", "JH", "JS"], "drawn": ["QS", "10H", "2D"]})
    assert r.state.phase == "play" and [a.key for a in r.announcements][-1] == "hunt_open"
    t = r.state.table
    assert set(t.reserve_known) >= {"7H", "AS", "KS", "JS"}
    from referee.rules.market import conservation_errors
    assert not conservation_errors(t)
    # a card put back under the stock cannot be drawn straight away
    assert r.state.table.hand("S").known == ("10C", "QS", "10H", "2D")


def test_redraw_with_hidden_hands_only_during_the_deal():
    game, state, _, _ = play(header("kems"), [HIDDEN])
    s = game.apply(state, {"type": "redraw", "player": "N", "shown": ["5C", "5D", "5H"]}).state
    assert s.table.hand("N").known == () and s.table.reserve_known == ("5C", "5D", "5H")
    s = game.apply(s, {"type": "swap", "player": "E", "give": "AS", "take": "9C"}).state
    assert rejected(game, s, {"type": "redraw", "player": "W", "shown": ["4C", "4D", "4H"]}).code \
        == RejectCode.WRONG_PHASE
    assert rejected(new_game(header("kems", NR)), play(header("kems", NR), [HIDDEN])[1],
                    {"type": "redraw", "player": "N", "shown": ["5C", "5D", "5H"]}).code == RejectCode.WRONG_GAME


def test_target_score_ends_the_game():
    game = new_game(header("kems", NR | {"variant": "to_5"}))
    state = game.initial_state()
    for i in range(3):
        if i:
            state = game.apply(state, {"type": "new_hand"}).state
        state = game.apply(state, DEAL).state
        state = game.apply(state, call("double_kems", "N")).state
    assert points(game, state) == {"N+S": 6, "E+W": 0}
    assert game.is_finished(state) and game.outcome(state)["winners"] == [["N", "S"]]
    open_ended = new_game(header("kems", NR))
    s = open_ended.initial_state()
    for i in range(6):
        if i:
            s = open_ended.apply(s, {"type": "new_hand"}).state
        s = open_ended.apply(open_ended.apply(s, DEAL).state, call("double_kems", "N")).state
    assert not open_ended.is_finished(s) and points(open_ended, s)["N+S"] == 12


SIX = {"players": ["A", "B", "C", "D", "E", "F"], "teams": [["A", "D"], ["B", "E"], ["C", "F"]]}
SIX_HANDS = {"A": ["7H", "7S", "7C", "7D"], "B": ["2C", "3C", "4C", "5C"], "C": ["2D", "3D", "4D", "5D"],
             "D": ["8C", "8D", "8H", "6S"], "E": ["JC", "JD", "QC", "QD"], "F": ["KC", "KD", "KH", "KS"]}
SIX_DEAL = {"type": "deal", "hands": SIX_HANDS, "market": ["9C", "9D", "9H", "10S"]}


@pytest.mark.parametrize("rules,expected", [
    ({}, {"A+D": 0, "B+E": 1, "C+F": 1}),
    ({"multi_team_points": "none"}, {"A+D": 0, "B+E": 0, "C+F": 0}),
])
def test_wrong_kems_with_three_teams(rules, expected):
    game, state, _, _ = play({"game": "kems", "rules": NR | rules, **SIX}, [SIX_DEAL, call("kems", "A")])
    assert points(game, state) == expected


def test_contre_with_three_teams_names_the_accused():
    game, state, _, _ = play({"game": "kems", "rules": NR, **SIX}, [SIX_DEAL])
    assert rejected(game, state, call("contre_kems", "A")).code == RejectCode.BAD_TARGET
    assert rejected(game, state, call("contre_kems", "A", "D")).code == RejectCode.BAD_TARGET
    _, s, results, _ = play({"game": "kems", "rules": NR, **SIX}, [SIX_DEAL, call("contre_kems", "A", "C")])
    assert calls(results)[0]["correct"] and calls(results)[0]["holders"] == {"F": ["K"]}


def test_kemps_calls_are_not_kems_calls():
    game, state, _, _ = play(header("kems", NR), [DEAL])
    assert rejected(game, state, call("kemps", "S")).code == RejectCode.CALL_NOT_ALLOWED
    assert rejected(game, state, call("cut", "S", "E")).code == RejectCode.CALL_NOT_ALLOWED


def test_wrong_contre_during_a_reset_returns_to_the_reset():
    game, state, _, _ = play(header("kems", NR), [
        DEAL_NONE_EW, {"type": "stale"}, call("contre_kems", "N"),
        {"type": "show", "player": "N", "cards": ["7H", "7S"]},
        {"type": "show", "player": "S", "cards": ["KC", "KD"]},
    ])
    assert game.awaiting(state) == {"kind": "reset", "dealer": "N"}
    assert game.apply(state, {"type": "reset", "market": ["QC", "QD", "QH", "QS"]}).ok
