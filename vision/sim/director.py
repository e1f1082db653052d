"""Director: turns the players' decisions into a timed truth timeline and table motions.

Output (`Timeline`): the truth events (public vocabulary + "t"), the table's card
placements as keyframes (a full snapshot each time a card appears, moves or vanishes),
and the arm motions the renderer draws. Every event is first applied to the rules
engine; a rejection is a simulator bug (`SimError`), never written to the truth.

Truth times: an event's "t" is the first instant its result is fully visible to the
camera, i.e. when the arm that made the change has withdrawn out of the zone it changed
(grown by a margin). Stale: `stale_after_s` after the last hand left the market. Calls,
Khmer close/fold and new_hand are not visible: their "t" is when they are said.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from vision.evaluate.runner import as_seen
from vision.sim.players import Decision, KhmerBrain, MarketBrain, SimError, make_brain
from vision.tracker.layout import Layout

Point = tuple[float, float]

ARM_SPEED_PX_S = 900.0  # an adult hand crossing a card table: ~0.4 s for 40 cm
CARD_ASPECT = 0.714  # poker card width / height


@dataclass(frozen=True, slots=True)
class Placed:
    """One card lying on the table. `angle` in degrees, counter-clockwise as displayed;
    `z` orders overlaps (higher on top)."""

    card: str
    center: Point
    angle: float
    face_up: bool
    z: int


@dataclass(frozen=True, slots=True)
class Motion:
    """An arm from `start` (the seat's table edge) to `end` and back during [t0, t1]:
    reach, hold at `end` for `hold_s`, withdraw, at constant speed."""

    seat: str
    start: Point
    end: Point
    t0: float
    hold_s: float
    width: float

    @property
    def travel_s(self) -> float:
        return math.dist(self.start, self.end) / ARM_SPEED_PX_S

    @property
    def t_hold(self) -> float:
        return self.t0 + self.travel_s

    @property
    def t1(self) -> float:
        return self.t0 + 2 * self.travel_s + self.hold_s

    def tip(self, t: float) -> Point | None:
        """The hand's position at t (None when the arm is off the table)."""
        if t < self.t0 or t > self.t1:
            return None
        tr = self.travel_s
        if t < self.t0 + tr:
            s = (t - self.t0) / tr if tr else 1.0
        elif t <= self.t0 + tr + self.hold_s:
            s = 1.0
        else:
            s = 1.0 - (t - self.t0 - tr - self.hold_s) / tr if tr else 0.0
        return (self.start[0] + (self.end[0] - self.start[0]) * s, self.start[1] + (self.end[1] - self.start[1]) * s)

    def clear_time(self, box: tuple[float, float, float, float]) -> float:
        """When the withdrawing hand leaves `box` for good (t1 if it never does before)."""
        tr = self.travel_s
        w0 = self.t0 + tr + self.hold_s
        steps = max(2, int(tr * 60))
        for i in range(steps + 1):
            t = w0 + tr * i / steps
            x, y = self.tip(t) or self.start
            if not (box[0] <= x <= box[2] and box[1] <= y <= box[3]):
                return t
        return self.t1


@dataclass
class Timeline:
    """Everything the renderer and the recording need."""

    header: dict[str, Any]
    duration: float
    events: list[dict[str, Any]] = field(default_factory=list)
    keyframes: list[tuple[float, tuple[Placed, ...]]] = field(default_factory=list)
    motions: list[Motion] = field(default_factory=list)
    card_height: float = 80.0
    results: list[Any] = field(default_factory=list)
    layout: Layout | None = None  # the table-plane layout the cards were placed on

    def placements_at(self, t: float) -> tuple[Placed, ...]:
        out: tuple[Placed, ...] = ()
        for kt, snap in self.keyframes:
            if kt > t:
                break
            out = snap
        return out

    def keyframe_index(self, t: float) -> int:
        idx = -1
        for i, (kt, _) in enumerate(self.keyframes):
            if kt > t:
                break
            idx = i
        return idx

    def arms_at(self, t: float) -> list[tuple[Motion, Point]]:
        return [(m, tip) for m in self.motions if (tip := m.tip(t)) is not None]


# --------------------------------------------------------------------------- geometry


def _centroid(poly: tuple[Point, ...]) -> Point:
    return (sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly))


def _bbox(poly: tuple[Point, ...]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return min(xs), min(ys), max(xs), max(ys)


@dataclass
class Geometry:
    """Where cards go on the table, from the tracker's layout."""

    layout: Layout
    card_h: float
    rng: random.Random
    cascade: int = 1  # +1: each card covers the right of the one before; -1: its left

    @property
    def card_w(self) -> float:
        return self.card_h * CARD_ASPECT

    @property
    def center(self) -> Point:
        return _centroid(self.layout.market)

    def seat_angle(self, seat: str) -> float:
        """Cards face their owner: the card's bottom edge points at the seat."""
        cx, cy = self.center
        ax, ay = self.layout.seats[seat].at
        return math.degrees(math.atan2(ax - cx, ay - cy))

    def seat_start(self, seat: str) -> Point:
        return self.layout.seats[seat].at

    def _jitter(self, p: Point, r: float = 3.0) -> Point:
        return (p[0] + self.rng.uniform(-r, r), p[1] + self.rng.uniform(-r, r))

    def market_slots(self) -> list[Point]:
        """2×2 grid in the market zone."""
        cx, cy = self.center
        dx, dy = self.card_w * 0.62, self.card_h * 0.58
        return [(cx - dx, cy - dy), (cx + dx, cy - dy), (cx - dx, cy + dy), (cx + dx, cy + dy)]

    def market_box(self) -> tuple[float, float, float, float]:
        return _bbox(self.layout.market)

    def reserve_pos(self) -> Point:
        x1, _, x2, _ = self.market_box()
        cx, cy = self.center
        return (x2 + self.card_h * 1.0, cy)

    def discard_pos(self) -> Point:
        x1, _, _, _ = self.market_box()
        _, cy = self.center
        return (x1 - self.card_h * 1.0, cy)

    def fan(self, zone: tuple[Point, ...], angle: float, n: int, step_frac: float = 0.6) -> list[Point]:
        """n positions cascading along the card's own +x axis, centred in the zone: each
        card covers the right part of the one before, leaving its top-left index visible."""
        cx, cy = _centroid(zone)
        a = math.radians(angle)
        ux, uy = self.cascade * math.cos(a), -self.cascade * math.sin(a)
        step = self.card_w * step_frac
        first = -(n - 1) * step / 2
        return [(cx + ux * (first + i * step), cy + uy * (first + i * step)) for i in range(n)]

    def row_slot(self, zone: tuple[Point, ...], angle: float, i: int, step_frac: float = 0.6) -> Point:
        """Khmer row: slot i from the row's start (its card-frame left end)."""
        cx, cy = _centroid(zone)
        x1, y1, x2, y2 = _bbox(zone)
        a = math.radians(angle)
        ux, uy = self.cascade * math.cos(a), -self.cascade * math.sin(a)
        half = abs(ux) * (x2 - x1) / 2 + abs(uy) * (y2 - y1) / 2
        off = -half + self.card_w * 0.6 + i * self.card_w * step_frac
        return (cx + ux * off, cy + uy * off)

    def box_of(self, centers: list[Point], margin: float) -> tuple[float, float, float, float]:
        xs, ys = [c[0] for c in centers], [c[1] for c in centers]
        return min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin


# --------------------------------------------------------------------------- engine


class Engine:
    """The rules engine, used to validate every simulated event."""

    def __init__(self, header: dict[str, Any]) -> None:
        from referee.rules.engine import new_game

        self.game = new_game(header)
        self.state = self.game.initial_state()
        self.results: list[Any] = []

    def apply(self, ev: dict[str, Any]) -> list[Any]:
        out = self.game.apply(self.state, ev)
        if not hasattr(out, "state"):
            raise SimError(f"rules engine rejected simulated event {ev}: {getattr(out, 'reason', out)}")
        self.state = out.state
        res = getattr(out, "results", None)
        if res is None:
            res = getattr(out, "result", None)
        new = list(res) if isinstance(res, (list, tuple)) else ([res] if res else [])
        self.results += new
        return new

    def finished(self) -> bool:
        if hasattr(self.game, "is_finished"):
            return bool(self.game.is_finished(self.state))
        view = self.game.view(self.state) if hasattr(self.game, "view") else {}
        return bool(view.get("finished")) if isinstance(view, dict) else False

    def awaited(self, players: list[str]) -> list[str]:
        from vision.evaluate.runner import awaited_reveal

        return awaited_reveal(self.game, self.state, players)


# --------------------------------------------------------------------------- director


REVEAL_SHOWN_S = 3.0  # seconds a reveal lies free of arms before a recording may end


class Director:
    """Runs one game for `duration` seconds and records truth and motions."""

    def __init__(
        self, header: dict[str, Any], layout: Layout, duration: float, seed: int, stale_after_s: float = 5.0, cascade: int = 1
    ) -> None:
        self.header = header
        self.rng = random.Random(f"{header['game']}-{seed}")  # each game its own script per seed
        size_h = layout.size[1]
        self.geo = Geometry(layout, card_h=round(0.111 * size_h, 1), rng=self.rng, cascade=cascade)
        self.duration = duration
        self.stale_after_s = stale_after_s
        self.brain: MarketBrain | KhmerBrain = make_brain(header, self.rng, stale_after_s)
        self.engine = Engine(header)  # knows the dealt hands: checks every reveal against them
        self.seen = Engine(header)  # knows what the camera can: decides which seats reveal
        self.tl = Timeline(header=header, duration=duration, card_height=self.geo.card_h, layout=layout)
        self.table: dict[str, Placed] = {}  # slot id -> card
        self.z = 0
        self.market_quiet_since = 0.0
        self.arm_w = 0.09 * size_h
        self._keyframe(0.0)

    # ---- table bookkeeping ------------------------------------------------------------
    def _keyframe(self, t: float) -> None:
        snap = tuple(sorted(self.table.values(), key=lambda p: p.z))
        if self.tl.keyframes and abs(self.tl.keyframes[-1][0] - t) < 1e-9:
            self.tl.keyframes[-1] = (t, snap)
        else:
            self.tl.keyframes.append((t, snap))

    def _put(self, slot: str, card: str, center: Point, angle: float, face_up: bool = True) -> None:
        self.z += 1
        self.table[slot] = Placed(card, (round(center[0], 1), round(center[1], 1)), round(angle + self.rng.uniform(-5, 5), 1), face_up, self.z)

    def _remove(self, prefix: str) -> None:
        for k in [k for k in self.table if k.startswith(prefix)]:
            del self.table[k]

    def _stack(self, name: str, pos: Point, n: int, angle: float = 90.0) -> None:
        """A face-down pile (reserve, discard): up to 4 visible backs, slightly offset."""
        self._remove(name + "#")
        for i in range(min(n, 4)):
            self._put(f"{name}#{i}", "back", (pos[0] + i * 1.5, pos[1] - i * 1.5), angle, face_up=False)

    def _arm(self, seat: str, end: Point, t0: float, hold_s: float) -> Motion:
        m = Motion(seat, self.geo.seat_start(seat), end, t0, hold_s, self.arm_w * self.rng.uniform(0.85, 1.15))
        self.tl.motions.append(m)
        return m

    def _clear_box(self, zones: list[tuple[Point, ...]], cards: list[Point]) -> tuple[float, float, float, float]:
        """The region a hand must leave before the change counts as visible: the zones it
        changed and the cards it placed, grown by half a hand."""
        boxes = [_bbox(z) for z in zones] + [self.geo.box_of(cards, self.geo.card_h * 0.6)]
        m = self.arm_w * 0.5
        return (min(b[0] for b in boxes) - m, min(b[1] for b in boxes) - m, max(b[2] for b in boxes) + m, max(b[3] for b in boxes) + m)

    # ---- main loop --------------------------------------------------------------------
    def run(self) -> Timeline:
        now = 0.5
        players = list(self.header["players"])
        while now < self.duration:
            if isinstance(self.brain, KhmerBrain) and self.brain.phase == "deal":
                aw = self.engine.game.awaiting(self.engine.state) or {}
                self.brain.first = str(aw.get("first") or self.brain.first or players[0])  # last winner starts
            d = self.brain.next(now)
            if d.kind == "reveal":
                seats = self.seen.awaited(players) or players
                d = Decision(d.kind, d.seat, d.wait_s, {"type": "reveal", "hands": {s: d.event["hands"][s] for s in seats if s in d.event["hands"]}})
            t_event, t_end = self._perform(d, now)
            if t_event > self.duration:
                break
            results = self.engine.apply(d.event)
            self.seen.apply(as_seen(d.event))
            self.brain.commit(d, t_event)
            self.tl.events.append({**d.event, "t": round(t_event, 3)})
            self.tl.results += results
            now = t_end
            # A reveal laid down in the last seconds would end the video before a camera could
            # read it (1 in 7-10 one-minute games, 2026-12-06): the recording runs on until the
            # hands have lain free of arms for REVEAL_SHOWN_S.
            shown_until = round(t_end + REVEAL_SHOWN_S, 3) if d.kind == "reveal" else 0.0
            self.tl.duration = max(self.tl.duration, shown_until)
            if self.engine.finished():  # game over: the recording ends a few seconds later
                self.tl.duration = max(min(self.duration, round(t_end + 3.0, 3)), shown_until)
                break
        return self.tl

    def _perform(self, d: Decision, now: float) -> tuple[float, float]:
        """Schedule the motion for one decision; returns (truth t, time the table is free)."""
        t0 = now + d.wait_s
        if d.kind in ("call", "close", "fold"):
            return t0, t0
        if d.kind == "new_hand":
            return t0, self._collect(t0)
        if d.kind == "stale":
            t = max(now, self.market_quiet_since + self.stale_after_s)
            return t, t
        return getattr(self, f"_do_{d.kind}")(d, t0)

    def _collect(self, t0: float) -> float:
        """Everyone picks their cards up; the dealer gathers the rest into one deck."""
        changes: list[tuple[float, list[str]]] = []
        t_end = t0
        for i, seat in enumerate(self.header["players"]):
            own = [k for k in self.table if _slot_owner(k) == seat]
            if not own:
                continue
            m = self._arm(seat, self.table[own[0]].center, t0 + 0.3 * i, 0.4)
            changes.append((m.t_hold + 0.2, own))
            t_end = max(t_end, m.t1)
        for t, own in sorted(changes):
            for k in own:
                del self.table[k]
            self._keyframe(t)
        m = self._arm(self._dealer(), self.geo.center, t_end + 0.2, 0.8)
        self.table.clear()
        self._stack("reserve", self.geo.reserve_pos() if isinstance(self.brain, MarketBrain) else self.geo.center, 52)
        self._keyframe(m.t_hold + 0.4)
        return m.t1

    def _dealer(self) -> str:
        if isinstance(self.brain, MarketBrain):
            return self.brain.dealer
        return self.brain.first or self.brain.players[0]

    # ---- Kemps / Kem's ----------------------------------------------------------------
    def _do_deal(self, d: Decision, t0: float) -> tuple[float, float]:
        if isinstance(self.brain, KhmerBrain):
            return self._khmer_deal(d, t0)
        dealer = d.seat or self._dealer()
        if not any(k.startswith("reserve#") for k in self.table):
            self._stack("reserve", self.geo.reserve_pos(), 52)
            self._keyframe(max(0.0, t0 - 0.5))
        m1 = self._arm(dealer, self.geo.reserve_pos(), t0, self.rng.uniform(1.2, 2.0))  # dealing the hands
        m2 = self._arm(dealer, self.geo.center, m1.t1 + 0.1, 0.9)
        angle = self.geo.seat_angle(dealer)
        for i, (card, pos) in enumerate(zip(d.event["market"], self.geo.market_slots())):
            self._put(f"market:{i}", card, self.geo._jitter(pos), angle)
        self._keyframe(m2.t_hold + 0.45)
        t = m2.clear_time(self._clear_box([self.geo.layout.market], self.geo.market_slots()))
        self.market_quiet_since = t
        return t, m2.t1

    def _market_slot(self, card: str) -> str:
        return next(k for k, p in self.table.items() if k.startswith("market:") and p.card == card)

    def _do_swap(self, d: Decision, t0: float) -> tuple[float, float]:
        slot = self._market_slot(d.event["take"])
        old = self.table[slot]
        m = self._arm(d.seat or "", old.center, t0, self.rng.uniform(0.3, 0.6))
        self._put(slot, d.event["give"], self.geo._jitter(old.center, 4), self.geo.seat_angle(d.seat or ""))
        self._keyframe(m.t_hold + m.hold_s / 2)
        t = m.clear_time(self._clear_box([self.geo.layout.market], [old.center]))
        self.market_quiet_since = t
        return t, m.t1

    def _do_reset(self, d: Decision, t0: float) -> tuple[float, float]:
        dealer = d.seat or self._dealer()
        assert isinstance(self.brain, MarketBrain)
        m = self._arm(dealer, self.geo.center, t0, self.rng.uniform(1.2, 1.8))
        self._remove("market:")
        self._stack("discard", self.geo.discard_pos(), len(self.brain.discard) + 4)
        self._keyframe(m.t_hold + 0.3)
        # The brain already drew the new market (shuffling the discard in when the
        # reserve ran out), so its counts are those after this reset.
        self._stack("reserve", self.geo.reserve_pos(), len(self.brain.reserve))
        angle = self.geo.seat_angle(dealer)
        for i, (card, pos) in enumerate(zip(d.event["market"], self.geo.market_slots())):
            self._put(f"market:{i}", card, self.geo._jitter(pos), angle)
        self._keyframe(m.t_hold + m.hold_s - 0.2)
        t = m.clear_time(self._clear_box([self.geo.layout.market], self.geo.market_slots()))
        self.market_quiet_since = t
        return t, m.t1

    def _do_reveal(self, d: Decision, t0: float) -> tuple[float, float]:
        t_event = t_end = t0
        changes: list[tuple[float, str, list[tuple[str, Point]], float]] = []
        for i, (seat, cards) in enumerate(d.event["hands"].items()):
            if not cards:
                continue  # an empty hand: nothing to lay down
            zone = self.geo.layout.seats[seat].reveal
            angle = self.geo.seat_angle(seat)
            pos = self.geo.fan(zone, angle, len(cards))
            m = self._arm(seat, _centroid(zone), t0 + i * self.rng.uniform(0.2, 0.7), self.rng.uniform(0.5, 0.9))
            changes.append((m.t_hold + m.hold_s / 2, seat, list(zip(cards, pos)), angle))
            t_event = max(t_event, m.clear_time(self._clear_box([zone], pos)))
            t_end = max(t_end, m.t1)
        for t, seat, cards, angle in sorted(changes, key=lambda c: c[0]):
            for j, (card, p) in enumerate(cards):
                self._put(f"reveal:{seat}:{j}", str(card), self.geo._jitter(p, 2), angle)
            self._keyframe(t)
        return t_event, t_end

    # ---- Khmer ------------------------------------------------------------------------
    def _khmer_deal(self, d: Decision, t0: float) -> tuple[float, float]:
        dealer = d.seat or self._dealer()
        if not any(k.startswith("reserve#") for k in self.table):
            self._stack("reserve", self.geo.center, 16)
            self._keyframe(max(0.0, t0 - 0.5))
        m = self._arm(dealer, self.geo.center, t0, self.rng.uniform(1.2, 2.0))
        self._remove("reserve#")
        self._stack("hidden", self.geo.center, 4)
        self._keyframe(m.t_hold + m.hold_s - 0.2)
        t = m.clear_time(self._clear_box([self.geo.layout.market], [self.geo.center]))
        return t, m.t1

    def _row_put(self, seat: str, card: str) -> Point:
        assert isinstance(self.brain, KhmerBrain)
        zone = self.geo.layout.khmer[seat].row
        i = len(self.brain.rows[seat])  # before commit: the new card's index
        angle = self.geo.seat_angle(seat)
        pos = self.geo._jitter(self.geo.row_slot(zone, angle, i), 2)
        self._put(f"row:{seat}:{i}", card, pos, angle)
        return pos

    def _do_play(self, d: Decision, t0: float) -> tuple[float, float]:
        seat = d.event["player"]
        assert isinstance(self.brain, KhmerBrain)
        zone = self.geo.layout.khmer[seat].row
        target = self.geo.row_slot(zone, self.geo.seat_angle(seat), len(self.brain.rows[seat]))
        m = self._arm(seat, target, t0, self.rng.uniform(0.3, 0.6))
        pos = self._row_put(seat, d.event["card"])
        self._keyframe(m.t_hold + m.hold_s / 2)
        return m.clear_time(self._clear_box([self.geo.layout.khmer[seat].row], [pos])), m.t1

    def _do_steal(self, d: Decision, t0: float) -> tuple[float, float]:
        assert isinstance(self.brain, KhmerBrain)
        me = d.event["player"]
        opp = self.brain.other(me)
        i = len(self.brain.rows[opp]) - 1
        slot = f"row:{opp}:{i}"
        src = self.table[slot]
        m = self._arm(me, src.center, t0, self.rng.uniform(0.4, 0.7))
        del self.table[slot]
        pile = _centroid(self.geo.layout.khmer[me].pile)
        n = len(self.brain.piles[me])
        dst = (pile[0] + n * 2.0, pile[1] - n * 2.0)
        self._put(f"pile:{me}#{n}", src.card, dst, self.geo.seat_angle(me))
        self._keyframe(m.t_hold + m.hold_s / 2)
        return m.clear_time(self._clear_box([self.geo.layout.khmer[opp].row, self.geo.layout.khmer[me].pile], [src.center, dst])), m.t1

    def _do_discard(self, d: Decision, t0: float) -> tuple[float, float]:
        assert isinstance(self.brain, KhmerBrain)
        me = d.event["player"]
        zone = _centroid(self.geo.layout.khmer[me].discard)
        n = len(self.brain.discards[me])
        dst = (zone[0] + n * 2.0, zone[1] - n * 2.0)
        m = self._arm(me, dst, t0, self.rng.uniform(0.3, 0.5))
        self._put(f"discard:{me}#{n}", d.event["card"], dst, self.geo.seat_angle(me))
        self._keyframe(m.t_hold + m.hold_s / 2)
        return m.clear_time(self._clear_box([self.geo.layout.khmer[me].discard], [dst])), m.t1


def _slot_owner(slot: str) -> str | None:
    """The seat a table slot belongs to ("reveal:S:0", "row:N:2", "pile:S#1"), if any."""
    kind, _, rest = slot.partition(":")
    if not rest:
        return None
    return rest.split(":")[0].split("#")[0]


def direct(
    header: dict[str, Any], layout: Layout, minutes: float, seed: int, stale_after_s: float = 5.0, cascade: int = 1
) -> Timeline:
    """Play one simulated game of `minutes` and return its timeline."""
    return Director(header, layout, minutes * 60.0, seed, stale_after_s, cascade).run()


def cascade_for(deck: Any) -> int:
    """Which way players overlap cards so the deck's top corner index stays visible:
    -1 for decks printing the index top-right (the oxygen decks), else +1."""
    tops = [(b[0] + b[2]) / 2 for boxes in getattr(deck, "index_boxes", {}).values() for b in boxes if (b[1] + b[3]) / 2 < 0.5]
    return -1 if tops and sum(tops) / len(tops) > 0.5 else 1
