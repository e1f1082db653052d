"""Audit of the rules engines against the rule texts: each test here failed before its fix."""

from __future__ import annotations

import pytest

from referee.rules import RejectCode, new_game
from referee.rules.config import load_rules

from .helpers import FOUR, header, play, rejected

KEMS_HANDS = {"N": ["7H", "7S", "7C", "7D"], "E": ["2C", "3C", "4C", "5C"],
              "S": ["KC", "KD", "QS", "JH"], "W": ["2D", "3D", "4D", "5D"]}
KEMS_DEAL = {"type": "deal", "hands": KEMS_HANDS, "market": ["9C", "9D", "9H", "10S"]}


# ---- headers: a malformed header is a ValueError naming the problem, never a TypeError
@pytest.mark.parametrize("hdr,msg", [
    ({"game": "kemps", "players": ["N", "E", "S", "W"], "teams": [["N", 1], ["E", "W"]]}, "player names"),
    ({"game": "kemps", **FOUR, "rules": {"variant": 5}}, "variant must be a name"),
    ({"game": "kemps", **FOUR, "rules": {"variant": [["cut"]]}}, "variant must be a name"),
    ({"game": "kemps", **FOUR, "rules": {"team_sizes": ["two"]}}, "positive integers"),
    # a 3-card hand can never hold a 4-card Kemps: every call would be silently wrong
    ({"game": "kemps", **FOUR, "rules": {"hand_size": 3}}, "kind_size"),
])
def test_bad_headers_are_value_errors(hdr, msg):
    with pytest.raises(ValueError, match=msg):
        new_game(hdr)


def test_three_card_hands_work_with_the_three_card_kemps():
    game = new_game({"game": "kemps", **FOUR, "rules": {"hand_size": 3, "variant": "three_card"}})
    assert game.rules.kind_size == 3
    assert load_rules("kemps", {"variant": ["cut", "no_cut"]}).word == "CUT"


# ---- events: an event whose "type" is not even a string is rejected, not a crash
@pytest.mark.parametrize("game", ["kemps", "kems", "khmer"])
@pytest.mark.parametrize("kind", [["deal"], {"deal": 1}])
def test_unhashable_event_type_is_rejected(game, kind):
    g = new_game(header(game))
    r = rejected(g, g.initial_state(), {"type": kind})
    assert r.code == RejectCode.BAD_EVENT and "unknown event type" in r.reason


# ---- Kem's deal: "trois ou quatre cartes identiques ... en piocher respectivement trois ou
# quatre autres": four identical cards dealt are all shown and put back, not three of them
def test_redraw_of_four_identical_cards_must_show_all_four():
    game, state, _, _ = play(header("kems"), [KEMS_DEAL])
    assert game.awaiting(state) == {"kind": "redraw", "players": ["N"]}
    r = rejected(game, state, {"type": "redraw", "player": "N", "shown": ["7H", "7S", "7C"],
                               "drawn": ["8C", "9S", "10C"]})
    assert r.code == RejectCode.BAD_EVENT and "show all 4" in r.reason
    ok = game.apply(state, {"type": "redraw", "player": "N", "shown": ["7H", "7S", "7C", "7D"],
                            "drawn": ["8C", "9S", "10C", "JC"]})
    assert ok.ok and ok.state.phase == "play"
    assert ok.state.table.hand("N").known == ("8C", "9S", "10C", "JC")


def test_redraw_of_three_identical_cards_still_shows_three():
    hands = dict(KEMS_HANDS, N=["7H", "7S", "7C", "2H"])
    game, state, _, _ = play(header("kems"), [dict(KEMS_DEAL, hands=hands)])
    r = game.apply(state, {"type": "redraw", "player": "N", "shown": ["7H", "7S", "7C"],
                           "drawn": ["8C", "9S", "10C"]})
    assert r.ok and r.state.table.hand("N").known == ("2H", "8C", "9S", "10C")


# ---- Khmer announcements say what the rules scored
def _khmer_deal(n, s):
    from collections import Counter

    from referee.cards import KHMER_DECK

    rest = Counter(KHMER_DECK) - Counter(n) - Counter(s)
    return {"type": "deal", "hands": {"N": n, "S": s}, "hidden": sorted(rest.elements())}


def _texts(game, state, event):
    r = game.apply(state, event)
    assert r.ok, getattr(r, "reason", "")
    return r.state, {a.key: a.text["en"] for a in r.announcements}


def test_a_fold_announces_the_configured_points():
    game = new_game(header("khmer", {"fold_points": 2}))
    state, _ = _texts(game, game.initial_state(), _khmer_deal([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]))
    _, said = _texts(game, state, {"type": "fold", "player": "N"})
    assert said["khmer_fold"].endswith("scores 2.")


def test_a_tie_under_tie_nobody_is_announced_as_a_tie():
    game = new_game(header("khmer", {"tie": "nobody"}))
    state, _ = _texts(game, game.initial_state(), _khmer_deal([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]))
    for p, c in (("N", 6), ("S", 6), ("N", 5), ("S", 5)):
        state, _ = _texts(game, state, {"type": "play", "player": p, "card": c})
    _, said = _texts(game, state, {"type": "close", "player": "N"})
    assert "khmer_nobody" not in said and "tie" in said["khmer_tie"] and "10" in said["khmer_tie"]
