"""Kemps (kemps-es.txt): every letter row of the text and every variant, table-driven."""

from __future__ import annotations

import pytest

from referee.rules import RejectCode, new_game

from .helpers import calls, header, letters, play, rejected

HANDS = {
    "N": ["7H", "7S", "7C", "7D"],  # Kemps
    "E": ["AC", "AD", "AH", "2S"],  # three aces
    "S": ["KC", "KD", "QS", "JH"],
    "W": ["3C", "3D", "3H", "3S"],  # Kemps
}
DEAL = {"type": "deal", "hands": HANDS, "market": ["9C", "9D", "9H", "10S"]}
HIDDEN_DEAL = {"type": "deal", "market": ["9C", "9D", "9H", "10S"]}


def call(kind, by, target=None):
    e = {"type": "call", "call": kind, "by": by}
    if target:
        e["target"] = target
    return e


# (call, rules, expected letters, correct) — the scoring rows of the Spanish text.
ROWS = [
    pytest.param(call("kemps", "S"), {}, {"N+S": "", "E+W": "K"}, True, id="correct kemps: other team"),
    pytest.param(call("kemps", "N"), {}, {"N+S": "K", "E+W": ""}, False, id="wrong kemps: calling team"),
    pytest.param(call("kemps", "E"), {}, {"N+S": "K", "E+W": ""}, True, id="correct kemps by E"),
    pytest.param(call("kemps", "S", "N"), {}, {"N+S": "", "E+W": "K"}, True, id="kemps naming partner"),
    pytest.param(call("cut", "E", "N"), {}, {"N+S": "K", "E+W": ""}, True, id="correct cut: named team"),
    pytest.param(call("cut", "E", "S"), {}, {"N+S": "", "E+W": "K"}, False, id="wrong cut: cutting team"),
    pytest.param(call("cut", "N", "W"), {}, {"N+S": "", "E+W": "K"}, True, id="kemps held but cut first"),
    pytest.param(call("cut", "N", "E"), {}, {"N+S": "K", "E+W": ""}, False, id="cut on three of a kind"),
    pytest.param(call("kemps", "N", "N"), {}, {"N+S": "K", "E+W": ""}, False, id="self call is wrong"),
    pytest.param(call("cut", "E", "N"), {"missed_kemps_extra_letter": True}, {"N+S": "KE", "E+W": ""},
                 True, id="option: extra letter for the missed kemps"),
    pytest.param(call("kemps", "E"), {"word": "cash"}, {"N+S": "C", "E+W": ""}, True, id="word CASH"),
]


@pytest.mark.parametrize("hidden", [False, True], ids=["hands known", "hands revealed"])
@pytest.mark.parametrize("event,rules,expected,correct", ROWS)
def test_letter_rows(event, rules, expected, correct, hidden):
    events = [HIDDEN_DEAL if hidden else DEAL, event]
    game, state, results, _ = play(header("kemps", rules), events)
    if hidden and game.awaiting(state) and game.awaiting(state)["kind"] == "reveal":
        seats = game.awaiting(state)["seats"]
        r = game.apply(state, {"type": "reveal", "hands": {p: HANDS[p] for p in seats}})
        state, results = r.state, results + r.results
    (c,) = calls(results)
    assert c["correct"] is correct and c["scored"]
    assert letters(game, state) == expected
    assert state.phase == "hand_over"
    assert game.awaiting(state) == {"kind": "deal", "dealer": "E"}


@pytest.mark.parametrize("event,rules,code", [
    (call("kemps", "S", "E"), {}, RejectCode.BAD_TARGET),
    (call("cut", "N", "S"), {}, RejectCode.BAD_TARGET),
    (call("cut", "N", "N"), {}, RejectCode.BAD_TARGET),
    (call("cut", "N"), {}, RejectCode.BAD_TARGET),
    (call("cut", "E", "N"), {"variant": "no_cut"}, RejectCode.CALL_NOT_ALLOWED),
    (call("kemps", "X"), {}, RejectCode.UNKNOWN_PLAYER),
    (call("cut", "N", "Z"), {}, RejectCode.UNKNOWN_PLAYER),
    (call("kems", "N"), {}, RejectCode.CALL_NOT_ALLOWED),
    (call("kemps", "N", "N"), {"self_call": "reject"}, RejectCode.BAD_TARGET),
    ({"type": "swap", "player": "N", "give": "2C", "take": "9C"}, {}, RejectCode.NOT_IN_HAND),
    ({"type": "swap", "player": "N", "give": "7H", "take": "2C"}, {}, RejectCode.NOT_IN_MARKET),
    ({"type": "swap", "player": "Q", "give": "7H", "take": "9C"}, {}, RejectCode.UNKNOWN_PLAYER),
    ({"type": "reset", "market": ["2C", "3C", "4C", "5C"]}, {}, RejectCode.WRONG_PHASE),
    ({"type": "play", "player": "N", "card": 3}, {}, RejectCode.WRONG_GAME),
    ({"type": "deal", "market": ["2C", "3C", "4C", "5C"]}, {}, RejectCode.WRONG_PHASE),
    ({"type": "show", "player": "N", "cards": ["7H", "7S"]}, {}, RejectCode.WRONG_PHASE),
    ({"type": "redraw", "player": "N", "shown": ["7H", "7S", "7C"]}, {}, RejectCode.WRONG_GAME),
])
def test_illegal_events_change_nothing(event, rules, code):
    game, state, _, _ = play(header("kemps", rules), [DEAL])
    before = game.view(state)
    r = rejected(game, state, event)
    assert r.code == code
    assert game.view(state) == before
    # the state is untouched: the game goes on as if the event never happened
    assert game.apply(state, call("kemps", "S")).ok


def test_bad_deals_rejected():
    game = new_game(header("kemps"))
    s = game.initial_state()
    assert rejected(game, s, {"type": "deal", "market": ["2C", "3C", "4C"]}).code == RejectCode.BAD_EVENT
    dup = {"type": "deal", "market": ["2C", "3C", "4C", "2C"]}
    assert rejected(game, s, dup).code == RejectCode.IMPOSSIBLE_CARDS
    short = {"type": "deal", "market": ["2C", "3C", "4C", "5C"], "hands": {"N": ["7H", "7S"]}}
    assert rejected(game, s, short).code == RejectCode.BAD_EVENT
    assert rejected(game, s, {"type": "stale"}).code == RejectCode.WRONG_PHASE
    assert rejected(game, s, call("kemps", "S")).code == RejectCode.WRONG_PHASE
    assert rejected(game, s, {"type": "new_hand"}).code == RejectCode.WRONG_PHASE


@pytest.mark.parametrize("word", ["KEMPS", "CUT", "CASH", "AB"])
def test_game_ends_exactly_when_the_word_is_complete(word):
    game = new_game(header("kemps", {"word": word}))
    state = game.initial_state()
    for i in range(len(word)):
        assert not game.is_finished(state)
        for e in ([{"type": "new_hand"}] if i else []) + [DEAL, call("kemps", "N")]:
            state = game.apply(state, e).state
        assert letters(game, state)["N+S"] == word[: i + 1]
    assert game.is_finished(state)
    assert game.outcome(state) == {"winners": [["E", "W"]], "losers": [["N", "S"]]}
    assert rejected(game, state, {"type": "new_hand"}).code == RejectCode.GAME_OVER


def test_variants_in_yaml_work():
    assert letters(*play(header("kemps", {"variant": "cut"}), [DEAL, call("kemps", "N")])[:2])["N+S"] == "C"


def test_three_card_variant():
    hands = dict(HANDS, S=["KC", "KD", "KH", "JH"])
    deal = {"type": "deal", "hands": hands, "market": ["9C", "9D", "9H", "10S"]}
    for rules, correct in [({}, False), ({"variant": "three_card"}, True)]:
        _, _, results, _ = play(header("kemps", rules), [deal, call("kemps", "N")])
        assert calls(results)[0]["correct"] is correct


def test_five_card_deal():
    hands = {p: cs + [extra] for (p, cs), extra in zip(HANDS.items(), ["2C", "2D", "2H", "4S"])}
    deal5 = {"type": "deal", "hands": hands, "market": ["9C", "9D", "9H", "10S"]}
    game, state, results, _ = play(header("kemps", {"variant": "five_card_deal"}), [deal5, call("kemps", "S")])
    assert calls(results)[0]["correct"] and letters(game, state)["E+W"] == "K"
    assert rejected(new_game(header("kemps", {"hand_size": 5})), new_game(header("kemps")).initial_state(),
                    DEAL).code == RejectCode.BAD_EVENT
    game = new_game(header("kemps", {"hand_size": 5}))
    s = game.apply(game.initial_state(), deal5).state
    assert s.table.hand("N").size == 5


EIGHT = {"players": ["A", "B", "C", "D", "E", "F", "G", "H"],
         "teams": [["A", "E"], ["B", "F"], ["C", "G"], ["D", "H"]]}


def test_two_decks_for_eight_players_and_mixed_kinds():
    hands = {"A": ["7H", "7H", "7S", "7S"], "B": ["2C", "3C", "4C", "5C"], "C": ["2D", "3D", "4D", "5D"],
             "D": ["2H", "3H", "4H", "5H"], "E": ["AC", "AD", "AH", "AS"], "F": ["8C", "8D", "9C", "9D"],
             "G": ["JC", "JD", "QC", "QD"], "H": ["KC", "KD", "KH", "KS"]}
    deal = {"type": "deal", "hands": hands, "market": ["6C", "6D", "6H", "6S"]}
    game = new_game({"game": "kemps", **EIGHT})
    assert len(game.deck) == 104
    for rules, correct in [({}, True), ({"kind_any_suits": False}, False)]:
        _, _, results, _ = play({"game": "kemps", "rules": rules, **EIGHT}, [deal, call("kemps", "E")])
        assert calls(results)[0]["correct"] is correct
    one_deck = new_game({"game": "kemps", "rules": {"variant": "one_deck"}, **EIGHT})
    assert rejected(one_deck, one_deck.initial_state(), deal).code == RejectCode.IMPOSSIBLE_CARDS


def test_piquet_deck():
    game = new_game(header("kemps", {"variant": "piquet"}))
    assert len(game.deck) == 32
    r = rejected(game, game.initial_state(), DEAL)
    assert r.code == RejectCode.IMPOSSIBLE_CARDS and "not in this deck" in r.reason
    ok = {"type": "deal", "hands": {"N": ["7H", "7S", "7C", "7D"], "E": ["AC", "AD", "AH", "8S"],
                                   "S": ["KC", "KD", "QS", "JH"], "W": ["10C", "10D", "10H", "10S"]},
          "market": ["9C", "9D", "9H", "8C"]}
    _, state, _, _ = play(header("kemps", {"variant": "piquet"}), [ok])
    assert state.table.reserve_size == 32 - 16 - 4


@pytest.mark.parametrize("players,teams,ok", [
    (["N", "E", "S", "W"], [["N", "S"], ["E", "W"]], True),
    (["N", "S", "E", "W"], [["N", "S"], ["E", "W"]], False),
    (["N", "E", "S", "W"], [["N", "W"], ["E", "S"]], False),
    (["A", "B", "C", "D", "E", "F"], [["A", "D"], ["B", "E"], ["C", "F"]], True),
    (["A", "B", "C", "D", "E", "F"], [["A", "C", "E"], ["B", "D", "F"]], True),
    (["A", "B", "C", "D", "E", "F"], [["A", "F"], ["B", "D"], ["C", "E"]], False),
])
def test_seating_check(players, teams, ok):
    hdr = {"game": "kemps", "players": players, "teams": teams}
    if ok:
        new_game(hdr)
    else:
        with pytest.raises(ValueError, match="side by side"):
            new_game(hdr)
        new_game(dict(hdr, rules={"seating": "off"}))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
def test_default_teams_seat_partners_apart(n):
    """Pairs facing at an even table, threes spread around one of 9; nothing for 7 (no even
    split) or fewer than 4. Every team the referee accepts: nobody beside a partner."""
    from referee.rules.engine import default_teams

    players = [f"P{i + 1}" for i in range(n)]
    teams = default_teams(players)
    if n < 4 or (n % 2 and n % 3):
        assert teams is None
        return
    size = 2 if n % 2 == 0 else 3
    assert sorted(p for t in teams for p in t) == sorted(players) and {len(t) for t in teams} == {size}
    new_game({"game": "kems", "players": players, "teams": teams})  # seating checked; Kem's allows 4-12


@pytest.mark.parametrize("hdr,msg", [
    ({"game": "kemps", "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]], "rules": {"bogus": 1}}, "bogus"),
    ({"game": "kemps", "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E"]]}, "exactly one team"),
    ({"game": "kemps", "players": ["N", "E"], "teams": [["N"], ["E"]]}, "players"),
    ({"game": "poker", "players": ["N", "E"]}, "game"),
    ({"game": "kemps", "players": ["N", "N", "S", "W"], "teams": [["N", "S"], ["N", "W"]]}, "unique"),
    ({"game": "kemps", "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]], "colour": 1}, "colour"),
    ({"game": "kemps", "players": list("ABCDEFGHIJ"), "teams": [list("AF"), list("BG"), list("CH"), list("DI"), list("EJ")],
      "rules": {"decks": 1, "hand_size": 5}}, "do not fit"),
])
def test_bad_headers(hdr, msg):
    with pytest.raises(ValueError, match=msg):
        new_game(hdr)


SIX = {"players": ["A", "B", "C", "D", "E", "F"], "teams": [["A", "D"], ["B", "E"], ["C", "F"]]}
SIX_HANDS = {"A": ["7H", "7S", "7C", "7D"], "B": ["2C", "3C", "4C", "5C"], "C": ["2D", "3D", "4D", "5D"],
             "D": ["8C", "8D", "8H", "8S"], "E": ["JC", "JD", "QC", "QD"], "F": ["KC", "KD", "KH", "QS"]}
SIX_DEAL = {"type": "deal", "hands": SIX_HANDS, "market": ["9C", "9D", "9H", "10S"]}


@pytest.mark.parametrize("rules,expected", [
    ({}, {"A+D": "", "B+E": "K", "C+F": "K"}),
    ({"correct_kemps_multi": "none"}, {"A+D": "", "B+E": "", "C+F": ""}),
])
def test_correct_kemps_with_three_teams(rules, expected):
    game, state, _, _ = play({"game": "kemps", "rules": rules, **SIX}, [SIX_DEAL, call("kemps", "A")])
    assert letters(game, state) == expected


def _race(rules, rounds):
    """B's team calls a wrong Kemps `rounds` times."""
    game = new_game({"game": "kemps", "rules": rules, **SIX})
    state = game.initial_state()
    for i in range(rounds):
        if game.is_finished(state):
            break
        deal = SIX_DEAL if not state.out else {"type": "deal", "market": ["9C", "9D", "9H", "10S"]}
        state = game.apply(state, deal).state
        state = game.apply(state, call("kemps", "B")).state
    return game, state


def test_end_mode_first_to_finish_loses():
    game, state = _race({"word": "CUT"}, 3)
    assert game.is_finished(state)
    assert game.outcome(state) == {"winners": [["A", "D"], ["C", "F"]], "losers": [["B", "E"]]}


def test_end_mode_last_team_standing():
    game, state = _race({"word": "CUT", "end_mode": "last_team_standing"}, 3)
    assert not game.is_finished(state) and state.out == (1,)
    # B's team is out: its players no longer call, deal or hold cards
    assert rejected(game, state, SIX_DEAL).code == RejectCode.UNKNOWN_PLAYER
    state = game.apply(state, {"type": "deal", "market": ["9C", "9D", "9H", "10S"]}).state
    assert state.table.players == ("A", "C", "D", "F")
    assert rejected(game, state, call("kemps", "B")).code == RejectCode.UNKNOWN_PLAYER
    for _ in range(3):  # A's team: three wrong cuts
        state = game.apply(state, call("cut", "A", "C")).state
        r = game.apply(state, {"type": "reveal", "hands": {"C": ["2D", "3D", "4D", "5D"]}})
        state = r.state
        if game.is_finished(state):
            break
        state = game.apply(state, {"type": "deal", "market": ["9C", "9D", "9H", "10S"]}).state
    assert game.is_finished(state)
    assert game.outcome(state)["winners"] == [["C", "F"]]
    assert letters(game, state) == {"A+D": "CUT", "B+E": "CUT", "C+F": ""}


def test_teams_of_three_any_teammate_or_named():
    three = {"players": ["A", "B", "C", "D", "E", "F"], "teams": [["A", "C", "E"], ["B", "D", "F"]]}
    hands = dict(SIX_HANDS)
    deal = {"type": "deal", "hands": hands, "market": ["9C", "9D", "9H", "10S"]}
    # E holds nothing, A holds sevens: E's call is right through A
    _, _, results, _ = play({"game": "kemps", **three}, [deal, call("kemps", "E")])
    assert calls(results)[0]["correct"] and calls(results)[0]["holders"] == {"A": ["7"]}
    named = {"game": "kemps", "rules": {"kemps_call_holder": "named"}, **three}
    game, state, _, _ = play(named, [deal])
    assert rejected(game, state, call("kemps", "E")).code == RejectCode.BAD_TARGET
    _, _, results, _ = play(named, [deal, call("kemps", "E", "C")])
    assert calls(results)[0]["correct"] is False


def _hidden_calls(rules):
    game, state, results, _ = play(header("kemps", rules), [HIDDEN_DEAL, call("kemps", "S"), call("kemps", "E")])
    assert state.phase == "reveal"
    assert game.awaiting(state) == {"kind": "reveal", "seats": ["N", "W"], "reason": "kemps"}
    assert rejected(game, state, {"type": "swap", "give": "2C", "take": "9C"}).code == RejectCode.WRONG_PHASE
    r = game.apply(state, {"type": "reveal", "hands": {"N": HANDS["N"]}})
    assert r.state.phase == "reveal" and not calls(r.results)
    r = game.apply(r.state, {"type": "reveal", "hands": {"W": HANDS["W"]}})
    return game, r.state, calls(r.results)


def test_simultaneous_calls_first_judged():
    game, state, cs = _hidden_calls({})
    assert [(c["call"], c["correct"], c["scored"]) for c in cs] == [("kemps", True, True), ("kemps", True, False)]
    assert letters(game, state) == {"N+S": "", "E+W": "K"}


def test_simultaneous_calls_all_judged():
    game, state, cs = _hidden_calls({"simultaneous_calls": "all_judged"})
    assert [(c["by"], c["scored"]) for c in cs] == [("S", True), ("E", True)]
    assert letters(game, state) == {"N+S": "K", "E+W": "K"}


def test_all_judged_scores_each_player_once_per_reveal():
    # Found by a rules audit (7 Dec): with all_judged every call after the hand was over was
    # scored, so "cut N" said four times gave N+S four letters.
    events = [DEAL, call("kemps", "S"), *[call("cut", "E", "N")] * 4]
    game, state, results, said = play(header("kemps", {"simultaneous_calls": "all_judged"}), events)
    assert [(c["by"], c["scored"]) for c in calls(results)] == [("S", True), ("E", True), *[("E", False)] * 3]
    assert letters(game, state) == {"N+S": "K", "E+W": "K"} and "call_late" in said


def test_all_judged_the_same_call_twice_in_one_reveal_scores_once():
    rules = {"simultaneous_calls": "all_judged"}
    game, state, _, _ = play(header("kemps", rules), [HIDDEN_DEAL, call("kemps", "S"), call("kemps", "S")])
    assert state.phase == "reveal"
    r = game.apply(state, {"type": "reveal", "hands": {"N": HANDS["N"]}})
    assert [(c["by"], c["scored"]) for c in calls(r.results)] == [("S", True), ("S", False)]
    assert letters(game, r.state) == {"N+S": "", "E+W": "K"}


def test_late_call_after_the_hand_is_logged_not_scored():
    game, state, results, said = play(header("kemps"), [DEAL, call("kemps", "S"), call("cut", "S", "W")])
    assert [c["scored"] for c in calls(results)] == [True, False]
    assert "call_late" in said and letters(game, state) == {"N+S": "", "E+W": "K"}


@pytest.mark.parametrize("rules,dealers", [({}, ["N", "E", "S", "W", "N"]), ({"dealer": "fixed"}, ["N"] * 5)])
def test_dealer(rules, dealers):
    game = new_game(header("kemps", rules))
    state = game.initial_state()
    seen = []
    for _ in range(5):
        state = game.apply(state, HIDDEN_DEAL).state
        seen.append(state.dealer)
        state = game.apply(state, {"type": "new_hand"}).state
    assert seen == dealers


def test_header_dealer():
    game, state, _, _ = play(header("kemps", dealer="S"), [DEAL])
    assert state.dealer == "S"


def test_late_call_on_unrevealed_hands_is_not_judged():
    game, state, results, _ = play(header("kemps"), [
        HIDDEN_DEAL, call("kemps", "S"), {"type": "reveal", "hands": {"N": HANDS["N"]}}, call("cut", "N", "W"),
    ])
    assert [(c["correct"], c["scored"]) for c in calls(results)] == [(True, True), (None, False)]
