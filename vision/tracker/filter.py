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

Per-spot identity vote (`vote_window`, on by default; off: each read's own card is its
identity). A read card belongs to a *spot*, the place where it lies (nearest box centre
within half a box), and a spot's identity is voted over its last `vote_window` reads, each
weighing −log(1 − confidence): one read at 0.99 outweighs three at 0.64, so a short run of
unsure misreads is out-voted as soon as the card is read well. Every read of the episode
counts with its spot's identity *now*, so when a spot's vote turns, its past reads turn
with it. Spots live for one episode: an arm over the zone may have swapped any card, so
every spot votes afresh after it (`vote_keep_untouched`, off: measured, see
datasets/README.md). On top:

- a change that brings in a card waits until a spot is sure of it (evidence ≥ `vote_min`,
  ahead of the runner-up by `vote_margin`), at most `vote_max_wait_s` after the reads
  first differed from the stable set: a deal is sent with the voted cards, not with the
  first reads after the dealer's arm;
- (`vote_hold`) a spot that is sure, and was seen by most reads since it was first read,
  counts as read in every read of the episode: no card comes or goes without an arm, so a
  read that missed it is a miss, not a removal;
- when a spot's vote turns while no arm reached into the zone since its card was
  committed (or, after an arm, since the reads agreed with the stable set again), the
  change carries `corrections` (was, now): the same physical card was misread, and nobody
  swapped it (the pipeline then corrects the market without a swap).

Deck prior (`deck_prior`: off in a bare `FilterConfig`, 0.05 in the pipeline's market
filter since the round-6 reader gained from it, see datasets/README.md): in a one-deck game (the pipeline says so, from the rules) each card
exists once, so a spot's read of a card another spot of the zone is sure of, or of a card
in the discard pile of this deck cycle (`excluded`), is re-weighed over the reader's
alternatives (`CardDetections.alternatives`) with that identity's prior at `deck_prior`:
an ambiguous read goes to its runner-up, a confident one stays.

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
from collections.abc import Callable
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
    # (default): off — for the market, measured neutral with perfect reads and the shipped
    # reader, and mixed under the oracle's noise model (see datasets/README.md). The
    # pipeline's Khmer zones use 8 (`TrackerConfig.zone_filter`).
    quiet_confirm: int | None = None
    # Cards in one place are one card, in zones where a new card is never laid in an old
    # card's place (the pipeline sets it for Khmer rows, which grow at their end; a market
    # swap is in place): a removed card whose box an added card's box overlaps by at least
    # this IoU is that card under another name (`ZoneChange.renamed`), and a card read in
    # the place of a stable card the same read sees there under its own name is dropped
    # from that read. None (default): off.
    rename_iou: float | None = None
    # Patch correlation at or above which a stable card's place is unchanged (development
    # recordings: a swapped place ≤ 0.55, an unchanged one ≥ 0.88, lighting steps included).
    # None (default): off. It helps against the oracle's noise model but hurts the shipped
    # reader: it locks in an identity committed from a misread (see datasets/README.md).
    same_ncc: float | None = None
    # Per-spot identity vote (see the module docstring). None: off (identity is each read's
    # own card). Else the number of reads of a spot its identity is voted over.
    vote_window: int | None = 10
    # A change that brings in a card waits until the spot showing it is sure of it: its
    # identity's evidence (Σ −log(1 − confidence) over the spot's reads) is at least
    # `vote_min` and leads the runner-up by `vote_margin`; or `vote_max_wait_s` passed since
    # the reads first differed from the stable set (then the best guess is taken).
    vote_min: float = 3.0
    vote_margin: float = 2.0
    vote_max_wait_s: float = 0.6
    # A spot that is sure of its card counts as read in every read since the zone was last
    # disturbed: no card comes or goes without an arm, so a read that missed it is a miss.
    vote_hold: bool = True
    # After an arm, a spot nothing moved over (`hold(moved=…)`) keeps its evidence: the arm
    # reached for another card. False (default): every spot votes afresh after an arm —
    # measured: better under the oracle's `heavy` noise, slightly worse with the shipped
    # reader (datasets/README.md).
    vote_keep_untouched: bool = False
    # Reads a change needs (instead of `confirm`) when the reads agree and every card it
    # brings in is sure by its spot's vote. None (default): `confirm` as for any change —
    # measured with 1: strict market accuracy up with perfect reads, event F1 down under
    # the `heavy` noise (datasets/README.md).
    vote_confirm: int | None = None
    # Deck prior (one-deck games only: the pipeline sets `ZoneFilter.one_deck` from the rules;
    # two decks, Khmer's 16 cards of repeated values, or an unknown game never use it). Each
    # card exists once, so an identity that cannot be at a spot — another spot of the zone is
    # sure of it, or it went to the discard pile in this deck cycle (`ZoneFilter.excluded`,
    # from the market tracker) — has this prior weight against 1 for any other identity; a
    # read whose top card is such an identity is re-weighed over the reader's alternatives
    # (`CardDetections.alternatives`) and counts as the best of them: an ambiguous read
    # (AS 0.54 / AC 0.44 with AS sure elsewhere) goes to its runner-up, a confident one (0.99
    # / 0.005) stays (the exclusion may itself come from a misread). 0: impossible. None:
    # off here; the pipeline's market filter sets 0.05 (measured, see datasets/README.md).
    deck_prior: float | None = None
    min_confidence: float = 0.25
    allowed_sizes: tuple[int, ...] | None = None
    # More cards than the zone can hold (above every allowed size, e.g. a 5th card in a
    # 4-card market): keep the best-supported ones (spot evidence, else read presence) and
    # drop the rest from the vote. Such a 5th card is far more often a fragment read as a
    # card (the covered corner of an overlapped card read as another card) than a card put
    # down, and a committed 5-card market stops stale calls and turns a reset into swaps.
    # False: the over-full set is an odd size and commits after `odd_confirm` reads.
    # Measured (datasets/README.md): on by default.
    trim_overfull: bool = True
    # Cards come and go one for one (a Kemps market in play: a swap gives one card for one):
    # while the pipeline says so (`ZoneFilter.one_for_one`), a change that would bring one
    # card in and take two out, leaving an odd size, is that swap, and the other card still
    # lies there unread (a card laid half over it hides its index): it stays, held until the
    # zone is next disturbed. Found on kems-9631, where a KC laid over a sideways JD hid the
    # JD's corner: the swap was lost, and with a 3-card market no stale call came. False: the
    # odd set commits after `odd_confirm` reads as any other.
    one_for_one_swaps: bool = False
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
    # Per added card: its last read's confidence, and its box's longer side (px).
    added_conf: tuple[float, ...] = ()
    added_size: tuple[float, ...] = ()
    # (was, now) per card whose identity the spot vote changed while no arm reached into the
    # zone since it was committed: the same physical card, misread then; not a move. Set only
    # when the whole change is such corrections.
    corrections: tuple[tuple[str, str], ...] = ()
    # (was, now) per removed card that an added card took the place of, in a zone where new
    # cards are never laid in place (`FilterConfig.rename_iou`): the same card misread. The
    # other removed and added cards are moves.
    renamed: tuple[tuple[str, str], ...] = ()


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
class _Spot:
    """One place in the zone where a card lies, with the evidence for its identity."""

    box: tuple[float, float, float, float]
    # (card read, evidence, the read's candidates (card, probability) best first) of its
    # last `vote_window` reads
    reads: deque[tuple[str, float, tuple[tuple[str, float], ...]]]
    missed: int = 0
    committed: str | None = None  # its identity when the zone's state was last committed
    touched: bool = False  # something moved over it while the zone was covered
    born: int = 0  # the zone's read count when it was first read
    hits: int = 0  # reads that saw it
    # Deck prior (`FilterConfig.deck_prior`): identities that cannot be here, and their weight.
    exclude: frozenset[str] = frozenset()
    prior: float = 0.0

    def read_as(self, i: int) -> tuple[str, float]:
        """Read i as it counts: (card, evidence), after the deck prior."""
        card, w, cands = self.reads[i]
        if not self.exclude or card not in self.exclude:
            return card, w
        return _resolve(cands, self.exclude, self.prior) or (card, w)

    def tally(self) -> list[tuple[float, str]]:
        ev: dict[str, float] = {}
        for i in range(len(self.reads)):
            card, w = self.read_as(i)
            ev[card] = ev.get(card, 0.0) + w
        return sorted(((w, c) for c, w in ev.items()), key=lambda x: (-x[0], x[1]))

    @property
    def identity(self) -> str:
        return self.tally()[0][1]

    def sure(self, vote_min: float, margin: float) -> bool:
        t = self.tally()
        return t[0][0] >= vote_min and t[0][0] - (t[1][0] if len(t) > 1 else 0.0) >= margin


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
        self._spots: list[_Spot] = []
        # The episode's last `window` reads: (read count, [(spot, read confidence)]).
        self._rows: deque[tuple[int, list[tuple[_Spot, float]]]] = deque(maxlen=self.config.window)
        self._differs_since: float | None = None
        # Sizes normal for now on top of `allowed_sizes` (an empty market once a hand is over).
        self.also_allowed: frozenset[int] = frozenset()
        # Deck prior (`FilterConfig.deck_prior`), set by the pipeline: whether the game is
        # known to use one deck (each card once), and cards that cannot be in the zone now
        # (the discard pile of this deck cycle).
        self.one_deck = False
        self.excluded: frozenset[str] = frozenset()
        # Set by the pipeline: cards come and go one for one now (`one_for_one_swaps`).
        self.one_for_one = False
        self._pinned: set[Key] = set()  # stable cards kept unread by that rule, this episode

    # ---- inputs ----------------------------------------------------------------------
    def hold(self, moved: Callable[[tuple[float, float, float, float]], bool] | None = None) -> None:
        """The zone is covered (arm, hand): keep the stable state, mark it occluded.
        `moved(box)`: whether anything moved over that place this frame (spots it answers
        no for, all along, keep their votes; see `vote_keep_untouched`)."""
        self.occluded = True
        if not self.config.vote_keep_untouched:
            return  # every spot votes afresh after the arm anyway
        for sp in self._spots:
            if not sp.touched:
                sp.touched = moved is None or moved(sp.box)

    def new_episode(self) -> None:
        """The zone was disturbed and is still again: vote only on reads from now on."""
        self._votes.clear()
        self._candidate, self._candidate_n = None, 0
        self._fresh = True
        self._touched, self._episode_reads = True, 0
        # Anything under the arm may have been swapped or moved: every spot votes afresh,
        # unless nothing moved over it (`vote_keep_untouched`).
        keep = self.config.vote_keep_untouched
        self._spots = [sp for sp in self._spots if keep and not sp.touched]
        for sp in self._spots:
            sp.missed = 0
        self._differs_since = None
        self._rows.clear()
        self._pinned.clear()

    def update(
        self,
        cards: list[str],
        confidence: np.ndarray | list[float],
        boxes: np.ndarray | list[tuple[float, float, float, float]],
        t: float,
        image: np.ndarray | None = None,
        candidates: list[tuple[tuple[str, float], ...]] | None = None,
    ) -> ZoneChange | None:
        """One read of this zone (an unoccluded, still view). Returns a committed change.
        `image` (the BGR frame the read came from) lets unchanged cards hold their place.
        `candidates`: per card, the reader's alternatives (`CardDetections.candidates`), for
        the deck prior; None: each read's card alone."""
        self.occluded = False
        self._image = image
        if self.config.rename_iou is not None and self.stable and len(cards) > 1:
            boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
            keep = self._one_per_place(list(cards), boxes, self.config.rename_iou)
            if len(keep) < len(cards):
                cards = [cards[i] for i in keep]
                confidence = np.asarray(confidence, np.float32)[keep]
                boxes = boxes[keep]
                candidates = [candidates[i] for i in keep] if candidates else candidates
        if image is not None and self.stable and _holding(self.config):
            cards, confidence, boxes = self._anchor(image, list(cards), np.asarray(confidence, np.float32), np.asarray(boxes, np.float32).reshape(-1, 4))
            candidates = None  # the anchored read's cards no longer line up with the reader's
        self.reads += 1
        self._episode_reads += 1
        cfg = self.config
        keys: list[Key] = []
        seen: Counter[str] = Counter()
        read: dict[Key, tuple[float, tuple[float, float, float, float]]] = {}
        # Copy numbers are given by descending confidence so the surer copy is copy 0.
        order = [i for i in np.argsort(-np.asarray(confidence, np.float32), kind="stable") if float(confidence[i]) >= cfg.min_confidence]
        if cfg.vote_window is not None:
            cards = list(cards)
            # each read's candidates (the reader's alternatives, else its card alone)
            cands = [candidates[i] if candidates and candidates[i] else ((cards[i], float(confidence[i])),) for i in order]
            spots = self._match_spots([cards[i] for i in order], [float(confidence[i]) for i in order], [boxes[i] for i in order], cands)
            self._apply_prior()
            self._rows.append((self.reads, [(sp, float(confidence[i])) for sp, i in zip(spots, order)]))
            for sp, i in zip(spots, order):
                cards[i] = sp.identity  # the spot's voted identity, not this read's guess
        for i in order:
            conf = float(confidence[i])
            card = cards[i]
            key = (card, seen[card])
            seen[card] += 1
            keys.append(key)
            b = boxes[i]
            read[key] = (conf, (float(b[0]), float(b[1]), float(b[2]), float(b[3])))
        self._votes.append(Counter(keys))
        if cfg.vote_window is not None:  # past reads of a spot count as its identity now
            held = [sp for sp in self._spots if self._holds(sp)] if cfg.vote_hold else []
            self._votes = deque((_row_keys(r, held) for _, r in self._rows), maxlen=cfg.window)
        self._last_read = read
        self._refresh_stable(read)
        voted = self._voted()
        if cfg.vote_window is not None and held and not self._normal_size(len(voted)):
            # Held cards make an odd set (a 5th card at the market's edge): the hold is not
            # for that; let flickering reads break the streak as without it.
            self._votes = deque((_row_keys(r, []) for _, r in self._rows), maxlen=cfg.window)
            voted = self._voted()
        if cfg.trim_overfull:
            voted = self._trimmed(voted)
        if voted == frozenset(self.stable):
            self._candidate, self._candidate_n = None, 0
            self._differs_since = None
            stable_cards = {k[0] for k in self.stable}
            for sp in self._spots:  # read as the stable card since the arm: it is that card
                if sp.committed is None and sp.identity in stable_cards:
                    sp.committed = sp.identity
            self._take_patches(read)
            if self._episode_reads >= cfg.window:
                self._touched = False  # settled: from now on a change needs an arm or many reads
            return None
        if self._differs_since is None:
            self._differs_since = t
        if voted == self._candidate:
            self._candidate_n += 1
        else:
            self._candidate, self._candidate_n = voted, 1
        need = cfg.confirm
        if not self._normal_size(len(voted)):
            need = cfg.odd_confirm
        elif any(frozenset(v) != voted for v in self._votes):
            need = cfg.confirm + cfg.disagree_extra  # reads disagree (flicker, misreads): more
        elif cfg.vote_window is not None and cfg.vote_confirm is not None and any(k not in self.stable for k in voted) and self._sure_of(voted):
            need = min(need, cfg.vote_confirm)  # every card coming in is sure already
        if not self._touched and cfg.quiet_confirm is not None:
            need = max(need, cfg.quiet_confirm)
        if self._candidate_n < need:
            return None
        if cfg.vote_window is not None:
            if self._differs_since is None:
                self._differs_since = t
            if t - self._differs_since < cfg.vote_max_wait_s and not self._sure_of(voted):
                return None  # a card coming in is not voted surely yet: a few more reads
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
        cfg = self.config
        if cfg.vote_window is not None and self._episode_reads < 3 * cfg.window and not all(
            sp.sure(cfg.vote_min, cfg.vote_margin) and sp.read_as(-1)[0] == sp.identity for sp in self._spots
        ):
            return True  # a spot is unsure, or its last read contradicts it: read on (bounded)
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
    def _apply_prior(self) -> None:
        """Set each spot's excluded identities (`FilterConfig.deck_prior`, one deck only): the
        zone's `excluded` cards, and every identity another spot is sure of and holds with more
        evidence (a card lies in one place)."""
        cfg = self.config
        if cfg.deck_prior is None or not self.one_deck:
            return  # off: no spot is ever given exclusions
        for sp in self._spots:
            sp.exclude, sp.prior = self.excluded, float(cfg.deck_prior)
        owner: dict[str, tuple[float, _Spot]] = {}
        for sp in self._spots:
            t = sp.tally()
            if t and sp.sure(cfg.vote_min, cfg.vote_margin):
                w, card = t[0]
                if card not in owner or w > owner[card][0]:
                    owner[card] = (w, sp)
        if not owner:
            return
        for sp in self._spots:
            taken = frozenset(c for c, (_, o) in owner.items() if o is not sp)
            if taken:
                sp.exclude = self.excluded | taken

    def _match_spots(self, cards: list[str], conf: list[float], boxes: list, cands: list[tuple[tuple[str, float], ...]]) -> list[_Spot]:
        """The spot of each read card (nearest centre within half a box; a new spot when
        none), with the read added to its evidence. Spots unread for a vote window are gone."""
        window = int(self.config.vote_window or 1)
        bxs = [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in boxes]
        pairs = []
        for i, b in enumerate(bxs):
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            for j, sp in enumerate(self._spots):
                sx, sy = (sp.box[0] + sp.box[2]) / 2, (sp.box[1] + sp.box[3]) / 2
                tol = max(6.0, 0.5 * max(sp.box[2] - sp.box[0], sp.box[3] - sp.box[1], b[2] - b[0], b[3] - b[1]))
                d = float(np.hypot(cx - sx, cy - sy))
                if d <= tol:
                    pairs.append((d, i, j))
        out: list[_Spot | None] = [None] * len(bxs)
        used: set[int] = set()
        for _, i, j in sorted(pairs):
            if out[i] is None and j not in used:
                out[i], used = self._spots[j], used | {j}
        for j, sp in enumerate(self._spots):
            if j not in used:
                sp.missed += 1
        self._spots = [sp for sp in self._spots if sp.missed < window]
        spots: list[_Spot] = []
        for i, b in enumerate(bxs):
            sp = out[i]
            if sp is None:
                sp = _Spot(b, deque(maxlen=window), born=self.reads)
                self._spots.append(sp)
            sp.box, sp.missed = b, 0
            sp.hits += 1
            sp.reads.append((cards[i], -float(np.log1p(-min(conf[i], 0.99))), cands[i]))
            spots.append(sp)
        return spots

    def _one_for_one_swap(self, old: dict[Key, _Card], voted: frozenset[Key], removed: list[Key], added: list[Key]) -> bool:
        """Whether a change is one swap with another card left unread (`one_for_one_swaps`)."""
        return (self.config.one_for_one_swaps and self.one_for_one and len(added) == 1 and len(removed) == 2
                and added[0] in self._last_read and self._normal_size(len(old)) and not self._normal_size(len(voted)))  # fmt: skip

    def _normal_size(self, n: int) -> bool:
        sizes = self.config.allowed_sizes
        return sizes is None or n in sizes or n in self.also_allowed

    def _holds(self, sp: _Spot) -> bool:
        """A card lies there for sure: its identity is sure, and most reads since it was
        first read saw it (a detection that comes and goes is not held)."""
        cfg = self.config
        return sp.sure(cfg.vote_min, cfg.vote_margin) and sp.hits >= cfg.enter * (self.reads - sp.born + 1)

    def _sure_of(self, voted: frozenset[Key]) -> bool:
        """Every card `voted` brings in is the sure identity of some spot."""
        cfg = self.config
        sure = Counter(sp.identity for sp in self._spots if sp.sure(cfg.vote_min, cfg.vote_margin))
        need = Counter(k[0] for k in voted if k not in self.stable)
        return all(sure[c] >= n for c, n in need.items())

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
        out |= self._pinned & set(self.stable)
        return frozenset(out)

    def _one_per_place(self, cards: list[str], boxes: np.ndarray, min_iou: float) -> list[int]:
        """Indices of the read's cards to keep: a card read in the place of a stable card
        that this read also sees there, under its own name, is a second reading of that
        one physical card (a card laid in its place would hide it), and is dropped."""
        drop: set[int] = set()
        for c in self.stable.values():
            here = [i for i in range(len(cards)) if box_iou(tuple(map(float, boxes[i])), c.box) >= min_iou]
            if any(cards[i] == c.card for i in here):
                drop.update(i for i in here if cards[i] != c.card)
        return [i for i in range(len(cards)) if i not in drop]

    def _trimmed(self, voted: frozenset[Key]) -> frozenset[Key]:
        """`voted` cut to the largest allowed size, keeping its best-supported cards."""
        sizes = self.config.allowed_sizes
        if sizes is None:
            return voted
        cap = max((*sizes, *self.also_allowed))
        if len(voted) <= cap:
            return voted
        presence: Counter[Key] = Counter()
        for v in self._votes:
            presence.update(v.keys())
        evidence: dict[Key, float] = {}
        if self.config.vote_window is not None:
            # copy numbers by descending evidence, as `update` numbers a read's cards
            copies: Counter[str] = Counter()
            for sp in sorted(self._spots, key=lambda sp: -sp.tally()[0][0] if sp.reads else 0.0):
                if not sp.reads:
                    continue
                w, card = sp.tally()[0]
                evidence[(card, copies[card])] = w
                copies[card] += 1
        ranked = sorted(voted, key=lambda k: (-evidence.get(k, 0.0), -presence.get(k, 0), k))
        return frozenset(ranked[:cap])

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
            self._rows.clear()
            self._spots = []  # the held reads were votes for the old card
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
        t_change = t
        if self._one_for_one_swap(old, voted, removed, added):
            kept = max(removed, key=lambda k: _dist(old[k].box, self._last_read[added[0]][1]))
            new[kept] = old[kept]
            self._pinned.add(kept)
            removed = [k for k in removed if k != kept]
            # the swap was made when the reads first showed it, not `odd_confirm` reads later
            t_change = self._differs_since if self._differs_since is not None else t
        for k in added:
            conf, box = self._last_read.get(k, (self.config.enter, (0.0, 0.0, 0.0, 0.0)))
            new[k] = _Card(k[0], conf, box, t)
        self.stable = new
        self._candidate, self._candidate_n = None, 0
        self._differs_since = None
        self.last_change_t = t
        corrections: tuple[tuple[str, str], ...] = ()
        if self.config.vote_window is not None:
            flips = [(sp.committed, sp.identity) for sp in self._spots if sp.committed is not None and sp.committed != sp.identity]
            if flips and Counter(w for w, _ in flips) == Counter(k[0] for k in removed) and Counter(n for _, n in flips) == Counter(k[0] for k in added):
                corrections = tuple((str(w), n) for w, n in flips)
            for sp in self._spots:
                sp.committed = sp.identity
        renamed = _renamed(removed, added, old, new, self.config.rename_iou) if self.config.rename_iou is not None else ()

        def centre(b: tuple[float, float, float, float]) -> tuple[float, float]:
            return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)

        return ZoneChange(
            zone=self.zone,
            t=t_change,
            removed=tuple(k[0] for k in removed),
            added=tuple(k[0] for k in added),
            before=before,
            after=self.cards,
            removed_at=tuple(centre(old[k].box) for k in removed),
            added_at=tuple(centre(new[k].box) for k in added),
            added_conf=tuple(float(new[k].confidence) for k in added),
            added_size=tuple(float(max(new[k].box[2] - new[k].box[0], new[k].box[3] - new[k].box[1])) for k in added),
            corrections=corrections,
            renamed=renamed,
        )


def _dist(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Distance between two boxes' centres."""
    return float(np.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2))


def _renamed(removed: list[Key], added: list[Key], old: dict[Key, _Card], new: dict[Key, _Card],
             min_iou: float) -> tuple[tuple[str, str], ...]:
    """(was, now) per removed card that an added card lies in the place of (IoU ≥ `min_iou`,
    best overlaps paired first)."""
    if not removed or not added:
        return ()
    pairs = sorted(((box_iou(old[r].box, new[a].box), r, a) for r in removed for a in added), key=lambda x: -x[0])
    used_r: set[Key] = set()
    used_a: set[Key] = set()
    out = []
    for iou, r, a in pairs:
        if iou >= min_iou and r not in used_r and a not in used_a:
            used_r.add(r)
            used_a.add(a)
            out.append((r[0], a[0]))
    return tuple(out)


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


def _resolve(cands: tuple[tuple[str, float], ...], exclude: frozenset[str], prior: float) -> tuple[str, float] | None:
    """A read whose top card is excluded, re-weighed: each candidate's probability × its prior
    (`prior` for an excluded identity, 1 otherwise), renormalised over the candidates (their
    total, the chance the read is a card at all, is kept). → (best card, its evidence), or
    None when no candidate is possible."""
    scores = [p * (prior if c in exclude else 1.0) for c, p in cands]
    total = sum(scores)
    if total <= 0:
        return None
    j = max(range(len(scores)), key=lambda k: scores[k])
    p = sum(p for _, p in cands) * scores[j] / total
    return cands[j][0], -float(np.log1p(-min(p, 0.99)))


def _row_keys(row: list[tuple[_Spot, float]], held: list[_Spot]) -> Counter[Key]:
    """One past read as keys, each spot counted as its identity now, and each `held` spot
    counted where that read missed its card (copy numbers by descending read confidence, as
    for a fresh read)."""
    seen: Counter[str] = Counter()
    keys: list[Key] = []
    # A held card already read elsewhere in that read is that read (a card read at its
    # other index, or moved): it counts once.
    read = {sp.identity for sp, _ in row}
    row = row + [(sp, 0.0) for sp in held if sp.identity not in read]
    for sp, _ in sorted(row, key=lambda x: -x[1]):
        card = sp.identity
        keys.append((card, seen[card]))
        seen[card] += 1
    return Counter(keys)


def _holding(cfg: FilterConfig) -> bool:
    return cfg.same_ncc is not None


def _similar(image: np.ndarray, card: _Card, threshold: float) -> bool:
    assert card.patch is not None
    p = _patch(image, card.patch_box)
    return p is not None and float(p @ card.patch) >= threshold
