"""Market events from committed market changes: deal, swap, stale, reset, deck anomalies.

Pure bookkeeping (no image, no clock): fed `ZoneChange`s and the time, it returns event
dicts in the public vocabulary (plus `t`) and notices (anomalies, reshuffles) that are not
game events. Deck accounting for one deck cycle:

- `discard`: cards that left the market at a reset (only a reshuffle brings them back);
- `seen`: every card seen in the market since the cycle began (deal or reshuffle);
- the reserve size, when the deck and the number of players are known, tells when a
  reset must come from a reshuffled discard pile.

A reset is verified: 4 new cards, none seen before in this cycle; otherwise each repeated
card is an `anomaly` (`seen_twice`). A swap bringing in a card that was discarded is an
`anomaly` (`in_discard`). Two identical cards are legal only in a two-deck game.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from vision.tracker.filter import ZoneChange

Event = dict[str, Any]


@dataclass(frozen=True)
class MarketConfig:
    size: int = 4
    stale_after_s: float = 10.0
    deck_size: int | None = 52  # cards in the deck(s); None: unknown, no reshuffle prediction
    hand_size: int = 4
    players: int = 4
    decks: int = 1
    # After a stale call, a change that brings in at least this many new cards at once is
    # the reset, even when one of its cards was seen before (a misread, or a real repeat:
    # then a `seen_twice` anomaly), not that many swaps at one instant. None: a reset needs
    # every card new. Measured (datasets/README.md): 3 by default. With a number, a change
    # of fewer cards than that while the reset is due is a misread put right (`correct`
    # events), since nobody may swap then; with None it is reported as swaps.
    stale_reset_min_new: int | None = 3
    # In play a market always holds `size` cards, so one this many cards short with no hand
    # in it is a full market holding a card the reader cannot read: it still goes stale (a
    # QH never read kept the timer off and the stale call 3.7 s late, val set dev8q). 0: only
    # a fully read market goes stale.
    stale_unread: int = 1
    # A committed change dates the quiet time from the last hand seen in the market when that
    # hand left at most this long before the change was committed (a card read a moment late
    # after a misread); else from the change itself (no hand was seen making it).
    activity_link_s: float = 3.0
    # When no fresh cards remain for a reset (no reserve, no discard: a table of 12 at Kem's
    # with one deck), the dealer lays the stale market's own cards again, so a reset can leave
    # the same four cards: after a stale call, a hand that has been in the market and stayed
    # out of it this long is that reset. None: a reset is only seen as new cards.
    same_cards_reset_s: float | None = 0.5


@dataclass
class MarketTracker:
    config: MarketConfig = field(default_factory=MarketConfig)

    def __post_init__(self) -> None:
        self.market: tuple[str, ...] = ()
        self.dealt = False
        self.stale_announced = False
        self.expect_deal = True  # next full market is a new hand's deal
        self.quiet_since = 0.0
        self.seen: Counter[str] = Counter()
        self.discard: Counter[str] = Counter()
        self.reserve: int | None = None
        self._last_full: tuple[str, ...] = ()
        self._last_activity: float | None = None
        self._cleared = False  # the market was seen picked up since a deal became due
        self._stale_t: float | None = None

    # ---- inputs ----------------------------------------------------------------------
    def new_hand(self, t: float) -> None:
        """Cards collected and shuffled: the next full market is a deal."""
        self._cleared = (self.expect_deal and self._cleared) or len(self.market) < self.config.size
        self.expect_deal = True
        self.stale_announced = False
        self.quiet_since = t

    def activity(self, t: float) -> None:
        """A hand is in (or over) the market: the quiet time starts again."""
        self.quiet_since = self._last_activity = t

    @property
    def in_play(self) -> bool:
        """Cards are swapped one for one now: dealt, no call judged, no reset due."""
        return self.dealt and not self.expect_deal and not self.stale_announced

    def is_all_new(self, market: tuple[str, ...]) -> bool:
        """No card in common with the last full market (a reset or a new deal)."""
        return not set(market) & set(self._last_full)

    def tick(self, t: float) -> list[Event]:
        """Called every frame: a full (or `stale_unread` short), untouched market for
        `stale_after_s` is stale; after that, the same-cards reset (`same_cards_reset_s`)."""
        if (
            self.dealt
            and not self.expect_deal  # the hand is over (a call was judged)
            and not self.stale_announced
            and self.config.size - self.config.stale_unread <= len(self.market) <= self.config.size
            and t - self.quiet_since >= self.config.stale_after_s
        ):
            self.stale_announced, self._stale_t = True, t
            return [{"type": "stale", "t": round(t, 3)}]
        return self._same_cards_reset(t)

    @property
    def reset_from_market(self) -> bool:
        """No fresh cards remain for a reset (the tracker's count): it lays the stale
        market's own cards (with any discards) again."""
        return self.reserve is not None and self.reserve + sum(self.discard.values()) < self.config.size

    def _same_cards_reset(self, t: float) -> list[Event]:
        """The reset that left the same cards (see `same_cards_reset_s`), dated when the
        dealer's hand left the market. Its notices are dropped: with no fresh cards every
        reset is a reshuffle, and the cards come back by design (no `seen_twice`)."""
        wait = self.config.same_cards_reset_s
        last, since = self._last_activity, self._stale_t
        if (
            wait is None or not self.stale_announced or not self.reset_from_market or last is None or since is None
            or last <= since or t - last < wait or len(self.market) != self.config.size
        ):  # fmt: skip
            return []
        return self._reset(self.market, round(last, 3))[0]

    def change(self, ch: ZoneChange, t_event: float) -> tuple[list[Event], list[Event]]:
        """A committed market change → (game events, notices)."""
        last = self._last_activity
        # The quiet time starts when the hand that made the change left; with no hand seen
        # just before, at the change itself.
        self.quiet_since = last if last is not None and ch.t - last <= self.config.activity_link_s else ch.t
        before, after = ch.before, ch.after
        self.market = after
        size = self.config.size
        if len(after) != size:
            if self.expect_deal:
                self._cleared = True  # the hand is over and its market was picked up
            return [], []  # cleared or partly dealt: wait for a full market
        t = round(t_event, 3)
        kept = set(before) & set(after)
        all_new = not kept and not set(after) & set(self._last_full)
        # After a call the cards are collected and shuffled: the next market is a deal even
        # when a card of the old market happens to come back in it.
        if not self.dealt or (self.expect_deal and (all_new or self._cleared)):
            return self._deal(after, t)
        if all_new or self._stale_reset(ch):
            return self._reset(after, t)
        if len(before) == size and len(ch.removed) == len(ch.added):
            pairs = _pair_by_position(ch)
        else:
            # From a partial market (e.g. 3 cards while a hand rested) to a full one: the
            # diff against the last full market is what happened.
            diff = _diff_pairs(self._last_full, after)
            if diff is None:
                return [], []
            pairs = diff
        n = self.config.stale_reset_min_new
        if self.stale_announced and pairs and n is not None and len(pairs) < n:
            return self._misread_while_reset_due(pairs, ch.zone, t, after)
        return self._emit_swaps(pairs, t, after)

    def correct(self, ch: ZoneChange, t_event: float) -> tuple[list[Event], list[Event]] | None:
        """A change that only corrects misread identities (`ch.corrections`: the same cards,
        no hand in the market since they were committed) → one `correct` event per card (the
        referee fixes its market: no swap, nobody moved) and a notice; None when it cannot be
        taken as such (no full market dealt before and after)."""
        size = self.config.size
        if not ch.corrections or not self.dealt or len(ch.before) != size or len(ch.after) != size:
            return None
        t = round(t_event, 3)
        self.market = ch.after
        if Counter(ch.before) == Counter(self._last_full):
            self._last_full = ch.after
        return self._corrections(ch.corrections, ch.zone, t, "no hand reached it")

    def _stale_reset(self, ch: ZoneChange) -> bool:
        """After a stale call, `stale_reset_min_new` or more new cards at once: the reset.
        From a partial market (a reset card that was not read for a while), the new cards
        are counted against the last full market."""
        n = self.config.stale_reset_min_new
        size = self.config.size
        if n is None or not self.stale_announced:
            return False
        if len(ch.before) == size:
            return len(ch.added) == len(ch.removed) >= n
        new = Counter(ch.after) - Counter(self._last_full)
        return len(self._last_full) == size and sum(new.values()) >= n

    # ---- event builders ---------------------------------------------------------------
    def _deal(self, market: tuple[str, ...], t: float) -> tuple[list[Event], list[Event]]:
        self.dealt, self.expect_deal, self.stale_announced = True, False, False
        self._cleared = False
        self.seen = Counter(market)
        self.discard = Counter()
        self._last_full = market
        c = self.config
        if c.deck_size is not None:
            self.reserve = c.deck_size - c.players * c.hand_size - c.size
        return [{"type": "deal", "market": list(market), "t": t}], self._duplicates(market, t)

    def _reset(self, market: tuple[str, ...], t: float) -> tuple[list[Event], list[Event]]:
        notices: list[Event] = []
        events: list[Event] = []
        if not self.stale_announced:
            events.append({"type": "stale", "t": t})  # the table reset before our timer did
        old = self._last_full
        # with no fresh cards left the stale market itself was shuffled in: its cards may
        # come back (the same-cards reset), so they count as unseen in the new cycle
        from_market = self.reset_from_market
        self.discard.update(old)
        reshuffle = self.reserve is not None and self.reserve < self.config.size
        repeated = [c for c in market if self.seen[c] >= self.config.decks]
        if not reshuffle and repeated and len(repeated) >= 3:
            reshuffle = True  # most of it came back: the table reshuffled earlier than we counted
        if reshuffle:
            notices.append({"type": "reshuffle", "t": t})
            self.seen = Counter() if from_market else Counter(old)  # hands are unknown; the old market went to the discard
            self.discard = Counter()
            c = self.config
            if c.deck_size is not None:
                self.reserve = c.deck_size - c.players * c.hand_size - c.size
            repeated = [m for m in market if self.seen[m] >= self.config.decks]
        elif self.reserve is not None:
            self.reserve -= self.config.size
        for card in repeated:
            notices.append({"type": "anomaly", "kind": "seen_twice", "card": card, "t": t,
                            "message": f"{card} was already seen in this deck cycle"})  # fmt: skip
        self.seen.update(market)
        self.stale_announced = False
        self._last_full = market
        events.append({"type": "reset", "market": list(market), "t": t})
        return events, notices

    def _misread_while_reset_due(
        self, pairs: list[tuple[str, str]], zone: str, t: float, after: tuple[str, ...]
    ) -> tuple[list[Event], list[Event]]:
        """A change of fewer cards than a reset while the reset is due: nobody may swap then
        (the referee's phase is `reset`), so it is an earlier misread put right (most
        often read again as the dealer's arm comes in), not a swap: a `correct` per card,
        and the reset is still awaited. (Taken as a swap, the referee rejected it and the
        reset that followed was announced stale a second time.)"""
        events, notices = self._corrections(pairs, zone, t, "it changed while the reset was due")
        self._last_full = after
        return events, notices + self._duplicates(after, t)

    def _corrections(self, pairs: Iterable[tuple[str, str]], zone: str, t: float, why: str) -> tuple[list[Event], list[Event]]:
        """A `correct` event and a `misread_corrected` notice per (was, now) pair."""
        events: list[Event] = []
        notices: list[Event] = []
        for was, now in pairs:
            self.seen[was] = max(0, self.seen[was] - 1)
            self.seen[now] += 1
            events.append({"type": "correct", "was": was, "now": now, "t": t})
            notices.append({"type": "misread_corrected", "zone": zone, "was": was, "now": now, "t": t,
                            "message": f"{was} in the market was a misread of {now} ({why})"})  # fmt: skip
        return events, notices

    def _emit_swaps(self, pairs: list[tuple[str, str]], t: float, after: tuple[str, ...]) -> tuple[list[Event], list[Event]]:
        events: list[Event] = []
        notices: list[Event] = []
        for take, give in pairs:
            events.append({"type": "swap", "give": give, "take": take, "t": t})
            if self.discard[give] > 0:
                notices.append({"type": "anomaly", "kind": "in_discard", "card": give, "t": t,
                                "message": f"{give} should be in the discard pile"})  # fmt: skip
            self.seen[give] = max(self.seen[give], 1)  # in play now, so never a fresh reserve card
        notices += self._duplicates(after, t)
        if events:
            self.stale_announced = False
        self._last_full = after
        return events, notices

    def _duplicates(self, market: tuple[str, ...], t: float) -> list[Event]:
        return [
            {"type": "anomaly", "kind": "seen_twice", "card": c, "t": t, "message": f"{c} is in the market {n} times"}
            for c, n in Counter(market).items()
            if n > self.config.decks
        ]


def _diff_pairs(last: tuple[str, ...], now: tuple[str, ...]) -> list[tuple[str, str]] | None:
    """(take, give) pairs between two full markets; None when they differ in size."""
    takes = list((Counter(last) - Counter(now)).elements())
    gives = list((Counter(now) - Counter(last)).elements())
    return list(zip(takes, gives)) if len(takes) == len(gives) else None


def _pair_by_position(ch: ZoneChange) -> list[tuple[str, str]]:
    """(take, give) pairs: each new card is matched to the removed card whose place it took."""
    removed, added = list(ch.removed), list(ch.added)
    if len(removed) <= 1 or len(removed) != len(added) or len(ch.removed_at) != len(removed):
        return list(zip(removed, added))
    best: tuple[float, tuple[int, ...]] | None = None
    for perm in itertools.permutations(range(len(added))):
        cost = sum(math.dist(ch.removed_at[i], ch.added_at[j]) for i, j in enumerate(perm))
        if best is None or cost < best[0]:
            best = (cost, perm)
    assert best is not None
    return [(removed[i], added[j]) for i, j in enumerate(best[1])]
