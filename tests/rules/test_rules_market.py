"""Market and deck accounting shared by Kemps and Kem's: every card in exactly one place."""

from __future__ import annotations

import pytest

from referee.cards import ALL_CARDS
from referee.rules import RejectCode, new_game
from referee.rules.market import conservation_errors, pool, unknown_slots

from .helpers import anomalies, calls, header, play, rejected
from .test_rules_kemps import DEAL, HANDS, HIDDEN_DEAL

USED = set(c for cs in HANDS.values() for c in cs) | set(DEAL["market"])
FRESH = [c for c in ALL_CARDS if c not in USED]  # 32 cards of the reserve


def resets(n, start=0):
    """n stale/reset pairs dealing fresh reserve cards in order."""
    out = []
    for i in range(start, start + n):
        out += [{"type": "stale"}, {"type": "reset", "market": FRESH[4 * i: 4 * i + 4]}]
    return out


@pytest.mark.parametrize("deal", [DEAL, HIDDEN_DEAL], ids=["known", "hidden"])
def test_stale_reset_and_conservation(deal):
    game, state, results, said = play(header("kemps"), [deal] + resets(3))
    t = state.table
    assert t.market == tuple(FRESH[8:12])
    assert t.discard == tuple(DEAL["market"]) + tuple(FRESH[:8])
    assert t.reserve_size == 32 - 12
    assert not conservation_errors(t) and not anomalies(results)
    assert said.count("stale") == 3


def test_stale_waits_for_reset():
    game, state, _, _ = play(header("kemps"), [DEAL, {"type": "stale"}])
    assert game.awaiting(state) == {"kind": "reset", "dealer": "N"}
    for e in ({"type": "swap", "player": "N", "give": "7H", "take": "9C"}, {"type": "stale"}):
        assert rejected(game, state, e).code == RejectCode.WRONG_PHASE
    assert rejected(game, state, {"type": "reset", "market": FRESH[:3]}).code == RejectCode.BAD_EVENT
    # a call is still possible while the dealer lays the new cards
    assert game.apply(state, {"type": "call", "call": "kemps", "by": "S"}).ok


def test_reserve_exhaustion_reshuffles_the_discard():
    game, state, results, said = play(header("kemps"), [DEAL] + resets(8))
    t = state.table
    assert t.reserve_size == 0 and len(t.discard) == 32
    state = game.apply(state, {"type": "stale"}).state
    discard = state.table.discard
    assert len(discard) == 36
    # cards seen before in this deck cycle are legal again after the reshuffle
    r = game.apply(state, {"type": "reset", "market": ["9C", "9D", FRESH[0], FRESH[5]]})
    assert r.ok and not anomalies(r.results)
    assert "reshuffle" in [a.key for a in r.announcements]
    t = r.state.table
    assert t.reshuffles == 1 and t.discard == () and t.reserve_size == 32
    assert not conservation_errors(t)
    # a card still in a hand cannot come out of the reshuffled reserve
    s2 = game.apply(r.state, {"type": "stale"}).state
    r2 = game.apply(s2, {"type": "reset", "market": ["7H", FRESH[1], FRESH[2], FRESH[3]]})
    assert [a["card"] for a in anomalies(r2.results)] == ["7H"]


@pytest.mark.parametrize("policy", ["flag", "reject"])
def test_reset_with_a_card_seen_before_is_flagged(policy):
    game, state, _, _ = play(header("kemps", {"deck_anomaly": policy}), [DEAL, {"type": "stale"}])
    bad = {"type": "reset", "market": ["9C", FRESH[0], FRESH[1], FRESH[2]]}  # 9C is in the discard
    r = game.apply(state, bad)
    if policy == "reject":
        assert r.code == RejectCode.DECK_ANOMALY and "9C" in r.reason
        return
    (a,) = anomalies(r.results)
    assert a["card"] == "9C" and "discard" in a["detail"]
    assert [x.key for x in r.announcements] == ["anomaly"]
    assert not conservation_errors(r.state.table)
    assert r.state.table.excess == ("9C",)


def test_hidden_swaps_track_what_is_known():
    game, state, results, _ = play(header("kemps"), [
        HIDDEN_DEAL,
        {"type": "swap", "player": "N", "give": "2C", "take": "9C"},
        {"type": "swap", "give": "3C", "take": "9D"},
    ])
    t = state.table
    assert t.hand("N").known == ("9C",) and t.floating == ("9D",)
    assert t.market == ("2C", "3C", "9H", "10S")
    assert unknown_slots(t) == sum(pool(t).values())
    # taking back the card N gave: N is inferred, its record moves
    state = game.apply(state, {"type": "swap", "give": "9C", "take": "2C"}).state
    assert state.table.hand("N").known == ("2C",)
    # a card known to be in the market cannot also be given from a hand
    r = game.apply(state, {"type": "swap", "player": "E", "give": "3C", "take": "9H"})
    assert [a["card"] for a in anomalies(r.results)] == ["3C"]
    assert rejected(game, state, {"type": "swap", "give": "AS", "take": "KH"}).code == RejectCode.NOT_IN_MARKET
    assert rejected(game, state, {"type": "swap", "give": "9H", "take": "9H"}).code == RejectCode.BAD_EVENT


def test_reveal_is_checked_against_everything_known():
    game, state, _, _ = play(header("kemps"), [
        HIDDEN_DEAL, {"type": "swap", "player": "N", "give": "2C", "take": "9C"},
        {"type": "call", "call": "kemps", "by": "S"},
    ])
    assert game.awaiting(state)["seats"] == ["N"]
    # N took 9C: a reveal without it, and with a card now in the market, is flagged twice
    r = game.apply(state, {"type": "reveal", "hands": {"N": ["7H", "7S", "7C", "2C"]}})
    assert sorted(a["card"] for a in anomalies(r.results)) == ["2C", "9C"]
    assert calls(r.results)[0]["correct"] is False  # judged on what was shown
    strict = new_game(header("kemps", {"deck_anomaly": "reject"}))
    s = strict.initial_state()
    for e in [HIDDEN_DEAL, {"type": "swap", "player": "N", "give": "2C", "take": "9C"},
              {"type": "call", "call": "kemps", "by": "S"}]:
        s = strict.apply(s, e).state
    assert rejected(strict, s, {"type": "reveal", "hands": {"N": ["7H", "7S", "7C", "2C"]}}).code \
        == RejectCode.DECK_ANOMALY
    ok = strict.apply(s, {"type": "reveal", "hands": {"N": ["7H", "7S", "7C", "9C"]}})
    assert ok.ok and calls(ok.results)[0]["correct"] is False


def test_reveal_after_a_known_hand_call_must_agree():
    game, state, _, _ = play(header("kemps"), [DEAL, {"type": "call", "call": "kemps", "by": "S"}])
    good = game.apply(state, {"type": "reveal", "hands": HANDS})
    assert good.ok and not good.results
    bad = game.apply(state, {"type": "reveal", "hands": {"N": ["7H", "7S", "7C", "8D"]}})
    assert [a["card"] for a in anomalies(bad.results)] == ["7D"]  # 8D was unseen: possible
    assert rejected(game, state, {"type": "reveal", "hands": {"N": ["7H"]}}).code == RejectCode.BAD_EVENT
    assert rejected(game, state, {"type": "reveal", "hands": {"Q": ["7H"]}}).code == RejectCode.UNKNOWN_PLAYER


def test_reveal_accounts_for_cards_taken_by_an_unseen_player():
    shown = dict(HANDS, N=["7H", "7S", "7C", "9C"])
    game, state, results, _ = play(header("kemps"), [
        HIDDEN_DEAL, {"type": "swap", "give": "2C", "take": "9C"},
        {"type": "reveal", "hands": shown},
    ])
    # 9C (taken by someone) is found in N's hand; 7D is nowhere to be seen: still in the reserve
    assert not anomalies(results)
    assert state.table.floating == ()
    assert not conservation_errors(state.table)
    # but if no hand shows the taken card, that is flagged
    r = game.apply(play(header("kemps"), [HIDDEN_DEAL, {"type": "swap", "give": "2C", "take": "9C"}])[1],
                   {"type": "reveal", "hands": HANDS})
    assert [a["card"] for a in anomalies(r.results)] == ["9C"]


def test_a_camera_correction_fixes_the_market_without_a_swap():
    game, state, results, said = play(header("kemps"), [
        HIDDEN_DEAL, {"type": "correct", "was": "9D", "now": "8D", "t": 1.0, "source": "vision"},
    ])
    t = state.table
    assert t.market == ("9C", "8D", "9H", "10S") and not t.floating
    assert not conservation_errors(t) and not anomalies(results) and "market_corrected" in said
    # the corrected card can now be taken; the misread one cannot
    assert game.is_legal(state, {"type": "swap", "give": "2C", "take": "8D"})
    assert rejected(game, state, {"type": "swap", "give": "2C", "take": "9D"}).code == RejectCode.NOT_IN_MARKET
    assert rejected(game, state, {"type": "correct", "was": "AS", "now": "KH"}).code == RejectCode.NOT_IN_MARKET
    assert rejected(game, state, {"type": "correct", "was": "9C", "now": "9C"}).code == RejectCode.BAD_EVENT


def test_a_correction_to_a_card_seen_elsewhere_is_an_anomaly():
    game, state, results, _ = play(header("kemps"), [DEAL, {"type": "correct", "was": "9D", "now": "9H"}])
    assert [a["card"] for a in anomalies(results)] == ["9H"]
    assert not conservation_errors(state.table)


def test_a_correction_after_a_stale_call_fixes_the_discarded_market():
    """After `stale` the old market still lies on the table until the reset: a correction of
    it fixes the top of the discard pile."""
    game, state, results, _ = play(header("kemps"), [
        HIDDEN_DEAL, {"type": "stale"}, {"type": "correct", "was": "9D", "now": "8D"},
    ])
    t = state.table
    assert t.discard == ("9C", "8D", "9H", "10S") and not t.market
    assert not conservation_errors(t) and not anomalies(results)
    assert game.awaiting(state)["kind"] == "reset"
