"""Temporal filter: hysteresis, occlusion, flicker, a card moved but not changed."""

from __future__ import annotations

import numpy as np
import pytest

from vision.tracker.filter import FilterConfig, ZoneFilter

MARKET = ["7C", "KD", "3S", "4H"]


def boxes(n: int, dx: float = 0.0) -> np.ndarray:
    return np.array([[100 * i + dx, 0, 100 * i + 50 + dx, 80] for i in range(n)], np.float32)


def feed(f: ZoneFilter, cards: list[str], t: float, dx: float = 0.0, conf: float = 0.9):
    return f.update(cards, np.full(len(cards), conf, np.float32), boxes(len(cards), dx), t)


def market_filter() -> ZoneFilter:
    return ZoneFilter("market", FilterConfig(allowed_sizes=(4,)))


def test_first_market_needs_confirmation_then_commits() -> None:
    f = market_filter()
    assert feed(f, MARKET, 0.0) is None
    ch = feed(f, MARKET, 0.1)
    assert ch is not None and sorted(ch.added) == sorted(MARKET) and ch.removed == ()
    assert sorted(f.cards) == sorted(MARKET)


def test_flicker_single_missed_card_is_not_a_removal() -> None:
    f = market_filter()
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    f.new_episode()
    for i in range(30):
        cards = MARKET if i % 3 else MARKET[:3]  # 4H missed on every third read
        assert feed(f, cards, 0.2 + i * 0.03) is None
    assert sorted(f.cards) == sorted(MARKET)


def test_occlusion_keeps_last_state() -> None:
    f = market_filter()
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    for _ in range(50):
        f.hold()  # an arm over the market: nothing is read
    assert f.occluded and sorted(f.cards) == sorted(MARKET)
    # A hand resting still over one card: three cards read for a while is not enough.
    f.new_episode()
    for i in range(20):
        assert feed(f, MARKET[1:], 1.0 + i / 30) is None
    assert sorted(f.cards) == sorted(MARKET)
    assert not f.occluded


def test_odd_size_commits_only_after_long_confirmation() -> None:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(0, 4), odd_confirm=10))
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    f.new_episode()
    results = [feed(f, MARKET[1:], 1.0 + i / 30) for i in range(12)]
    assert any(r is not None for r in results)
    assert sorted(f.cards) == sorted(MARKET[1:])


def test_card_moved_but_not_changed_stays_the_same() -> None:
    f = market_filter()
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    f.new_episode()
    for i in range(10):
        assert feed(f, MARKET, 0.2 + i / 30, dx=15.0 * i) is None  # slid to the right
    assert sorted(f.cards) == sorted(MARKET)
    assert f.box_of("7C") == (135.0, 0.0, 185.0, 80.0)


def test_swap_is_one_removed_one_added() -> None:
    f = market_filter()
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    f.new_episode()
    after = ["7C", "2C", "3S", "4H"]
    ch = None
    for i in range(5):
        ch = ch or feed(f, after, 1.0 + i / 30)
    assert ch is not None and ch.removed == ("KD",) and ch.added == ("2C",)
    assert ch.removed_at == ((125.0, 40.0),) and ch.added_at == ((125.0, 40.0),)


def test_low_confidence_reads_are_ignored_and_confidence_is_tracked() -> None:
    f = market_filter()
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    f.new_episode()
    for i in range(5):
        assert feed(f, ["7C", "9H", "3S", "4H"], 1 + i, conf=0.1) is None
    assert sorted(f.cards) == sorted(MARKET)
    assert all(c < 0.9 for c in f.confidences)  # missed stable cards decay


def test_two_identical_cards_are_two_cards() -> None:
    f = ZoneFilter("row:N", FilterConfig())
    feed(f, ["6C", "6C", "3H"], 0.0), feed(f, ["6C", "6C", "3H"], 0.1)
    assert sorted(f.cards) == ["3H", "6C", "6C"]
    f.new_episode()
    ch = None
    for i in range(4):
        ch = ch or feed(f, ["6C", "3H"], 1 + i)
    assert ch is not None and ch.removed == ("6C",) and sorted(f.cards) == ["3H", "6C"]


def test_also_allowed_size_commits_after_normal_confirmation() -> None:
    """An empty market is odd mid-hand (long confirmation) but normal once a hand is over."""
    f = market_filter()
    feed(f, MARKET, 0.0), feed(f, MARKET, 0.1)
    f.new_episode()
    assert all(feed(f, [], 1.0 + i / 30) is None for i in range(5))  # odd: needs 30 reads
    f.also_allowed = frozenset({0})
    f.new_episode()
    results = [feed(f, [], 2.0 + i / 30) for i in range(2)]
    assert results[0] is None and results[1] is not None  # the normal 2-read confirmation
    assert f.cards == () and sorted(results[1].removed) == sorted(MARKET)


# ---- an unchanged place keeps its card; a still zone changes only on many reads ----------
def card_image(cards: dict[int, int], shift: dict[int, tuple[int, int]] | None = None) -> np.ndarray:
    """A table with a textured card at each slot i (the slots of `boxes`), drawn from seed cards[i]."""
    img = np.full((120, 420, 3), (40, 110, 40), np.uint8)
    for i, seed in cards.items():
        dx, dy = (shift or {}).get(i, (0, 0))
        tex = np.random.default_rng(seed).integers(0, 255, (80, 50, 3), dtype=np.uint8)
        img[10 + dy : 90 + dy, 100 * i + dx : 100 * i + 50 + dx] = tex
    return img


def feed_img(f: ZoneFilter, cards: list[str], t: float, image: np.ndarray, slots: list[int] | None = None):
    b = boxes(4) + np.array([0, 10, 0, 10], np.float32)
    sel = b[slots if slots is not None else list(range(len(cards)))]
    return f.update(cards, np.full(len(cards), 0.9, np.float32), sel, t, image=image)


def settled_with_image() -> tuple[ZoneFilter, np.ndarray]:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), same_ncc=0.75))
    img = card_image({0: 1, 1: 2, 2: 3, 3: 4})
    for i in range(8):
        feed_img(f, MARKET, i / 30, img)
    assert sorted(f.cards) == sorted(MARKET)
    return f, img


def test_a_run_of_misreads_at_an_unchanged_place_is_ignored() -> None:
    f, img = settled_with_image()
    f.new_episode()  # an arm passed; the image is the same afterwards
    for i in range(f.config.window - 1):  # KD read as KC, and 4H missed, on every read
        assert feed_img(f, ["7C", "KC", "3S"], 1 + i / 30, img, [0, 1, 2]) is None
    for i in range(6):
        assert feed_img(f, MARKET, 2 + i / 30, img) is None
    assert sorted(f.cards) == sorted(MARKET)
    # The same misread, with 4H read: held by the image, a swap for the votes alone.
    f.new_episode()
    assert all(feed_img(f, ["7C", "KC", "3S", "4H"], 3 + i / 30, img) is None for i in range(f.config.window - 1))
    g = market_filter()
    for i in range(8):
        feed(g, MARKET, i / 30)
    g.new_episode()
    out = [feed(g, ["7C", "KC", "3S", "4H"], 1 + i / 30) for i in range(5)]
    assert any(c is not None and c.added == ("KC",) for c in out)


def test_a_changed_place_is_left_to_the_reads() -> None:
    f, _ = settled_with_image()
    img = card_image({0: 1, 1: 99, 2: 3, 3: 4}, shift={1: (4, 3)})  # KD swapped for 2C
    f.new_episode()
    changes = [feed_img(f, ["7C", "2C", "3S", "4H"], 1 + i / 30, img) for i in range(3)]
    ch = next(c for c in changes if c is not None)
    assert ch.removed == ("KD",) and ch.added == ("2C",)


def test_a_look_alike_laid_exactly_in_place_is_taken_after_a_window_of_reads() -> None:
    f, img = settled_with_image()  # the image does not change: a perfect look-alike
    f.new_episode()
    out = [feed_img(f, ["7C", "2C", "3S", "4H"], 1 + i / 30, img) for i in range(12)]
    assert all(c is None for c in out[: f.config.window - 1])
    assert any(c is not None for c in out) and sorted(f.cards) == sorted(["7C", "2C", "3S", "4H"])


def test_a_zone_no_arm_touched_changes_only_after_quiet_confirm_reads() -> None:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), quiet_confirm=10))
    for i in range(8):  # settled (the first window of reads)
        feed(f, MARKET, i / 30)
    other = ["7C", "9H", "3S", "4H"]  # no new_episode: nothing reached into the zone
    out = [feed(f, other, 1 + i / 30) for i in range(14)]
    first = next(i for i, c in enumerate(out) if c is not None)
    assert first >= 9 and sorted(f.cards) == sorted(other)
    f.new_episode()  # after an arm: the normal confirmation again
    out = [feed(f, MARKET, 2 + i / 30) for i in range(3)]
    assert out[1] is not None


# ---- per-spot identity vote ---------------------------------------------------------------
def feed_conf(f: ZoneFilter, cards: list[str], conf: list[float], t: float):
    return f.update(cards, np.asarray(conf, np.float32), boxes(len(cards)), t)


def settled(cfg: FilterConfig | None = None) -> ZoneFilter:
    f = ZoneFilter("market", cfg or FilterConfig(allowed_sizes=(4,)))
    for i in range(12):
        feed_conf(f, MARKET, [0.99] * 4, i / 10)
    assert sorted(f.cards) == sorted(MARKET)
    return f


def test_a_card_misread_for_a_few_reads_at_the_deal_is_voted_out() -> None:
    """6H read as 8H (low confidence) on the first reads after the deal: the deal waits for
    the spot's vote and carries 6H; nothing changes afterwards."""
    f = market_filter()
    misread, right = ["QC", "8H", "QS", "6D"], ["QC", "6H", "QS", "6D"]
    changes = [feed_conf(f, misread, [0.99, 0.64, 0.95, 0.93], i / 10) for i in range(2)]
    changes += [feed_conf(f, right, [0.99, 0.99, 0.95, 0.93], 0.2 + i / 10) for i in range(10)]
    committed = [c for c in changes if c is not None]
    assert len(committed) == 1 and sorted(committed[0].added) == sorted(right)
    assert committed[0].t <= 0.5  # within the latency target
    # Without the vote the misread is committed, then replaced.
    g = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), vote_window=None))
    out = [feed_conf(g, misread, [0.99, 0.64, 0.95, 0.93], i / 10) for i in range(2)]
    out += [feed_conf(g, right, [0.99, 0.99, 0.95, 0.93], 0.2 + i / 10) for i in range(10)]
    assert [sorted(c.added) for c in out if c is not None] == [sorted(misread), ["6H"]]


def test_an_unsure_card_is_committed_once_the_wait_is_over() -> None:
    """A card only ever read with low confidence is still taken, `vote_max_wait_s` late at most."""
    f = market_filter()
    out = [feed_conf(f, MARKET, [0.99, 0.45, 0.99, 0.99], i / 10) for i in range(12)]
    first = next(i for i, c in enumerate(out) if c is not None)
    assert 1 <= first and first / 10 <= f.config.vote_max_wait_s + 1e-9
    assert sorted(f.cards) == sorted(MARKET)


@pytest.mark.parametrize("conf", [0.99, 0.7])
def test_a_real_swap_is_reported_promptly(conf: float) -> None:
    f = settled()
    f.new_episode()  # an arm reached into the market and left
    after = ["7C", "2C", "3S", "4H"]
    out = [feed_conf(f, after, [0.99, conf, 0.99, 0.99], 2 + i / 10) for i in range(8)]
    first = next(i for i, c in enumerate(out) if c is not None)
    assert first <= 3, first
    ch = out[first]
    assert ch is not None and ch.removed == ("KD",) and ch.added == ("2C",) and ch.corrections == ()


def test_an_arm_over_the_spot_resets_its_vote() -> None:
    """Long, sure evidence for KD does not out-vote its replacement after an arm; without
    an arm the same reads are a misread to out-vote first, then a correction, not a move."""
    f = settled()
    f.new_episode()
    out = [feed_conf(f, ["7C", "2C", "3S", "4H"], [0.99, 0.8, 0.99, 0.99], 2 + i / 10) for i in range(4)]
    assert any(c is not None and c.added == ("2C",) for c in out)
    g = settled()  # no arm: the spot keeps its evidence
    out = [feed_conf(g, ["7C", "2C", "3S", "4H"], [0.99, 0.8, 0.99, 0.99], 2 + i / 10) for i in range(20)]
    first = next(i for i, c in enumerate(out) if c is not None)
    assert first >= 5
    ch = out[first]
    assert ch is not None and ch.corrections == (("KD", "2C"),)


def test_vote_off_keeps_each_reads_card() -> None:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), vote_window=None))
    for i in range(12):
        feed_conf(f, MARKET, [0.99] * 4, i / 10)
    out = [feed_conf(f, ["7C", "2C", "3S", "4H"], [0.99, 0.8, 0.99, 0.99], 2 + i / 10) for i in range(12)]
    assert any(c is not None and c.added == ("2C",) and c.corrections == () for c in out)


def test_a_sure_card_missed_by_some_reads_is_still_dealt_at_once() -> None:
    """`vote_hold`: no card comes or goes without an arm, so a sure card that a read misses
    still counts; without it, a card missed on every other read holds the deal back."""

    def run(cfg: FilterConfig) -> int:
        f = ZoneFilter("market", cfg)
        for i in range(20):
            cards = MARKET if i % 2 == 0 else MARKET[:3]  # 4H missed on every other read
            if feed_conf(f, cards, [0.99] * len(cards), i / 10) is not None:
                assert sorted(f.cards) == sorted(MARKET)
                return i
        return 99

    assert run(FilterConfig(allowed_sizes=(4,))) <= 2
    assert run(FilterConfig(allowed_sizes=(4,), vote_hold=False)) > 2


def test_after_an_arm_a_spot_read_as_its_stable_card_is_that_card() -> None:
    """An arm passed; the reads agreed with the stable set again (KC, a misread of KD); then
    KD is read well with no arm: a correction of the same card, not a swap."""
    misread = ["7C", "KC", "3S", "4H"]
    f = settled()
    f.new_episode()
    for i in range(6):
        feed_conf(f, misread, [0.99, 0.8, 0.99, 0.99], 2 + i / 10)
    assert sorted(f.cards) == sorted(misread)
    f.new_episode()  # an arm reached for another card and left
    for i in range(3):
        assert feed_conf(f, misread, [0.99, 0.6, 0.99, 0.99], 3 + i / 10) is None
    out = [feed_conf(f, MARKET, [0.99, 0.99, 0.99, 0.99], 4 + i / 10) for i in range(6)]
    ch = next(c for c in out if c is not None)
    assert ch.removed == ("KC",) and ch.added == ("KD",) and ch.corrections == (("KC", "KD"),)


# ---- deck prior (one deck: each card once) -------------------------------------------------
TRUE = ["AS", "KD", "3S", "AC"]
# AC (4th) is read as AS at 0.54 on every read, with AC as the runner-up: AS is sure at spot 0.
AMBIGUOUS = [(("AS", 0.99),), (("KD", 0.99),), (("3S", 0.99),), (("AS", 0.54), ("AC", 0.44), ("AH", 0.01))]


def feed_cands(f: ZoneFilter, cands: list[tuple[tuple[str, float], ...]], t: float):
    cards = [c[0][0] for c in cands]
    conf = np.array([c[0][1] for c in cands], np.float32)
    return f.update(cards, conf, boxes(len(cards)), t, candidates=cands)


def deal(cfg: FilterConfig, one_deck: bool, excluded: frozenset[str] = frozenset(), reads=AMBIGUOUS) -> ZoneFilter:
    f = ZoneFilter("market", cfg)
    f.one_deck, f.excluded = one_deck, excluded
    for i in range(12):
        feed_cands(f, reads, i / 10)
    return f


def test_deck_prior_resolves_a_card_sure_elsewhere_to_its_runner_up() -> None:
    f = deal(FilterConfig(allowed_sizes=(4,), deck_prior=0.05), one_deck=True)
    assert sorted(f.cards) == sorted(TRUE)
    # Off (default), the same reads keep the duplicate: two aces of spades.
    g = deal(FilterConfig(allowed_sizes=(4,)), one_deck=True)
    assert sorted(g.cards) == sorted(["AS", "KD", "3S", "AS"])


def test_deck_prior_never_applies_to_a_two_deck_game() -> None:
    """Two decks (or Khmer, or an unknown game): two AS are legal, nothing is excluded; the
    discard pile is not used either."""
    f = deal(FilterConfig(allowed_sizes=(4,), deck_prior=0.0), one_deck=False, excluded=frozenset({"AS"}))
    assert sorted(f.cards) == sorted(["AS", "KD", "3S", "AS"])


def test_deck_prior_a_discarded_card_goes_to_its_runner_up_unless_read_surely() -> None:
    reads = [(("7C", 0.99),), (("KD", 0.99),), (("QH", 0.7), ("QD", 0.25)), (("4H", 0.99),)]
    cfg = FilterConfig(allowed_sizes=(4,), deck_prior=0.05)
    f = deal(cfg, one_deck=True, excluded=frozenset({"QH"}), reads=reads)
    assert sorted(f.cards) == sorted(["7C", "KD", "QD", "4H"])
    # A confident read of the "discarded" card stays: the discard may itself hold a misread.
    sure = [(("7C", 0.99),), (("KD", 0.99),), (("QH", 0.99), ("QD", 0.002)), (("4H", 0.99),)]
    g = deal(cfg, one_deck=True, excluded=frozenset({"QH"}), reads=sure)
    assert sorted(g.cards) == sorted(["7C", "KD", "QH", "4H"])
    # Reads without alternatives (a reader that gives only its top card): nothing to resolve to.
    h = ZoneFilter("market", cfg)
    h.one_deck, h.excluded = True, frozenset({"QH"})
    for i in range(12):
        feed_conf(h, ["7C", "KD", "QH", "4H"], [0.99, 0.99, 0.7, 0.99], i / 10)
    assert sorted(h.cards) == sorted(["7C", "KD", "QH", "4H"])


def test_deck_prior_turns_a_committed_duplicate_into_a_correction() -> None:
    """The duplicate was committed before the prior could act (AS read surely elsewhere only
    later): with no arm since, the spot's turn is a correction of the same card, not a swap."""
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), deck_prior=0.05))
    f.one_deck = True
    # The real AS read poorly at first: the misread ace holds more evidence for AS, so the
    # duplicate is committed once the deal's wait is over.
    early = [(("AS", 0.3),), (("KD", 0.99),), (("3S", 0.99),), (("AS", 0.54), ("AC", 0.44))]
    changes = [feed_cands(f, early, i / 10) for i in range(8)]
    assert sorted(f.cards) == sorted(["AS", "KD", "3S", "AS"])
    changes = [feed_cands(f, AMBIGUOUS, 2 + i / 10) for i in range(12)]
    fixes = [c for c in changes if c is not None]
    assert len(fixes) == 1 and fixes[0].corrections == (("AS", "AC"),)
    assert sorted(f.cards) == sorted(TRUE)


def test_a_fifth_card_in_a_full_market_is_trimmed_not_committed() -> None:
    # the covered corner of an overlapped card read as another card, at a lower confidence
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), odd_confirm=10, trim_overfull=True))
    feed(f, MARKET, 0.0, conf=0.99), feed(f, MARKET, 0.1, conf=0.99)
    for i in range(40):
        cards = MARKET + ["JD"]
        conf = np.array([0.99] * 4 + [0.75], np.float32)
        bx = np.vstack([boxes(4), [[420, 0, 470, 80]]]).astype(np.float32)
        assert f.update(cards, conf, bx, 0.2 + i / 15) is None
    assert sorted(f.cards) == sorted(MARKET)


def test_without_trimming_a_fifth_card_commits_after_odd_confirm() -> None:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), odd_confirm=10, trim_overfull=False))
    feed(f, MARKET, 0.0, conf=0.99), feed(f, MARKET, 0.1, conf=0.99)
    for i in range(40):
        conf = np.array([0.99] * 4 + [0.75], np.float32)
        bx = np.vstack([boxes(4), [[420, 0, 470, 80]]]).astype(np.float32)
        f.update(MARKET + ["JD"], conf, bx, 0.2 + i / 15)
    assert "JD" in f.cards


def test_a_swap_is_still_seen_beside_a_trimmed_fifth_card() -> None:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), odd_confirm=10, trim_overfull=True))
    feed(f, MARKET, 0.0, conf=0.99), feed(f, MARKET, 0.1, conf=0.99)
    f.new_episode()  # an arm swapped 4H for 9S; the phantom is still read
    after = MARKET[:3] + ["9S"]
    changes = []
    for i in range(20):
        conf = np.array([0.99] * 4 + [0.75], np.float32)
        bx = np.vstack([boxes(4), [[420, 0, 470, 80]]]).astype(np.float32)
        changes.append(f.update(after + ["JD"], conf, bx, 1.0 + i / 15))
    done = [c for c in changes if c is not None]
    assert len(done) == 1 and done[0].removed == ("4H",) and done[0].added == ("9S",)
    assert sorted(f.cards) == sorted(after)


def _row_read(f: ZoneFilter, cards: list[str], xs: list[float], t: float):
    b = np.array([[x, 0, x + 60, 90] for x in xs], np.float32)
    return f.update(cards, np.full(len(cards), 0.9, np.float32), b, t)


def _row_change(f: ZoneFilter, cards: list[str], xs: list[float], t0: float):
    """A new episode (an arm left), then reads until a change is committed."""
    f.new_episode()
    changes = [_row_read(f, cards, xs, t0 + i * 0.1) for i in range(12)]
    return next(c for c in changes if c is not None)


@pytest.mark.parametrize("rename_iou", [0.5, None])
def test_a_card_read_under_another_name_in_its_place_is_renamed_not_moved(rename_iou: float | None) -> None:
    # a Khmer row: 4S, then AS laid 45 px further on; after an arm the AS reads AC
    f = ZoneFilter("row:N", FilterConfig(rename_iou=rename_iou))
    assert _row_change(f, ["4S"], [0], 0.0).added == ("4S",)
    assert _row_change(f, ["4S", "AS"], [0, 45], 1.0).renamed == ()
    ch = _row_change(f, ["4S", "AC"], [0, 47], 2.0)
    assert (ch.removed, ch.added) == (("AS",), ("AC",))
    assert ch.renamed == ((("AS", "AC"),) if rename_iou else ())
    # the next play lays a card beside them, never in their place: not a rename
    ch = _row_change(f, ["4S", "AC", "3D"], [0, 47, 92], 3.0)
    assert ch.added == ("3D",) and ch.renamed == ()


@pytest.mark.parametrize("rename_iou", [0.5, None])
def test_a_second_name_read_in_a_stable_cards_place_is_dropped(rename_iou: float | None) -> None:
    # khmer-7103: the 6C is read at its place, and in the same reads an AS overlapping it
    # (IoU 0.6); the 4H laid beside it is the only new card
    f = ZoneFilter("row:S", FilterConfig(rename_iou=rename_iou))
    assert _row_change(f, ["6C"], [0], 0.0).added == ("6C",)
    f.new_episode()
    b = np.array([[0, 0, 69, 100], [-7, 10, 52, 96], [44, 1, 117, 104]], np.float32)
    changes = [f.update(["6C", "AS", "4H"], np.array([0.9, 0.95, 0.9], np.float32), b, 1 + i * 0.1) for i in range(12)]
    added = [sorted(c.added) for c in changes if c is not None]
    assert added == ([["4H"]] if rename_iou else [["4H", "AS"]])


def read_at(f: ZoneFilter, cards: list[str], places: list[int], t: float):
    """A read of `cards` lying at market places `places` (0–3, the boxes of `boxes(4)`)."""
    return f.update(cards, np.full(len(cards), 0.9, np.float32), boxes(4)[places], t)


@pytest.mark.parametrize("in_play", [True, False])
def test_a_swap_beside_a_card_it_hid_is_one_swap_in_play(in_play: bool) -> None:
    """After an arm, KD's place shows 2C and 7C's corner is hidden (the new card half over
    it): one card in, two out. In play cards go one for one, so that is KD → 2C, dated when
    the reads first showed it, and 7C stays until the zone is next disturbed; outside play
    (a reset due, a call judged) the 3-card set commits after `odd_confirm` reads."""
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), odd_confirm=10, one_for_one_swaps=True))
    read_at(f, MARKET, [0, 1, 2, 3], 0.0), read_at(f, MARKET, [0, 1, 2, 3], 0.1)
    f.one_for_one = in_play
    f.new_episode()
    changes = [read_at(f, ["2C", "3S", "4H"], [1, 2, 3], 1.0 + i / 30) for i in range(40)]
    done = [c for c in changes if c is not None]
    assert len(done) == 1
    ch = done[0]
    if in_play:
        assert (ch.removed, ch.added, ch.t) == (("KD",), ("2C",), 1.0)
        assert sorted(f.cards) == sorted(["7C", "2C", "3S", "4H"])
    else:
        assert sorted(ch.removed) == ["7C", "KD"] and sorted(f.cards) == ["2C", "3S", "4H"]
    f.new_episode()  # the next arm: 7C is no longer held without being read
    for i in range(40):
        read_at(f, ["2C", "3S", "4H"], [1, 2, 3], 3.0 + i / 30)
    assert sorted(f.cards) == ["2C", "3S", "4H"]


def test_one_for_one_needs_the_option() -> None:
    f = ZoneFilter("market", FilterConfig(allowed_sizes=(4,), odd_confirm=10))
    read_at(f, MARKET, [0, 1, 2, 3], 0.0), read_at(f, MARKET, [0, 1, 2, 3], 0.1)
    f.one_for_one = True
    f.new_episode()
    for i in range(40):
        read_at(f, ["2C", "3S", "4H"], [1, 2, 3], 1.0 + i / 30)
    assert sorted(f.cards) == ["2C", "3S", "4H"]
