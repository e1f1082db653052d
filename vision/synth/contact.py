"""Contact sheets: random labelled scenes (docs) and per-deck index geometry (cache).

    python -m vision.synth.contact scenes --out docs/synth-contact-sheet.png [--seed 0]
    python -m vision.synth.contact decks --out /tmp/decks.png      # every cached deck's geometry
    python -m vision.synth.contact samples --out datasets/samples/synth [--count 4]

Scene sheets draw each label box (green, with the card name) and each card outline
(blue: face up, grey: face down), so a wrong label shows at a glance.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from vision.synth.decks import DeckArt, available_decks, load_decks
from vision.synth.procedural import make_procedural_deck
from vision.synth.scene import RenderedScene, random_scene


def draw_labels(scene: RenderedScene, thickness: int = 1) -> np.ndarray:
    img = scene.image.copy()
    for c in scene.cards:
        colour = (255, 120, 0) if c.face_up else (150, 150, 150)
        cv2.polylines(img, [np.round(c.quad).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
    for lab in scene.labels:
        x1, y1, x2, y2 = (int(round(v)) for v in lab.box)
        cv2.rectangle(img, (x1, y1), (x2, y2), (0, 255, 0), thickness)
        cv2.putText(img, lab.card, (x1, max(8, y1 - 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (0, 255, 255), 1, cv2.LINE_AA)
    return img


def _decks(names: list[str] | None) -> list[DeckArt]:
    """The named decks; by default every installed deck plus 8 procedural ones."""
    procedural = [make_procedural_deck(s) for s in range(8)]
    if names == ["procedural"] or (names is None and not available_decks()):
        return procedural
    if names is None:
        return load_decks() + procedural
    return load_decks(names)


def scenes_sheet(decks: list[DeckArt], seed: int, cols: int = 4, rows: int = 3, tile: int = 320, size: tuple[int, int] = (640, 640)) -> np.ndarray:
    tiles = []
    for k in range(cols * rows):
        rng = np.random.default_rng([seed, k])
        scene = random_scene(rng, decks, size)
        img = cv2.resize(draw_labels(scene), (tile, tile), interpolation=cv2.INTER_AREA)
        cv2.putText(img, scene.deck, (4, tile - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(img)
    return np.vstack([np.hstack(tiles[r * cols : (r + 1) * cols]) for r in range(rows)])


def save_small_png(path: Path, bgr: np.ndarray) -> None:
    """256-colour PNG: the committed samples stay small (a few hundred kB)."""
    from PIL import Image

    Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)).quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["scenes", "decks", "samples"])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--decks", help="comma-separated deck names, or 'procedural'")
    a = ap.parse_args(argv)
    names = a.decks.split(",") if a.decks else None
    if a.what == "scenes":
        a.out.parent.mkdir(parents=True, exist_ok=True)
        save_small_png(a.out, scenes_sheet(_decks(names), a.seed))
    elif a.what == "samples":
        a.out.mkdir(parents=True, exist_ok=True)
        decks = _decks(names)
        for k in range(a.count):
            scene = random_scene(np.random.default_rng([a.seed, 1000 + k]), decks, (512, 512))
            save_small_png(a.out / f"scene_{k}.png", scene.image)
            save_small_png(a.out / f"scene_{k}_labels.png", draw_labels(scene))
    else:
        from vision.synth.decks import default_cache_dir

        sheets = []
        for n in names or available_decks():
            img = cv2.imread(str(default_cache_dir() / n / "contact.png"))
            if img is not None:
                img = cv2.resize(img, (1000, int(img.shape[0] * 1000 / img.shape[1])))
                cv2.putText(img, n, (8, img.shape[0] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
                sheets.append(img)
        cv2.imwrite(str(a.out), np.vstack(sheets))
    print(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
