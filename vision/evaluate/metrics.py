"""Pure evaluation metrics: truth vs referee, no I/O.

Events are public-vocabulary dicts with a time "t" (seconds). A predicted event matches a
truth event when both have the same *key* (type plus the fields the camera can know, see
`event_key`) and their times differ by at most the tolerance; matching is greedy by
smallest time difference, one to one.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

#: Events that are not visible on camera: eval injects them from the truth at their times.
INJECTED_TYPES: frozenset[str] = frozenset({"call", "close", "fold", "new_hand"})
# The camera's corrections of its own misreads: applied to the referee, never scored (the
# truth has no such events; the wrong deal or swap they follow is already counted).
UNSCORED_TYPES: frozenset[str] = frozenset({"correct"})

MISS = "-"  # confusion-matrix label: truth card not read / read card matching no truth card

Box = tuple[float, float, float, float]


def event_key(ev: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree for two events to be the same table event (the seat of a swap is
    not part of it: the camera may not know who reached in)."""
    kind = ev.get("type")
    if kind == "swap":
        return (kind, ev.get("give"), ev.get("take"))
    if kind in ("deal", "reset") and ev.get("market") is not None:
        return (kind, tuple(sorted(ev["market"])))
    if kind in ("play", "discard"):
        return (kind, ev.get("player"), _khmer(ev.get("card")))
    if kind == "steal":
        return (kind, ev.get("player"))
    return (kind,)


def _khmer(card: Any) -> Any:
    """A Khmer card by its value (events may carry "3H" or 3)."""
    from referee.cards import khmer_value

    try:
        return khmer_value(card)
    except (ValueError, TypeError):
        return card


@dataclass(slots=True)
class EventMatch:
    """One-to-one matching of predicted to truth events."""

    pairs: list[tuple[int, int]] = field(default_factory=list)  # (truth index, pred index)
    missed: list[int] = field(default_factory=list)  # truth indices without a match
    extra: list[int] = field(default_factory=list)  # pred indices without a match


def match_events(truth: Sequence[dict[str, Any]], pred: Sequence[dict[str, Any]], tolerance_s: float) -> EventMatch:
    """Greedy one-to-one matching by key, smallest |Δt| first, within `tolerance_s`."""
    candidates: list[tuple[float, int, int]] = []
    for i, tev in enumerate(truth):
        tkey = event_key(tev)
        for j, pev in enumerate(pred):
            dt = abs(float(pev["t"]) - float(tev["t"]))
            if dt <= tolerance_s + 1e-9 and event_key(pev) == tkey:
                candidates.append((dt, i, j))
    candidates.sort()
    used_t: set[int] = set()
    used_p: set[int] = set()
    match = EventMatch()
    for _, i, j in candidates:
        if i in used_t or j in used_p:
            continue
        used_t.add(i)
        used_p.add(j)
        match.pairs.append((i, j))
    match.pairs.sort()
    match.missed = [i for i in range(len(truth)) if i not in used_t]
    match.extra = [j for j in range(len(pred)) if j not in used_p]
    return match


def prf(tp: int, n_pred: int, n_truth: int) -> dict[str, float | None]:
    """Precision, recall, F1; None where undefined (nothing to measure). An empty
    truth with an empty prediction is perfect."""
    if n_pred == 0 and n_truth == 0:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_truth if n_truth else 0.0
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"precision": p, "recall": r, "f1": f1}


def event_scores(
    truth: Sequence[dict[str, Any]], pred: Sequence[dict[str, Any]], tolerance_s: float, end_s: float | None = None
) -> dict[str, Any]:
    """Overall and per-type precision/recall/F1 and latencies (pred.t − truth.t).

    `end_s` (the time of the last frame): an event the video cuts off — less than
    `tolerance_s` of video left after it — cannot always be confirmed in time, so it is
    not scored when it is unmatched (truth or referee side); a match there still counts."""
    match = match_events(truth, pred, tolerance_s)
    tail: list[dict[str, Any]] = []
    if end_s is not None:
        cut = end_s - tolerance_s
        drop_t = {i for i in match.missed if float(truth[i]["t"]) > cut}
        drop_p = {j for j in match.extra if float(pred[j]["t"]) > cut}
        if drop_t or drop_p:
            tail = [_brief(truth[i]) for i in sorted(drop_t)] + [_brief(pred[j]) for j in sorted(drop_p)]
            keep_t = [i for i in range(len(truth)) if i not in drop_t]
            keep_p = [j for j in range(len(pred)) if j not in drop_p]
            truth = [truth[i] for i in keep_t]
            pred = [pred[j] for j in keep_p]
            match = match_events(truth, pred, tolerance_s)
    latencies = [float(pred[j]["t"]) - float(truth[i]["t"]) for i, j in match.pairs]
    out: dict[str, Any] = {
        **prf(len(match.pairs), len(pred), len(truth)),
        "truth": len(truth),
        "pred": len(pred),
        "matched": len(match.pairs),
        "latencies_s": latencies,
        **latency_stats(latencies),
        "by_type": {},
    }
    for kind in sorted({e["type"] for e in truth} | {e["type"] for e in pred}):
        tp = sum(1 for i, _ in match.pairs if truth[i]["type"] == kind)
        n_t = sum(1 for e in truth if e["type"] == kind)
        n_p = sum(1 for e in pred if e["type"] == kind)
        out["by_type"][kind] = {**prf(tp, n_p, n_t), "truth": n_t, "pred": n_p, "matched": tp}
    out["missed"] = [_brief(truth[i]) for i in match.missed]
    out["unscored_tail"] = tail
    out["extra"] = [_brief(pred[j]) for j in match.extra]
    return out


def _brief(ev: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ev.items() if k != "hands" or ev.get("type") == "reveal"}


def latency_stats(latencies: Sequence[float]) -> dict[str, float | None]:
    if not latencies:
        return {"latency_median_s": None, "latency_p95_s": None}
    return {"latency_median_s": percentile(latencies, 50), "latency_p95_s": percentile(latencies, 95)}


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), without numpy."""
    xs = sorted(values)
    if len(xs) == 1:
        return float(xs[0])
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return float(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))


# --- market ---------------------------------------------------------------------------


def market_after(market: tuple[str, ...] | None, ev: dict[str, Any]) -> tuple[str, ...] | None:
    """The face-up market after one public event (None: no market on the table)."""
    kind = ev.get("type")
    if kind in ("deal", "reset") and ev.get("market") is not None:
        return tuple(sorted(ev["market"]))
    if kind == "swap" and market is not None:
        cards = list(market)
        if ev.get("take") in cards:
            cards.remove(ev["take"])
        cards.append(ev["give"])
        return tuple(sorted(cards))
    if kind == "new_hand":
        return None
    return market


def market_at_times(events: Sequence[dict[str, Any]], times: Sequence[float]) -> list[tuple[str, ...] | None]:
    """Truth market at each time (events with t ≤ time applied)."""
    out: list[tuple[str, ...] | None] = []
    market: tuple[str, ...] | None = None
    k = 0
    for t in times:
        while k < len(events) and float(events[k]["t"]) <= t + 1e-9:
            market = market_after(market, events[k])
            k += 1
        out.append(market)
    return out


def market_accuracy(
    truth: Sequence[tuple[str, ...] | None], pred: Sequence[Sequence[str] | None]
) -> float | None:
    """Share of samples (frames) where the referee's market equals the truth, over the
    samples where a market is on the table in truth; None when there never is one.
    Strict: no slack at a change (see `market_flags` for the scored figure)."""
    n = ok = 0
    for tm, pm in zip(truth, pred, strict=True):
        if tm is None:
            continue
        n += 1
        ok += pm is not None and tuple(sorted(pm)) == tm
    return ok / n if n else None


MarketChange = tuple[float, tuple[str, ...] | None, tuple[str, ...] | None]


def market_changes(events: Sequence[dict[str, Any]]) -> list[MarketChange]:
    """(t, market before, market after) at every truth event that changes the market."""
    out: list[MarketChange] = []
    market: tuple[str, ...] | None = None
    for ev in events:
        after = market_after(market, ev)
        if after != market:
            out.append((float(ev["t"]), market, after))
        market = after
    return out


def _same_market(pred: Sequence[str] | None, state: tuple[str, ...] | None) -> bool:
    """The referee shows `state` (an empty market stands for "no market on the table")."""
    if state is None:
        return pred is not None and len(pred) == 0
    return pred is not None and tuple(sorted(pred)) == state


def market_flags(
    events: Sequence[dict[str, Any]], times: Sequence[float], pred: Sequence[Sequence[str] | None], grace_s: float
) -> list[bool | None]:
    """Per sample: None (no market in truth), True (the referee's market is right), False.

    A truth stamp is the instant a change is fully visible (the arm has left), but the
    cards change under the hand before that and a referee confirms them a few frames
    after: within `grace_s` of a truth change (either side, as events are matched within
    the event tolerance) the market just before or just after that change is right too.
    Any other market (a wrong or missing card, a state more than `grace_s` late) is wrong;
    `grace_s=0` is the strict figure."""
    truth = market_at_times(events, times)
    changes = market_changes(events)
    starts = [c[0] for c in changes]
    out: list[bool | None] = []
    for t, tm, pm in zip(times, truth, pred, strict=True):
        if tm is None:
            out.append(None)
            continue
        ok = _same_market(pm, tm)
        if not ok and grace_s > 0:
            lo = bisect.bisect_left(starts, t - grace_s - 1e-9)
            hi = bisect.bisect_right(starts, t + grace_s + 1e-9)
            ok = any(_same_market(pm, changes[j][1]) or _same_market(pm, changes[j][2]) for j in range(lo, hi))
        out.append(ok)
    return out


def flags_accuracy(flags: Sequence[bool | None]) -> float | None:
    scored = [f for f in flags if f is not None]
    return sum(scored) / len(scored) if scored else None


# --- card reads -----------------------------------------------------------------------


def _io_min(a: Box, b: Box) -> float:
    """Intersection over the smaller box: a read of one corner still matches the card."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return iw * ih / small if small > 0 else 0.0


def match_cards(
    truth: Sequence[tuple[str, Box]], pred: Sequence[tuple[str, Box]], min_overlap: float = 0.5
) -> list[tuple[str, str]]:
    """(truth card, read card) pairs for one frame by location; MISS for the unmatched
    side. Same-card overlaps are preferred so a correct read is never paired away."""
    cand: list[tuple[int, float, int, int]] = []
    for i, (tc, tb) in enumerate(truth):
        for j, (pc, pb) in enumerate(pred):
            ov = _io_min(tb, pb)
            if ov >= min_overlap:
                cand.append((0 if tc == pc else 1, -ov, i, j))
    cand.sort()
    used_t: set[int] = set()
    used_p: set[int] = set()
    pairs: list[tuple[str, str]] = []
    for _, _, i, j in cand:
        if i in used_t or j in used_p:
            continue
        used_t.add(i)
        used_p.add(j)
        pairs.append((truth[i][0], pred[j][0]))
    pairs += [(tc, MISS) for i, (tc, _) in enumerate(truth) if i not in used_t]
    pairs += [(MISS, pc) for j, (pc, _) in enumerate(pred) if j not in used_p]
    return pairs


def card_scores(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Precision/recall/F1 of card reads from (truth, read) pairs, plus the confusion."""
    confusion: Counter[tuple[str, str]] = Counter(pairs)
    tp = sum(n for (t, p), n in confusion.items() if t == p and t != MISS)
    n_pred = sum(n for (_, p), n in confusion.items() if p != MISS)
    n_truth = sum(n for (t, _), n in confusion.items() if t != MISS)
    return {
        **prf(tp, n_pred, n_truth),
        "truth": n_truth,
        "pred": n_pred,
        "correct": tp,
        "confusion": [[t, p, n] for (t, p), n in sorted(confusion.items())],
    }


# --- reveals and outcomes -------------------------------------------------------------


def hands_equal(truth_hands: dict[str, Sequence[Any]], pred_hands: dict[str, Sequence[Any]] | None, by_value: bool = False) -> bool:
    """Every truth seat read with exactly its cards (order free; Khmer: by value)."""
    if not pred_hands:
        return False
    norm = (lambda c: str(_khmer(c))) if by_value else str
    return all(
        sorted(map(norm, pred_hands.get(seat) or [])) == sorted(map(norm, cards)) for seat, cards in truth_hands.items()
    )


def reveal_accuracy(
    truth: Sequence[dict[str, Any]], pred: Sequence[dict[str, Any]], tolerance_s: float, by_value: bool = False
) -> dict[str, Any]:
    """Share of truth reveals whose matched referee reveal read every seat right."""
    t_rev = [e for e in truth if e.get("type") == "reveal"]
    p_rev = [e for e in pred if e.get("type") == "reveal"]
    match = match_events(t_rev, p_rev, tolerance_s)
    by_truth = dict(match.pairs)
    correct = [hands_equal(t_rev[i].get("hands") or {}, p_rev[by_truth[i]].get("hands"), by_value) if i in by_truth else False for i in range(len(t_rev))]
    return {
        "accuracy": (sum(correct) / len(correct)) if correct else None,
        "truth": len(t_rev),
        "read": len(match.pairs),
        "correct": int(sum(correct)),
    }


def to_plain(value: Any) -> Any:
    """JSON-like plain data from engine results (dataclasses, pydantic, enums, tuples)."""
    if hasattr(value, "model_dump"):
        return to_plain(value.model_dump())
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return to_plain(value.to_dict())
    if is_dataclass(value) and not isinstance(value, type):
        return to_plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if hasattr(value, "value") and type(value).__module__ != "builtins" and hasattr(type(value), "__members__"):
        return to_plain(value.value)
    return value


#: Result fields that describe *when* or *how it was said*, not what was decided.
_NOT_OUTCOME = frozenset({"t", "announcement", "announcements", "text", "seq", "index"})


def outcome_fingerprint(result: Any) -> Any:
    """What a decision says, comparable with ==: timing/wording fields dropped, and lists of
    plain values (hands, teams) taken as sets-with-counts, since their order says nothing."""
    plain = to_plain(result)
    if isinstance(plain, dict):
        return {k: outcome_fingerprint(v) for k, v in plain.items() if k not in _NOT_OUTCOME}
    if isinstance(plain, list):
        items = [outcome_fingerprint(v) for v in plain]
        if all(isinstance(v, (str, int, float)) for v in items):
            return sorted(items, key=lambda v: (type(v).__name__, v))
        return items
    return plain


#: Result kinds that are bookkeeping notices, not decisions of the referee.
NOT_DECISIONS = frozenset({"anomaly"})


def is_decision(result: Any) -> bool:
    plain = to_plain(result)
    return not (isinstance(plain, dict) and plain.get("kind") in NOT_DECISIONS)


def outcome_accuracy(
    truth_results: Sequence[Any], pred_results: Sequence[Any], truth_standings: Any, pred_standings: Any
) -> dict[str, Any]:
    """Each resolved call / Khmer close, in order, plus the final standings: the share the
    referee decided exactly as the truth."""
    t_fp = [outcome_fingerprint(r) for r in truth_results if is_decision(r)]
    p_fp = [outcome_fingerprint(r) for r in pred_results if is_decision(r)]
    same = [i < len(p_fp) and p_fp[i] == f for i, f in enumerate(t_fp)]
    standings_ok = outcome_fingerprint(truth_standings) == outcome_fingerprint(pred_standings)
    items = len(same) + 1
    return {
        "accuracy": (sum(same) + standings_ok) / items,
        "results_truth": len(t_fp),
        "results_pred": len(p_fp),
        "results_correct": int(sum(same)),
        "standings_correct": bool(standings_ok),
    }


def mean_defined(values: Iterable[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None
