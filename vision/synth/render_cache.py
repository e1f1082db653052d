"""Build the deck render cache from installed packages (run by scripts/install_deck_art.sh).

    python -m vision.synth.render_cache [--cache DIR] [--only NAME,...] [--force]

For every usable French-suited deck in `CATALOGUE` whose source files are present:
rasterise (vision/synth/render_svg.py under Debian's python3 with librsvg), trim each
card to its opaque box, resize to CARD_HEIGHT px, find the corner index boxes
(vision/synth/geometry.py), and write `<cache>/<deck>/{<card>.png, back.png, deck.json,
contact.png}`. contact.png shows every card with its index boxes drawn: look at it.
Idempotent: a deck whose deck.json has the current CACHE_VERSION is skipped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.synth.decks import CARDS, RANKS, DeckArt, default_cache_dir
from vision.synth.geometry import find_index_boxes, usable

CACHE_VERSION = 4
CARD_HEIGHT = 300
RAW_HEIGHT = 600
SYSTEM_PYTHON = "/usr/bin/python3"
RENDER_SVG = Path(__file__).with_name("render_svg.py")

GNOME_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
KDE_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
KDE_SUIT = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


@dataclass(frozen=True)
class DeckSource:
    name: str
    family: str  # near-duplicate designs share a family (splits.py)
    kind: str  # grid | kde | svgcards | files
    path: str  # file (grid, kde, svgcards) or directory (files), "{npm}"/"{pkgs}" expand
    licence: str
    notes: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def _gnome(file: str, family: str, notes: str = "", licence: str = "GPL-3+") -> DeckSource:
    stem = file.removesuffix(".svgz").removesuffix(".svg")
    name = "gnome-" + stem.replace("_", "-").lower()
    return DeckSource(name, family, "grid", str(GNOME_DIR / file), licence, notes)


def _kde(folder: str, file: str, family: str, licence: str = "GPL-2+", notes: str = "") -> DeckSource:
    return DeckSource("kde-" + folder.removeprefix("svg-"), family, "kde", str(KDE_DIR / folder / file), licence, notes)


CATALOGUE: tuple[DeckSource, ...] = (
    _gnome("ancient_french.svgz", "ancient-french", "letters 1/V/D/R"),
    _gnome("anglo.svgz", "anglo"),
    _gnome("anglo_bitmap.svgz", "anglo", "bitmap art"),
    _gnome("gnomangelo.svgz", "anglo"),
    _gnome("gnomangelo_bitmap.svgz", "anglo", "bitmap art"),
    _gnome("anglo_poker.svgz", "anglo"),
    _gnome("anglo_modern.svgz", "anglo-modern"),
    _gnome("anglo_modern_4_color.svgz", "anglo-modern", "four colours"),
    _gnome("atlasnye.svgz", "atlasnye", "Cyrillic letters"),
    _gnome("atlasnye_skat.svgz", "atlasnye", "four colours"),
    DeckSource("gnome-atlasnye-cyrillic", "atlasnye", "grid", str(GNOME_DIR / "Атласные.svgz"), "GPL-3+", "Cyrillic letters"),
    _gnome("bellot.svgz", "bellot"),
    _gnome("berlin.svgz", "berlin", "letters B/D/K"),
    _gnome("dondorf.svgz", "dondorf"),
    _gnome("guyenne-classic.svgz", "guyenne", "court cards have no index"),
    _gnome("lattmann.svgz", "lattmann", "letters B/D/K"),
    _gnome("neoclassical.svgz", "neoclassical"),
    _gnome("neoclassical_4_color.svgz", "neoclassical", "four colours"),
    _gnome("orell.svgz", "orell"),
    _gnome("ornamental.svgz", "ornamental"),
    _gnome("paris.svgz", "paris"),
    _gnome("plastic.svgz", "plastic"),
    _gnome("rheinland.svgz", "rheinland", "letters B/D/K"),
    _gnome("simplistic.svgz", "simplistic"),
    _gnome("slavic_costumes.svgz", "slavic-costumes", "Cyrillic letters"),
    _gnome("tango.svgz", "tango"),
    _gnome("tango_nuevo.svgz", "tango"),
    _gnome("tarocco.svgz", "tarocco", "letters F/D/R"),
    _gnome("tigullio.svgz", "tigullio"),
    DeckSource("aisleriot-bonded", "bonded", "grid", "{pkgs}/aisleriot/usr/share/aisleriot/cards/bonded.svgz", "GPL-3+", "indices in four corners"),
    _kde("svg-ancient-egyptians", "Ancient_Egyptians.svgz", "ancient-egyptians"),
    _kde("svg-dondorf", "dondorf.svgz", "dondorf"),
    _kde("svg-gm-paris", "paris.svgz", "paris"),
    _kde("svg-jolly-royal", "jolly-royal.svgz", "jolly-royal"),
    _kde("svg-nicu-ornamental", "ornamental.svgz", "ornamental"),
    _kde("svg-nicu-white", "white.svgz", "nicu-white"),
    _kde("svg-oxygen", "oxygen.svgz", "oxygen", notes="single-index design: rank top-right, suit top-left; dark faces"),
    _kde("svg-oxygen-air", "oxygen-air.svgz", "oxygen", notes="single-index design: rank top-right, suit top-left"),
    _kde("svg-oxygen-white", "oxygen-white.svgz", "oxygen", notes="single-index design: rank top-right, suit top-left"),
    _kde("svg-penguins", "penguins.svgz", "penguins", licence="GPL-3+ (Tux by Larry Ewing)"),
    _kde("svg-standard", "standard.svgz", "kde-standard"),
    _kde("svg-tigullio-international", "tigullio-international.svgz", "tigullio", licence="LGPL-2+"),
    DeckSource("kde-xskat-french", "xskat-french", "embedded", str(KDE_DIR / "svg-xskat-french" / "french.svgz"), "GPL-2+", "letters B/D/K; 72x112 bitmap art"),
    DeckSource("npm-svg-cards", "bellot", "svgcards", "{npm}/svg-cards/svg-cards.svg", "LGPL-2.1"),
    DeckSource("npm-cardsjs", "aguilar", "files", "{npm}/cardsJS/dist/cards", "LGPL-3", extra={"back": "Blue_Back.svg"}),
    DeckSource("npm-kennard-2color", "kennard", "files", "{npm}/@heruka_urgyen/react-playing-cards/src/images/2color", "CC0"),
    DeckSource("npm-kennard-2color-bf", "kennard", "files", "{npm}/@heruka_urgyen/react-playing-cards/src/images/2color-bf", "CC0"),
    DeckSource("npm-kennard-4color", "kennard", "files", "{npm}/@heruka_urgyen/react-playing-cards/src/images/4color", "CC0", "four colours, big indices"),
    DeckSource("npm-kennard-4color-bf", "kennard", "files", "{npm}/@heruka_urgyen/react-playing-cards/src/images/4color-bf", "CC0", "four colours, big indices"),
)
# Not used: gnome swiss-xvii (Swiss suits), kde konqi-modern (licence: KDE members only),
# kde xskat-german (German suits), kde future (novelty faces).


def resolve(src: DeckSource, art_root: Path) -> Path:
    return Path(src.path.replace("{npm}", str(art_root / "npm" / "node_modules")).replace("{pkgs}", str(art_root / "pkgs")))


def _mapping(src: DeckSource, path: Path) -> dict[str, str]:
    if src.kind in ("kde", "embedded"):
        m = {c: f"{KDE_RANK.get(c[:-1], c[:-1])}_{KDE_SUIT[c[-1]]}" for c in CARDS}
        m["back"] = "back"
        return m
    if src.kind == "svgcards":
        names = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
        m = {c: f"{KDE_SUIT[c[-1]]}_{names.get(c[:-1], c[:-1])}" for c in CARDS}
        m["back"] = "back"
        return m
    # one file per card: "10H.svg" or "TH.svg"
    m = {}
    for c in CARDS:
        for cand in (f"{c}.svg", f"{c.replace('10', 'T')}.svg"):
            if (path / cand).exists():
                m[c] = str(path / cand)
                break
    back = src.extra.get("back")
    if back and (path / back).exists():
        m["back"] = str(path / back)
    return m


def extract_embedded(path: Path, mapping: dict[str, str], out: Path) -> None:
    """Decks whose cards are <image> elements with base64 PNGs (xskat): decode them directly
    (librsvg draws nothing for these data URIs, which contain line breaks)."""
    import base64
    import gzip
    import re

    data = path.read_bytes()
    text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8", errors="replace")
    images = {}
    for m in re.finditer(r"<image\b[^>]*>", text, flags=re.S):
        tag = m.group(0)
        ident = re.search(r'\bid="([^"]+)"', tag)
        href = re.search(r'href="data:image/png;base64,([^"]+)"', tag)
        if ident and href:
            images[ident.group(1)] = href.group(1)
    for name, ident in mapping.items():
        if ident in images:
            png = base64.b64decode(re.sub(r"\s+", "", images[ident]))
            img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
            if img is None:
                continue
            if img.ndim == 2:
                img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
            elif img.shape[2] == 3:
                img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
            cv2.imwrite(str(out / f"{name}.png"), img)


def render_raw(src: DeckSource, path: Path, out: Path) -> None:
    """Rasterise the deck's cards into out/<name>.png (untrimmed, RAW_HEIGHT tall)."""
    if src.kind == "embedded":
        extract_embedded(path, _mapping(src, path), out)
        return
    cmd = [SYSTEM_PYTHON, str(RENDER_SVG)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        if src.kind == "grid":
            cmd += ["grid", str(path), str(out)]
        elif src.kind in ("kde", "svgcards"):
            json.dump(_mapping(src, path), f)
            cmd += ["ids", str(path), str(out), "--map", f.name]
        else:
            json.dump(_mapping(src, path), f)
            cmd += ["files", str(out), "--map", f.name]
    cmd += ["--height", str(RAW_HEIGHT)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    Path(f.name).unlink(missing_ok=True)
    if res.returncode != 0:
        raise RuntimeError(f"render_svg failed: {res.stderr.strip().splitlines()[-1] if res.stderr.strip() else res.returncode}")


def _trim(img: np.ndarray) -> np.ndarray:
    """Crop to the opaque card (alpha > 40)."""
    a = img[..., 3] > 40
    ys, xs = np.nonzero(a)
    if len(ys) == 0:
        return img
    return img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def finish(raw: dict[str, np.ndarray], height: int = CARD_HEIGHT) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Trimmed, equal-size RGBA faces (and back) at `height` px."""
    trimmed = {k: _trim(v) for k, v in raw.items()}
    sizes = np.array([v.shape[:2] for k, v in trimmed.items() if k != "back"])
    h0, w0 = np.median(sizes, axis=0)
    w = int(round(height * w0 / h0))
    # bitmap decks (xskat: 112 px) are enlarged: cubic, not area (deck-art.md trap 6)
    interp = cv2.INTER_AREA if h0 >= height else cv2.INTER_CUBIC
    out = {k: cv2.resize(v, (w, height), interpolation=interp) for k, v in trimmed.items()}
    back = out.pop("back", None)
    return out, back


def contact_sheet(faces: dict[str, np.ndarray], boxes: dict[str, list], back: np.ndarray | None, scale: float = 0.5) -> np.ndarray:
    """All faces (13 per row: one suit a row) with their index boxes, on grey (BGR)."""
    fh, fw = next(iter(faces.values())).shape[:2]
    cw, ch = int(fw * scale), int(fh * scale)
    sheet = np.full((5 * (ch + 6) + 6, 13 * (cw + 6) + 6, 3), 90, np.uint8)
    for si, s in enumerate("CDHS"):
        for ri, r in enumerate(RANKS):
            c = r + s
            if c not in faces:
                continue
            tile = _on_grey(cv2.resize(faces[c], (cw, ch), interpolation=cv2.INTER_AREA))
            for b in boxes.get(c, []):
                cv2.rectangle(tile, (int(b[0] * cw), int(b[1] * ch)), (int(b[2] * cw), int(b[3] * ch)), (0, 200, 0), 1)
            y, x = 6 + si * (ch + 6), 6 + ri * (cw + 6)
            sheet[y : y + ch, x : x + cw] = tile
    if back is not None:
        sheet[6 + 4 * (ch + 6) : 6 + 4 * (ch + 6) + ch, 6 : 6 + cw] = _on_grey(cv2.resize(back, (cw, ch), interpolation=cv2.INTER_AREA))
    return sheet


def _on_grey(rgba: np.ndarray) -> np.ndarray:
    a = rgba[..., 3:4].astype(np.float32) / 255
    bgr = rgba[..., [2, 1, 0]].astype(np.float32)
    return np.ascontiguousarray((bgr * a + 90 * (1 - a)).astype(np.uint8))


def write_deck(deck: DeckArt, root: Path, meta: dict[str, object] | None = None, contact: bool = True) -> Path:
    """Write a DeckArt in cache format (also used by tests with procedural decks)."""
    d = root / deck.name
    tmp = root / f".{deck.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for c, img in deck.faces.items():
        cv2.imwrite(str(tmp / f"{c}.png"), cv2.cvtColor(img, cv2.COLOR_RGBA2BGRA))
    cv2.imwrite(str(tmp / "back.png"), cv2.cvtColor(deck.back, cv2.COLOR_RGBA2BGRA))
    info = {"name": deck.name, "family": deck.family, "cache_version": CACHE_VERSION, **(meta or {})}
    info["index_boxes"] = {c: [[round(v, 5) for v in b] for b in bs] for c, bs in deck.index_boxes.items()}
    if contact:
        cv2.imwrite(str(tmp / "contact.png"), contact_sheet(deck.faces, deck.index_boxes, deck.back))
    (tmp / "deck.json").write_text(json.dumps(info, indent=1, ensure_ascii=False))
    shutil.rmtree(d, ignore_errors=True)
    tmp.rename(d)
    return d


def _fallback_back(height: int, width: int) -> np.ndarray:
    """Decks without a back in their package get one of our procedural backs."""
    from vision.synth.procedural import make_procedural_deck

    b = make_procedural_deck(424242).back
    return cv2.resize(b, (width, height), interpolation=cv2.INTER_AREA)


def build_deck(src: DeckSource, art_root: Path, cache: Path, rerender: bool = False) -> dict[str, object]:
    path = resolve(src, art_root)
    if not path.exists():
        return {"deck": src.name, "status": "missing", "why": f"{path} not installed"}
    t0 = time.time()
    # raw renders are kept (<art root>/raw/<deck>) so re-running geometry is cheap
    raw_dir = art_root / "raw" / src.name
    if rerender or not all((raw_dir / f"{c}.png").exists() for c in CARDS):
        tmp = raw_dir.with_name(raw_dir.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        render_raw(src, path, tmp)
        shutil.rmtree(raw_dir, ignore_errors=True)
        tmp.rename(raw_dir)
    raw = {}
    for p in raw_dir.glob("*.png"):
        img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4:
            raw[p.stem] = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
    missing = [c for c in CARDS if c not in raw]
    if missing:
        return {"deck": src.name, "status": "failed", "why": f"{len(missing)} cards did not render ({', '.join(missing[:4])}...)"}
    faces, back = finish(raw)
    fh, fw = next(iter(faces.values())).shape[:2]
    if back is None:
        back = _fallback_back(fh, fw)
    boxes, report = find_index_boxes(faces)
    ok, why = usable(report, single_index_design="single-index" in src.notes)
    deck = DeckArt(src.name, src.family, faces, back, boxes)
    meta = {
        "usable": ok,
        "unusable_reason": "" if ok else why,
        "source": str(path),
        "kind": src.kind,
        "licence": src.licence,
        "notes": src.notes,
        "geometry": report,
    }
    write_deck(deck, cache, meta)
    n_boxes = sum(len(b) for b in boxes.values())
    status = "ok" if ok else "unusable"
    return {"deck": src.name, "status": status, "why": "" if ok else why, "family": src.family, "corners": report["corners"], "boxes": n_boxes, "no_index": len(report["missing"]), "seconds": round(time.time() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Render installed deck art into the cache.")
    ap.add_argument("--cache", type=Path, default=None, help="cache dir (default $KEMPS_DECK_CACHE or ~/.cache/kemps-referee/decks)")
    ap.add_argument("--art-root", type=Path, default=None, help="where npm/ and pkgs/ were installed (default: the cache's parent)")
    ap.add_argument("--only", help="comma-separated deck names")
    ap.add_argument("--force", action="store_true", help="rebuild decks already in the cache (trim, resize, geometry)")
    ap.add_argument("--rerender", action="store_true", help="also rasterise the SVGs again (implies --force)")
    a = ap.parse_args(argv)
    cache = a.cache or default_cache_dir()
    art_root = a.art_root or cache.parent
    cache.mkdir(parents=True, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    results = []
    for src in CATALOGUE:
        if only and src.name not in only:
            continue
        meta = cache / src.name / "deck.json"
        if not (a.force or a.rerender) and meta.exists():
            info = json.loads(meta.read_text())
            if info.get("cache_version") == CACHE_VERSION:
                usable_ = info.get("usable", True)
                results.append({"deck": src.name, "status": "cached" if usable_ else "unusable", "why": info.get("unusable_reason", "")})
                continue
        try:
            r = build_deck(src, art_root, cache, a.rerender)
        except Exception as exc:  # noqa: BLE001 - one bad deck must not stop the others
            r = {"deck": src.name, "status": "failed", "why": str(exc)}
        results.append(r)
        print(json.dumps(r, ensure_ascii=False), flush=True)
    ok = [r for r in results if r["status"] in ("ok", "cached")]
    bad = [r for r in results if r["status"] not in ("ok", "cached")]
    (cache / "report.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    print(f"render_cache: {len(ok)} decks ready in {cache}; {len(bad)} not used: " + ", ".join(f"{r['deck']} ({r.get('why', '')})" for r in bad))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
