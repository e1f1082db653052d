"""Reveals: read each requested seat's laid-down cards until stable, or time out.

The referee asks (`request`) after a call; every read of a seat's reveal area is offered
(`offer`). Each card's presence is voted over the last `window` reads since the area last
settled (a card missed now and then still counts); a seat is settled once the voted hand
is the same, non-empty (and of the seat's `expected` size when known) for `consistent` reads
in a row; with a known size, a read short of it that contradicts nothing, or an arm crossing
the area, pauses that count instead of restarting it (`hold_short`, `keep_candidate_over_cover`).
When every seat is settled the reveal event is emitted with per-card confidence. Past
`timeout_s` a `reveal_timeout` notice names the seats still unread with a prompt; reading
goes on, and `correct` (a person typing the cards) settles a seat at any time.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Event = dict[str, Any]


@dataclass(frozen=True)
class RevealConfig:
    # Reads in a row giving the same voted hand. 3 since stop 52 (4 before, never measured):
    # with `hold_short` and `keep_candidate_over_cover` a flickering card no longer restarts
    # the count, and two right hands of the val sets that settled 1.02 and 1.06 s after the
    # truth came within the 1 s tolerance (dev8q reveals 5 -> 7 of 7; no val game lost;
    # datasets/MEASUREMENTS.md "Three agreeing reads settle a reveal").
    consistent: int = 3
    window: int = 6  # reads a card's presence is voted over (since the zone last settled)
    share: float = 0.5  # a card is in the hand when read in at least this share of them
    timeout_s: float = 12.0
    min_confidence: float = 0.3
    # When the hand's size is known and the vote holds fewer cards, fill it with the cards
    # read most often since the area settled, each read at least this many times, when
    # that fills it exactly (no tie for the last place): a laid-down card the reader finds
    # on one read in eight is still there, and nothing else lies at its place. None: off.
    # Measured (datasets/README.md): 2 by default.
    fill_min_reads: int | None = 2
    # When the hand's size is known and the vote holds more cards only because some card is
    # there twice, and dropping every second copy gives exactly that size, take that. Why: in
    # a two-deck game (Khmer) the reader sometimes reads one laid card's two corners as two
    # identical cards, and the hand never reached its size (3 of 4 Khmer recordings of val
    # decks, 2 Dec: no reveal, no close result). A real pair (two 6D of the two decks) is
    # kept unless the copies are the whole excess. False: off.
    trim_twins: bool = True
    # When the hand's size is known and the vote holds more cards, drop those read at least
    # this many times less often in the window than the `size`-th most read card (before
    # `trim_twins` judges what is left): a false card that comes and goes (a pip read as an
    # ace's index in some reads and not in others) is not a laid card read every time.
    # Why: khv20 khmer-8120, N's 2H's top pip read AH in 2 reads of 3 (when the area was read
    # together with N's row), so the vote held five cards for four and the reveal settled
    # 2.6 s late, past the 1 s tolerance. None: off.
    trim_weakest: int | None = 2
    # When the hand's size is known and a read's voted hand falls short of it with no card
    # the seat's candidate hand (`last`) lacks, the streak holds (neither grows nor restarts):
    # a laid card missed for a read or two is not evidence against it. Why: the dev6p
    # kemps-9202 reveal was read right 5 times in 6 (its 7S missed once) and never settled
    # before an arm covered the area; later reads in other light lost two cards. False: a
    # short hand restarts the streak (before 2026-12-07, stop 52). Measured as a pair with
    # `keep_candidate_over_cover` (datasets/MEASUREMENTS.md "A reveal's count survives a
    # missed card and a passing arm"): either alone changed nothing on the val sets.
    hold_short: bool = True
    # When an arm crosses a seat's area, its votes start afresh (`new_episode`: cards may have
    # been laid or taken); with this on, the full-size hand it was converging on (`last`) and
    # its streak survive, so reads after the cover that agree with it go on counting, while any
    # other hand restarts as before. Why: in dev6p kemps-9202 an arm passed over the corner of
    # the area twice while the hand was read right (streaks of 2, then 2), and after the covers
    # the light changed and two cards were never read again. False: a cover restarts the streak.
    keep_candidate_over_cover: bool = True


@dataclass
class _Seat:
    reads: deque[Counter[str]] = field(default_factory=lambda: deque(maxlen=6))
    last: tuple[str, ...] | None = None
    streak: int = 0
    # per card: (sum, count) of its read confidences. A running sum, not the list of them: a
    # reveal that never settles is re-read every frame, and the lists grew by one float per
    # card per frame for as long as nobody confirmed it (an audit of 7 Dec: 14 MB an hour at 30 fps).
    conf: dict[str, tuple[float, int]] = field(default_factory=dict)
    hand: tuple[str, ...] | None = None
    confidence: tuple[float, ...] = ()
    manual: bool = False
    seen: Counter[str] = field(default_factory=Counter)  # reads that saw each card, since settled


@dataclass
class RevealReader:
    config: RevealConfig = field(default_factory=RevealConfig)
    khmer: bool = False

    def __post_init__(self) -> None:
        self.seats: dict[str, _Seat] = {}
        self.t0 = 0.0
        self.expected: dict[str, int] = {}  # cards each seat holds, where known
        self.timed_out = False
        self.last: Event | None = None

    @property
    def active(self) -> bool:
        return bool(self.seats)

    def request(self, seats: list[str], t: float, expected: int | Mapping[str, int] | None = None) -> None:
        """Read `seats` until settled. `expected`: the hand size of every seat, or per seat
        (a Khmer player's hand at close), or None (any size)."""
        self.seats = {s: _Seat() for s in seats}
        if isinstance(expected, int):
            expected = {s: expected for s in seats}
        self.expected = {s: int(n) for s, n in (expected or {}).items() if s in self.seats}
        self.t0, self.timed_out = t, False

    def cancel(self) -> None:
        self.seats = {}

    def new_episode(self, seat: str) -> None:
        """The seat's area was covered (cards being laid down): vote on fresh reads only."""
        st = self.seats.get(seat)
        if st is not None and st.hand is None:
            st.reads.clear()
            if not self.config.keep_candidate_over_cover:
                st.last, st.streak = None, 0
            st.conf = {}
            st.seen = Counter()

    def wants_read(self, seat: str) -> bool:
        """Read again next frame: cards were seen and the hand is not settled yet (an empty
        area is re-read only when it changes, or at the periodic refresh)."""
        st = self.seats.get(seat)
        return st is not None and st.hand is None and bool(st.reads) and bool(st.reads[-1])

    def offer(self, seat: str, cards: list[str], confidence: list[float], t: float) -> list[Event]:
        st = self.seats.get(seat)
        if st is None or st.hand is not None:
            return []
        cfg = self.config
        keep = [(c, p) for c, p in zip(cards, confidence) if p >= cfg.min_confidence]
        if st.reads.maxlen != cfg.window:
            st.reads = deque(st.reads, maxlen=cfg.window)
        st.reads.append(Counter(c for c, _ in keep))
        for c, p in keep:
            total, count = st.conf.get(c, (0.0, 0))
            st.conf[c] = (total + float(p), count + 1)
        st.seen.update({c for c, _ in keep})
        tally: Counter[tuple[str, int]] = Counter()
        for r in st.reads:
            tally.update((c, k) for c, n in r.items() for k in range(n))
        n = len(st.reads)
        voted = tuple(sorted(c for (c, _), v in tally.items() if v / n >= cfg.share))
        size = self.expected.get(seat)
        if size is not None and 0 < len(voted) < size and cfg.fill_min_reads is not None:
            voted = _filled(voted, st.seen, size, cfg.fill_min_reads)
        if size is not None and len(voted) > size and cfg.trim_weakest is not None:
            voted = _weakest_dropped(voted, tally, size, cfg.trim_weakest)
        if size is not None and len(voted) > size and cfg.trim_twins:
            voted = _trimmed(voted, size)
        if not voted or (size is not None and len(voted) != size):
            if cfg.hold_short and size is not None and _short_of(voted, st.last, size):
                return []
            st.last, st.streak = None, 0
            return []
        if voted == st.last:
            st.streak += 1
        else:
            st.last, st.streak = voted, 1
        if st.streak >= cfg.consistent:
            st.hand = voted
            st.confidence = tuple(round(st.conf[c][0] / st.conf[c][1], 4) for c in voted)
        return self._maybe_done(t)

    def tick(self, t: float) -> list[Event]:
        if not self.seats or self.timed_out or t - self.t0 < self.config.timeout_s:
            return []
        self.timed_out = True
        missing = [s for s, st in self.seats.items() if st.hand is None]
        return [{
            "type": "reveal_timeout", "seats": missing, "t": round(t, 3),
            "prompt": (f"Cannot read the cards of {', '.join(missing)}: lay them face up and apart "
                       "in the reveal area in front of the seat, take hands away, or correct them by hand."),
        }]  # fmt: skip

    def correct(self, seat: str, cards: list[str], t: float) -> list[Event]:
        """Manual correction: settles `seat` (during a reveal) or re-issues the last reveal."""
        hand = tuple(sorted(cards))
        if seat in self.seats:
            st = self.seats[seat]
            st.hand, st.confidence, st.manual = hand, tuple(1.0 for _ in hand), True
            return self._maybe_done(t)
        if self.last is not None:
            ev = dict(self.last)
            ev["hands"] = {**ev["hands"], seat: self._values(hand)}
            meta = dict(ev.get("meta") or {})
            meta["confidence"] = {**meta.get("confidence", {}), seat: [1.0] * len(hand)}
            meta["corrected"] = sorted(set(meta.get("corrected", [])) | {seat})
            meta.setdefault("cards", {})[seat] = list(hand)
            ev["meta"], ev["t"] = meta, round(t, 3)
            self.last = ev
            return [ev]
        raise ValueError(f"no reveal to correct for seat {seat}")

    def status(self) -> dict[str, Any]:
        return {
            s: {"cards": list(st.hand or st.last or ()), "settled": st.hand is not None, "reads": st.streak}
            for s, st in self.seats.items()
        }

    def _values(self, hand: tuple[str, ...]) -> list[Any]:
        if not self.khmer:
            return list(hand)
        from referee.cards import khmer_value

        return [khmer_value(c) for c in hand]

    def _maybe_done(self, t: float) -> list[Event]:
        if not self.seats or any(st.hand is None for st in self.seats.values()):
            return []
        hands = {s: self._values(st.hand or ()) for s, st in self.seats.items()}
        meta: dict[str, Any] = {
            "confidence": {s: list(st.confidence) for s, st in self.seats.items()},
            "cards": {s: list(st.hand or ()) for s, st in self.seats.items()},
        }
        corrected = [s for s, st in self.seats.items() if st.manual]
        if corrected:
            meta["corrected"] = corrected
        ev: Event = {"type": "reveal", "hands": hands, "source": "vision", "meta": meta, "t": round(t, 3)}
        dupes = Counter(c for st in self.seats.values() for c in st.hand or ())
        if not self.khmer and any(n > 1 for n in dupes.values()):
            meta["warning"] = "a card is read in two hands"
        self.last = ev
        self.seats = {}
        return [ev]


def _filled(voted: tuple[str, ...], seen: Counter[str], size: int, min_reads: int) -> tuple[str, ...]:
    """`voted` filled to `size` with the most often read other cards (see `fill_min_reads`),
    or unchanged when that cannot be done without a tie or a card read too rarely."""
    others = sorted(((n, c) for c, n in seen.items() if c not in voted and n >= min_reads), key=lambda x: (-x[0], x[1]))
    need = size - len(voted)
    if len(others) < need or (len(others) > need and others[need - 1][0] == others[need][0]):
        return voted
    return tuple(sorted(voted + tuple(c for _, c in others[:need])))


def _short_of(voted: tuple[str, ...], last: tuple[str, ...] | None, size: int) -> bool:
    """`voted` is a non-empty part of the full-size candidate `last` (see `hold_short`)."""
    return bool(voted) and last is not None and len(last) == size and len(voted) < size and not Counter(voted) - Counter(last)


def _weakest_dropped(voted: tuple[str, ...], tally: Counter[tuple[str, int]], size: int, margin: int) -> tuple[str, ...]:
    """`voted` without the cards read at least `margin` times less often (`tally`: reads per
    (card, copy)) than the `size`-th most read one (see `trim_weakest`): what is left may
    still hold a twin read, which `trim_twins` then judges."""
    seen: Counter[str] = Counter()
    counted = []
    for c in voted:  # the k-th copy of a card is that card's k-th entry in the tally
        counted.append((tally[(c, seen[c])], c))
        seen[c] += 1
    floor = sorted((n for n, _ in counted), reverse=True)[size - 1] - margin
    return tuple(sorted(c for n, c in counted if n > floor))


def _trimmed(voted: tuple[str, ...], size: int) -> tuple[str, ...]:
    """`voted` without its second copies when they are exactly its excess over `size`
    (see `trim_twins`), else unchanged."""
    once = tuple(sorted(set(voted)))
    return once if len(once) == size else voted
