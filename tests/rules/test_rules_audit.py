"""Audit of the rules engines against the rule texts: each test here failed before its fix."""

from __future__ import annotations

import pytest

from referee.rules import RejectCode, new_game
from referee.rules.config import load_rules

from .helpers import FOUR, header, play, points, rejected

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


# ---- Kem's deal redraw with no stock: 12 players and one 52-card deck leave no reserve, so
# "en piocher respectivement trois ou quatre autres" cannot be done. The game used to wait
# for that impossible redraw until a new_hand; house rule: the redraw is waived.
def _kems_table(n_teams: int, first: list[str], more: dict[int, list[str]] | None = None):
    """Players A, B, ... clockwise, teams every n_teams-th seat; player A is dealt ``first``,
    seat i is dealt ``more[i]``, everyone else gets cards of distinct ranks."""
    from collections import Counter

    players = [chr(ord("A") + i) for i in range(2 * n_teams)]
    hdr = {"game": "kems", "players": players, "teams": [players[i::n_teams] for i in range(n_teams)]}
    fixed = {0: first, **(more or {})}
    rest = [r + s for s in "CDHS" for r in ("A 2 3 4 5 6 7 8 9 10 J Q K".split())]
    rest = [c for c in rest if c not in {c for h in fixed.values() for c in h}]
    hands = {}
    for i, p in enumerate(players):
        hands[p] = fixed.get(i) or [rest.pop(0) for _ in range(4)]
        if i not in fixed:
            assert max(Counter(c[:-1] for c in hands[p]).values()) < 3
    return hdr, {"type": "deal", "hands": hands, "market": rest[:4]}, rest[4:]


def test_kems_redraw_is_waived_when_the_stock_is_empty():
    hdr, deal, stock = _kems_table(6, ["7C", "7D", "7H", "2C"])
    assert stock == []  # 12 x 4 + 4 = 52
    game, state, _, said = play(hdr, [deal])
    assert state.phase == "play" and game.awaiting(state) is None  # not stuck on a redraw
    assert "redraw_request" not in said and "hunt_open" in said and "redraw_waived" in said
    assert state.table.hand("A").known == ("7C", "7D", "7H", "2C")  # the player keeps the hand
    r = rejected(game, state, {"type": "redraw", "player": "A", "shown": ["7C", "7D", "7H"]})
    assert r.code == RejectCode.NOT_ENOUGH_CARDS and "waived" in r.reason
    # play goes on: the hunt is open
    s = game.apply(state, {"type": "swap", "player": "A", "give": "2C", "take": deal["market"][0]})
    assert s.ok


def test_kems_four_identical_cards_dealt_with_no_stock_are_a_kems():
    hdr, deal, _ = _kems_table(6, ["7C", "7D", "7H", "7S"])
    game, state, results, _ = play(hdr, [deal, {"type": "call", "call": "kems", "by": "G"}])
    assert results[-1]["correct"] is True and points(game, state)["A+G"] == 1


def test_kems_redraws_the_stock_can_serve_are_done_the_rest_waived():
    # 10 players: 52 - 40 - 4 = 8 stock cards; three redraws of three cards need nine
    hdr, deal, stock = _kems_table(5, ["7C", "7D", "7H", "2C"], {1: ["8C", "8D", "8H", "2D"],
                                                                  2: ["9C", "9D", "9H", "2H"]})
    assert len(stock) == 8
    game, state, _, _ = play(hdr, [deal])
    assert game.awaiting(state) == {"kind": "redraw", "players": ["A", "B", "C"]}
    state = game.apply(state, {"type": "redraw", "player": "B", "shown": ["8C", "8D", "8H"],
                               "drawn": stock[-3:]}).state
    assert game.awaiting(state) == {"kind": "redraw", "players": ["A", "C"]}
    r = game.apply(state, {"type": "redraw", "player": "C", "shown": ["9C", "9D", "9H"],
                           "drawn": stock[-6:-3]})
    # two unseen cards are left for A's three: A's redraw is waived, the hunt opens
    assert r.ok and r.state.phase == "play" and game.awaiting(r.state) is None
    assert [a.key for a in r.announcements][-2:] == ["redraw_waived", "hunt_open"]
    assert r.announcements[-2].params["players"] == ["A"]
    assert r.state.table.hand("A").known == ("7C", "7D", "7H", "2C")
