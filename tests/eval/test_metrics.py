"""Eval metrics on hand-made truth/prediction pairs."""

from __future__ import annotations

import pytest

from vision.evaluate import metrics as M

TRUTH = [
    {"type": "deal", "market": ["7C", "KD", "3S", "4H"], "hands": {"N": ["2C"]}, "t": 2.0},
    {"type": "swap", "player": "S", "give": "2C", "take": "7C", "t": 5.0},
    {"type": "stale", "t": 12.0},
    {"type": "reset", "market": ["QH", "5D", "9S", "JC"], "t": 14.0},
    {"type": "reveal", "hands": {"N": ["7H", "7S", "7C", "7D"]}, "t": 20.0},
]


def pred_of(events: list[dict], dt: float = 0.0) -> list[dict]:
    """What a vision pipeline reports for `events`: no hidden hands, no seat, `dt` late."""
    out = []
    for e in events:
        p = {k: v for k, v in e.items() if not (k == "hands" and e["type"] == "deal") and k != "player"}
        p["t"] = e["t"] + dt
        out.append(p)
    return out


def test_perfect_run_scores_one() -> None:
    s = M.event_scores(TRUTH, pred_of(TRUTH), 1.0)
    assert (s["precision"], s["recall"], s["f1"]) == (1.0, 1.0, 1.0)
    assert s["latency_median_s"] == 0.0
    assert M.reveal_accuracy(TRUTH, pred_of(TRUTH), 1.0)["accuracy"] == 1.0


def test_shifted_event_within_and_beyond_tolerance() -> None:
    late = pred_of(TRUTH, dt=0.4)
    s = M.event_scores(TRUTH, late, 1.0)
    assert s["f1"] == 1.0
    assert s["latency_median_s"] == pytest.approx(0.4)
    too_late = pred_of(TRUTH, dt=1.5)
    s = M.event_scores(TRUTH, too_late, 1.0)
    assert s["matched"] == 0 and s["f1"] == 0.0
    assert len(s["missed"]) == 5 and len(s["extra"]) == 5


def test_missing_and_wrong_events_counted() -> None:
    pred = pred_of(TRUTH)
    del pred[2]  # stale missed
    pred[1] = {**pred[1], "take": "KD"}  # swap read with the wrong card: a miss and an extra
    s = M.event_scores(TRUTH, pred, 1.0)
    assert s["matched"] == 3 and s["truth"] == 5 and s["pred"] == 4
    assert s["precision"] == pytest.approx(3 / 4) and s["recall"] == pytest.approx(3 / 5)
    assert s["by_type"]["stale"]["recall"] == 0.0
    assert s["by_type"]["swap"]["matched"] == 0


def test_matching_is_one_to_one() -> None:
    truth = [{"type": "stale", "t": 1.0}]
    pred = [{"type": "stale", "t": 1.1}, {"type": "stale", "t": 1.2}]
    s = M.event_scores(truth, pred, 1.0)
    assert s["matched"] == 1 and s["precision"] == 0.5 and s["recall"] == 1.0


def test_empty_truth_and_prediction_is_perfect() -> None:
    assert M.event_scores([], [], 1.0)["f1"] == 1.0
    assert M.event_scores([], [{"type": "stale", "t": 1.0}], 1.0)["f1"] == 0.0


def test_khmer_cards_match_by_value() -> None:
    truth = [{"type": "play", "player": "S", "card": "3H", "t": 4.0}]
    assert M.event_scores(truth, [{"type": "play", "player": "S", "card": 3, "t": 4.2}], 1.0)["f1"] == 1.0
    assert M.event_scores(truth, [{"type": "play", "player": "N", "card": 3, "t": 4.2}], 1.0)["f1"] == 0.0


def test_reveal_read_wrong_card() -> None:
    pred = pred_of(TRUTH)
    pred[4] = {**pred[4], "hands": {"N": ["7H", "7S", "7C", "1D".replace("1", "2")]}}
    r = M.reveal_accuracy(TRUTH, pred, 1.0)
    assert r["accuracy"] == 0.0 and r["read"] == 1
    pred[4] = {**pred[4], "hands": {"N": ["7D", "7C", "7S", "7H"]}}  # order does not matter
    assert M.reveal_accuracy(TRUTH, pred, 1.0)["accuracy"] == 1.0


def test_market_accuracy_over_time() -> None:
    times = [0.0, 1.0, 2.0, 3.0, 5.0, 6.0]
    truth = M.market_at_times(TRUTH, times)
    assert truth[:2] == [None, None]  # nothing dealt yet
    assert truth[4] == tuple(sorted(["2C", "KD", "3S", "4H"]))
    pred = [None, None, ("7C", "KD", "3S", "4H"), ("KD", "7C", "4H", "3S"), ("7C", "KD", "3S", "4H"), ("2C", "KD", "3S", "4H")]
    assert M.market_accuracy(truth, pred) == pytest.approx(3 / 4)  # frame at t=5 still shows the old market
    assert M.market_accuracy([None, None], [None, ("AC",)]) is None


def test_market_slack_at_changes_accepts_only_the_two_sides() -> None:
    old, new = ("7C", "KD", "3S", "4H"), ("2C", "KD", "3S", "4H")
    wrong = ("9C", "KD", "3S", "4H")
    times = [1.5, 2.5, 4.5, 5.5, 5.9, 6.5, 8.0]
    pred = [(), (), new, old, old, old, old]
    flags = M.market_flags(TRUTH, times, pred, 1.0)
    # 1.5: no market in truth (unscored); 2.5: still empty 0.5 s after the deal (before = no market);
    # 4.5: the new card seen under the hand before the stamp; 5.5, 5.9: old market up to 1 s late;
    # 6.5, 8.0: the old market kept more than 1 s after the swap is wrong.
    assert flags == [None, True, True, True, True, False, False]
    assert M.market_flags(TRUTH, [5.2], [wrong], 1.0) == [False]  # a wrong card is never excused
    assert M.market_flags(TRUTH, times, pred, 0.0) == [None, False, False, False, False, False, False]
    assert M.flags_accuracy(flags) == pytest.approx(4 / 6)
    assert M.flags_accuracy([None]) is None
    assert [c[0] for c in M.market_changes(TRUTH)] == [2.0, 5.0, 14.0]


def test_events_cut_off_by_the_video_end_are_not_scored_when_unmatched() -> None:
    truth = [{"type": "stale", "t": 3.0}, {"type": "stale", "t": 9.6}]
    s = M.event_scores(truth, [{"type": "stale", "t": 3.1}], 1.0, end_s=10.0)
    assert s["f1"] == 1.0 and s["truth"] == 1 and len(s["unscored_tail"]) == 1
    s = M.event_scores(truth, [{"type": "stale", "t": 3.1}], 1.0, end_s=11.0)  # 1.4 s of video left: missed
    assert s["recall"] == 0.5 and s["unscored_tail"] == []
    s = M.event_scores(truth, [{"type": "stale", "t": 3.1}, {"type": "stale", "t": 9.9}], 1.0, end_s=10.0)
    assert s["f1"] == 1.0 and s["truth"] == 2  # matched in the tail: counted


def test_card_reads_and_confusion() -> None:
    truth = [("7C", (0, 0, 10, 10)), ("KD", (20, 0, 30, 10)), ("3S", (40, 0, 50, 10))]
    pred = [("7C", (1, 1, 9, 9)), ("KH", (21, 0, 29, 10)), ("AS", (80, 80, 90, 90))]
    pairs = M.match_cards(truth, pred)
    assert sorted(pairs) == sorted([("7C", "7C"), ("KD", "KH"), ("3S", M.MISS), (M.MISS, "AS")])
    s = M.card_scores(pairs)
    assert s["correct"] == 1 and s["precision"] == pytest.approx(1 / 3) and s["recall"] == pytest.approx(1 / 3)
    perfect = M.card_scores(M.match_cards(truth, truth))
    assert perfect["f1"] == 1.0


def test_outcomes_compare_decisions_not_notices() -> None:
    truth = [{"kind": "call", "correct": True, "team": ["E", "W"], "letters": "K"}, {"kind": "anomaly", "detail": "x"}]
    same = [{"kind": "call", "correct": True, "team": ["E", "W"], "letters": "K"}]
    assert M.outcome_accuracy(truth, same, [{"letters": "K"}], [{"letters": "K"}])["accuracy"] == 1.0
    wrong = [{"kind": "call", "correct": False, "team": ["N", "S"], "letters": "K"}]
    out = M.outcome_accuracy(truth, wrong, [{"letters": "K"}], [{"letters": ""}])
    assert out["accuracy"] == 0.0 and out["results_correct"] == 0
    assert M.outcome_accuracy(truth, [], [{"l": 1}], [{"l": 1}])["accuracy"] == 0.5  # call never resolved


def test_percentile() -> None:
    assert M.percentile([1, 2, 3, 4], 50) == 2.5
    assert M.percentile([5.0], 95) == 5.0
