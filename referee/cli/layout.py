"""`referee layout`: show, validate, create and calibrate table layouts (zones YAML)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee.cli.main import CliError, add_precision_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "layout",
        help="show, validate, create or calibrate a table layout",
        description="Table layouts name the zones the camera watches: the market, each seat's "
        "reveal area and, for Khmer, each player's row, pile and discard. Layouts are YAML files "
        "(configs/layouts/*.yaml, or any path).",
    )
    ls = p.add_subparsers(dest="action", metavar="ACTION")

    s = ls.add_parser("show", help="print a layout's zones", description="Print a layout's seats and zones.")
    s.add_argument("layout", metavar="LAYOUT", help="layout file or name (e.g. kemps-4)")
    s.add_argument("--json", action="store_true", help="print the layout as one JSON object")
    s.set_defaults(func=_show)

    v = ls.add_parser("validate", help="check layout files", description="Check layout files; exit 2 on the first bad one.")
    v.add_argument("layouts", nargs="+", metavar="LAYOUT", help="layout files or names")
    v.set_defaults(func=_validate)

    n = ls.add_parser("new", help="write a default ring layout", description="Write a layout with the market in the centre and seats evenly around the table.")
    n.add_argument("--players", required=True, metavar="P,P,…", help="seat names, clockwise from the bottom of the image")
    n.add_argument("--khmer", action="store_true", help="add Khmer rows, piles and discards (2 players)")
    n.add_argument("--size", default="1280x720", metavar="WxH", help="reference frame size (default 1280x720)")
    n.add_argument("--out", required=True, metavar="FILE", help="YAML file to write")
    n.set_defaults(func=_new)

    a = ls.add_parser("auto", help="place the market from a still image", description="Read a still of the table and put the market zone around the central group of face-up cards.")
    a.add_argument("image", metavar="IMAGE", help="still image of the table with the market dealt")
    a.add_argument("--layout", default="kemps-4", metavar="FILE", help="layout to start from (default kemps-4)")
    a.add_argument("--model", metavar="DIR", help="card-reader model folder (default: the repo's models/)")
    add_precision_arg(a)
    a.add_argument("--out", required=True, metavar="FILE", help="YAML file to write")
    a.set_defaults(func=_auto)

    c = ls.add_parser("set", help="set one zone's polygon (calibration)", description="Replace one zone's polygon and write the layout.")
    c.add_argument("layout", metavar="LAYOUT", help="layout file or name to start from")
    c.add_argument("--zone", required=True, metavar="ZONE", help="market, reveal:SEAT, row:P, pile:P or discard:P")
    c.add_argument("--polygon", required=True, metavar="X,Y X,Y …", help="at least 3 points in the layout's pixel size")
    c.add_argument("--out", required=True, metavar="FILE", help="YAML file to write")
    c.set_defaults(func=_set)

    d = ls.add_parser("draw", help="draw the zones on a still image", description="Draw a layout's zones and seats on an image, to check a calibration.")
    d.add_argument("layout", metavar="LAYOUT", help="layout file or name")
    d.add_argument("image", metavar="IMAGE", help="still image of the table")
    d.add_argument("--out", required=True, metavar="PNG", help="image to write")
    d.set_defaults(func=_draw)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _load(ref: str) -> Any:
    from vision.tracker.layout import LayoutError, load_layout

    try:
        return load_layout(ref)
    except LayoutError as exc:
        raise CliError(str(exc)) from None


def _show(args: argparse.Namespace) -> int:
    lay = _load(args.layout)
    if args.json:
        print(json.dumps(lay.to_dict()))
        return 0
    print(f"{lay.name}: {lay.size[0]}x{lay.size[1]}, {len(lay.seats)} seats ({', '.join(lay.seats)})")
    if lay.description:
        print(f"  {lay.description}")
    for name, poly in lay.zones().items():
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        print(f"  {name:<12} {len(poly)} points, box {min(xs):.0f},{min(ys):.0f} - {max(xs):.0f},{max(ys):.0f}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    for ref in args.layouts:
        lay = _load(ref)
        print(f"{ref}: ok ({len(lay.seats)} seats, {len(lay.zones())} zones)")
        for (a, b), share in lay.reveal_overlaps().items():
            print(f"{ref}: warning: {a} and {b} overlap ({share:.0%} of the smaller); a card laid there "
                  "counts for the seat being read, or for the later one when both are")
    return 0


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CliError(f"--size must look like 1280x720, got {text!r}") from None
    return w, h


def _new(args: argparse.Namespace) -> int:
    from vision.tracker.layout import ring_layout

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 12 or len(set(players)) != len(players):
        raise CliError("--players needs 2 to 12 distinct seat names")
    if args.khmer and len(players) != 2:
        raise CliError("--khmer needs exactly 2 players")
    lay = ring_layout(players, _size(args.size), khmer=args.khmer)
    print(f"wrote {lay.save(args.out)}")
    return 0


def _read_image(path: str) -> Any:
    from referee.cli.read import load_image

    image, msg = load_image(path)
    if image is None:
        raise CliError(f"{path}: {msg}")
    return image


def _auto(args: argparse.Namespace) -> int:
    from referee.cli.watch import _load_reader
    from vision.tracker.layout import LayoutError, auto_place_market

    lay = _load(args.layout)
    image = _read_image(args.image)
    size = (int(image.shape[1]), int(image.shape[0]))
    det = _load_reader(args.model, args.precision).read(image)
    try:
        poly = auto_place_market(det, size)
    except LayoutError as exc:
        raise CliError(f"{args.image}: {exc}") from None
    lay = lay.scaled(size).set_zone("market", poly)
    print(f"market: {poly}")
    print(f"wrote {lay.save(args.out)}")
    return 0


def _set(args: argparse.Namespace) -> int:
    from vision.tracker.layout import LayoutError

    lay = _load(args.layout)
    try:
        pts = [[float(v) for v in p.split(",")] for p in args.polygon.split()]
        lay = lay.set_zone(args.zone, pts)
    except ValueError as exc:  # LayoutError is a ValueError
        msg = str(exc) if isinstance(exc, LayoutError) else f"--polygon must be 'x,y x,y x,y …' ({exc})"
        raise CliError(msg) from None
    print(f"wrote {lay.save(args.out)}")
    return 0


def _draw(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    image = _read_image(args.image)
    lay = _load(args.layout).scaled((int(image.shape[1]), int(image.shape[0])))
    for name, poly in lay.zones().items():
        pts = np.round(np.array(poly)).astype(np.int32)
        colour = (0, 220, 255) if name == "market" else (255, 160, 0)
        cv2.polylines(image, [pts], True, colour, 2)
        cv2.putText(image, name, tuple(int(v) for v in pts[0] + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
    for name, seat in lay.seats.items():
        at = (int(min(max(seat.at[0], 12), image.shape[1] - 12)), int(min(max(seat.at[1], 12), image.shape[0] - 12)))
        cv2.circle(image, at, 10, (0, 0, 255), -1)
        cv2.putText(image, name, (at[0] + 12, at[1]), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), image):
        raise CliError(f"cannot write {out}")
    print(f"wrote {out}")
    return 0
