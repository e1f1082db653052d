"""Temporal filter: one zone's stable card set from noisy per-read detections.

Identity is the card string (a multiset, so two identical cards of a two-deck game both
count): a card that moves inside the zone but stays the same card is the same card, and
its box simply follows. A change is committed only when

1. each card's presence, voted over the reads of the current *episode* (reads since the
   zone was last disturbed, at most `window` of them), passes a hysteresis threshold:
   a new card needs `enter` of the votes, a stable card leaves only at `leave` or less;
2. the voted set stays the same for `confirm` consecutive reads (`odd_confirm` when its
   size is not one of `allowed_sizes`, e.g. 3 cards in a 4-card market, which is what a
   hand resting over a card looks like; `confirm + disagree_extra` when the episode's
   reads disagree with each other).

While the zone is occluded (`hold`), nothing is added or removed: an arm over the market
keeps the last state. Confidence per card is an exponential average of its read
confidences, decayed when a stable card is missed.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

Key = tuple[str, int]  # (card, copy number) so identical cards of two decks are distinct


@dataclass(frozen=True)
class FilterConfig:
    window: int = 6
    enter: float = 0.5
    leave: float = 0.25
    confirm: int = 2
    disagree_extra: int = 2
    odd_confirm: int = 30
    min_confidence: float = 0.25
    allowed_sizes: tuple[int, ...] | None = None
    ema: float = 0.3
    miss_decay: float = 0.85


@dataclass(frozen=True)
class ZoneChange:
    zone: str
    t: float
    removed: tuple[str, ...]
    added: tuple[str, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]
    # Card centre (x, y) at the last read, for pairing swaps by position.
    removed_at: tuple[tuple[float, float], ...] = ()
    added_at: tuple[tuple[float, float], ...] = ()


@dataclass
class _Card:
    card: str
    confidence: float
    box: tuple[float, float, float, float]
    since: float


@dataclass
class ZoneFilter:
    zone: str
    config: FilterConfig = field(default_factory=FilterConfig)

    def __post_init__(self) -> None:
        self.stable: dict[Key, _Card] = {}
        self._votes: deque[Counter[Key]] = deque(maxlen=self.config.window)
        self._last_read: dict[Key, tuple[float, tuple[float, float, float, float]]] = {}
        self._candidate: frozenset[Key] | None = None
        self._candidate_n = 0
        self.occluded = False
        self.last_change_t = 0.0
        self.reads = 0
        self._fresh = False  # reading a freshly settled zone until the vote window is full
        # Sizes normal for now on top of `allowed_sizes` (an empty market once a hand is over).
        self.also_allowed: frozenset[int] = frozenset()

    # ---- inputs ----------------------------------------------------------------------
    def hold(self) -> None:
        """The zone is covered (arm, hand): keep the stable state, mark it occluded."""
        self.occluded = True

    def new_episode(self) -> None:
        """The zone was disturbed and is still again: vote only on reads from now on."""
        self._votes.clear()
        self._candidate, self._candidate_n = None, 0
        self._fresh = True

    def update(
        self,
        cards: list[str],
        confidence: np.ndarray | list[float],
        boxes: np.ndarray | list[tuple[float, float, float, float]],
        t: float,
    ) -> ZoneChange | None:
        """One read of this zone (an unoccluded, still view). Returns a committed change."""
        self.occluded = False
        self.reads += 1
        cfg = self.config
        keys: list[Key] = []
        seen: Counter[str] = Counter()
        read: dict[Key, tuple[float, tuple[float, float, float, float]]] = {}
        # Copy numbers are given by descending confidence so the surer copy is copy 0.
        order = np.argsort(-np.asarray(confidence, np.float32), kind="stable")
        for i in order:
            conf = float(confidence[i])
            if conf < cfg.min_confidence:
                continue
            card = cards[i]
            key = (card, seen[card])
            seen[card] += 1
            keys.append(key)
            b = boxes[i]
            read[key] = (conf, (float(b[0]), float(b[1]), float(b[2]), float(b[3])))
        self._votes.append(Counter(keys))
        self._last_read = read
        self._refresh_stable(read)
        voted = self._voted()
        if voted == frozenset(self.stable):
            self._candidate, self._candidate_n = None, 0
            return None
        if voted == self._candidate:
            self._candidate_n += 1
        else:
            self._candidate, self._candidate_n = voted, 1
        need = cfg.confirm
        if cfg.allowed_sizes is not None and len(voted) not in cfg.allowed_sizes and len(voted) not in self.also_allowed:
            need = cfg.odd_confirm
        elif any(frozenset(v) != voted for v in self._votes):
            need = cfg.confirm + cfg.disagree_extra  # reads disagree (flicker, misreads): more
        if self._candidate_n < need:
            return None
        return self._commit(voted, t)

    # ---- outputs ---------------------------------------------------------------------
    @property
    def cards(self) -> tuple[str, ...]:
        """Stable cards, left to right."""
        return tuple(c.card for c in self._ordered())

    @property
    def confidences(self) -> tuple[float, ...]:
        return tuple(round(c.confidence, 4) for c in self._ordered())

    @property
    def pending(self) -> bool:
        """Keep reading: a different set is being confirmed, or the zone settled after a
        disturbance and the vote does not yet span a full window."""
        if self._candidate is not None:
            return True
        if not self._fresh or len(self._votes) >= self.config.window:
            return False
        # Three reads that agree with each other are enough; disagreement fills the window.
        agree = len({frozenset(v) for v in self._votes}) <= 1
        return not agree or len(self._votes) < self.config.confirm + 1

    def box_of(self, card: str) -> tuple[float, float, float, float] | None:
        for (c, _), v in self.stable.items():
            if c == card:
                return v.box
        return None

    def reset(self, cards: list[str] | None = None, t: float = 0.0) -> None:
        """Forget everything (new hand); optionally start from known cards."""
        self.stable = {}
        seen: Counter[str] = Counter()
        for c in cards or []:
            self.stable[(c, seen[c])] = _Card(c, 1.0, (0.0, 0.0, 0.0, 0.0), t)
            seen[c] += 1
        self.new_episode()

    # ---- internals -------------------------------------------------------------------
    def _ordered(self) -> list[_Card]:
        return sorted(self.stable.values(), key=lambda c: (c.box[0], c.box[1]))

    def _voted(self) -> frozenset[Key]:
        n = len(self._votes)
        if n == 0:
            return frozenset(self.stable)
        tally: Counter[Key] = Counter()
        for v in self._votes:
            tally.update(v.keys())
        out = set()
        for key in set(tally) | set(self.stable):
            share = tally.get(key, 0) / n
            if (key in self.stable and share > self.config.leave) or share >= self.config.enter:
                out.add(key)
        return frozenset(out)

    def _refresh_stable(self, read: dict[Key, tuple[float, tuple[float, float, float, float]]]) -> None:
        a, decay = self.config.ema, self.config.miss_decay
        for key, card in self.stable.items():
            if key in read:
                conf, box = read[key]
                card.confidence = (1 - a) * card.confidence + a * conf
                card.box = box  # moved but not changed: same card, new place
            else:
                card.confidence *= decay

    def _commit(self, voted: frozenset[Key], t: float) -> ZoneChange:
        before = self.cards
        old = self.stable
        removed = [k for k in old if k not in voted]
        added = [k for k in voted if k not in old]
        new: dict[Key, _Card] = {k: old[k] for k in voted if k in old}
        for k in added:
            conf, box = self._last_read.get(k, (self.config.enter, (0.0, 0.0, 0.0, 0.0)))
            new[k] = _Card(k[0], conf, box, t)
        self.stable = new
        self._candidate, self._candidate_n = None, 0
        self.last_change_t = t

        def centre(b: tuple[float, float, float, float]) -> tuple[float, float]:
            return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)

        return ZoneChange(
            zone=self.zone,
            t=t,
            removed=tuple(k[0] for k in removed),
            added=tuple(k[0] for k in added),
            before=before,
            after=self.cards,
            removed_at=tuple(centre(old[k].box) for k in removed),
            added_at=tuple(centre(new[k].box) for k in added),
        )
