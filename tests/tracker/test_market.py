"""Market events from synthetic change sequences: deal, swap, stale, reset, anomalies."""

from __future__ import annotations

from collections import Counter

from vision.tracker.filter import ZoneChange
from vision.tracker.market import MarketConfig, MarketTracker


def change(before: list[str], after: list[str], t: float, at: dict[str, tuple[float, float]] | None = None) -> ZoneChange:
    removed = [c for c in before if c not in after]
    added = [c for c in after if c not in before]
    at = at or {}
    return ZoneChange(
        "market", t, tuple(removed), tuple(added), tuple(before), tuple(after),
        tuple(at.get(c, (0.0, 0.0)) for c in removed), tuple(at.get(c, (0.0, 0.0)) for c in added),
    )  # fmt: skip


def tracker(**kw: object) -> MarketTracker:
    return MarketTracker(MarketConfig(stale_after_s=5.0, **kw))  # type: ignore[arg-type]


M0 = ["7C", "KD", "3S", "4H"]


def test_deal_then_swap() -> None:
    m = tracker()
    ev, no = m.change(change([], M0, 1.0), 1.0)
    assert ev == [{"type": "deal", "market": M0, "t": 1.0}] and no == []
    ev, no = m.change(change(M0, ["7C", "2C", "3S", "4H"], 2.0), 2.0)
    assert ev == [{"type": "swap", "give": "2C", "take": "KD", "t": 2.0}]


def test_double_exchange_is_paired_by_position() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    at = {"7C": (0, 0), "KD": (100, 0), "9H": (100, 0), "2C": (0, 0)}
    ev, _ = m.change(change(M0, ["9H", "2C", "3S", "4H"], 2.0, at), 2.0)
    assert {(e["take"], e["give"]) for e in ev} == {("7C", "2C"), ("KD", "9H")}


def test_stale_after_quiet_time_once() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    assert m.tick(5.9) == []
    m.activity(5.0)  # a hand over the market restarts the quiet time
    assert m.tick(9.9) == []
    assert m.tick(10.0) == [{"type": "stale", "t": 10.0}]
    assert m.tick(20.0) == []


def test_verified_reset_and_seen_twice() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    m.tick(6.5)
    new = ["AS", "AD", "5C", "6C"]
    ev, no = m.change(change(M0, new, 8.0), 8.0)
    assert ev == [{"type": "reset", "market": new, "t": 8.0}] and no == []
    m.tick(14.0)
    again = ["KD", "9S", "9D", "9C"]  # KD went to the discard at the first reset
    ev, no = m.change(change(new, again, 16.0), 16.0)
    assert [e["type"] for e in ev] == ["reset"]
    assert [(n["kind"], n["card"]) for n in no] == [("seen_twice", "KD")]


def test_reset_without_our_stale_announces_it() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    ev, _ = m.change(change(M0, ["AS", "AD", "5C", "6C"], 3.0), 3.0)
    assert [e["type"] for e in ev] == ["stale", "reset"]


def test_card_from_discard_in_a_swap_is_flagged() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    new = ["AS", "AD", "5C", "6C"]
    m.change(change(M0, new, 8.0), 8.0)
    ev, no = m.change(change(new, ["AS", "AD", "5C", "KD"], 9.0), 9.0)
    assert ev[0]["give"] == "KD"
    assert [(n["kind"], n["card"]) for n in no] == [("in_discard", "KD")]


def test_reshuffle_when_reserve_runs_out() -> None:
    # 52 cards, 4 players × 4 + 4 market → 32 in reserve: 8 resets, the 9th reshuffles.
    m = tracker()
    deck = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "CDHS"]
    market = deck[16:20]
    m.change(change([], market, 1.0), 1.0)
    t = 1.0
    for k in range(8):
        new = deck[20 + 4 * k : 24 + 4 * k]
        t += 10
        ev, no = m.change(change(market, new, t), t)
        assert ev[-1]["type"] == "reset" and no == []
        market = new
    t += 10
    ev, no = m.change(change(market, deck[16:20], t), t)
    assert ev[-1]["type"] == "reset" and [n["type"] for n in no] == ["reshuffle"]


def test_after_a_reveal_the_next_new_market_is_a_deal() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    m.new_hand(20.0)
    new = ["AS", "AD", "5C", "6C"]
    ev, _ = m.change(change(M0, new, 25.0), 25.0)
    assert ev == [{"type": "deal", "market": new, "t": 25.0}]


def test_new_deal_sharing_a_card_with_the_old_market_is_a_deal() -> None:
    """Cards are collected and shuffled after a call: the next market may hold a card of
    the last one (KD here) and is still a deal, not three swaps."""
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    m.new_hand(10.0)
    assert m.change(change(M0, [], 12.0), 12.0) == ([], [])  # picked up
    nxt = ["AC", "KD", "10C", "JD"]
    ev, _ = m.change(change([], nxt, 20.0), 20.0)
    assert ev == [{"type": "deal", "market": nxt, "t": 20.0}]
    # Within the hand that follows, a market sharing cards with the last one is a swap again.
    ev, _ = m.change(change(nxt, ["AC", "KD", "10C", "2S"], 22.0), 22.0)
    assert [e["type"] for e in ev] == ["swap"]


def test_without_a_pickup_only_an_all_new_market_is_a_deal() -> None:
    m = tracker()
    m.change(change([], M0, 1.0), 1.0)
    m.new_hand(10.0)
    ev, _ = m.change(change(M0, ["7C", "KD", "3S", "2C"], 11.0), 11.0)  # a misread corner, not a deal
    assert [e["type"] for e in ev] == ["swap"]


def test_a_correction_is_a_correct_event_and_the_next_swap_follows_it() -> None:
    """A misread voted out with no hand in the market: a `correct` event (not a swap) and a
    notice, and what follows is read against the corrected market."""
    m = tracker()
    m.change(change([], ["QC", "8H", "QS", "6D"], 1.0), 1.0)
    fixed = ZoneChange("market", 2.0, ("8H",), ("6H",), ("QC", "8H", "QS", "6D"), ("QC", "6H", "QS", "6D"), corrections=(("8H", "6H"),))
    ev, no = m.correct(fixed, 2.0)  # type: ignore[misc]
    assert ev == [{"type": "correct", "was": "8H", "now": "6H", "t": 2.0}]
    assert [(n["type"], n["was"], n["now"]) for n in no] == [("misread_corrected", "8H", "6H")]
    assert m.market == ("QC", "6H", "QS", "6D")
    ev, _ = m.change(change(["QC", "6H", "QS", "6D"], ["QC", "6H", "QS", "2C"], 3.0), 3.0)
    assert ev == [{"type": "swap", "give": "2C", "take": "6D", "t": 3.0}]
    # Not a correction (no full market dealt before it): left to `change`.
    assert tracker().correct(fixed, 2.0) is None


def test_after_a_stale_call_three_new_cards_at_once_are_the_reset() -> None:
    # the reset's 6D was read as 8D, a card of the old market: still a reset, not 3 swaps
    m = tracker(stale_reset_min_new=3)
    old = ["8D", "AD", "8H", "AC"]
    m.change(change([], old, 1.0), 1.0)
    assert m.tick(6.5) == [{"type": "stale", "t": 6.5}]
    new = ["8D", "KS", "JC", "KD"]
    ev, no = m.change(change(old, new, 8.0), 8.0)
    assert ev == [{"type": "reset", "market": new, "t": 8.0}]
    assert [(n["kind"], n["card"]) for n in no] == [("seen_twice", "8D")]


def test_without_a_stale_call_three_new_cards_are_swaps() -> None:
    m = tracker(stale_reset_min_new=3)
    m.change(change([], M0, 1.0), 1.0)
    ev, _ = m.change(change(M0, ["7C", "AS", "AD", "5C"], 2.0), 2.0)
    assert [e["type"] for e in ev] == ["swap", "swap", "swap"]


def test_after_a_stale_call_one_new_card_is_a_misread_put_right() -> None:
    """Nobody may swap while the reset is due: one card changing then is an earlier misread
    read again (seen in a blind recording: the referee rejected the swap, and the reset that
    followed was announced stale twice). The reset is still awaited and still verified."""
    m = tracker(stale_reset_min_new=3)
    m.change(change([], M0, 1.0), 1.0)
    m.tick(6.5)
    ev, notices = m.change(change(M0, ["7C", "KD", "3S", "AS"], 8.0), 8.0)
    assert ev == [{"type": "correct", "was": "4H", "now": "AS", "t": 8.0}]
    assert [n["type"] for n in notices] == ["misread_corrected"]
    assert m.stale_announced
    ev, _ = m.change(change(["7C", "KD", "3S", "AS"], ["2H", "4D", "9S", "10C"], 10.0), 10.0)
    assert [e["type"] for e in ev] == ["reset"]  # no second stale call
    # without a stale call, the same change is a swap
    m = tracker(stale_reset_min_new=3)
    m.change(change([], M0, 1.0), 1.0)
    ev, _ = m.change(change(M0, ["7C", "KD", "3S", "AS"], 3.0), 3.0)
    assert [e["type"] for e in ev] == ["swap"]


def test_without_stale_reset_a_reset_with_a_repeated_card_is_swaps() -> None:
    m = tracker(stale_reset_min_new=None)
    old = ["8D", "AD", "8H", "AC"]
    m.change(change([], old, 1.0), 1.0)
    m.tick(6.5)
    ev, _ = m.change(change(old, ["8D", "KS", "JC", "KD"], 8.0), 8.0)
    assert [e["type"] for e in ev] == ["swap", "swap", "swap"]


def test_after_a_stale_call_a_reset_seen_through_a_partial_market_is_the_reset() -> None:
    # one card of the reset is not read for 2 s: 3 new cards are committed first, then a 4th
    m = tracker(stale_reset_min_new=3)
    old = ["3H", "9C", "KH", "6C"]
    m.change(change([], old, 1.0), 1.0)
    m.tick(6.5)
    assert m.change(change(old, ["3C", "AD", "JH"], 9.0), 9.0) == ([], [])
    ev, _ = m.change(change(["3C", "AD", "JH"], ["10D", "3C", "AD", "JH"], 10.0), 10.0)
    assert ev == [{"type": "reset", "market": ["10D", "3C", "AD", "JH"], "t": 10.0}]


def test_without_a_stale_call_a_partial_market_completed_is_swaps() -> None:
    m = tracker(stale_reset_min_new=3)
    m.change(change([], M0, 1.0), 1.0)
    m.change(change(M0, ["7C", "KD", "3S"], 2.0), 2.0)  # a hand rests over 4H
    ev, _ = m.change(change(["7C", "KD", "3S"], ["7C", "KD", "3S", "AS"], 3.0), 3.0)
    assert [(e["type"], e["take"], e["give"]) for e in ev] == [("swap", "4H", "AS")]


def test_in_play_only_between_a_deal_and_a_stale_call_or_a_judged_call() -> None:
    """When swaps go one for one (what `ZoneFilter.one_for_one` is set from)."""
    m = tracker()
    assert not m.in_play  # nothing dealt yet
    m.change(change([], M0, 1.0), 1.0)
    assert m.in_play
    assert m.tick(6.5) == [{"type": "stale", "t": 6.5}]
    assert not m.in_play  # the reset is due: the dealer lays four new cards
    m.change(change(M0, ["2C", "5D", "9H", "JS"], 8.0), 8.0)
    assert m.in_play
    m.new_hand(9.0)
    assert not m.in_play  # a call was judged: the cards are picked up


def test_a_market_one_unread_card_short_goes_stale_with_stale_unread() -> None:
    for unread, expected in ((0, []), (1, [{"type": "stale", "t": 12.0}])):
        m = tracker(stale_unread=unread)
        m.change(change([], M0, 1.0), 1.0)
        m.activity(6.9)  # a hand swaps KD for a card the reader cannot read
        m.change(change(M0, ["7C", "3S", "4H"], 7.0), 7.0)
        assert m.tick(11.8) == []
        assert m.tick(12.0) == expected


def test_an_empty_market_never_goes_stale() -> None:
    m = tracker(stale_unread=1)
    m.change(change([], M0, 1.0), 1.0)
    m.change(change(M0, ["7C", "3S"], 2.0), 2.0)  # two cards gone: not a market with one unread
    assert m.tick(30.0) == []


def test_a_change_read_late_dates_the_quiet_time_from_the_hand_within_activity_link_s() -> None:
    for link, stale_t in ((1.0, 8.5), (2.0, 7.0)):
        m = tracker(activity_link_s=link)
        m.change(change([], M0, 1.0), 1.0)
        m.activity(2.0)  # the hand left at 2.0; the swap was committed 1.5 s later
        m.change(change(M0, ["7C", "2C", "3S", "4H"], 3.5), 3.5)
        assert m.tick(stale_t - 0.1) == []
        assert m.tick(stale_t) == [{"type": "stale", "t": stale_t}]


def twelve_at_kems(**kw: object) -> MarketTracker:
    # 12 players × 4 + 4 = 52: no reserve, so a reset lays the stale market's own cards again
    return tracker(players=12, **kw)


def test_with_no_cards_left_a_hand_in_and_out_after_a_stale_call_is_the_reset() -> None:
    m = twelve_at_kems(same_cards_reset_s=0.5)
    m.change(change([], M0, 1.0), 1.0)
    assert m.reserve == 0 and m.reset_from_market
    assert m.tick(6.0) == [{"type": "stale", "t": 6.0}]
    for t in (8.0, 8.5, 9.0):  # the dealer gathers the four and lays them again
        m.activity(t)
        assert m.tick(t) == []
    assert m.tick(9.4) == []
    assert m.tick(9.5) == [{"type": "reset", "market": M0, "t": 9.0}]
    assert m.tick(9.6) == []
    assert m.tick(14.0) == [{"type": "stale", "t": 14.0}]  # quiet since the reset: stale again


def test_the_same_cards_reset_needs_the_option_and_an_empty_reserve() -> None:
    for m in (twelve_at_kems(same_cards_reset_s=None), tracker(same_cards_reset_s=0.5)):
        m.change(change([], M0, 1.0), 1.0)
        m.tick(6.0)
        m.activity(8.0)
        assert m.tick(12.0) == []


def test_a_reset_laid_from_the_stale_market_starts_a_cycle_that_holds_its_cards_once() -> None:
    m = twelve_at_kems(same_cards_reset_s=0.5)
    m.change(change([], M0, 1.0), 1.0)
    m.tick(6.0)
    m.activity(8.0)
    assert [e["type"] for e in m.tick(9.0)] == ["reset"]
    assert m.seen == Counter(M0)  # not twice each: they were shuffled back in
    m.tick(13.0)  # stale again
    ev, no = m.change(change(M0, ["9S", "9D", "9C", "4H"], 14.0), 14.0)  # discards came back too
    assert [e["type"] for e in ev] == ["reset"] and not [n for n in no if n.get("kind") == "seen_twice"]
