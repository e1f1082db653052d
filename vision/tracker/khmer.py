"""Khmer table events from committed zone changes: play, steal, discard; piles and totals.

Zones per player: `row:P` (played cards, overlapping, every value visible), `pile:P`
(stolen cards stacked face up: only the top shows) and `discard:P` (6s out of the game,
stacked). Piles and discards only ever grow, so their *visible* set losing a card means it
was covered, never that it left; what they hold is followed from the events.

- a card appearing in `row:P` → `play {player: P, card: value}`;
- a card appearing on `pile:Q` (it left the opponent's row) → `steal {player: Q}`; the
  matching row removal, before or after, is consumed silently;
- a card appearing on `discard:P` → `discard {player: P, card: value}`;
- a change that only corrects misread identities (`ZoneChange.corrections`: the same card,
  no arm near since it was committed) is no move: a `misread_corrected` notice, and in a row
  the card is renamed, with `correct {player, was, now}` for the referee when the value
  changed (the suit alone does not matter to the rules);
- the same card laid in a row twice within `twin_s` (one change, or two a moment apart) is
  one card read twice (a `twin_read` notice): a Khmer turn lays one card, and two turns of
  one player are a whole opponent's turn apart. Why: on big-index decks the reader sometimes
  takes one row card's two corners (or its rank and its suit) for two identical cards of the
  game's two decks, and the extra "play" put the referee a turn out of step for the rest of
  the deal (the close refused, no reveal: 3 of 4 Khmer recordings of val decks, 2 Dec). The
  extra copy is a ghost: when one copy later leaves the read, that is the ghost going, and
  while the card lies in the row, the reader's second copy of it coming back is the ghost
  again (a player laying the second deck's copy of a card already twin-read in their own
  row is then missed: rarer than the twin coming back). Two new cards of one change under
  different names at one place (`same_place`) are one card too, the surer one played; and a
  pile or discard takes one card of an identity per change or per `twin_s`;
- (`repeat_is_reread`) the card of the table's last move laid again on the same pile or
  discard, with no move anywhere since, is that move seen again (its card dropped out of
  the read under an arm and came back): a player never moves twice in a row, and the
  opponent's move in between would show. Found on a val deck (nicu-white): a discarded 6C
  and a stolen 2H each came back 2.7 s later as a second discard and a second steal, and
  the referee took the held second discard once the opponent had moved (`LateEvents`),
  which left the discarder a card short for the rest of the deal;
- one move per turn (the players alternate, one action each): a row change lays one card
  (`one_play_per_change`); a new top on the last move's discard a moment later is that card
  re-read (`retop_is_reread`); a copy of a card a zone holds, laid right after the zone
  owner's own move, is a second read (`own_turn_copy_is_reread`); and a row card renamed with
  no arm seen while its owner is to move is a card laid over it (`correction_on_turn_is_play`);
- (`steal_implies_play`) a card stolen that no row was seen to hold, right after the thief's
  own move, is the opponent's play the camera missed (laid and taken while the view froze):
  that play is reported just before the steal;
- a row card that vanishes with no pile gain within `pair_s` → an anomaly notice, and the
  card is kept in the row as hidden: a card laid over it can hide its index, and when it
  shows again (the card over it stolen) it is the same card, not a new play. A hidden card
  still counts in the table total, and can still be stolen.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from referee.cards import khmer_value
from vision.tracker.filter import ZoneChange

Event = dict[str, Any]


@dataclass
class KhmerTracker:
    players: list[str]
    pair_s: float = 2.0
    twin_s: float | None = 1.0  # None: every copy laid is a play (and no same-place check)
    # Two new cards of one row change whose centres lie within this share of a card's size
    # are one card read under two names (a 4H also read AH, 12 px away): the surer is played.
    same_place: float = 0.25
    repeat_is_reread: bool = True  # with `twin_s` set (None turns every re-read check off)
    # A row card read twice (`twin_s`) shows its other corner where a card laid over it lay,
    # once that card is stolen: a rename to it (`ZoneChange.renamed`) is no misread then.
    rename_to_twin: bool = True
    # One row change lays at most one card: a card already lying in the row, read again in a
    # change that also lays a card the row did not hold, is the row card read twice (its
    # other corner), not the second deck's copy played in the same turn. Why: khv18
    # khmer-8102, S's 5H was laid and the same change read S's 6S twice; the extra 6S play,
    # refused for turn order, was taken late once N had moved, and the close was refused.
    one_play_per_change: bool = True
    # A new top on the stack of the last move within `twin_s` of that move, with no move
    # since, is that card read again (misread while the hand laid it), renamed there: a player
    # never moves twice in a row. Discards only (a steal's card also left a row, which says
    # what it was). Why: khv18 khmer-8109, N's 6C read 6S as it was laid and 6C 0.27 s later
    # made two discards and put the referee a turn out of step for the rest of the deal.
    retop_is_reread: bool = True
    # A card laid in a zone of the player who made the last move (no opponent move since),
    # of an identity that zone already holds, is a second read of that card, however late:
    # the two decks' copies cannot be laid in two turns of one player in a row. Why: dev12
    # khmer-9113 (nicu-white, a tall thin rank whose two corners the reader often takes for
    # two cards): N's row 5H, N's pile 6D, S's discard 6C and S's row 6H were each read
    # twice 10-40 s after they were laid, right after their owner's own move, and each made
    # a move; the referee, out of step, refused the close. A new identity still counts.
    own_turn_copy_is_reread: bool = True
    # A row card renamed by the spot vote with no arm seen (`ZoneChange.corrections`) while its
    # owner is the player to move (the last move was the opponent's) is a card laid over it,
    # the old card covered (hidden, still counted), not a misread. Why: khv18 khmer-8107, N's
    # 2S laid over N's 6C went to the referee as `correct 6C -> 2S`; the steals after it were
    # scored on the wrong cards and the close was wrong. A misread corrected just after its
    # owner's own play is still a correction.
    correction_on_turn_is_play: bool = True
    # A card stolen that no row was seen to hold, while the thief made the last move, is the
    # opponent's play the camera never saw (laid and taken while the view was frozen or the
    # card under an arm): that play is reported just before the steal. Without it the steal
    # was refused for turn order ("it is S's turn") and every later move of the deal with it.
    # Found with camera freezes of 4 s (khv18 khmer-8102, 8109); see MEASUREMENTS.md.
    steal_implies_play: bool = True

    def __post_init__(self) -> None:
        self.rows: dict[str, list[str]] = {p: [] for p in self.players}  # in play order
        self.piles: dict[str, list[str]] = {p: [] for p in self.players}
        self.discards: dict[str, list[str]] = {p: [] for p in self.players}
        self._orphans: list[tuple[float, str, str]] = []  # (t, row owner, card) awaiting a pile
        self._expected_removals: Counter[tuple[str, str]] = Counter()  # (row owner, card)
        self.hidden: dict[str, Counter[str]] = {p: Counter() for p in self.players}  # in the row, unread
        self.ghosts: dict[str, Counter[str]] = {p: Counter() for p in self.players}  # second reads of a row card
        self._laid_at: dict[tuple[str, str], float] = {}  # (zone, card) -> when last laid there (`twin_s`)
        self._twinned: set[tuple[str, str]] = set()  # (row owner, card) read twice there
        self.collecting = False  # after the close: cards leaving the table are the collection
        self._last_move: tuple[str, str] | None = None  # (zone, card) of the last play, steal or discard
        self._unseen_plays: Counter[tuple[str, str]] = Counter()  # (row owner, card) played unseen, stolen

    def new_hand(self) -> None:
        self.__post_init__()

    def change(self, ch: ZoneChange, t_event: float) -> tuple[list[Event], list[Event]]:
        kind, _, player = ch.zone.partition(":")
        t = round(t_event, 3)
        if self.collecting:
            return [], []
        if ch.corrections:
            if self._laid_over(kind, player, ch.corrections):
                return self._play_over(player, ch, t)
            return self._corrected(kind, player, ch.corrections, ch.zone, t)
        events: list[Event] = []
        notices: list[Event] = []
        renamed = self._renames_in_row(kind, player, ch.renamed)
        if renamed:
            events, notices = self._corrected(kind, player, renamed, ch.zone, t)
            ch = _without(ch, renamed)
        ev, no = self._move(kind, player, ch, t)
        return events + ev, notices + no

    def _laid_over(self, kind: str, player: str, pairs: tuple[tuple[str, str], ...]) -> bool:
        """One row card renamed while its owner is to move (`correction_on_turn_is_play`)."""
        if not self.correction_on_turn_is_play or kind != "row" or len(pairs) != 1 or self._last_mover is None:
            return False
        was, now = pairs[0]
        return self._last_mover != player and was in self.rows.get(player, []) and now not in self.rows.get(player, [])

    @property
    def _last_mover(self) -> str | None:
        """The player who made the last play, steal or discard (the owner of its zone)."""
        return None if self._last_move is None else self._last_move[0].partition(":")[2]

    def _play_over(self, player: str, ch: ZoneChange, t: float) -> tuple[list[Event], list[Event]]:
        """`ch`'s one renamed card covered (hidden in the row) and the new one played."""
        was, now = ch.corrections[0]
        self.hidden.setdefault(player, Counter())[was] += 1
        events, notices = self._row(player, replace(ch, removed=(), added=(now,), corrections=()), t)
        notices.append({"type": "anomaly", "kind": "covered", "card": was, "zone": ch.zone, "t": t,
                        "message": f"{was} in {ch.zone} covered by {now}, laid over it on {player}'s turn; kept as hidden"})  # fmt: skip
        return events, notices

    def _renames_in_row(self, kind: str, player: str, pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        """The renames (`ZoneChange.renamed`) that can be: of a card still in the row. One
        already taken by a steal seen on the thief's pile left, and a card laid in its
        place is a play (a steal and the next play seen as one change); so is a card laid
        over a second read of a row card (a ghost, `twin_s`): the ghost goes. And a rename
        to a card of the row read twice before (`twin_s`) is that card's other corner
        uncovered where the taken card's lay (`rename_to_twin`): the card went."""
        if kind != "row":
            return ()
        if self.rename_to_twin:
            pairs = tuple((was, now) for was, now in pairs if not self._is_known_twin(player, now))
        row = Counter(self.rows.get(player, []))
        row.subtract(Counter({c: n for (p, c), n in self._expected_removals.items() if p == player}))
        ghosts = Counter(self.ghosts.get(player, Counter()))
        out = []
        for was, now in pairs:
            if ghosts[was] > 0:  # the second read of a card leaving as a card is laid over it
                ghosts[was] -= 1
                continue
            if row[was] > 0:
                row[was] -= 1
                out.append((was, now))
        return tuple(out)

    def _move(self, kind: str, player: str, ch: ZoneChange, t: float) -> tuple[list[Event], list[Event]]:
        if kind == "row":
            return self._row(player, ch, t)
        if kind == "pile":
            return self._pile(player, ch, t)
        if kind == "discard":
            return self._discard(player, ch, t)
        return [], []

    def tick(self, t: float) -> list[Event]:
        out, keep = [], []
        for t0, owner, card in self._orphans:
            if t - t0 > self.pair_s:
                out.append({"type": "anomaly", "kind": "vanished", "card": card, "zone": f"row:{owner}", "t": round(t, 3),
                            "message": f"{card} is no longer seen in {owner}'s row and reached no pile; "
                                       "kept in the row as hidden (covered?)"})  # fmt: skip
                self.rows.setdefault(owner, []).append(card)
                self.hidden.setdefault(owner, Counter())[card] += 1
            else:
                keep.append((t0, owner, card))
        self._orphans = keep
        return out

    # ---- zones -----------------------------------------------------------------------
    def _corrected(self, kind: str, player: str, pairs: tuple[tuple[str, str], ...], zone: str,
                   t: float) -> tuple[list[Event], list[Event]]:
        """Cards nobody moved, renamed (an AS read AC a moment after it was laid): no play,
        steal or discard. A stack keeps what was laid on it (only its top shows:
        `_laid_on_stack` compares with what shows)."""
        events: list[Event] = []
        notices: list[Event] = []
        row = self.rows.setdefault(player, []) if kind == "row" else None
        for was, now in pairs:
            notices.append({"type": "misread_corrected", "zone": zone, "was": was, "now": now, "t": t,
                            "message": f"{was} in {zone} was a misread of {now} (the same card)"})  # fmt: skip
            if row is None or was not in row:
                continue
            row[len(row) - 1 - row[::-1].index(was)] = now
            if _value(was) != _value(now):
                events.append({"type": "correct", "player": player, "was": was, "now": now, "t": t})
        return events, notices

    def _row(self, player: str, ch: ZoneChange, t: float) -> tuple[list[Event], list[Event]]:
        events: list[Event] = []
        notices: list[Event] = []
        row = self.rows.setdefault(player, [])
        ghosts = self.ghosts.setdefault(player, Counter())
        for card in ch.removed:
            if ghosts[card] > 0:  # the second read of a card going: the card itself stays
                ghosts[card] -= 1
                continue
            if card in row:
                row.remove(card)
            if self._expected_removals[(player, card)] > 0:
                self._expected_removals[(player, card)] -= 1
            else:
                self._orphans.append((ch.t, player, card))
        hidden = self.hidden.setdefault(player, Counter())
        shadows = _same_place(ch, self.same_place) if self.twin_s is not None else set()
        lying = set(row)  # before this change's additions
        lays_new = self.one_play_per_change and any(c not in lying for c in ch.added)
        for i, card in enumerate(ch.added):
            orphan = next((o for o in self._orphans if o[1] == player and o[2] == card), None)
            if orphan is not None:
                self._orphans.remove(orphan)  # it had only dropped out of the read: back, no move
                row.append(card)
                continue
            if hidden[card] > 0:  # uncovered: in the row all along
                hidden[card] -= 1
                continue
            if self._unseen_plays[(player, card)] > 0:  # already played (inferred from its steal), seen late
                self._unseen_plays[(player, card)] -= 1
                self._expected_removals[(player, card)] += 1  # and it will leave the read
                continue
            if self._is_twin(player, ch.zone, card, ch.t) or (lays_new and card in lying) or self._own_turn_copy(player, row, card):
                self._twinned.add((player, card))
                ghosts[card] += 1
                notices.append(_twin_notice(ch.zone, card, t, "read twice"))
                continue
            if i in shadows:  # another name read at the place of a surer new card
                ghosts[card] += 1
                notices.append(_twin_notice(ch.zone, card, t, "read at the place of another new card"))
                continue
            self._laid_at[(ch.zone, card)] = ch.t
            self._last_move = (ch.zone, card)
            row.append(card)
            events.append({"type": "play", "player": player, "card": card, "t": t})
        return events, notices

    def _is_known_twin(self, player: str, card: str) -> bool:
        """`card` lies in `player`'s row and was read there twice before (`twin_s`)."""
        return (player, card) in self._twinned and card in self.rows.get(player, [])

    def _is_twin(self, player: str, zone: str, card: str, t: float) -> bool:
        """Whether `card` newly read in `player`'s row is a second read of a card there
        (`twin_s`): laid there a moment ago, or read twice before and still lying there."""
        if self.twin_s is None:
            return False
        if t - self._laid_at.get((zone, card), -math.inf) <= self.twin_s:
            return True
        return self._is_known_twin(player, card)

    def _own_turn_copy(self, player: str, held: list[str], card: str) -> bool:
        """`card` is already in `held` (a zone of `player`) and `player` made the last move
        (`own_turn_copy_is_reread`)."""
        if not self.own_turn_copy_is_reread or self.twin_s is None:
            return False
        return card in held and self._last_mover == player

    def _pile(self, player: str, ch: ZoneChange, t: float) -> tuple[list[Event], list[Event]]:
        events: list[Event] = []
        pile = self.piles.setdefault(player, [])
        added, notices = self._once_each(ch, t, player, pile)
        for card in added:
            if _laid_on_stack(pile, ch, card):  # else uncovered again, not new
                events += self._stolen(player, card, t)
        return events, notices

    def _once_each(self, ch: ZoneChange, t: float, player: str, stack: list[str]) -> tuple[list[str], list[Event]]:
        """A pile's or discard's added cards, each identity once (`twin_s`): a turn lays one
        card on one stack, so the same card twice in one change, or again within `twin_s`, is
        one card read twice; and (`repeat_is_reread`) the last move's card on its own stack
        again, with no move since, is that move seen again; so is (`own_turn_copy_is_reread`)
        a card the stack holds, laid again right after its owner's own move."""
        if self.twin_s is None:
            return list(ch.added), []
        again: list[str] = []
        if self.repeat_is_reread and self._last_move is not None and self._last_move[0] == ch.zone:
            again = [c for c in dict.fromkeys(ch.added) if c == self._last_move[1]]
        again += [c for c in dict.fromkeys(ch.added) if c not in again and self._own_turn_copy(player, stack, c)]
        once = [c for c in dict.fromkeys(ch.added)
                if ch.t - self._laid_at.get((ch.zone, c), -math.inf) > self.twin_s]  # read again a moment later
        once = [c for c in once if c not in again]
        for c in once:
            self._laid_at[(ch.zone, c)] = ch.t
        extra = Counter(ch.added) - Counter(once) - Counter(again)
        notices = [_twin_notice(ch.zone, c, t, "read twice") for c in sorted(extra.elements())]
        return once, notices + [_twin_notice(ch.zone, c, t, "seen again with no move since it was laid") for c in again]

    def _stolen(self, player: str, card: str, t: float) -> list[Event]:
        """`card` laid on `player`'s pile: taken from the opponent's row (the steal, after the
        opponent's play of it when no row held it: `steal_implies_play`)."""
        unseen = self._unseen_play(player, card, t)
        self._last_move = (f"pile:{player}", card)
        self.piles.setdefault(player, []).append(card)
        victim = next((o for _, o, c in self._orphans if c == card and o != player), None)
        if victim is not None:
            self._orphans = [x for x in self._orphans if not (x[1] == victim and x[2] == card)][:]
        else:
            victim = next((p for p in self.players if p != player and card in self.rows.get(p, [])), None)
            if victim is not None:
                self._expected_removals[(victim, card)] += 1
        if victim is not None and card in self.rows.get(victim, []):
            self.rows[victim].remove(card)
            if self.hidden.get(victim, Counter())[card] > 0:  # taken while unread
                self.hidden[victim][card] -= 1
                self._expected_removals[(victim, card)] -= 1  # it will not leave the read
        return [*unseen, {"type": "steal", "player": player, "t": t, "meta": {"card": card}}]

    def _unseen_play(self, player: str, card: str, t: float) -> list[Event]:
        """The opponent's play of `card`, never seen in their row, when `player` steals it
        right after their own move (`steal_implies_play`): [] when a row holds or held it,
        or when the opponent moved since (then it is more likely a misread of the steal)."""
        if not self.steal_implies_play or self.twin_s is None or self._last_mover != player:
            return []  # (without `twin_s` a pile's second read is a second steal: no play behind it)
        if any(o[2] == card for o in self._orphans) or any(card in row for row in self.rows.values()):
            return []
        victim = next((p for p in self.players if p != player), None)
        if victim is None:
            return []
        self._unseen_plays[(victim, card)] += 1  # a late sighting of it in the row is no move
        self._last_move = (f"row:{victim}", card)
        return [{"type": "play", "player": victim, "card": card, "t": round(t - 0.001, 3),
                 "meta": {"inferred": "stolen before the camera saw it laid"}}]

    def _discard(self, player: str, ch: ZoneChange, t: float) -> tuple[list[Event], list[Event]]:
        events: list[Event] = []
        pile = self.discards.setdefault(player, [])
        reread = self._retop(ch)
        if reread is not None:
            return self._reread_top(pile, ch.zone, *reread, t)
        added, notices = self._once_each(ch, t, player, pile)
        for card in added:
            if _laid_on_stack(pile, ch, card):
                ev, no = self._discarded(player, card, t)
                events.append(ev)
                notices += no
        return events, notices

    def _retop(self, ch: ZoneChange) -> tuple[str, str] | None:
        """(was, now) when `ch` puts a new top on the stack of the last move, over that
        move's card, within `twin_s` of it (`retop_is_reread`); else None."""
        if not self.retop_is_reread or self.twin_s is None or self._last_move is None or len(ch.added) != 1:
            return None
        zone, was = self._last_move
        now = ch.added[0]
        if zone != ch.zone or now == was or was not in ch.removed:
            return None
        return (was, now) if ch.t - self._laid_at.get((zone, was), -math.inf) <= self.twin_s else None

    def _reread_top(self, stack: list[str], zone: str, was: str, now: str, t: float) -> tuple[list[Event], list[Event]]:
        """The last move's card on its stack renamed: the same card, read again."""
        if stack and stack[-1] == was:
            stack[-1] = now
        self._laid_at[(zone, now)] = self._laid_at.get((zone, was), t)
        self._last_move = (zone, now)
        return [], [{"type": "misread_corrected", "zone": zone, "was": was, "now": now, "t": t,
                     "message": f"{was} just laid on {zone} was a misread of {now} (the same card, no move since)"}]  # fmt: skip

    def _discarded(self, player: str, card: str, t: float) -> tuple[Event, list[Event]]:
        """`card` laid on `player`'s discard pile."""
        self._last_move = (f"discard:{player}", card)
        self.discards.setdefault(player, []).append(card)
        notices = []
        if _value(card) != 6:
            notices.append({"type": "anomaly", "kind": "not_a_six", "card": card, "t": t,
                            "message": f"{player} discarded {card}; only a 6 may be discarded"})  # fmt: skip
        return {"type": "discard", "player": player, "card": card, "t": t}, notices

    def restacked(self, zone: str, card: str, t: float) -> list[Event]:
        """Another copy of `card` laid on the pile or discard `zone` over its identical top,
        which the camera sees only by the owner's arm (`TrackerConfig.restack_same_top`): the
        steal or discard, flagged `meta.restacked`. Nothing while collecting."""
        kind, _, player = zone.partition(":")
        if self.collecting or kind not in ("pile", "discard"):
            return []
        evs = self._stolen(player, card, t) if kind == "pile" else [self._discarded(player, card, t)[0]]
        evs[-1].setdefault("meta", {})["restacked"] = True
        return evs

    # ---- totals ----------------------------------------------------------------------
    def totals(self, hands: dict[str, list[Any]]) -> dict[str, Any]:
        """Table total (both rows), each player's total (hand + pile) and the winner (≤ rule)."""
        table = sum(_value(c) for row in self.rows.values() for c in row)
        per = {p: sum(_value(c) for c in hands.get(p, [])) + sum(_value(c) for c in self.piles.get(p, [])) for p in self.players}
        ok = {p: v for p, v in per.items() if v <= table}
        winner = None
        if ok:
            best = max(ok.values())
            tops = [p for p, v in ok.items() if v == best]
            winner = tops[0] if len(tops) == 1 else None
        return {"table": table, "players": per, "winner": winner}


def _twin_notice(zone: str, card: str, t: float, how: str) -> Event:
    return {"type": "twin_read", "zone": zone, "card": card, "t": t,
            "message": f"{card} {how} in {zone}: one card, one move"}  # fmt: skip


def _same_place(ch: ZoneChange, share: float) -> set[int]:
    """Indices of `ch.added` lying at the place of a surer added card of another name (centres
    within `share` × the larger box side): one card read two ways. Cards without a box
    (centre and size 0, kept by the vote) are never judged."""
    n = len(ch.added)
    if n < 2 or len(ch.added_at) != n or len(ch.added_conf) != n or len(ch.added_size) != n:
        return set()
    order = sorted(range(n), key=lambda i: -ch.added_conf[i])
    kept: list[int] = []
    out: set[int] = set()
    for i in order:
        (x, y), s = ch.added_at[i], ch.added_size[i]
        near = s > 0 and any(
            ch.added[k] != ch.added[i]
            and ((x - ch.added_at[k][0]) ** 2 + (y - ch.added_at[k][1]) ** 2) ** 0.5 < share * max(s, ch.added_size[k])
            for k in kept
        )
        if near:
            out.add(i)
        else:
            kept.append(i)
    return out


def _laid_on_stack(held: list[str], ch: ZoneChange, card: str) -> bool:
    """Whether `card`, showing now on a pile or discard that holds `held`, was laid there.
    Stacks only grow: a card that took the place of the visible top (the old top went out of
    view, covered) was laid on it, even when an identical card lies lower (two decks give six
    6s: 6C, then 6D, then another 6C); a card showing beside an unchanged top is one seen
    again, already counted. (A change that only corrects misread identities never gets here:
    `KhmerTracker.change` takes it as no move.)"""
    if ch.removed:
        return True
    return Counter(held)[card] < Counter(ch.after)[card]


def _without(ch: ZoneChange, pairs: tuple[tuple[str, str], ...]) -> ZoneChange:
    """`ch` less the renamed cards: what moved."""
    rm, ad = _indices(ch.removed, [w for w, _ in pairs]), _indices(ch.added, [n for _, n in pairs])

    def keep(xs: tuple[Any, ...], drop: list[int]) -> tuple[Any, ...]:
        return tuple(x for i, x in enumerate(xs) if i not in drop)

    return replace(ch, removed=keep(ch.removed, rm), added=keep(ch.added, ad), renamed=(),
                   removed_at=keep(ch.removed_at, rm), added_at=keep(ch.added_at, ad))


def _indices(cards: tuple[str, ...], wanted: list[str]) -> list[int]:
    """Index in `cards` of each of `wanted` (a card twice: two indices)."""
    out: list[int] = []
    for c in wanted:
        out.append(next(i for i, x in enumerate(cards) if x == c and i not in out))
    return out


def _value(card: Any) -> int:
    try:
        return khmer_value(card)
    except ValueError:
        return 0
