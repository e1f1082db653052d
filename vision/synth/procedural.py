"""Procedural decks of our own: unlimited design variety with exact index boxes.

Every design choice (font, index size and position, rank letters, colours, four-colour
suits, borders, corner radius, card aspect, court style, back pattern) is drawn from
`random.Random(seed)`, so a seed names a design. Cards are drawn with Pillow at twice
the target size and downsampled (anti-aliasing). Index boxes are the tight ink box of
the drawn index, so they are exact by construction.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.synth.decks import CARDS, RANKS, DeckArt

SS = 2  # supersampling factor
MIN_PICTURE_HALF_WIDTH = 0.015  # of the card width: below the narrowest buildable seed (0..400)

# Printed rank letters: the label is the identity, the print varies (deck-art.md trap 3).
LETTER_SETS: dict[str, dict[str, str]] = {
    "en": {"A": "A", "J": "J", "Q": "Q", "K": "K"},
    "fr": {"A": "1", "J": "V", "Q": "D", "K": "R"},
    "fr_a": {"A": "A", "J": "V", "Q": "D", "K": "R"},
    "de": {"A": "A", "J": "B", "Q": "D", "K": "K"},
    "it": {"A": "A", "J": "F", "Q": "D", "K": "R"},
    "ru": {"A": "Т", "J": "В", "Q": "Д", "K": "К"},
}
LETTER_WEIGHTS = {"en": 0.6, "fr": 0.08, "fr_a": 0.08, "de": 0.1, "it": 0.05, "ru": 0.09}

FOUR_COLOUR = (
    {"S": (20, 20, 20), "H": (200, 20, 30), "D": (20, 70, 200), "C": (20, 140, 40)},
    {"S": (20, 20, 20), "H": (200, 20, 30), "D": (230, 120, 0), "C": (20, 120, 60)},
    {"S": (30, 30, 90), "H": (190, 30, 30), "D": (40, 90, 210), "C": (30, 130, 30)},
)


@functools.lru_cache(maxsize=1)
def font_paths() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(latin fonts, fonts with Cyrillic): matplotlib's bundled ones plus installed TTFs."""
    import matplotlib

    mpl = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    latin = [
        p
        for p in sorted(mpl.glob("*.ttf"))
        if (p.name.startswith(("DejaVu", "STIXGeneral")) and "Display" not in p.name) or p.name in ("cmr10.ttf", "cmb10.ttf", "cmss10.ttf", "cmtt10.ttf")
    ]
    system = [
        p
        for p in sorted(Path("/usr/share/fonts").rglob("*.ttf"))
        if "Math" not in p.name and "ExtraLight" not in p.name and "Display" not in p.name
    ] if Path("/usr/share/fonts").is_dir() else []
    # the same font installed twice is one font (keeps the choice weights even)
    names = {p.name for p in latin}
    latin += [p for p in system if p.name not in names and not names.add(p.name)]
    cyrillic = [p for p in latin if p.name.startswith(("DejaVu", "Liberation", "Noto", "FreeS"))]
    return tuple(latin), tuple(cyrillic)


@dataclass(frozen=True)
class Style:
    width: int
    height: int
    font: Path
    letters: dict[str, str]
    colours: dict[str, tuple[int, int, int]]
    paper: tuple[int, int, int]
    radius: float
    frame: tuple[int, int, int] | None
    rank_h: float  # rank glyph height / card height
    suit_scale: float  # index suit height / rank height
    margin_x: float
    margin_y: float
    side_by_side: bool
    four_corners: bool
    pip_scale: float
    court_colours: tuple[tuple[int, int, int], ...]
    back_colour: tuple[int, int, int]
    back_pattern: str
    bold_court_letter: bool
    gap: float = 0.15  # rank-to-suit gap / rank height
    stroke: int = 0  # extra ink around the index glyphs (px at the supersampled size): bold prints
    # variety 3 (`_vary_faces`): what the whole card looks like beyond its corners
    court_style: str = "figure"  # figure | silhouette | letter
    ace_style: str = "pip"  # pip | ornate | small
    face_pattern: str = "none"  # none | rings | flourish | stripes | dots: faint art under the print
    pattern_ink: tuple[int, int, int] = (0, 0, 0)  # that art's colour (a few levels off the paper)
    split_index: bool = False  # the rank in one top corner, the suit in the other


# Variety 2 widens the index layout beyond variety 1's ranges. Why: the detector misses
# indices of layouts unlike the trained designs (big ranks, a suit far below its rank,
# heavy prints, wide margins). Drawn from a second generator, so a seed's variety-1 design
# is unchanged and earlier rounds stay reproducible.
#
# Variety 3 also varies the face (for the whole-card network, vision/reader/body.py): court
# cards as a silhouette or a big letter instead of a figure, ornate or small aces, faint art
# printed under the pips, and split indices (rank and suit in the two top corners). Why:
# modern and novelty decks print all of these, and a network that learned one court figure
# and one ace reads no other; measured on the held-out families (MODEL_CARD).
VARIETIES = (1, 2, 3)


def _widen(st: Style, seed: int) -> Style:
    r = random.Random(seed * 7919 + 2)
    return replace(
        st,
        rank_h=r.uniform(0.06, 0.17),
        suit_scale=r.uniform(0.45, 1.05),
        gap=r.choice((r.uniform(0.05, 0.25), r.uniform(0.25, 0.7))),
        margin_x=r.uniform(0.025, 0.12),
        margin_y=r.uniform(0.02, 0.09),
        side_by_side=r.random() < 0.15,
        stroke=r.choice((0, 0, 0, 1, 2)),
    )


def _vary_faces(st: Style, seed: int) -> Style:
    r = random.Random(seed * 104729 + 3)
    delta = r.randint(10, 32)  # faint: the art must not read as pips
    tint = [r.randint(-8, 8) for _ in range(3)]
    return replace(
        st,
        court_style=r.choice(("figure", "silhouette", "silhouette", "letter")),
        ace_style=r.choice(("pip", "ornate", "small")),
        face_pattern=r.choice(("none", "none", "rings", "flourish", "stripes", "dots")),
        pattern_ink=tuple(max(0, min(255, v - delta + t)) for v, t in zip(st.paper, tint)),
        split_index=r.random() < 0.3,
        pip_scale=r.uniform(0.09, 0.17),
    )


def _style(seed: int, height: int, variety: int = 1) -> Style:
    if variety not in VARIETIES:
        raise ValueError(f"procedural variety must be one of {VARIETIES}, not {variety!r}")
    st = _style_v1(seed, height)
    if variety >= 2:
        st = _widen(st, seed)
    return _vary_faces(st, seed) if variety == 3 else st


def _style_v1(seed: int, height: int) -> Style:
    r = random.Random(seed)
    latin, cyr = font_paths()
    letters_key = r.choices(list(LETTER_WEIGHTS), weights=list(LETTER_WEIGHTS.values()))[0]
    font = r.choice(cyr if letters_key == "ru" else latin)
    font = _extra_font(seed, letters_key) or font
    if r.random() < 0.2:
        colours = dict(r.choice(FOUR_COLOUR))
    else:
        red = (r.randint(170, 230), r.randint(0, 40), r.randint(0, 50))
        black = (r.randint(0, 40),) * 3
        colours = {"H": red, "D": red, "C": black, "S": black}
    paper_v = r.randint(228, 255)
    paper = (paper_v, paper_v - r.randint(0, 12), paper_v - r.randint(0, 25))
    aspect = r.uniform(0.63, 0.73)
    return Style(
        width=int(round(height * aspect)),
        height=height,
        font=font,
        letters=LETTER_SETS[letters_key],
        colours=colours,
        paper=paper,
        radius=r.uniform(0.02, 0.07),
        frame=(r.randint(0, 120), r.randint(0, 120), r.randint(0, 160)) if r.random() < 0.3 else None,
        rank_h=r.uniform(0.065, 0.13),
        suit_scale=r.uniform(0.6, 1.0),
        margin_x=r.uniform(0.035, 0.09),
        margin_y=r.uniform(0.03, 0.07),
        side_by_side=r.random() < 0.08,
        four_corners=r.random() < 0.15,
        pip_scale=r.uniform(0.11, 0.16),
        court_colours=tuple((r.randint(0, 255), r.randint(0, 255), r.randint(0, 255)) for _ in range(4)),
        back_colour=(r.randint(0, 200), r.randint(0, 120), r.randint(0, 200)),
        back_pattern=r.choice(["diag", "check", "dots", "plain", "diamond"]),
        bold_court_letter=r.random() < 0.5,
    )


# ---------------------------------------------------------------- extra fonts
# Fonts extracted from Debian font packages by scripts/install_deck_art.sh (files only).
# They are split by font family across train/val/test (a stable hash, like deck
# families), so held-out procedural decks are printed in letterforms never trained on.
EXTRA_FONT_SHARE = 0.6  # of designs that take an extra font when some are installed
_SKIP_STYLES = ("Italic", "Oblique", "Thin", "Hairline", "ExtraLight", "Light", "Math", "Emoji", "Symbol", "Dingbat")


def extra_fonts_dir() -> Path:
    from vision.synth.decks import default_cache_dir

    return default_cache_dir().parent / "pkgs" / "fonts"


@functools.lru_cache(maxsize=1)
def extra_fonts() -> dict[str, dict[str, tuple[Path, ...]]]:
    """{split: {"latin": fonts, "ru": fonts with Cyrillic}} from the extracted packages."""
    import zlib

    from fontTools.ttLib import TTFont  # matplotlib's dependency

    root = extra_fonts_dir()
    out: dict[str, dict[str, list[Path]]] = {s: {"latin": [], "ru": []} for s in ("train", "val", "test")}
    if not root.is_dir():
        return {}
    need = set("0123456789AJQKVDRBF")
    cyr = set("ТВДК")
    for path in sorted([*root.rglob("*.ttf"), *root.rglob("*.otf")]):
        if any(k in path.name for k in _SKIP_STYLES):
            continue
        try:
            font = TTFont(str(path), lazy=True, fontNumber=0)
            chars = {chr(c) for c in font.getBestCmap() or {}}
            name = font["name"]
            family = _family_key(str(name.getDebugName(16) or name.getDebugName(1) or path.stem))
        except Exception:  # an unreadable font file is not a reason to stop making decks
            continue
        if not need <= chars or any(k in family or k in path.name.lower() for k in ("dingbat", "symbol", "nushu", "d050000l")):
            continue  # letters mapped to pictures: an unreadable index
        h = zlib.crc32(family.encode()) % 10
        split = "val" if h == 0 else "test" if h == 1 else "train"
        out[split]["latin"].append(path)
        if cyr <= chars:
            out[split]["ru"].append(path)
    return {s: {k: tuple(v) for k, v in d.items()} for s, d in out.items() if d["latin"]}


def _family_key(name: str) -> str:
    """'Fira Code Medium', 'Nimbus Sans Narrow' -> 'fira code', 'nimbus sans': weights and
    widths of one design must land in the same split."""
    import re

    words = r"(bold|medium|semi ?bold|extra ?bold|demi ?bold|black|heavy|regular|book|condensed|narrow|light|demi|std|pro)"
    return re.sub(rf"\b{words}\b", "", name.lower()).strip()


def _extra_font(seed: int, letters_key: str) -> Path | None:
    """An extra font for this design, or None (keeps the base choice). Uses its own RNG so
    the rest of a seed's design does not change when fonts are installed."""
    from vision.synth.splits import PROCEDURAL_SEEDS

    pools = extra_fonts()
    split = next((s for s, r in PROCEDURAL_SEEDS.items() if seed in r), "train")
    pool = pools.get(split, {}).get("ru" if letters_key == "ru" else "latin", ())
    r = random.Random(seed * 7919 + 17)
    if not pool or r.random() >= EXTRA_FONT_SHARE:
        return None
    return r.choice(pool)


# ---------------------------------------------------------------- suit shapes
def draw_suit(draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, h: float, fill: tuple, flip: bool = False) -> None:
    """A suit symbol `h` tall centred on (cx, cy); `flip` draws it upside down."""
    s = -1.0 if flip else 1.0

    def p(dx: float, dy: float) -> tuple[float, float]:
        return (cx + dx * h, cy + s * dy * h)

    def circle(dx: float, dy: float, rad: float) -> None:
        x, y = p(dx, dy)
        draw.ellipse([x - rad * h, y - rad * h, x + rad * h, y + rad * h], fill=fill)

    if suit == "D":
        draw.polygon([p(0, -0.5), p(0.37, 0), p(0, 0.5), p(-0.37, 0)], fill=fill)
    elif suit == "H":
        circle(-0.24, -0.2, 0.26)
        circle(0.24, -0.2, 0.26)
        draw.polygon([p(-0.49, -0.12), p(0.49, -0.12), p(0, 0.5)], fill=fill)
    elif suit == "S":
        circle(-0.24, 0.1, 0.24)
        circle(0.24, 0.1, 0.24)
        draw.polygon([p(-0.47, 0.05), p(0.47, 0.05), p(0, -0.5)], fill=fill)
        draw.polygon([p(0, 0.05), p(-0.18, 0.5), p(0.18, 0.5)], fill=fill)
    else:  # clubs
        circle(0, -0.26, 0.22)
        circle(-0.25, 0.06, 0.22)
        circle(0.25, 0.06, 0.22)
        draw.polygon([p(0, -0.1), p(-0.18, 0.5), p(0.18, 0.5)], fill=fill)


PIPS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0), (0.5, 1)],
    3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    4: [(0.2, 0), (0.8, 0), (0.2, 1), (0.8, 1)],
    5: [(0.2, 0), (0.8, 0), (0.5, 0.5), (0.2, 1), (0.8, 1)],
    6: [(0.2, 0), (0.8, 0), (0.2, 0.5), (0.8, 0.5), (0.2, 1), (0.8, 1)],
    7: [(0.2, 0), (0.8, 0), (0.5, 0.25), (0.2, 0.5), (0.8, 0.5), (0.2, 1), (0.8, 1)],
    8: [(0.2, 0), (0.8, 0), (0.5, 0.25), (0.2, 0.5), (0.8, 0.5), (0.5, 0.75), (0.2, 1), (0.8, 1)],
    9: [(x, y) for x in (0.2, 0.8) for y in (0, 1 / 3, 2 / 3, 1)] + [(0.5, 0.5)],
    10: [(x, y) for x in (0.2, 0.8) for y in (0, 1 / 3, 2 / 3, 1)] + [(0.5, 1 / 6), (0.5, 5 / 6)],
}


# ---------------------------------------------------------------- one card
def _index_patch(st: Style, rank: str, suit: str, part: str = "both") -> Image.Image:
    """The corner index (printed rank over/beside suit) on a transparent patch, tightly
    cropped; `part` "rank" or "suit": that half alone (split indices)."""
    H = st.height * SS
    colour = st.colours[suit]
    text = st.letters.get(rank, rank)
    size = max(6, int(st.rank_h * H * 1.35))
    font = ImageFont.truetype(str(st.font), size)
    tb = font.getbbox(text, stroke_width=st.stroke)
    tw, th = tb[2] - tb[0], tb[3] - tb[1]
    if text == "10" and tw > th * 1.3:  # most decks squeeze "10"
        tw_target = int(th * 1.2)
    else:
        tw_target = tw
    sh = th * st.suit_scale
    gap = th * st.gap
    if st.side_by_side:
        W, Hh = int(tw_target + gap + sh * 0.9 + 4), int(max(th, sh) + 4)
    else:
        W, Hh = int(max(tw_target, sh * 0.9) + 4), int(th + gap + sh + 4)
    img = Image.new("RGBA", (W, Hh), (0, 0, 0, 0))
    glyph = Image.new("RGBA", (tw + 2, th + 2), (0, 0, 0, 0))
    ImageDraw.Draw(glyph).text(
        (-tb[0] + 1, -tb[1] + 1), text, font=font, fill=colour + (255,), stroke_width=st.stroke, stroke_fill=colour + (255,)
    )
    if tw_target != tw:
        glyph = glyph.resize((tw_target + 2, th + 2), Image.LANCZOS)
    d = ImageDraw.Draw(img)
    if part == "rank":
        return glyph.crop(glyph.getbbox() or (0, 0, *glyph.size))
    if part == "suit":
        img = Image.new("RGBA", (int(sh + 4), int(sh + 4)), (0, 0, 0, 0))
        draw_suit(ImageDraw.Draw(img), suit, (sh + 4) / 2, (sh + 4) / 2, sh, colour + (255,))
        return img.crop(img.getbbox() or (0, 0, *img.size))
    if st.side_by_side:
        img.alpha_composite(glyph, (1, int((Hh - th) / 2) - 1))
        draw_suit(d, suit, 2 + tw_target + gap + sh * 0.45, Hh / 2, sh, colour + (255,))
    else:
        img.alpha_composite(glyph, (int((W - tw_target) / 2) - 1, 1))
        draw_suit(d, suit, W / 2, 2 + th + gap + sh / 2, sh, colour + (255,))
    bbox = img.getbbox() or (0, 0, W, Hh)
    return img.crop(bbox)


def _court(st: Style, img: Image.Image, rank: str, suit: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """A simple mirrored court figure inside the frame (x0, y0)-(x1, y1)."""
    d = ImageDraw.Draw(img)
    c = st.court_colours
    colour = st.colours[suit]
    d.rectangle([x0, y0, x1, y1], outline=colour + (255,), width=max(2, int(st.height * SS * 0.006)))
    half = Image.new("RGBA", img.size, (0, 0, 0, 0))
    hd = ImageDraw.Draw(half)
    w, h = x1 - x0, y1 - y0
    cx, my = (x0 + x1) / 2, (y0 + y1) / 2
    k = {"J": 0, "Q": 1, "K": 2}[rank]
    hd.polygon([(x0 + w * 0.15, my), (x1 - w * 0.15, my), (cx + w * 0.22, y0 + h * 0.3), (cx - w * 0.22, y0 + h * 0.3)], fill=c[k] + (255,))
    hd.ellipse([cx - w * 0.13, y0 + h * 0.1, cx + w * 0.13, y0 + h * 0.3], fill=(238, 200, 160, 255), outline=(0, 0, 0, 255))
    if rank == "K":
        hd.polygon([(cx - w * 0.14, y0 + h * 0.12), (cx - w * 0.14, y0 + h * 0.03), (cx - w * 0.07, y0 + h * 0.08), (cx, y0 + h * 0.02), (cx + w * 0.07, y0 + h * 0.08), (cx + w * 0.14, y0 + h * 0.03), (cx + w * 0.14, y0 + h * 0.12)], fill=(230, 190, 30, 255))
    elif rank == "Q":
        hd.ellipse([cx - w * 0.16, y0 + h * 0.06, cx + w * 0.16, y0 + h * 0.14], fill=c[3] + (255,))
    else:
        hd.rectangle([cx - w * 0.15, y0 + h * 0.07, cx + w * 0.15, y0 + h * 0.12], fill=c[3] + (255,))
    hd.line([(x0 + w * 0.08, my), (x0 + w * 0.25, y0 + h * 0.08)], fill=colour + (255,), width=max(2, int(w * 0.03)))
    draw_suit(hd, suit, x1 - w * 0.18, y0 + h * 0.18, h * 0.12, colour + (255,))
    img.alpha_composite(half)
    img.alpha_composite(half.rotate(180, center=(cx, my)))
    d.line([(x0, my), (x1, my)], fill=colour + (255,), width=max(1, int(st.height * SS * 0.004)))


def _silhouette_court(st: Style, img: Image.Image, rank: str, suit: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """A court card as a dark head-and-shoulders profile in a drawn cartouche, the suit
    above it (variety 3): no figure, no mirrored halves."""
    d = ImageDraw.Draw(img)
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, y0 + h * 0.55
    r = random.Random(f"{st.font.name}:{st.width}:{st.height}:{rank}{suit}")  # str seeds are stable across runs
    ink = (r.randint(0, 50),) * 3 if r.random() < 0.7 else st.colours[suit]
    frame = st.court_colours[{"J": 0, "Q": 1, "K": 2}[rank]]
    fw, fh = w * 0.42, h * 0.3
    pts = []
    for k in range(16):  # a scalloped cartouche
        a = k * np.pi / 8
        rad = 1.0 if k % 2 == 0 else 0.82
        pts.append((cx + np.cos(a) * fw * rad, cy + np.sin(a) * fh * rad))
    d.polygon(pts, outline=frame + (255,), width=max(2, int(w * 0.025)))
    face_dir = 1 if r.random() < 0.5 else -1
    hr = fh * 0.33
    hx, hy = cx, cy - fh * 0.25
    d.ellipse([hx - hr * 0.85, hy - hr, hx + hr * 0.85, hy + hr], fill=ink + (255,))  # head
    d.polygon([(hx + face_dir * hr * 0.8, hy - hr * 0.1), (hx + face_dir * hr * 1.15, hy + hr * 0.25), (hx + face_dir * hr * 0.7, hy + hr * 0.4)], fill=ink + (255,))  # nose
    d.rectangle([hx - hr * 0.35, hy + hr * 0.8, hx + hr * 0.35, hy + hr * 1.3], fill=ink + (255,))  # neck
    d.chord([hx - hr * 1.6, hy + hr * 1.1, hx + hr * 1.6, hy + hr * 3.2], 180, 360, fill=ink + (255,))  # shoulders
    if rank == "K":
        d.polygon([(hx - hr * 0.7, hy - hr * 0.8), (hx - hr * 0.7, hy - hr * 1.5), (hx - hr * 0.3, hy - hr * 1.1), (hx, hy - hr * 1.6),
                   (hx + hr * 0.3, hy - hr * 1.1), (hx + hr * 0.7, hy - hr * 1.5), (hx + hr * 0.7, hy - hr * 0.8)], fill=ink + (255,))  # fmt: skip
    elif rank == "Q":
        d.arc([hx - hr, hy - hr * 1.5, hx + hr, hy - hr * 0.3], 200, 340, fill=ink + (255,), width=max(2, int(hr * 0.25)))
    else:
        d.rectangle([hx - hr * 0.9, hy - hr * 1.05, hx + hr * 0.9, hy - hr * 0.6], fill=ink + (255,))
    draw_suit(d, suit, cx, y0 + h * 0.12, h * 0.09, st.colours[suit] + (255,))


def _letter_court(st: Style, img: Image.Image, rank: str, suit: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """A court card as its big rank letter over a suit (variety 3)."""
    d = ImageDraw.Draw(img)
    w, h = x1 - x0, y1 - y0
    text = st.letters.get(rank, rank)
    font = ImageFont.truetype(str(st.font), max(8, int(h * 0.4)))
    tb = font.getbbox(text)
    colour = st.colours[suit] + (255,)
    d.text(((x0 + x1) / 2 - (tb[0] + tb[2]) / 2, y0 + h * 0.38 - (tb[1] + tb[3]) / 2), text, font=font, fill=colour)
    draw_suit(d, suit, (x0 + x1) / 2, y0 + h * 0.8, min(w, h) * 0.22, colour)


def _ace(st: Style, d: ImageDraw.ImageDraw, suit: str, W: float, H: float) -> None:
    colour = st.colours[suit] + (255,)
    if st.ace_style == "small":
        draw_suit(d, suit, W / 2, H / 2, H * st.pip_scale, colour)
        return
    size = H * st.pip_scale * (2.4 if st.ace_style == "pip" else 2.0)
    draw_suit(d, suit, W / 2, H / 2, size, colour)
    if st.ace_style == "ornate":  # a ring of small pips and a double circle around the big one
        lw = max(2, int(W * 0.008))
        for rad in (0.85, 0.95):
            d.ellipse([W / 2 - size * rad, H / 2 - size * rad, W / 2 + size * rad, H / 2 + size * rad], outline=colour, width=lw)
        for k in range(8):
            a = k * np.pi / 4
            draw_suit(d, suit, W / 2 + np.cos(a) * size * 1.2, H / 2 + np.sin(a) * size * 1.2, size * 0.16, colour)


def _face_pattern(st: Style, img: Image.Image) -> None:
    """Faint art printed under everything else (variety 3)."""
    if st.face_pattern == "none":
        return
    W, H = img.size
    d = ImageDraw.Draw(img)
    ink = st.pattern_ink + (255,)
    lw = max(SS, int(W * 0.006))
    r = random.Random(f"{st.font.name}:{st.width}:{st.height}:{st.face_pattern}")
    if st.face_pattern == "rings":
        for k in range(1, 9):
            rx, ry = W * 0.06 * k, H * 0.05 * k
            d.ellipse([W / 2 - rx, H / 2 - ry, W / 2 + rx, H / 2 + ry], outline=ink, width=lw)
    elif st.face_pattern == "stripes":
        step = max(6, int(W * r.uniform(0.04, 0.09)))
        for k in range(-H, W + H, step):
            d.line([(k, 0), (k + H, H)], fill=ink, width=lw)
    elif st.face_pattern == "dots":
        step = max(6, int(W * r.uniform(0.06, 0.12)))
        rad = step * 0.2
        for i in range(step // 2, W, step):
            for j in range(step // 2, H, step):
                d.ellipse([i - rad, j - rad, i + rad, j + rad], fill=ink)
    else:  # flourish: mirrored arcs, like a printed ornament
        half = Image.new("RGBA", img.size, (0, 0, 0, 0))
        hd = ImageDraw.Draw(half)
        for _ in range(10):
            cx, cy = r.uniform(0.1, 0.9) * W, r.uniform(0.1, 0.5) * H
            rx, ry = r.uniform(0.08, 0.3) * W, r.uniform(0.05, 0.2) * H
            a0 = r.uniform(0, 360)
            hd.arc([cx - rx, cy - ry, cx + rx, cy + ry], a0, a0 + r.uniform(90, 270), fill=ink, width=lw * 2)
        img.alpha_composite(half)
        img.alpha_composite(half.rotate(180, center=(W / 2, H / 2)))


def _card_base(st: Style, fill: tuple[int, int, int]) -> tuple[Image.Image, Image.Image]:
    W, H = st.width * SS, st.height * SS
    img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    rad = st.radius * W
    d.rounded_rectangle([0, 0, W - 1, H - 1], radius=rad, fill=fill + (255,), outline=(150, 150, 150, 255), width=SS)
    mask = img.getchannel("A")
    return img, mask


def _picture_x0(card_w: float, margin_px: float, index_w: float) -> float:
    """Left edge of the picture area (courts, pips): clear of the index column.

    A very wide index column (big rank font, side-by-side suit) can leave no picture area
    (seed 341 crashed PIL with x1 < x0); keep a thin one there. Only degenerate seeds change.
    """
    return min(margin_px + index_w + card_w * 0.03, card_w * (0.5 - MIN_PICTURE_HALF_WIDTH))


def _face(st: Style, card: str) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    rank, suit = card[:-1], card[-1]
    W, H = st.width * SS, st.height * SS
    img, mask = _card_base(st, st.paper)
    d = ImageDraw.Draw(img)
    if st.frame is not None:
        inset = W * 0.025
        d.rounded_rectangle([inset, inset, W - inset, H - inset], radius=st.radius * W * 0.7, outline=st.frame + (255,), width=SS)
    _face_pattern(st, img)
    mx, my = st.margin_x * W, st.margin_y * H
    if st.split_index:  # rank top-right, suit top-left (and turned, bottom-left / bottom-right)
        rank_p, suit_p = _index_patch(st, rank, suit, "rank"), _index_patch(st, rank, suit, "suit")
        placed = [(rank_p, W - mx - rank_p.size[0], my), (suit_p, mx, my)]
    else:
        patch = _index_patch(st, rank, suit)
        placed = [(patch, mx, my)]
        if st.four_corners:
            placed.append((patch, W - mx - patch.size[0], my))
    boxes: list[tuple[float, float, float, float]] = []
    for patch, x, y in placed:
        img.alpha_composite(patch, (int(x), int(y)))
        iw, ih = patch.size
        boxes.append((int(x) / W, int(y) / H, (int(x) + iw) / W, (int(y) + ih) / H))
        # the same index rotated by 180 degrees in the opposite corner
        rx, ry = W - int(x) - iw, H - int(y) - ih
        img.alpha_composite(patch.rotate(180), (rx, ry))
        boxes.append((rx / W, ry / H, (rx + iw) / W, (ry + ih) / H))
    # the picture area keeps clear of the index column (the wider one, split indices)
    ax0 = _picture_x0(W, mx, max(patch.size[0] for patch, _, _ in placed))
    ay0 = my * 0.8 + H * 0.02
    colour = st.colours[suit] + (255,)
    if rank in ("J", "Q", "K"):
        court = {"figure": _court, "silhouette": _silhouette_court, "letter": _letter_court}[st.court_style]
        court(st, img, rank, suit, ax0, ay0, W - ax0, H - ay0)
    elif rank == "A":
        _ace(st, d, suit, W, H)
    else:
        n = int(rank)
        ph_ = H * st.pip_scale * (0.85 if n >= 9 else 1.0)
        px0, px1 = ax0 + ph_ * 0.2, W - ax0 - ph_ * 0.2
        py0, py1 = ay0 + ph_ * 0.55, H - ay0 - ph_ * 0.55
        for fx, fy in PIPS[n]:
            draw_suit(d, suit, px0 + fx * (px1 - px0), py0 + fy * (py1 - py0), ph_, colour, flip=fy > 0.5)
    img.putalpha(mask)
    out = img.resize((st.width, st.height), Image.LANCZOS)
    return np.asarray(out, dtype=np.uint8).copy(), boxes


def _back(st: Style) -> np.ndarray:
    W, H = st.width * SS, st.height * SS
    img, mask = _card_base(st, (250, 250, 250))
    d = ImageDraw.Draw(img)
    inset = int(W * 0.06)
    c = st.back_colour
    light = tuple(min(255, v + 90) for v in c)
    d.rectangle([inset, inset, W - inset, H - inset], fill=c + (255,))
    step = max(6, int(W * 0.06))
    if st.back_pattern == "diag":
        for k in range(-H, W + H, step):
            d.line([(k, inset), (k + H, inset + H)], fill=light + (255,), width=SS * 2)
    elif st.back_pattern == "check":
        for i in range(inset, W - inset, step):
            for j in range(inset, H - inset, step):
                if ((i - inset) // step + (j - inset) // step) % 2:
                    d.rectangle([i, j, i + step - 1, j + step - 1], fill=light + (255,))
    elif st.back_pattern == "dots":
        for i in range(inset + step // 2, W - inset, step):
            for j in range(inset + step // 2, H - inset, step):
                d.ellipse([i - step / 4, j - step / 4, i + step / 4, j + step / 4], fill=light + (255,))
    elif st.back_pattern == "diamond":
        for k in range(-H, W + H, step):
            d.line([(k, inset), (k + H, inset + H)], fill=light + (255,), width=SS)
            d.line([(k, inset), (k - H, inset + H)], fill=light + (255,), width=SS)
    # the white border stays clean: repaint outside the inset
    frame = Image.new("L", img.size, 0)
    ImageDraw.Draw(frame).rectangle([inset, inset, W - inset, H - inset], fill=255)
    base, _ = _card_base(st, (250, 250, 250))
    img = Image.composite(img, base, frame)
    img.putalpha(mask)
    return np.asarray(img.resize((st.width, st.height), Image.LANCZOS), dtype=np.uint8).copy()


@functools.lru_cache(maxsize=64)
def make_procedural_deck(seed: int, height: int = 300, variety: int = 1) -> DeckArt:
    """A deck design of our own named by `seed` (family "procedural-<seed>"); `variety` 2
    draws the same seed with the wider index layouts of `_widen`, and 3 adds the varied
    faces of `_vary_faces` (court and ace styles, faint art, split indices)."""
    st = _style(seed, height, variety)
    faces: dict[str, np.ndarray] = {}
    boxes: dict[str, list[tuple[float, float, float, float]]] = {}
    for card in CARDS:
        faces[card], boxes[card] = _face(st, card)
    tag = f"procedural-{seed}" if variety == 1 else f"procedural-v{variety}-{seed}"
    return DeckArt(
        name=tag,
        family=tag,
        faces=faces,
        back=_back(st),
        index_boxes=boxes,
        meta={"source": "procedural", "font": st.font.name, "letters": st.letters, "seed": seed, "variety": variety},
    )


__all__ = ["make_procedural_deck", "draw_suit", "RANKS"]
