"""Reveal reader: a hand is settled by consistent reads; a rarely read card can fill it."""

from __future__ import annotations

from vision.tracker.reveal import RevealConfig, RevealReader

HAND = ["10S", "4S", "10C", "KD"]


def offer_rounds(r: RevealReader, n: int, t0: float = 1.0) -> list[dict]:
    """n reads of seat S; KD (a card the reader struggles with) is found on one read in eight."""
    events = []
    for i in range(n):
        cards = HAND if i % 8 == 3 else HAND[:3]
        events += r.offer("S", cards, [0.95] * len(cards), t0 + i / 15)
    return events


def test_a_hand_missing_a_card_never_settles_without_fill() -> None:
    r = RevealReader(RevealConfig(fill_min_reads=None))
    r.request(["S"], 0.0, expected=4)
    assert offer_rounds(r, 60) == []
    assert r.tick(13.0)[0]["type"] == "reveal_timeout"


def test_fill_completes_the_hand_with_a_card_read_often_enough() -> None:
    r = RevealReader(RevealConfig(fill_min_reads=2))
    r.request(["S"], 0.0, expected=4)
    ev = offer_rounds(r, 30)
    assert len(ev) == 1 and ev[0]["type"] == "reveal"
    assert sorted(ev[0]["hands"]["S"]) == sorted(HAND)


def test_fill_never_breaks_a_tie_for_the_last_place() -> None:
    r = RevealReader(RevealConfig(fill_min_reads=2))
    r.request(["S"], 0.0, expected=4)
    events = []
    for i in range(40):  # KD and 8D, each found on the same few reads: which one lies there?
        cards = HAND[:3] + (["KD", "8D"] if i % 8 == 3 else [])
        events += r.offer("S", cards, [0.95] * len(cards), 1.0 + i / 15)
    assert events == []


def test_fill_needs_the_minimum_reads() -> None:
    r = RevealReader(RevealConfig(fill_min_reads=3))
    r.request(["S"], 0.0, expected=4)
    events = []
    for i in range(12):  # KD found once only
        cards = HAND if i == 3 else HAND[:3]
        events += r.offer("S", cards, [0.95] * len(cards), 1.0 + i / 15)
    assert events == []


def test_each_seat_waits_for_its_own_hand_size() -> None:
    # Khmer at close: the referee knows S holds 4 cards and N 3
    r = RevealReader(RevealConfig(fill_min_reads=None))
    r.request(["S", "N"], 0.0, expected={"S": 4, "N": 3})
    events = []
    for i in range(8):
        events += r.offer("N", ["2S", "AH", "6D"], [0.9] * 3, 1.0 + i / 15)
        events += r.offer("S", ["2H", "3S", "AS"], [0.9] * 3, 1.0 + i / 15)  # one card not read yet
    assert events == [] and r.status()["N"]["settled"] and not r.status()["S"]["settled"]
    for i in range(8):
        events += r.offer("S", ["2H", "3S", "AS", "3H"], [0.9] * 4, 2.0 + i / 15)
    assert len(events) == 1 and sorted(events[0]["hands"]["S"]) == ["2H", "3H", "3S", "AS"]


def _settle(r: RevealReader, cards: list[str], n: int = 8) -> list[dict]:
    events = []
    for i in range(n):
        events += r.offer("S", cards, [0.9] * len(cards), 1.0 + i / 15)
    return events


def test_a_card_read_twice_is_one_card_when_the_copies_are_the_whole_excess() -> None:
    # seen on a Khmer close (val deck): S holds 3H and AS, every read gives 3H twice
    r = RevealReader(RevealConfig(trim_twins=True))
    r.request(["S"], 0.0, expected=2)
    (ev,) = _settle(r, ["3H", "3H", "AS"])
    assert sorted(ev["hands"]["S"]) == ["3H", "AS"]
    off = RevealReader(RevealConfig(trim_twins=False))
    off.request(["S"], 0.0, expected=2)
    assert _settle(off, ["3H", "3H", "AS"]) == []


def test_a_real_pair_is_kept_and_an_ambiguous_excess_is_not_trimmed() -> None:
    r = RevealReader(RevealConfig(trim_twins=True))
    r.request(["S"], 0.0, expected=4)  # two decks: the pair of 6D is real
    (ev,) = _settle(r, ["2H", "6D", "6D", "4S"])
    assert sorted(ev["hands"]["S"]) == ["2H", "4S", "6D", "6D"]
    r = RevealReader(RevealConfig(trim_twins=True))
    r.request(["S"], 0.0, expected=4)  # 5 read, 2 doubled: which copy is the extra one?
    assert _settle(r, ["2H", "2H", "6D", "6D", "4S"]) == []


def _flicker(r: RevealReader, reads: list[list[str]], t0: float = 1.0) -> list[dict]:
    events = []
    for i, cards in enumerate(reads):
        events += r.offer("S", cards, [0.9] * len(cards), t0 + i / 15)
    return events


# The dev6p kemps-9202 pattern: the whole hand read on most reads, one card missed now and then.
FLICKER = [HAND, HAND, HAND[:3], HAND, HAND, HAND]


def test_a_card_missed_for_a_read_holds_the_streak_instead_of_restarting_it() -> None:
    # window 1: each read votes alone, so the short read is seen as short
    r = RevealReader(RevealConfig(consistent=4, fill_min_reads=None, hold_short=True, window=1))
    r.request(["S"], 0.0, expected=4)
    ev = _flicker(r, FLICKER)
    assert len(ev) == 1 and sorted(ev[0]["hands"]["S"]) == sorted(HAND)
    assert ev[0]["t"] == round(1.0 + 4 / 15, 3)  # the fourth full read: the short one neither counts nor resets


def test_without_hold_short_the_missed_card_restarts_the_streak() -> None:
    r = RevealReader(RevealConfig(consistent=4, fill_min_reads=None, hold_short=False, window=1))
    r.request(["S"], 0.0, expected=4)
    assert _flicker(r, FLICKER) == []  # 2 reads, a short one, then 3: never 4 in a row


def test_a_short_hand_with_another_card_restarts_the_streak() -> None:
    # the short read holds a card the candidate lacks: evidence against it, so the streak restarts
    r = RevealReader(RevealConfig(consistent=4, fill_min_reads=None, hold_short=True, window=1))
    r.request(["S"], 0.0, expected=4)
    assert _flicker(r, [HAND, HAND, HAND, ["10S", "4S", "9H"], HAND, HAND]) == []


def test_hold_short_needs_the_hand_size() -> None:
    # without a known size a shorter hand may be the whole hand: it restarts as before
    r = RevealReader(RevealConfig(consistent=4, fill_min_reads=None, hold_short=True, window=1))
    r.request(["S"], 0.0)
    ev = _flicker(r, [HAND, HAND, HAND[:3], HAND[:3], HAND[:3], HAND[:3]])
    assert len(ev) == 1 and sorted(ev[0]["hands"]["S"]) == sorted(HAND[:3])


def _covered_midway(keep: bool, after: list[str]) -> list[dict]:
    """Two full reads, an arm over the area (`new_episode`), then reads of `after`."""
    r = RevealReader(RevealConfig(consistent=4, fill_min_reads=None, keep_candidate_over_cover=keep))
    r.request(["S"], 0.0, expected=4)
    events = _flicker(r, [HAND, HAND])
    r.new_episode("S")
    return events + _flicker(r, [after, after], t0=2.0)


def test_the_hand_read_before_an_arm_crossed_the_area_keeps_its_streak_after_it() -> None:
    ev = _covered_midway(True, HAND)
    assert len(ev) == 1 and sorted(ev[0]["hands"]["S"]) == sorted(HAND)
    assert _covered_midway(False, HAND) == []  # before: the cover restarted the count


def test_another_hand_after_the_cover_restarts_the_streak() -> None:
    assert _covered_midway(True, ["10S", "4S", "10C", "9H"]) == []


def test_three_agreeing_reads_settle_a_hand_by_default() -> None:
    r = RevealReader()
    r.request(["S"], 0.0, expected=4)
    ev = _flicker(r, [HAND, HAND, HAND])
    assert len(ev) == 1 and ev[0]["t"] == round(1.0 + 2 / 15, 3)


def test_a_false_card_read_in_some_reads_only_is_trimmed_from_a_full_hand() -> None:
    # khv20 khmer-8120: a 2H's top pip read AH in two reads of three; the four laid cards in all
    hand = ["2H", "4H", "5H", "6C"]
    for margin, settles_at in ((2, 3), (None, None)):
        r = RevealReader(RevealConfig(trim_weakest=margin), khmer=False)
        r.request(["N"], 0.0, expected=4)
        events: list[dict] = []
        for i in range(9):
            cards = hand + (["AH"] if i % 3 else [])
            events += [(i, e) for e in r.offer("N", cards, [0.95] * len(cards), 1.0 + i / 15)]
        if settles_at is None:
            assert events == []
        else:
            (i, ev), = events
            assert ev["hands"]["N"] == sorted(hand) and i == settles_at - 1 + 3  # the window's first trim
    # a false card read in five reads of six is too close to the laid ones: no trim
    r = RevealReader(RevealConfig(trim_weakest=2))
    r.request(["N"], 0.0, expected=4)
    for i in range(12):
        cards = hand + ([] if i % 6 == 0 else ["AH"])
        assert r.offer("N", cards, [0.95] * len(cards), 1.0 + i / 15) == []


def test_a_false_card_dropped_leaves_a_twin_read_that_trim_twins_then_takes_out() -> None:
    # khv20 khmer-8120, the last close: N's 3H read twice in every read, a pip read AH in two of three
    hand = ["2H", "3H", "5H", "AS"]
    r = RevealReader(RevealConfig(trim_weakest=2), khmer=False)
    r.request(["N"], 0.0, expected=4)
    events = []
    for i in range(9):
        cards = hand + ["3H"] + (["AH"] if i % 3 else [])
        events += r.offer("N", cards, [0.9] * len(cards), 1.0 + i / 15)
    assert len(events) == 1 and events[0]["hands"]["N"] == sorted(hand)
