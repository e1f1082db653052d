"""The table pipeline: frames in, stable table state and game events out.

Per frame (see docs in `motion.py`, `filter.py`, `market.py`, `khmer.py`, `reveal.py`):

1. motion gate on a 1/8-scale grey frame: which active zones move or are covered;
2. a covered zone keeps its last state (`hold`); when it has been still for
   `settle_s`, it is read again — only if it changed since its last read, while a
   change is being confirmed, or every `refresh_s`; zones needing a read in the same frame
   share one crop when that is cheaper;
3. each read goes through the zone's temporal filter; committed changes become events.

Active zones: the market (Kemps, Kem's) or the Khmer rows/piles/discards, plus the reveal
area of each seat while a reveal is requested. `events` are public-vocabulary game events
(with "t" seconds; what the referee consumes); `notices` are everything else a person
should see: anomalies, reshuffles, reveal time-outs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from vision.tracker.filter import FilterConfig, ZoneChange, ZoneFilter
from vision.tracker.khmer import KhmerTracker
from vision.tracker.layout import Layout, LayoutError, ZoneMasks
from vision.tracker.market import MarketConfig, MarketTracker
from vision.tracker.motion import MotionConfig, MotionGate, ZoneMotion
from vision.tracker.quality import FocusConfig, FocusMonitor
from vision.tracker.reveal import RevealConfig, RevealReader
from vision.types import CardDetections, Frame, TableState, ZoneCards

Event = dict[str, Any]


class Reader(Protocol):
    def read(
        self,
        image_bgr: np.ndarray,
        roi: tuple[int, int, int, int] | None = None,
        two_decks: bool = False,
        cards: frozenset[str] | None = None,
        min_p: float | None = None,  # the card floor (None: the reader's own)
        index_px: float | None = None,  # indices wanted about this long (None: the reader's own rule)
    ) -> CardDetections: ...


@dataclass(frozen=True)
class TrackerConfig:
    settle_s: float = 0.06  # still this long (1 frame at 15 fps, 2 at 30) before a zone is read
    refresh_s: float = 1.0
    stale_after_s: float = 5.0
    seat_ratio: float = 0.6  # name a swap's seat only when nearest seat < ratio × second nearest
    seat_share: float = 0.7  # … and that seat won this share of the arm's samples
    # Live sources only: let the reader use at most this share of real time (skipping reads
    # when it is slow) so the pipeline never falls behind the camera. None: read whenever
    # needed (recordings: results then never depend on the machine's speed).
    max_reader_share: float | None = None
    # A market change that only corrects misread identities (the spot vote changed its mind
    # while no hand reached into the market: `ZoneChange.corrections`) fixes the state and
    # emits a `correct` event (the referee fixes its market) and a `misread_corrected` notice
    # instead of a swap the table never saw. False: a swap.
    quiet_corrections: bool = True
    # After a stale call, this many new cards at once make the reset even when one of them
    # was seen before (`MarketConfig.stale_reset_min_new`). None: a reset needs 4 new cards.
    stale_reset_min_new: int | None = 3
    # The market's stale timer and resets (`MarketConfig` has the why of each): a market one
    # unread card short still goes stale (`stale_unread`); a change read late dates the
    # quiet time from the hand that made it (`activity_link_s`); a reset with no fresh cards
    # left may lay the same four again (`same_cards_reset_s`). Measured on the val sets, all
    # four gains and no loss (datasets/MEASUREMENTS.md, "The stale call on time").
    stale_unread: int = 1
    activity_link_s: float = 3.0
    same_cards_reset_s: float | None = 0.5
    # The market's quiet time restarts only for a cover that moves, or crosses its edge with
    # pixels that moved within `motion.fresh_s`. Why: a card laid across the market's edge
    # differs from the background until absorbed (`motion.absorb_s`, 3 s), and the cover test
    # took it for a resting hand, holding the stale call back (dev16 kemps-9132: 3.5 s late).
    # The market's own filter still holds its state under any cover. False: any cover.
    market_quiet_fresh: bool = True
    # A card the game's deck cannot hold (a Khmer 6 read as 8) is read as its likeliest
    # alternative the deck holds, when the reader gave that one at least this probability
    # (the read's confidence becomes it); else the read is dropped. None: always dropped.
    # Measured (datasets/README.md): 0.15 by default (only Khmer and piquet decks are affected).
    deck_fallback_min_p: float | None = 0.15
    # The deck prior is on for the market (used only in games known to play one deck):
    # measured with the round-6 reader, datasets/README.md. One-for-one swaps in play
    # (`FilterConfig.one_for_one_swaps`): measured on 60 recordings, datasets/README.md
    # ("A swap beside a card it hid").
    market_filter: FilterConfig = field(default_factory=lambda: FilterConfig(allowed_sizes=(4,), deck_prior=0.05, one_for_one_swaps=True))
    # Khmer rows, piles and discards. A card appears there only when a player lays it, so a
    # change in a zone no arm touched since it settled needs 8 reads (`quiet_confirm`), not 2:
    # on still rows the reader sometimes sees a corner twice (a phantom second 4S beside the
    # AH laid over a 4S), which made a play that never happened and derailed the deal.
    # Measured on Khmer recordings (datasets/README.md, "Khmer twins, collection and quiet rows").
    zone_filter: FilterConfig = field(default_factory=lambda: FilterConfig(quiet_confirm=8))
    # A Khmer row grows at its end, so cards in one place are one card (`FilterConfig.
    # rename_iou`, card boxes overlapping by this IoU): a change that puts another name on a
    # card where a card lay is that card misread, not a play (an AS laid, then read AC for a
    # few frames, had made a second play), and a second name read in a stable card's place
    # beside the card's own is dropped. Neighbours in a row overlap far less (~0.2–0.3 in
    # the simulator). None: off (for a table where rows are laid tighter than ~0.35 card
    # widths, so that a play can hide the last card in its own place).
    row_rename_iou: float | None = 0.5
    # The same card laid in one Khmer row twice within this many seconds is one card read
    # twice (`KhmerTracker.twin_s`): one turn lays one card. Measured on Khmer recordings of
    # the val decks (datasets/README.md, "One card read twice in a Khmer row"). None: off.
    khmer_twin_s: float | None = 1.0
    # The last move's card back on its own Khmer pile or discard with no move since is that
    # move seen again, not a second one (`KhmerTracker.repeat_is_reread`; needs `khmer_twin_s`).
    khmer_repeat_is_reread: bool = True
    # A rename in a Khmer row to a card read there twice before is that card's other corner
    # uncovered by a steal, not a misread (`KhmerTracker.rename_to_twin`). Why: dev12
    # khmer-9122, an AH laid over the 6H's second corner was stolen; the 6H's corner showed in
    # its place, a `correct` AH -> 6H went to the referee, the steal took a 6 and the close
    # was scored 13-13 instead of 8-13. False: every rename in place is a misread.
    khmer_rename_to_twin: bool = True
    # One Khmer row change lays at most one card: a row card read again beside a new one is a
    # second read (`KhmerTracker.one_play_per_change`). And a new top on the last move's
    # discard within `khmer_twin_s`, no move since, is that card re-read (`retop_is_reread`).
    # Why: each made a second move of one player out of one (khv18 khmer-8102, 8109), which
    # the referee took once the opponent had moved, and the deal's close went wrong.
    # Measured in datasets/MEASUREMENTS.md, "One move per turn". False: off.
    khmer_one_play_per_change: bool = True
    khmer_retop_is_reread: bool = True
    # A card laid in a Khmer zone that already holds it, right after its owner's own move, is
    # a second read, however late (`KhmerTracker.own_turn_copy_is_reread`; dev12 khmer-9113).
    khmer_own_turn_copy_is_reread: bool = True
    # A Khmer row card renamed with no arm seen while its owner is to move is a card laid over
    # it (`KhmerTracker.correction_on_turn_is_play`; khv18 khmer-8107).
    khmer_correction_on_turn_is_play: bool = True
    # A Khmer card stolen that no row was seen to hold, right after the thief's own move, is
    # the opponent's unseen play, reported before the steal (`KhmerTracker.steal_implies_play`).
    khmer_steal_implies_play: bool = True
    motion: MotionConfig = field(default_factory=MotionConfig)
    reveal: RevealConfig = field(default_factory=RevealConfig)
    # A reveal area in which nothing has moved for this long is read even while its border
    # still differs from the background. Why: a laid-down hand fans over the area's edge,
    # and the gate took that still border for a resting arm until the background absorbed it
    # (~2 s: reveals came 1.3–2.3 s after the cards were down, past the 1 s tolerance). A
    # hand really resting there hides cards, and a reveal settles only on the full hand
    # (`RevealConfig.consistent` reads of the expected size). None: the plain cover test.
    reveal_still_s: float | None = 0.4
    # Reads of reveal areas alone pass `reveal.min_confidence` to the reader as its card floor
    # (`_read`), instead of the reader's own (0.5): a laid card read just under it on every
    # read was never offered to the reveal, which waited for a lucky read. False: off.
    reveal_floor: bool = True
    # Reads of reveal areas alone, in a one-deck game, read every card as one a hand can hold:
    # not one of the market's cards now, nor one of this deck cycle's discard pile
    # (`_hand_cards`). Why: a revealed 6S read 8S while the 8S had gone to the discard at a
    # reset (a fresh set of 6 Dec, night), and the call was judged on a card that could not
    # be there. False: every card of the deck.
    reveal_excludes_table: bool = True
    # Reads of reveal areas alone whose indices come out under 0.8 × this (px, median long side)
    # are read again enlarged towards it (`CardReader.read` index_px). Why it was tried: with six
    # players the corner seats lay their hands where the image is soft and the indices ~18 px
    # (~25-32 px at the near seats), and corner reveals failed; a fixed zoom helped there but lost
    # four-player reveals (sharp indices enlarged past the detector's trained size). Measured
    # (benchmarks/reveal_index_px.py, datasets/MEASUREMENTS.md "Six players" and "Eight to twelve
    # players"): 26 px, chosen on val decks: reveals dev6p 2 -> 3 of 4, dev8q (8-12 players)
    # 4 -> 5 of 7, dev9p (9) 0 -> 1 of 3, and nothing changed on 28 four-player val games
    # (dev16, dev12). Test-deck sets: blind6p, blind8p, blind9p unchanged; at four players
    # blind12 unchanged, blind14 one oxygen reveal lost and blind13 two results lost
    # (neoclassical, lattmann). So it applies from `reveal_index_min_seats` seats: the larger
    # tables, whose edge seats lay the smallest indices, gain; four seats do not. None: off.
    reveal_index_px: float | None = 26.0
    reveal_index_min_seats: int = 6
    # Khmer piles and discards show only their top card, and a game may hold two identical
    # cards (two decks give six 6s): a 6D discarded onto a 6D leaves the visible set as it
    # was. When the zone owner's arm (told by where it came from) leaves such a zone, the one
    # visible card settles as the same card, and that player makes no other move around it
    # (`restack_hold_s`; not during a reveal or the collection), another copy was laid on it:
    # a discard (or a steal) of that card, flagged `meta.restacked`. Found on simulated games
    # where a deal was lost that way (the referee then refused every later move). False: an
    # unchanged top card is no move.
    restack_same_top: bool = True
    # How long such a restack waits for the same player's other moves before it counts (a
    # Khmer turn is one action: a play at the row's end can pass the arm over the pile).
    restack_hold_s: float = 1.5
    # When the arm's far end names no seat by distance (`seat_ratio`), a restack's owner is
    # the seat the arm points to from the zone, by this cosine margin over the other seats.
    # Found on khmer-9680: North's arm over its discard was seen only near the pile (far
    # end at 0.62 of the distances, over `seat_ratio`), so a 6D laid on a 6D was missed and
    # the deal lost. None: by distance only.
    restack_by_direction: float | None = 0.3
    # Khmer: the deal is timed when the centre (watched for motion only, never read) last
    # settles before the first move. A card slid into or out of the centre with no arm over
    # it moves ~2 % of the zone, under the `MotionConfig.moving_share` that makes a read zone
    # "covered"; this share counts there instead. Found on a simulated deal whose last pass
    # (1.9 % of the zone) went unseen, so the deal was timed 1.8 s early. None: moving_share.
    centre_moving_share: float | None = 0.005
    # A camera out of focus is told to the table once (notice `camera_blurred`, and
    # `camera_focus_ok` when it is sharp again), from the edges of the cards read
    # (vision/tracker/quality.py). None: never judged.
    focus: FocusConfig | None = field(default_factory=FocusConfig)


@dataclass(slots=True)
class PipelineStep:
    state: TableState
    events: list[Event]
    detections: CardDetections | None
    notices: list[Event] = field(default_factory=list)


@dataclass
class _ZoneRun:
    still: int = 0
    covered: bool = False
    last_read: float = -1e9
    origins: list[tuple[float, float]] = field(default_factory=list)
    covered_frames: int = 0
    unmoved: int = 0  # frames since the zone last moved
    # Khmer stack zone settling after its owner's arm: the one card it showed before
    # (`TrackerConfig.restack_same_top`); None when no such check is due.
    restack: str | None = None
    cover_t: float = 0.0  # when the zone was last covered


class TablePipeline:
    def __init__(
        self, layout: Layout, reader: Reader, header: dict[str, Any], fps: float, config: TrackerConfig | None = None
    ) -> None:
        self.header = header
        self.game = str(header.get("game", "kemps"))
        self.khmer = self.game == "khmer"
        self.players = [str(p) for p in header.get("players", list(layout.seats))]
        stale = header.get("stale_after_s", (header.get("tracker") or {}).get("stale_after_s"))
        cfg = config or TrackerConfig()
        if stale is not None:
            cfg = replace(cfg, stale_after_s=float(stale))
        self.config = cfg
        self.layout = _seat_layout(layout, self.players, self.khmer)
        # reveal areas read enlarged where their indices come out small, at larger tables only
        self._reveal_enlarged = bool(cfg.reveal_index_px) and len(self.players) >= cfg.reveal_index_min_seats
        self.reader = reader
        self.fps = float(fps)
        self._settle = max(1, int(round(cfg.settle_s * self.fps)))
        self.two_decks = self.khmer or _decks(header) > 1
        # A read of a card this game's deck cannot hold (a 10 in Khmer, a 2 in a piquet deck)
        # is a misread: drop it here rather than let the referee reject the event later.
        self.deck_cards = _deck_cards(header)
        # … and the reader is told the deck, so it reads such a card as the likeliest card the
        # deck does hold (tune_reader.py --deck khmer); None for a full deck.
        self._known_cards = self.deck_cards if len(self.deck_cards) < 52 else None
        self._masks: ZoneMasks | None = None
        self._gate: MotionGate | None = None
        self._runs: dict[str, _ZoneRun] = {}
        self.filters: dict[str, ZoneFilter] = {}
        # One deck known (the deck prior may assume each card exists once): Kemps or Kem's
        # with one deck by the rules; never Khmer (16 cards, values repeat), two decks, or a
        # game whose rules cannot be read.
        self.one_deck = _one_deck(header)
        if not self.khmer:
            self.filters["market"] = ZoneFilter("market", cfg.market_filter)
            self.filters["market"].one_deck = self.one_deck
        else:
            for p in self.players:
                for kind in ("row", "pile", "discard"):
                    zcfg = replace(cfg.zone_filter, rename_iou=cfg.row_rename_iou) if kind == "row" else cfg.zone_filter
                    self.filters[f"{kind}:{p}"] = ZoneFilter(f"{kind}:{p}", zcfg)
        self.market = MarketTracker(_market_config(header, cfg))
        self.khmer_table = KhmerTracker(
            self.players, twin_s=self.config.khmer_twin_s, repeat_is_reread=self.config.khmer_repeat_is_reread,
            rename_to_twin=self.config.khmer_rename_to_twin,
            one_play_per_change=self.config.khmer_one_play_per_change,
            retop_is_reread=self.config.khmer_retop_is_reread,
            own_turn_copy_is_reread=self.config.khmer_own_turn_copy_is_reread,
            correction_on_turn_is_play=self.config.khmer_correction_on_turn_is_play,
            steal_implies_play=self.config.khmer_steal_implies_play,
        ) if self.khmer else None
        self.reveals = RevealReader(cfg.reveal, khmer=False)
        self._queued: list[Event] = []
        self._queued_notices: list[Event] = []
        self._t = 0.0
        self.reads = 0
        self._read_cost_s = 0.0
        self._last_read_t = -1e9
        # Khmer: the deal is seen as the dealer's hand over the centre of an empty table; it
        # is emitted with the first action of the hand (t = when that hand left the centre).
        self._await_deal = self.khmer
        self._centre_quiet_t: float | None = None
        # Khmer same-card restacks waiting for `restack_hold_s`: (zone, card, covered at, seen at)
        self._restacks: list[tuple[str, str, float, float]] = []
        self._last_move: dict[str, float] = {}  # Khmer: each player's last play/steal/discard
        self.focus = FocusMonitor(cfg.focus) if cfg.focus is not None else None

    # ---- public API ------------------------------------------------------------------
    @property
    def state(self) -> TableState:
        return self._state(self._t)

    def request_reveal(self, seats: list[str], t: float, expected: int | Mapping[str, int] | None = None) -> None:
        """Start reading each seat's reveal area until stable (or time out). In Kemps and
        Kem's a revealed hand has the dealt hand size (4, or 5 in the 5-card deal) unless
        `expected` says otherwise; a Khmer hand at close has the size the referee knows
        (`expected` per seat, from its `awaiting()` "sizes"), else any size."""
        unknown = [s for s in seats if s not in self.layout.seats]
        if unknown:
            raise LayoutError(f"no reveal area for seat(s) {', '.join(unknown)} in layout {self.layout.name}")
        if expected is None and not self.khmer:
            expected = self.market.config.hand_size
        self.reveals.request(list(seats), t, expected)
        for s in seats:
            self._runs.pop(f"reveal:{s}", None)  # read afresh, even if nothing moved

    def correct_reveal(self, seat: str, cards: list[str]) -> list[Event]:
        """A person's correction of one seat's revealed cards. Returns the reveal event it
        completes (or the corrected last reveal), which is also emitted with the next
        `process()` step: a caller consumes one or the other, not both."""
        from referee.cards import parse_card

        evs = self.reveals.correct(seat, [parse_card(c) for c in cards], self._t)
        self._after_reveal(evs)
        self._queued += evs
        return evs

    def new_hand(self, t: float) -> None:
        """The referee started a new hand: the next full market (Kemps, Kem's) or the first
        card on the table (Khmer) is a deal; cards leaving the Khmer table meanwhile are the
        collection, not moves."""
        self.market.new_hand(t)
        self.reveals.cancel()
        if self.khmer_table is not None:
            self._await_deal, self._centre_quiet_t = True, None
            self.khmer_table.collecting = True
            self._restacks = []

    def process(self, frame: Frame) -> PipelineStep:
        t = frame.t
        self._t = t
        if self._masks is None or self._masks.size != frame.size:
            self._masks = ZoneMasks(self.layout, frame.size, self.config.motion.scale)
            self._gate = MotionGate(self._masks, self.config.motion, self.fps)
            self._queued_notices += _out_of_view_notice(self._masks.layout, t)
            self._queued_notices += _stretched_notice(self.layout, frame.size, t)
        gate = self._gate
        assert gate is not None
        motion = gate.update(frame.image)
        events, notices = self._queued, self._queued_notices
        self._queued, self._queued_notices = [], []
        to_read: list[str] = []
        for zone in self._active_zones():
            run = self._runs.setdefault(zone, _ZoneRun())
            m = motion["market" if zone == "centre" else zone]
            filt = self.filters.get(zone)
            run.unmoved = 0 if gate.is_moving(m) else run.unmoved + 1
            if self._covers(zone, m) and not (zone.startswith("reveal:") and self._still_reveal(run)):
                if not run.covered:
                    run.origins, run.covered_frames, run.cover_t = [], 0, t
                run.covered, run.still = True, 0
                run.covered_frames += 1
                if filt is not None:
                    filt.hold(gate.moved_over)
                if zone == "market" and self._hand_in_market(m):
                    self.market.activity(t)
                # where the arm comes from: the market names a swap's seat; a Khmer stack needs
                # its owner's arm for a same-card restack
                wants_origin = zone == "market" or (self._is_stack(zone) and self.config.restack_same_top)
                if wants_origin and run.covered_frames % 2 == 1:
                    o = gate.arm_origin(zone)
                    if o is not None:
                        run.origins.append(o)
                continue
            run.still += 1
            if run.still < self._settle:
                continue
            if run.covered:
                run.covered = False
                if self._is_stack(zone) and filt is not None:
                    run.restack = self._restack_candidate(zone, filt, run)
                if filt is not None:
                    filt.new_episode()
                if zone == "centre":
                    self._centre_quiet_t = t  # Khmer: the dealer's hand left the centre
                    continue
                if zone.startswith("reveal:"):
                    self.reveals.new_episode(zone.split(":", 1)[1])
                to_read.append(zone)
                continue
            if zone == "centre":
                continue  # watched for motion only, never read
            pending = filt.pending if filt is not None else self.reveals.wants_read(zone.split(":", 1)[1])
            if pending or gate.needs_read(m) or t - run.last_read >= self.config.refresh_s:
                to_read.append(zone)
        if to_read:
            # Piggy-back refreshes that are half due onto this read: fewer, merged reader calls.
            for zone, run in self._runs.items():
                if (zone in self.filters and zone not in to_read and not run.covered
                        and run.still >= self._settle and t - run.last_read >= self.config.refresh_s / 2):  # fmt: skip
                    to_read.append(zone)
        if to_read and self._over_budget(t):
            to_read = []  # live and the reader is slow: this frame goes unread
        dets = self._read(frame, to_read) if to_read else None
        if dets is not None:
            ev, no = self._apply_reads(to_read, dets, t, frame.image)
            events += ev
            notices += no
            if self.focus is not None:
                notices += self.focus.update(frame.image, dets, t)
        if self.khmer_table is not None:
            events += self._due_restacks(t, events)
            notices += self.khmer_table.tick(t)
        elif not self.reveals.active:  # a call is being judged: the market is never stale then
            events += self.market.tick(t)
        timeout = self.reveals.tick(t)
        notices += timeout
        return PipelineStep(self._state(t), events, dets, notices)

    def _covers(self, zone: str, m: ZoneMotion) -> bool:
        """Is `zone` covered or disturbed in this frame (the centre: see centre_moving_share)."""
        assert self._gate is not None
        share = self.config.centre_moving_share
        if zone == "centre" and share is not None and m.moving >= share:
            return True
        return self._gate.is_covered(m)

    def _hand_in_market(self, m: ZoneMotion) -> bool:
        """A covered market counts as a hand for its quiet time (`market_quiet_fresh`)."""
        assert self._gate is not None
        return not self.config.market_quiet_fresh or self._gate.is_freshly_covered(m)

    def _still_reveal(self, run: _ZoneRun) -> bool:
        """A reveal area unmoved for `reveal_still_s`: its cards are down (see TrackerConfig)."""
        still_s = self.config.reveal_still_s
        return still_s is not None and run.unmoved >= still_s * self.fps

    # ---- reading ---------------------------------------------------------------------
    def _active_zones(self) -> list[str]:
        zones = list(self.filters)
        if self.khmer and self._await_deal:
            zones.append("centre")
        zones += [f"reveal:{s}" for s, st in self.reveals.seats.items() if st.hand is None]
        return zones

    def _over_budget(self, t: float) -> bool:
        share = self.config.max_reader_share
        if share is None or self._read_cost_s <= 0:
            return False
        return t - self._last_read_t < self._read_cost_s / share - 0.5 / self.fps

    def _read(self, frame: Frame, zones: list[str]) -> CardDetections:
        masks = self._masks
        assert masks is not None
        rois = [masks.roi(z) for z in zones]
        groups = _merge_rois(rois)
        # A read of reveal areas alone keeps the reader's doubtful cards (down to the reveal's
        # own `min_confidence`): the reveal votes over many reads and knows the hand's size, so
        # a laid card read at 0.45 each time is evidence, not noise. Other zones keep the
        # reader's floor (their filters were tuned on it), so a read that covers them does too.
        reveal_only = all(z.startswith("reveal:") for z in zones)
        floor = self.config.reveal.min_confidence if reveal_only and self.config.reveal_floor else None
        allowed = self._known_cards
        if reveal_only and self.config.reveal_excludes_table:
            allowed = self._hand_cards() or allowed
        parts = []
        start = time.perf_counter()
        want = {"index_px": self.config.reveal_index_px} if reveal_only and self._reveal_enlarged else {}
        for roi in groups:
            parts.append(self.reader.read(frame.image, roi=roi, two_decks=self.two_decks, cards=allowed, min_p=floor, **want))
            self.reads += 1
        cost = time.perf_counter() - start  # only used to pace live reads (max_reader_share)
        self._read_cost_s = cost if self._read_cost_s <= 0 else 0.7 * self._read_cost_s + 0.3 * cost
        self._last_read_t = frame.t
        for z in zones:
            self._runs[z].last_read = frame.t
        dets = parts[0] if len(parts) == 1 else _concat(parts)
        if len(dets):
            dets = dets.within_deck(self.deck_cards, self.config.deck_fallback_min_p)
        return dets

    def _apply_reads(
        self, zones: list[str], dets: CardDetections, t: float, image: np.ndarray | None = None
    ) -> tuple[list[Event], list[Event]]:
        masks, gate = self._masks, self._gate
        assert masks is not None and gate is not None
        where = masks.zone_of(dets.centers, prefer=[z for z in zones if z.startswith("reveal:")]) if len(dets) else []
        events: list[Event] = []
        notices: list[Event] = []
        changes: list[ZoneChange] = []
        # Piles before rows: a steal is seen on the thief's pile first when both change.
        for zone in sorted(zones, key=lambda z: (not z.startswith(("pile:", "discard:")), z)):
            idx = [i for i, w in enumerate(where) if w == zone]
            cards = [dets.cards[i] for i in idx]
            conf = dets.confidence[idx] if idx else np.zeros(0, np.float32)
            boxes = dets.xyxy[idx] if idx else np.zeros((0, 4), np.float32)
            gate.set_reference(zone)
            if zone.startswith("reveal:"):
                evs = self.reveals.offer(zone.split(":", 1)[1], cards, list(map(float, conf)), t)
                self._after_reveal(evs)
                events += evs
                continue
            filt = self.filters[zone]
            if zone == "market":
                # Once a call is judged the market is picked up: empty is then a normal state
                # (seen as soon as confirmed, so the next market is known to be a new deal).
                filt.also_allowed = frozenset({0}) if self.market.expect_deal else frozenset()
                filt.excluded = self._discarded() if filt.config.deck_prior is not None else frozenset()
                filt.one_for_one = self.market.in_play and not self.reveals.active
            # the reader's runners-up matter only to the deck prior: not copied per read without it
            use_alts = dets.alternatives is not None and filt.config.deck_prior is not None
            cands = [dets.candidates(i) for i in idx] if use_alts else None
            ch = filt.update(cards, conf, boxes, t, image=image, candidates=cands)
            if ch is not None:
                changes.append(ch)
            run = self._runs.get(zone)
            if run is not None and run.restack is not None and (ch is not None or not filt.pending):
                if ch is None and filt.cards == (run.restack,):
                    # the same single top card after its owner's arm: maybe another copy laid
                    # on it; decided once the player's other moves of that moment are known
                    self._restacks.append((zone, run.restack, run.cover_t, t))
                run.restack = None
        for ch in changes:
            if ch.zone == "market":
                if self.reveals.active and len(ch.after) == self.market.config.size and self.market.is_all_new(ch.after):
                    # A new hand was dealt while a reveal was still unread: drop the reveal.
                    notices.append({"type": "reveal_abandoned", "seats": list(self.reveals.seats), "t": round(t, 3)})
                    self.reveals.cancel()
                    self.market.new_hand(t)
                # (ch.t: the time the change was made, which a one-for-one swap dates back)
                fixed = self.market.correct(ch, ch.t) if self.config.quiet_corrections else None
                ev, no = fixed if fixed is not None else self.market.change(ch, ch.t)
                self._name_seat(ev)
            else:
                assert self.khmer_table is not None
                # The first card of a hand lands in an emptied zone; while the last hand is
                # being collected, a card showing in a zone that still holds cards is one
                # uncovered under a card picked up (a discard pile's lower 6), not a deal.
                if self._await_deal and ch.added and not ch.before:
                    events.append(self._khmer_deal(t))
                ev, no = self.khmer_table.change(ch, t)
            events += ev
            notices += no
        return events, notices

    def _discarded(self) -> frozenset[str]:
        """Cards that cannot come into the market now (one deck): the discard pile of this deck
        cycle. None while a deal is due (all cards were collected) or a reshuffle may come
        (the reserve is short)."""
        m = self.market
        if not self.one_deck or m.expect_deal or not m.dealt:
            return frozenset()
        if m.reserve is None or m.reserve < m.config.size:
            return frozenset()
        return frozenset(c for c, n in m.discard.items() if n > 0)

    def _hand_cards(self) -> frozenset[str] | None:
        """Cards a revealed hand can hold in a one-deck game: the deck less the market's cards
        now and this deck cycle's discard pile (`_discarded`). None when that is not known
        (not one deck, Khmer, no market dealt, a deal due)."""
        m = self.market
        if not self.one_deck or self.khmer or not m.dealt or m.expect_deal:
            return None
        return self.deck_cards - frozenset(m.market) - self._discarded()

    def _after_reveal(self, evs: list[Event]) -> None:
        if evs and not self.khmer:
            self.market.new_hand(self._t)  # a call was judged: the next new market is a deal
        if evs and self.khmer:
            assert self.khmer_table is not None
            for ev in evs:  # for the dashboard: the sums as the camera sees them (the rules decide)
                totals = self.khmer_table.totals(ev["hands"])
                ev["meta"]["totals"] = {"table": totals["table"], "players": totals["players"]}
            self._await_deal, self._centre_quiet_t = True, None  # hands shown at close: deal over
            assert self.khmer_table is not None
            self.khmer_table.collecting = True

    @staticmethod
    def _is_stack(zone: str) -> bool:
        return zone.startswith(("pile:", "discard:"))

    def _restack_candidate(self, zone: str, filt: ZoneFilter, run: _ZoneRun) -> str | None:
        """The card to check for a same-card restack when `zone` settles (see
        `TrackerConfig.restack_same_top`): its one visible card, when the arm was its owner's."""
        if not self.config.restack_same_top or self.khmer_table is None or len(filt.cards) != 1:
            return None
        owner = zone.split(":", 1)[1]
        if not run.origins:
            return None
        seat = self._seat_from(run.origins)
        if seat is None and self.config.restack_by_direction is not None:
            seat = self._seat_toward(zone, run.origins, self.config.restack_by_direction)
        return filt.cards[0] if seat == owner else None

    def _seat_toward(self, zone: str, origins: list[tuple[float, float]], margin: float) -> str | None:
        """The seat the arm points to from the zone: an arm seen only near the zone (its far
        end hidden, or lost in the table's light) gives no seat by distance, but its
        direction from the zone's centre still names one. Each origin votes for the seat
        whose direction is closest (cosine), when it beats every other by `margin`."""
        assert self._masks is not None
        seats = self._masks.layout.seats
        x1, y1, x2, y2 = self._masks.boxes[zone]
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        ways = {n: _unit(s.at[0] - cx, s.at[1] - cy) for n, s in seats.items()}
        votes: list[str] = []
        for ox, oy in origins:
            arm = _unit(ox - cx, oy - cy)
            cos = sorted(((float(arm @ way), n) for n, way in ways.items()), reverse=True)
            if len(cos) > 1 and cos[0][0] - cos[1][0] >= margin:
                votes.append(cos[0][1])
        return self._seat_vote(votes, len(origins))

    def _due_restacks(self, t: float, events: list[Event]) -> list[Event]:
        """Same-card restacks whose hold is over, as moves. A Khmer turn is one action: an
        arm visit during which its player made another move (a play at the row's end passes
        by the pile) was for that move, and after the close hands are laid and picked up."""
        assert self.khmer_table is not None
        for ev in events:
            if ev.get("type") in ("play", "steal", "discard") and "player" in ev:
                self._last_move[ev["player"]] = max(self._last_move.get(ev["player"], -1e9), float(ev["t"]))
        hold = self.config.restack_hold_s
        out: list[Event] = []
        keep = []
        for zone, card, cover_t, seen_t in self._restacks:
            if t - seen_t < hold:
                keep.append((zone, card, cover_t, seen_t))
                continue
            owner = zone.split(":", 1)[1]
            if self.reveals.active or self._last_move.get(owner, -1e9) >= cover_t - hold:  # (nothing is laid while collecting)
                continue
            out += self.khmer_table.restacked(zone, card, seen_t)
        self._restacks = keep
        if out:
            self._last_move.update({e["player"]: float(e["t"]) for e in out if "player" in e})
        return out

    def _khmer_deal(self, t: float) -> Event:
        self._await_deal = False
        assert self.khmer_table is not None
        if self.khmer_table.collecting:
            self.khmer_table.new_hand()
        seen = self._centre_quiet_t if self._centre_quiet_t is not None else t
        self._centre_quiet_t = None
        return {"type": "deal", "t": round(seen, 3), "meta": {"emitted_t": round(t, 3)}}

    def _name_seat(self, events: list[Event]) -> None:
        swaps = [e for e in events if e["type"] == "swap"]
        run = self._runs.get("market")
        if len(swaps) != 1 or run is None or not run.origins:
            return
        seat = self._seat_from(run.origins)
        if seat is not None:
            swaps[0]["player"] = seat

    def _seat_from(self, origins: list[tuple[float, float]]) -> str | None:
        assert self._masks is not None
        seats = self._masks.layout.seats
        if len(seats) < 2:
            return None
        votes: list[str] = []
        for ox, oy in origins:
            d = sorted((float(np.hypot(ox - s.at[0], oy - s.at[1])), n) for n, s in seats.items())
            if d[0][0] < self.config.seat_ratio * d[1][0]:
                votes.append(d[0][1])
        return self._seat_vote(votes, len(origins))

    def _seat_vote(self, votes: list[str], samples: int) -> str | None:
        """The seat most of an arm's `samples` voted for, when it won `seat_share` of them."""
        if not votes:
            return None
        best = statistics.mode(votes)
        return best if votes.count(best) >= self.config.seat_share * samples else None

    # ---- state -----------------------------------------------------------------------
    def _state(self, t: float) -> TableState:
        zones: dict[str, ZoneCards] = {}
        for name, f in self.filters.items():
            zones[name] = ZoneCards(name, f.cards, f.confidences, f.occluded)
        for seat, st in self.reveals.seats.items():  # a reveal in progress: what is read so far
            cards = st.hand or st.last or ()
            conf = st.confidence or tuple(round(total / max(1, n), 4) for total, n in (st.conf.get(c, (0.0, 0)) for c in cards))
            zones[f"reveal:{seat}"] = ZoneCards(f"reveal:{seat}", tuple(cards), tuple(conf), self._runs.get(f"reveal:{seat}", _ZoneRun()).covered)
        if self.khmer_table is not None:
            # Stacked piles show only their top card: what they hold comes from the steals.
            for p, pile in self.khmer_table.piles.items():
                key = f"pile:{p}"
                occluded = zones[key].occluded if key in zones else False
                zones[key] = ZoneCards(key, tuple(pile), tuple(1.0 for _ in pile), occluded)
        m = self.filters.get("market")
        run = self._runs.get("market")
        return TableState(
            t=t,
            market=m.cards if m is not None else (),
            market_confidence=m.confidences if m is not None else (),
            market_occluded=bool(m is not None and m.occluded),
            zones=zones,
            hand_in_market=bool(run is not None and run.covered),
            seconds_since_market_change=max(0.0, t - self.market.quiet_since),
        )


# ---- helpers ---------------------------------------------------------------------------
def _unit(dx: float, dy: float) -> np.ndarray:
    """(dx, dy) scaled to length 1 (zero stays zero)."""
    n = float(np.hypot(dx, dy))
    return np.array([dx, dy]) / n if n > 1e-9 else np.zeros(2)


def _seat_layout(layout: Layout, players: list[str], khmer: bool) -> Layout:
    """The layout with seats named as the header's players (by name, else by order)."""
    if all(p in layout.seats for p in players) and (not khmer or all(p in layout.khmer for p in players)):
        return layout
    names = list(layout.seats)
    if len(names) != len(players):
        raise LayoutError(
            f"layout {layout.name} has seats {', '.join(names)} but the game has players {', '.join(players)}"
        )
    mapping = dict(zip(names, players))
    seats = {mapping[n]: replace(s, name=mapping[n]) for n, s in layout.seats.items()}
    kz = {mapping.get(n, n): k for n, k in layout.khmer.items()}
    if khmer and not all(p in kz for p in players):
        raise LayoutError(f"layout {layout.name} has no Khmer rows/piles/discards for {', '.join(players)}")
    return replace(layout, seats=seats, khmer=kz)


def _rules(header: dict[str, Any]) -> dict[str, Any]:
    """The game's resolved rule options (hand size, deck, decks), from the rules config."""
    from referee.rules.config import load_rules

    try:
        return load_rules(str(header.get("game", "kemps")), dict(header.get("rules") or {})).to_dict()
    except Exception:  # noqa: BLE001 - a bad header is the referee's to reject; see with defaults
        return {}


def _deck_cards(header: dict[str, Any]) -> frozenset[str]:
    """Every card identity the game's deck holds (Khmer: A-6 of any suit; piquet: 7-A)."""
    from referee.cards import deck_identities

    if str(header.get("game", "kemps")) == "khmer":
        return deck_identities("khmer")
    return deck_identities("piquet" if _rules(header).get("deck") == "piquet" else "standard")


def _one_deck(header: dict[str, Any]) -> bool:
    """The game is known to use one deck, each card once (Kemps, Kem's with decks = 1)."""
    if str(header.get("game", "")) not in ("kemps", "kems"):
        return False
    return bool(_rules(header)) and _decks(header) == 1


def _decks(header: dict[str, Any]) -> int:
    rules = _rules(header)
    decks = rules.get("decks", 1)
    if isinstance(decks, int):
        return decks
    players = len(header.get("players", []))
    return 2 if players >= int(rules.get("two_decks_from", 8)) else 1  # decks: auto


def _market_config(header: dict[str, Any], cfg: TrackerConfig) -> MarketConfig:
    rules = _rules(header)
    decks = _decks(header)
    per_deck = 32 if rules.get("deck") == "piquet" else 52
    hand = rules.get("hand_size", 4)
    return MarketConfig(
        size=4,
        stale_after_s=cfg.stale_after_s,
        deck_size=per_deck * decks,
        hand_size=int(hand) if isinstance(hand, int) else 4,
        players=len(header.get("players", [])) or 4,
        decks=decks,
        stale_reset_min_new=cfg.stale_reset_min_new,
        stale_unread=cfg.stale_unread,
        activity_link_s=cfg.activity_link_s,
        same_cards_reset_s=cfg.same_cards_reset_s,
    )


def _out_of_view_notice(layout: Layout, t: float) -> list[Event]:
    """A notice naming the zones the camera's frame does not hold (cards laid in their hidden
    part cannot be read): the layout or the camera needs moving."""
    out = layout.out_of_view()
    if not out:
        return []
    names = ", ".join(f"{z} ({v:.0%} outside)" for z, v in out.items())
    return [{"type": "layout_out_of_view", "zones": out, "t": round(t, 3),
             "message": f"Part of the table is outside the camera's view: {names}. Move the camera "
                        "or recalibrate the layout so every zone is in the picture."}]  # fmt: skip


def _stretched_notice(layout: Layout, size: tuple[int, int], t: float) -> list[Event]:
    """A notice when the layout was drawn for frames of another shape: its zones are stretched
    to fit, which is harmless for a 4:3 camera on a 16:9 layout of the same table and nonsense
    for a portrait video on a landscape layout (an audit of 7 Dec: swaps given to the wrong
    seats, the deal 2.7 s late, with no word said)."""
    (lw, lh), (fw, fh) = layout.size, size
    ratio = (fw / fh) / (lw / lh)
    if 0.75 <= ratio <= 1.34:  # 16:9 against 4:3 is 0.75
        return []
    return [{"type": "layout_stretched", "layout_size": [lw, lh], "frame_size": [fw, fh], "t": round(t, 3),
             "message": f"The table layout was drawn for {lw}x{lh} frames and the camera gives {fw}x{fh}: "
                        "its zones are stretched to fit and will not lie over the table. Calibrate a layout "
                        "for this camera (referee layout auto or the dashboard's calibration)."}]  # fmt: skip


def _merge_rois(rois: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """One union crop when it costs at most 1.5× the separate crops, else the crops."""
    if len(rois) <= 1:
        return rois
    a = np.array(rois, np.float64)
    union = (int(a[:, 0].min()), int(a[:, 1].min()), int(a[:, 2].max()), int(a[:, 3].max()))
    area = (union[2] - union[0]) * (union[3] - union[1])
    if area <= 1.5 * float(((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])).sum()):
        return [union]
    return rois


def _concat(parts: list[CardDetections]) -> CardDetections:
    parts = [p for p in parts if len(p)]
    if not parts:
        return CardDetections.empty()
    quads = None
    if all(p.quads is not None for p in parts):
        quads = np.concatenate([p.quads for p in parts])  # type: ignore[misc]
    alternatives = None
    if any(p.alternatives is not None for p in parts):
        alternatives = [p.candidates(i) for p in parts for i in range(len(p))]
    return CardDetections(
        xyxy=np.concatenate([p.xyxy for p in parts]),
        confidence=np.concatenate([p.confidence for p in parts]),
        cards=[c for p in parts for c in p.cards],
        index_boxes=[b for p in parts for b in p.index_boxes],
        quads=quads,
        alternatives=alternatives,
    )
