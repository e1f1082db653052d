#!/usr/bin/python3
"""Rasterise deck SVGs with librsvg (PyGObject). Runs under Debian's /usr/bin/python3.

Standalone on purpose (stdlib + gi + cairo only, no numpy, no project imports): the
project virtualenv has no GObject bindings (pygobject >= 3.51 needs a girepository this
Debian lacks), while `python3-gi gir1.2-rsvg-2.0 python3-gi-cairo` install from apt.
`vision/synth/render_cache.py` calls it and does the trimming/resizing/geometry.

Modes (each writes <out>/<name>.png, one per card):
  grid  SRC OUT --height H           a GNOME/aisleriot 13x5 grid: render the document once,
                                     clip each cell (deck-art.md trap 1: not --export-id)
  ids   SRC OUT --height H --map J   elements by id (KDE, svg-cards): each id is drawn
                                     through a <use> appended to the document, so ids
                                     inside <defs> work; the caller trims by alpha
  files OUT --height H --map J       one SVG file per card (cardsJS, Kennard's cards)
J is a JSON object {output name: id or file path}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

import gi

gi.require_version("Rsvg", "2.0")
import cairo  # noqa: E402
from gi.repository import Rsvg  # noqa: E402

GRID_SUITS = ("C", "D", "H", "S")
GRID_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def read_svg(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def doc_size(handle: Rsvg.Handle) -> tuple[float, float]:
    ok, w, h = handle.get_intrinsic_size_in_pixels()
    if ok and w > 0 and h > 0:
        return w, h
    dim = handle.get_dimensions()
    return float(dim.width), float(dim.height)


def grid(src: Path, out: Path, height: int) -> None:
    handle = Rsvg.Handle.new_from_data(read_svg(src))
    w, h = doc_size(handle)
    scale = height * 5 / h
    W, H = int(round(w * scale)), int(round(h * scale))
    big = cairo.ImageSurface(cairo.FORMAT_ARGB32, W, H)
    cr = cairo.Context(big)
    vp = Rsvg.Rectangle()
    vp.x, vp.y, vp.width, vp.height = 0, 0, W, H
    handle.render_document(cr, vp)
    cw, ch = W / 13, H / 5
    names = [(r + s, col, row) for row, s in enumerate(GRID_SUITS) for col, r in enumerate(GRID_RANKS)]
    names.append(("back", 2, 4))  # row 5: black joker, red joker, back
    for name, col, row in names:
        x0, y0 = int(round(col * cw)), int(round(row * ch))
        x1, y1 = int(round((col + 1) * cw)), int(round((row + 1) * ch))
        cell = cairo.ImageSurface(cairo.FORMAT_ARGB32, x1 - x0, y1 - y0)
        c = cairo.Context(cell)
        c.set_source_surface(big, -x0, -y0)
        c.paint()
        cell.write_to_png(str(out / f"{name}.png"))


def ids(src: Path, out: Path, height: int, mapping: dict[str, str]) -> None:
    text = read_svg(src).decode("utf-8", errors="replace")
    uses = "".join(
        f'<use id="kemps_use_{i}" href="#{el}" xlink:href="#{el}"/>' for i, el in enumerate(mapping.values())
    )
    if "xmlns:xlink" not in text[:4000]:
        text = re.sub(r"<svg\b", '<svg xmlns:xlink="http://www.w3.org/1999/xlink"', text, count=1)
    end = text.rfind("</svg>")
    text = text[:end] + uses + text[end:]
    handle = Rsvg.Handle.new_from_data(text.encode("utf-8"))
    w, h = doc_size(handle)
    vp = Rsvg.Rectangle()
    vp.x, vp.y, vp.width, vp.height = 0, 0, w, h
    for i, name in enumerate(mapping):
        try:
            _render_id(handle, vp, f"#kemps_use_{i}", out / f"{name}.png", height)
        except Exception as exc:  # noqa: BLE001 - filters can exhaust librsvg at full size
            for layer, hh in ((f"#{mapping[name]}", height), (f"#kemps_use_{i}", height // 2), (f"#kemps_use_{i}", height // 4)):
                try:
                    _render_id(handle, vp, layer, out / f"{name}.png", hh)
                    print(f"render_svg: {src.name}: {mapping[name]}: retried at {hh} px", file=sys.stderr)
                    break
                except Exception:  # noqa: BLE001
                    continue
            else:
                print(f"render_svg: {src.name}: {mapping[name]}: {exc}", file=sys.stderr)


def _render_id(handle, vp, layer: str, path: Path, height: int) -> None:  # type: ignore[no-untyped-def]
    if True:
        ok, ink, _logical = handle.get_geometry_for_layer(layer, vp)
        if not ok or ink.height <= 0 or ink.width <= 0:
            raise ValueError("no geometry")
        # The ink rect is often inflated (deck-art.md trap 1): find the card's real box
        # from a small render's alpha, then render that box at full size.
        x, y, bw, bh = ink.x, ink.y, ink.width, ink.height
        for _ in range(2):
            box = _alpha_box(handle, layer, vp, x, y, bw, bh, 256)
            if box is None:
                break
            x, y, bw, bh = box
        s = height / bh
        W, H = int(round(bw * s)) + 2, height + 2
        surf = cairo.ImageSurface(cairo.FORMAT_ARGB32, W, H)
        cr = cairo.Context(surf)
        cr.translate(1 - x * s, 1 - y * s)
        cr.scale(s, s)
        handle.render_layer(cr, layer, vp)
        surf.write_to_png(str(path))


def _alpha_box(handle, layer, vp, x, y, bw, bh, px):  # type: ignore[no-untyped-def]
    """The opaque box of `layer` inside document rect (x, y, bw, bh), in document units."""
    s = px / max(bw, bh)
    W, H = int(bw * s) + 2, int(bh * s) + 2
    surf = cairo.ImageSurface(cairo.FORMAT_ARGB32, W, H)
    cr = cairo.Context(surf)
    cr.translate(1 - x * s, 1 - y * s)
    cr.scale(s, s)
    handle.render_layer(cr, layer, vp)
    surf.flush()
    stride = surf.get_stride()
    data = bytes(surf.get_data())
    rows = [data[r * stride : r * stride + W * 4][3::4] for r in range(H)]
    ys = [r for r in range(H) if rows[r].strip(b"\x00")]
    if not ys:
        return None
    cols = bytearray(W)
    for r in ys:
        row = rows[r]
        for c in range(W):
            if row[c]:
                cols[c] = 1
    xs = [c for c in range(W) if cols[c]]
    x0, x1, y0, y1 = xs[0] - 1, xs[-1] + 1, ys[0] - 1, ys[-1] + 1
    return x + x0 / s, y + y0 / s, (x1 - x0) / s, (y1 - y0) / s


def files(out: Path, height: int, mapping: dict[str, str]) -> None:
    for name, path in mapping.items():
        text = read_svg(Path(path)).decode("utf-8", errors="replace")
        # physical sizes (width="2.5in") -> let librsvg use the viewBox (deck-art.md trap 2)
        handle = Rsvg.Handle.new_from_data(text.encode("utf-8"))
        w, h = doc_size(handle)
        s = height / h
        W, H = int(round(w * s)), height
        surf = cairo.ImageSurface(cairo.FORMAT_ARGB32, W, H)
        cr = cairo.Context(surf)
        vp = Rsvg.Rectangle()
        vp.x, vp.y, vp.width, vp.height = 0, 0, W, H
        handle.render_document(cr, vp)
        surf.write_to_png(str(out / f"{name}.png"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["grid", "ids", "files"])
    ap.add_argument("args", nargs="+", help="SRC OUT (grid, ids) or OUT (files)")
    ap.add_argument("--height", type=int, default=600, help="card height in pixels")
    ap.add_argument("--map", help="JSON file {name: id or path}")
    a = ap.parse_args()
    mapping = json.loads(Path(a.map).read_text()) if a.map else {}
    if a.mode == "files":
        out = Path(a.args[0])
        out.mkdir(parents=True, exist_ok=True)
        files(out, a.height, mapping)
        return 0
    src, out = Path(a.args[0]), Path(a.args[1])
    out.mkdir(parents=True, exist_ok=True)
    if a.mode == "grid":
        grid(src, out, a.height)
    else:
        ids(src, out, a.height, mapping)
    return 0


if __name__ == "__main__":
    sys.exit(main())
