"""Table layout: named zones (market, seats, reveal areas, Khmer rows/piles/discards).

A layout is stored as YAML in `configs/layouts/`. Coordinates are pixels in the layout's
own reference `size` ([width, height]) and are scaled to the frame size when masks are
built, so one layout serves any resolution of the same camera framing.

    name: kemps-4
    size: [1280, 720]
    market: [[520, 250], [760, 250], [760, 470], [520, 470]]
    seats:
      N: {at: [640, 0], reveal: [[460, 40], [820, 40], [820, 200], [460, 200]]}
      ...
    khmer:                     # optional, one entry per Khmer player
      N: {row: [...], pile: [...], discard: [...]}

Zone names used everywhere downstream: "market", "reveal:N", "row:N", "pile:N", "discard:N".
Zone tests are vectorised through a label image built once per frame size (`ZoneMasks`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from vision.types import CardDetections

Point = tuple[float, float]
Polygon = tuple[Point, ...]

LAYOUT_DIR = Path(__file__).resolve().parents[2] / "configs" / "layouts"
_TOP_KEYS = ("name", "description", "size", "market", "seats", "khmer")
_SEAT_KEYS = ("at", "reveal")
_KHMER_KEYS = ("row", "pile", "discard")


class LayoutError(ValueError):
    """A layout file or calibration value is invalid (one clear line)."""


@dataclass(frozen=True)
class Seat:
    """A player's place: `at` is where their arm enters the image, `reveal` their reveal area."""

    name: str
    at: Point
    reveal: Polygon


@dataclass(frozen=True)
class KhmerZones:
    row: Polygon
    pile: Polygon
    discard: Polygon


@dataclass(frozen=True)
class Layout:
    name: str
    size: tuple[int, int]
    market: Polygon
    seats: dict[str, Seat]
    khmer: dict[str, KhmerZones] = field(default_factory=dict)
    description: str = ""

    # ---- zones -------------------------------------------------------------------------
    def zones(self) -> dict[str, Polygon]:
        """Every named zone polygon, in a fixed order (market first)."""
        out: dict[str, Polygon] = {"market": self.market}
        for name, seat in self.seats.items():
            out[f"reveal:{name}"] = seat.reveal
        for name, kz in self.khmer.items():
            out[f"row:{name}"] = kz.row
            out[f"pile:{name}"] = kz.pile
            out[f"discard:{name}"] = kz.discard
        return out

    def outside_share(self) -> dict[str, float]:
        """Per zone, the share of its area outside the frame (0: wholly in view). A zone the
        camera does not see whole loses the cards laid in its hidden part."""
        w, h = self.size
        return {name: 1.0 - _area(_clip(poly, w, h)) / a if (a := _area(poly)) > 0 else 0.0 for name, poly in self.zones().items()}

    def out_of_view(self, max_outside: float = 0.02, max_outside_reveal: float = 0.25) -> dict[str, float]:
        """Zones the frame does not hold, with the share of each outside it: more than
        `max_outside`, or `max_outside_reveal` for reveal areas (they run to the table's
        edge, and hands are laid in their inner part)."""
        return {
            z: round(v, 3) for z, v in self.outside_share().items()
            if v > (max_outside_reveal if z.startswith("reveal:") else max_outside)
        }

    def reveal_overlaps(self, min_share: float = 0.01) -> dict[tuple[str, str], float]:
        """Pairs of reveal areas that overlap, with the overlap's share of the smaller area
        (rasterised at a quarter of the frame size). A card laid in an overlap counts for the
        seat being read, or the later seat when both are (`ZoneMasks.zone_of`)."""
        import cv2

        w, h = (max(1, v // 4) for v in self.size)
        masks = {}
        for name, seat in self.seats.items():
            m = np.zeros((h, w), np.uint8)
            cv2.fillPoly(m, [np.round(np.asarray(seat.reveal, np.float32) / 4).astype(np.int32)], 1)
            masks[f"reveal:{name}"] = m.astype(bool)
        out = {}
        for (a, ma), (b, mb) in itertools.combinations(masks.items(), 2):
            share = float((ma & mb).sum()) / max(1, min(int(ma.sum()), int(mb.sum())))
            if share >= min_share:
                out[(a, b)] = round(share, 3)
        return out

    def scaled(self, size: tuple[int, int]) -> Layout:
        """The same layout in another frame size."""
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        if sx == 1 and sy == 1:
            return self

        def sp(p: Polygon) -> Polygon:
            return tuple((x * sx, y * sy) for x, y in p)

        return replace(
            self,
            size=(int(size[0]), int(size[1])),
            market=sp(self.market),
            seats={n: Seat(n, (s.at[0] * sx, s.at[1] * sy), sp(s.reveal)) for n, s in self.seats.items()},
            khmer={n: KhmerZones(sp(k.row), sp(k.pile), sp(k.discard)) for n, k in self.khmer.items()},
        )

    # ---- calibration API ---------------------------------------------------------------
    def set_zone(self, zone: str, polygon: Any) -> Layout:
        """A copy with one zone replaced: "market", "reveal:N", "row:N", "pile:N", "discard:N"."""
        poly = _polygon(polygon, zone, "<calibration>")
        if zone == "market":
            return replace(self, market=poly)
        kind, _, player = zone.partition(":")
        if kind == "reveal":
            if player not in self.seats:
                raise LayoutError(f"unknown seat '{player}' (seats: {', '.join(self.seats)})")
            seats = dict(self.seats)
            seats[player] = replace(seats[player], reveal=poly)
            return replace(self, seats=seats)
        if kind in _KHMER_KEYS and player:
            khmer = dict(self.khmer)
            cur = khmer.get(player, KhmerZones(poly, poly, poly))
            khmer[player] = replace(cur, **{kind: poly})
            return replace(self, khmer=khmer)
        raise LayoutError(f"unknown zone '{zone}' (market, reveal:SEAT, row:P, pile:P, discard:P)")

    def set_seat(self, name: str, at: Point, reveal: Any | None = None) -> Layout:
        """A copy with a seat added or moved (reveal area kept unless given)."""
        seats = dict(self.seats)
        old = seats.get(name)
        if reveal is None and old is None:
            raise LayoutError(f"new seat '{name}' needs a reveal area")
        poly = old.reveal if reveal is None else _polygon(reveal, f"seats.{name}.reveal", "<calibration>")
        seats[name] = Seat(name, (float(at[0]), float(at[1])), poly)
        return replace(self, seats=seats)

    def to_dict(self) -> dict[str, Any]:
        def pl(p: Polygon) -> list[list[float]]:
            return [[round(x, 1), round(y, 1)] for x, y in p]

        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        out["size"] = list(self.size)
        out["market"] = pl(self.market)
        out["seats"] = {
            n: {"at": [round(s.at[0], 1), round(s.at[1], 1)], "reveal": pl(s.reveal)} for n, s in self.seats.items()
        }
        if self.khmer:
            out["khmer"] = {n: {"row": pl(k.row), "pile": pl(k.pile), "discard": pl(k.discard)} for n, k in self.khmer.items()}
        return out

    def save(self, path: str | Path) -> Path:
        """Write the layout as YAML (the calibration result)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None))
        return path


# ---- loading ---------------------------------------------------------------------------
def resolve_layout_path(path_or_name: str | Path) -> Path:
    """A file path, or a name from configs/layouts/ ("kemps-4")."""
    p = Path(path_or_name)
    if p.suffix in (".yaml", ".yml") or p.exists():
        if not p.exists():
            raise LayoutError(f"layout file not found: {p}")
        return p
    cand = LAYOUT_DIR / f"{path_or_name}.yaml"
    if not cand.exists():
        names = ", ".join(sorted(q.stem for q in LAYOUT_DIR.glob("*.yaml")))
        raise LayoutError(f"unknown layout '{path_or_name}' (available: {names})")
    return cand


def load_layout(path_or_name: str | Path) -> Layout:
    path = resolve_layout_path(path_or_name)
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise LayoutError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    return layout_from_dict(data, str(path))


def layout_from_dict(data: Any, source: str = "<dict>") -> Layout:
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: a layout must be a mapping")
    _check_keys(data, _TOP_KEYS, "", source)
    for key in ("size", "market", "seats"):
        if key not in data:
            raise LayoutError(f"{source}: missing key '{key}'")
    size = data["size"]
    if not (isinstance(size, list | tuple) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise LayoutError(f"{source}: 'size' must be [width, height] in pixels")
    seats_raw = data["seats"]
    if not isinstance(seats_raw, dict) or not 2 <= len(seats_raw) <= 12:
        raise LayoutError(f"{source}: 'seats' must map 2 to 12 seat names to {{at, reveal}}")
    seats: dict[str, Seat] = {}
    for name, s in seats_raw.items():
        if not isinstance(s, dict):
            raise LayoutError(f"{source}: seats.{name} must be a mapping with 'at' and 'reveal'")
        _check_keys(s, _SEAT_KEYS, f"seats.{name}.", source)
        for key in _SEAT_KEYS:
            if key not in s:
                raise LayoutError(f"{source}: missing key 'seats.{name}.{key}'")
        at = _point(s["at"], f"seats.{name}.at", source)
        seats[str(name)] = Seat(str(name), at, _polygon(s["reveal"], f"seats.{name}.reveal", source))
    khmer: dict[str, KhmerZones] = {}
    if not isinstance(data.get("khmer") or {}, dict):
        raise LayoutError(f"{source}: 'khmer' must map each player to {{row, pile, discard}}")
    for name, k in (data.get("khmer") or {}).items():
        if not isinstance(k, dict):
            raise LayoutError(f"{source}: khmer.{name} must be a mapping with row, pile, discard")
        _check_keys(k, _KHMER_KEYS, f"khmer.{name}.", source)
        for key in _KHMER_KEYS:
            if key not in k:
                raise LayoutError(f"{source}: missing key 'khmer.{name}.{key}'")
        khmer[str(name)] = KhmerZones(*(_polygon(k[key], f"khmer.{name}.{key}", source) for key in _KHMER_KEYS))
    return Layout(
        name=str(data.get("name", Path(source).stem)),
        size=(int(size[0]), int(size[1])),
        market=_polygon(data["market"], "market", source),
        seats=seats,
        khmer=khmer,
        description=str(data.get("description", "")),
    )


def _check_keys(d: dict[str, Any], allowed: tuple[str, ...], prefix: str, source: str) -> None:
    for key in d:
        if key not in allowed:
            raise LayoutError(f"{source}: unknown key '{prefix}{key}' (allowed: {', '.join(allowed)})")


MAX_COORD = 100_000.0  # px: far beyond any camera; larger is a typo or garbage


def _point(v: Any, where: str, source: str) -> Point:
    if not (isinstance(v, list | tuple) and len(v) == 2 and all(isinstance(c, int | float) for c in v)):
        raise LayoutError(f"{source}: '{where}' must be a point [x, y]")
    if not all(math.isfinite(c) and abs(c) <= MAX_COORD for c in v):  # NaN stopped the camera feed
        raise LayoutError(f"{source}: '{where}' has a point {list(v)} that is not a pixel position")
    return float(v[0]), float(v[1])


def _polygon(v: Any, where: str, source: str) -> Polygon:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if not isinstance(v, list | tuple) or len(v) < 3:
        raise LayoutError(f"{source}: '{where}' must be a polygon of at least 3 points [[x, y], ...]")
    return tuple(_point(p, where, source) for p in v)


# ---- generated layouts -----------------------------------------------------------------
def stock_layout_name(players: int, khmer: bool = False) -> str | None:
    """The bundled layout for a table of this many seats (configs/layouts: kemps-N, khmer-2),
    or None when there is none (callers then build a `ring_layout`)."""
    name = f"khmer-{players}" if khmer else f"kemps-{players}"
    return name if (LAYOUT_DIR / f"{name}.yaml").is_file() else None


def ring_layout(players: list[str], size: tuple[int, int] = (1280, 720), khmer: bool = False) -> Layout:
    """A default layout: market in the centre, seats evenly around the table edge.

    Seat 0 sits at the bottom of the image, then clockwise as seen from above. Reveal
    areas are boxes between each seat and the market. For Khmer (2 players, bottom/top),
    each player gets a row, a pile and a discard between them and the market.
    """
    w, h = size
    cx, cy = w / 2, h / 2
    mw, mh = 0.2 * w, 0.26 * h
    market = _box(cx, cy, mw, mh)
    n = len(players)
    ats, boxes = [], []
    for i in range(n):
        ang = math.pi / 2 + 2 * math.pi * i / n  # image y grows downwards: pi/2 is the bottom
        ex, ey = math.cos(ang), math.sin(ang)
        k = min(abs(w / 2 / ex) if ex else 1e9, abs(h / 2 / ey) if ey else 1e9)
        ats.append((round(cx + ex * k, 1), round(cy + ey * k, 1)))
        rw, rh = (0.2 * w, 0.16 * h) if abs(ey) * h >= abs(ex) * w * 0.6 else (0.13 * w, 0.3 * h)
        boxes.append([cx + ex * k * 0.68, cy + ey * k * 0.68, rw, rh])
    _keep_apart(boxes)
    seats = {name: Seat(name, at, _box(*box)) for name, at, box in zip(players, ats, boxes)}
    kz: dict[str, KhmerZones] = {}
    if khmer:
        for name, side in zip(players, (1, -1)):
            y_row = cy + side * 0.14 * h
            kz[name] = KhmerZones(
                row=_box(cx - 0.08 * w, y_row, 0.44 * w, 0.17 * h),
                pile=_box(cx + 0.24 * w, y_row, 0.1 * w, 0.17 * h),
                discard=_box(cx + 0.38 * w, y_row, 0.1 * w, 0.17 * h),
            )
    return Layout(name=f"ring-{n}", size=(w, h), market=market, seats=seats, khmer=kz)


def _keep_apart(boxes: list[list[float]], free: float = 0.08) -> None:
    """Narrow (or shorten) reveal boxes [cx, cy, w, h] in place so that no two overlap, with
    `free` of the gap between their centres left empty. Why: from 10 seats, neighbours' areas
    overlapped by a third (kemps-10, kemps-12 of 2026-11), and a laid card whose centre fell
    in the overlap counted for the neighbour, so the hand never reached its size (no reveal).
    A pair side by side gives up width, a pair one above the other height."""
    for i, j in itertools.combinations(range(len(boxes)), 2):
        a, b = boxes[i], boxes[j]
        dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
        if dx >= (a[2] + b[2]) / 2 or dy >= (a[3] + b[3]) / 2:
            continue
        axis, gap = (2, dx) if dx / (a[2] + b[2]) >= dy / (a[3] + b[3]) else (3, dy)
        a[axis], b[axis] = min(a[axis], (1 - free) * gap), min(b[axis], (1 - free) * gap)


def _area(poly: Polygon) -> float:
    """Shoelace area."""
    n = len(poly)
    return abs(sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n))) / 2


def _clip(poly: Polygon, w: float, h: float) -> Polygon:
    """The polygon clipped to the frame [0, w] × [0, h] (Sutherland–Hodgman; zones are convex
    or nearly so)."""
    pts = list(poly)
    for axis, bound, keep_below in ((0, 0.0, False), (0, w, True), (1, 0.0, False), (1, h, True)):
        if not pts:
            break

        def inside(p: Point) -> bool:
            return p[axis] <= bound if keep_below else p[axis] >= bound  # noqa: B023

        out: list[Point] = []
        for i, cur in enumerate(pts):
            prev = pts[i - 1]
            if inside(cur) != inside(prev):
                k = (bound - prev[axis]) / (cur[axis] - prev[axis])
                out.append((prev[0] + k * (cur[0] - prev[0]), prev[1] + k * (cur[1] - prev[1])))
            if inside(cur):
                out.append(cur)
        pts = out
    return tuple(pts)


def _box(cx: float, cy: float, w: float, h: float) -> Polygon:
    x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
    return tuple((round(x, 1), round(y, 1)) for x, y in ((x1, y1), (x2, y1), (x2, y2), (x1, y2)))


# ---- masks -----------------------------------------------------------------------------
class ZoneMasks:
    """Label images for one frame size, built once: zone of a point, zone pixel counts.

    `labels[y, x]` is the zone index + 1 (0 = outside every zone) at full resolution;
    `small` is the same at 1/`scale` resolution for motion statistics. When zones overlap,
    the later zone in `Layout.zones()` wins.
    """

    def __init__(self, layout: Layout, size: tuple[int, int], scale: int = 8) -> None:
        import cv2

        self.layout = layout.scaled(size)
        self.size = size
        self.scale = scale
        self.names: list[str] = list(self.layout.zones())
        polys = list(self.layout.zones().values())
        w, h = size
        self.labels = np.zeros((h, w), np.uint8)
        sw, sh = max(1, w // scale), max(1, h // scale)
        self.small = np.zeros((sh, sw), np.uint8)
        self._polys: dict[str, np.ndarray] = {}  # zone -> its polygon in px (int), for `zone_of(prefer=…)`
        for i, (name, poly) in enumerate(zip(self.names, polys)):
            pts = self._polys[name] = np.round(np.array(poly, np.float32)).astype(np.int32)
            cv2.fillPoly(self.labels, [pts], i + 1)
            cv2.fillPoly(self.small, [np.round(np.array(poly, np.float32) / scale).astype(np.int32)], i + 1)
        self.small_counts = np.maximum(np.bincount(self.small.ravel(), minlength=len(polys) + 1), 1)
        self.boxes: dict[str, tuple[int, int, int, int]] = {}
        for name, poly in zip(self.names, polys):
            a = np.array(poly)
            self.boxes[name] = (
                max(0, int(a[:, 0].min())), max(0, int(a[:, 1].min())),
                min(w, int(math.ceil(a[:, 0].max()))), min(h, int(math.ceil(a[:, 1].max()))),
            )  # fmt: skip

    def index(self, zone: str) -> int:
        return self.names.index(zone) + 1

    def zone_of(self, points: np.ndarray, prefer: Sequence[str] = ()) -> list[str | None]:
        """Zone name for each (x, y) point (vectorised lookup). Where zones overlap the later
        one wins, except that a zone in `prefer` (the reveal areas being read) wins where it
        overlaps another: a hand laid in the overlap with a neighbour's area is the hand read."""
        import cv2

        pts = np.asarray(points, np.float32).reshape(-1, 2)
        if len(pts) == 0:
            return []
        xs = np.clip(pts[:, 0].astype(np.int64), 0, self.size[0] - 1)
        ys = np.clip(pts[:, 1].astype(np.int64), 0, self.size[1] - 1)
        out = [self.names[i - 1] if i else None for i in self.labels[ys, xs]]
        if not prefer:  # the usual read (the market's, every moving frame): the label image alone
            return out
        for k, (x, y) in enumerate(zip(xs, ys)):
            if out[k] is None or out[k] in prefer:  # outside every zone, or already preferred
                continue
            for z in prefer:
                if cv2.pointPolygonTest(self._polys[z], (float(x), float(y)), False) >= 0:
                    out[k] = z
                    break
        return out

    def per_zone_fraction(self, small_mask: np.ndarray) -> np.ndarray:
        """Share of each zone's small-scale pixels set in `small_mask` (index 0 = outside)."""
        counts = np.bincount(self.small[small_mask], minlength=len(self.names) + 1)
        return counts / self.small_counts

    def roi(self, zone: str, margin: float = 0.06) -> tuple[int, int, int, int]:
        """The zone's bounding box grown by `margin` × frame height (about half a card, so
        the corner indices of a card lying across the zone's edge are in the crop), clipped."""
        x1, y1, x2, y2 = self.boxes[zone]
        w, h = self.size
        mx = my = h * margin
        return max(0, int(x1 - mx)), max(0, int(y1 - my)), min(w, int(x2 + mx)), min(h, int(y2 + my))


# ---- auto placement --------------------------------------------------------------------
def auto_place_market(detections: CardDetections, size: tuple[int, int], margin: float = 0.6) -> Polygon:
    """The market polygon around the central group of face-up cards.

    Cards are grouped by single linkage (two cards are neighbours when their centres are
    closer than 1.6 median card diagonals); the group whose centre is nearest the image
    centre, preferring groups of 3-6 cards, becomes the market, grown by `margin` card sizes.
    """
    if len(detections) == 0:
        raise LayoutError("auto-place: no cards found in the image")
    c = detections.centers
    wh = detections.xyxy[:, 2:] - detections.xyxy[:, :2]
    card = float(np.median(np.hypot(wh[:, 0], wh[:, 1])))
    d = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    groups = _components(d < 1.6 * card)
    centre = np.array([size[0] / 2, size[1] / 2])

    def cost(g: list[int]) -> float:
        dist = float(np.hypot(*(c[g].mean(axis=0) - centre))) / max(size)
        return dist + (0.0 if 3 <= len(g) <= 6 else 0.5)

    best = min(groups, key=cost)
    box = detections.xyxy[best]
    mx, my = float(np.median(wh[best, 0])) * margin, float(np.median(wh[best, 1])) * margin
    x1, y1 = max(0.0, float(box[:, 0].min()) - mx), max(0.0, float(box[:, 1].min()) - my)
    x2, y2 = min(float(size[0]), float(box[:, 2].max()) + mx), min(float(size[1]), float(box[:, 3].max()) + my)
    return tuple((round(x, 1), round(y, 1)) for x, y in ((x1, y1), (x2, y1), (x2, y2), (x1, y2)))


def _components(adj: np.ndarray) -> list[list[int]]:
    n = len(adj)
    seen = np.zeros(n, bool)
    out: list[list[int]] = []
    for i in range(n):
        if seen[i]:
            continue
        stack, comp = [i], []
        seen[i] = True
        while stack:
            j = stack.pop()
            comp.append(j)
            for k in np.flatnonzero(adj[j] & ~seen):
                seen[k] = True
                stack.append(int(k))
        out.append(sorted(comp))
    return out
