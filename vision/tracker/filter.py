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
   reads disagree with each other);
3. optionally (`quiet_confirm`, off by default), in a zone no arm has touched since it
   last settled (the first `window` reads of an episode and any change being confirmed
   then count as touched), the voted set stays
   the same for `quiet_confirm` reads: cards do not change by themselves, so a different
   set there is far more likely a run of misreads than a change (a reader's errors on a
   still card come in runs). A change the motion gate missed is still taken, later.

Optional, off by default (`same_ncc`; measured: better under the oracle's noise model,
worse with the shipped reader, because an identity committed from a misread is then held):
a card whose image has not changed has not changed (`update(..., image=)`): each stable
card keeps a small colour patch of its box, taken when it was confirmed; while the same
place still looks the same (normalised correlation ≥ `same_ncc`, which ignores lighting
changes), a read of another card there is a misread and is ignored, and a read that
misses it counts it anyway. Only a place whose image changed (a card taken, swapped,
covered) is left to the votes, and it is held again only once the votes agree with the
stable set again. A swapped card never looks the same: its replacement
lies at another angle and offset, with other pips.

While the zone is occluded (`hold`), nothing is added or removed: an arm over the market
keeps the last state. Confidence per card is an exponential average of its read
confidences, decayed when a stable card is missed.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from vision.reader.grouping import box_iou

Key = tuple[str, int]  # (card, copy number) so identical cards of two decks are distinct


@dataclass(frozen=True)
class FilterConfig:
    window: int = 6
    enter: float = 0.5
    leave: float = 0.25
    confirm: int = 2
    disagree_extra: int = 2
    odd_confirm: int = 30
    # Reads a change needs in a zone no arm touched since it settled (rule 3). None
    # (default): off — measured neutral with perfect reads and the shipped reader, and mixed
    # under the oracle's noise model (see datasets/README.md).
    quiet_confirm: int | None = None
    # Patch correlation at or above which a stable card's place is unchanged (development
    # recordings: a swapped place ≤ 0.55, an unchanged one ≥ 0.88, lighting steps included).
    # None (default): off. It helps against the oracle's noise model but hurts the shipped
    # reader: it locks in an identity committed from a misread (see datasets/README.md).
    same_ncc: float | None = None
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
    patch: np.ndarray | None = None  # unit-norm, zero-mean colour patch of `patch_box`
    patch_box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    contradicted: int = 0  # reads in a row that saw only another card in its unchanged place
    missed: int = 0  # reads in a row that did not read it (held meanwhile)
    max_area: float = 0.0  # largest box it was read with (both indices visible, unhidden)


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
        self._touched = True  # an arm was in the zone since it last settled (unknown at start)
        self._image: np.ndarray | None = None
        self._episode_reads = 0
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
        self._touched, self._episode_reads = True, 0

    def update(
        self,
        cards: list[str],
        confidence: np.ndarray | list[float],
        boxes: np.ndarray | list[tuple[float, float, float, float]],
        t: float,
        image: np.ndarray | None = None,
    ) -> ZoneChange | None:
        """One read of this zone (an unoccluded, still view). Returns a committed change.
        `image` (the BGR frame the read came from) lets unchanged cards hold their place."""
        self.occluded = False
        self._image = image
        if image is not None and self.stable and _holding(self.config):
            cards, confidence, boxes = self._anchor(image, list(cards), np.asarray(confidence, np.float32), np.asarray(boxes, np.float32).reshape(-1, 4))
        self.reads += 1
        self._episode_reads += 1
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
            self._take_patches(read)
            if self._episode_reads >= cfg.window:
                self._touched = False  # settled: from now on a change needs an arm or many reads
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
        if not self._touched and cfg.quiet_confirm is not None:
            need = max(need, cfg.quiet_confirm)
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

    def _anchor(
        self, image: np.ndarray, cards: list[str], confidence: np.ndarray, boxes: np.ndarray
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The read, with every stable card whose place looks unchanged held: other cards
        read there dropped (misreads), the card itself added when it was missed."""
        same = []
        for c in self.stable.values():
            if c.patch is None:
                continue
            if _similar(image, c, float(self.config.same_ncc or 1.0)):
                same.append(c)
            else:
                c.patch, c.contradicted = None, 0  # its place changed: no hold until it settles again
        if not same:
            return cards, confidence, boxes
        keep = []
        confirmed: set[int] = set()
        contradicted: set[int] = set()
        for i, card in enumerate(cards):
            # A read of the same physical card has about the same box (a read of one index
            # of a neighbour, or of one corner of this card, does not: left to the votes).
            hit = next((c for c in same if box_iou(tuple(map(float, boxes[i])), c.patch_box) >= 0.5), None)
            if hit is None or hit.card == card:
                keep.append(i)
                if hit is not None:
                    confirmed.add(id(hit))
            else:
                contradicted.add(id(hit))
        long_run = self.config.quiet_confirm or 15
        confirmed |= {id(c) for c in same if c.card in cards}  # read, wherever its index was seen
        for c in same:
            c.contradicted = 0 if id(c) in confirmed or id(c) not in contradicted else c.contradicted + 1
            c.missed = 0 if id(c) in confirmed else c.missed + 1
            if c.missed >= long_run:  # not read for this long: let the votes decide
                c.patch, c.contradicted, c.missed = None, 0, 0
        same = [c for c in same if c.patch is not None]
        # A place read as another card, and never as its own, for this many reads in a row
        # (a vote window just after an arm, `quiet_confirm` reads otherwise): trust the reads
        # after all (a look-alike card laid exactly in place) and vote afresh.
        limit = self.config.window if self._touched else long_run
        released = [c for c in same if c.contradicted >= limit]
        for c in released:
            c.patch, c.contradicted = None, 0
        if released:
            self._votes.clear()
            self._candidate, self._candidate_n, self._fresh = None, 0, True
            same = [c for c in same if c.patch is not None]
            keep = [i for i in range(len(cards)) if i in keep or any(box_iou(tuple(map(float, boxes[i])), c.patch_box) >= 0.5 for c in released)]
        out_cards = [cards[i] for i in keep]
        out_conf = [float(confidence[i]) for i in keep]
        out_boxes = [tuple(float(v) for v in boxes[i]) for i in keep]
        for c in same:
            if c.card not in out_cards or sum(1 for x in same if x.card == c.card) > out_cards.count(c.card):
                out_cards.append(c.card)
                out_conf.append(max(c.confidence, self.config.min_confidence))
                out_boxes.append(c.box)
        return out_cards, np.asarray(out_conf, np.float32), np.asarray(out_boxes, np.float32).reshape(-1, 4)

    def _take_patches(self, read: dict[Key, tuple[float, tuple[float, float, float, float]]]) -> None:
        """Settled (the votes agree with the stable set): remember how each card looks, for
        cards that have no patch yet (where it was last read, if this read missed it) or
        were read somewhere else (moved)."""
        if self._image is None or not _holding(self.config):
            return
        tally: Counter[Key] = Counter()
        for v in self._votes:
            tally.update(v.keys())
        for key, card in self.stable.items():
            if key not in read and tally[key] < self.config.enter * len(self._votes):
                continue  # missed by most reads: maybe gone, do not learn the empty place
            box = read[key][1] if key in read else card.box
            w, h = box[2] - box[0], box[3] - box[1]
            if min(w, h) < _MIN_PATCH_FRAC * self._image.shape[0] or w * h < 0.5 * card.max_area:
                continue  # a sliver of an index or a half-hidden card: too little to tell cards apart
            if card.patch is None:
                card.patch, card.patch_box = _patch(self._image, box), box
                continue
            pw, ph = card.patch_box[2] - card.patch_box[0], card.patch_box[3] - card.patch_box[1]
            if max(abs(a - b) for a, b in zip(box, card.patch_box)) > 6.0 and w * h >= 0.5 * pw * ph:
                card.patch, card.patch_box = _patch(self._image, box), box  # moved (not half hidden)

    def _refresh_stable(self, read: dict[Key, tuple[float, tuple[float, float, float, float]]]) -> None:
        a, decay = self.config.ema, self.config.miss_decay
        for key, card in self.stable.items():
            if key in read:
                conf, box = read[key]
                card.max_area = max(card.max_area, (box[2] - box[0]) * (box[3] - box[1]))
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


_MIN_PATCH_FRAC = 0.008  # smallest patch side, as a share of the image height (6 px at 720p)
_PATCH = (24, 32)  # (w, h) of a card patch: enough to tell two indices apart, ~0.03 ms


def _patch(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray | None:
    """Zero-mean, unit-norm colour patch of `box` (None when too small or flat)."""
    import cv2

    h, w = image.shape[:2]
    x1, y1 = max(0, int(round(box[0]))), max(0, int(round(box[1])))
    x2, y2 = min(w, int(round(box[2]))), min(h, int(round(box[3])))
    if x2 - x1 < 4 or y2 - y1 < 4:
        return None
    # Colour, one mean for all channels: invariant to brightness and contrast, not to hue.
    p = cv2.resize(image[y1:y2, x1:x2], _PATCH, interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
    p -= p.mean()
    n = float(np.linalg.norm(p))
    return p / n if n > 1e-3 * len(p) else None


def _holding(cfg: FilterConfig) -> bool:
    return cfg.same_ncc is not None


def _similar(image: np.ndarray, card: _Card, threshold: float) -> bool:
    assert card.patch is not None
    p = _patch(image, card.patch_box)
    return p is not None and float(p @ card.patch) >= threshold
