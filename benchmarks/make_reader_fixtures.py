"""Generate the card reader's committed test fixtures (tests/fixtures/reader/).

    .venv/bin/python benchmarks/make_reader_fixtures.py

Small images rendered by the synth engine from held-out procedural decks (test seed
range of vision.synth.splits: designs the model never trained on, and our own art, so no
third-party artwork is committed): single cards close up, small tables and overlapped
cascades. truth.json lists, per image, the cards with a visible corner index.
`--markets` writes only the whole-card reader's fixtures (market_*.jpg, four separate cards
at camera scale, and market_truth.json: every card on them), leaving the others as they are.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
OUT = REPO / "tests" / "fixtures" / "reader"


def markets() -> int:
    """Four separate face-up cards at camera scale (cards ~70-130 px tall), held-out designs."""
    from tune_body import market_scene
    from vision.synth.procedural import make_procedural_deck

    rng = np.random.default_rng(4040)
    truth: dict[str, list[str]] = {}
    for k in range(3):
        scene = market_scene(rng, make_procedural_deck(2_000_200 + k))  # a 1280×720 frame ...
        pts = np.concatenate([c.quad for c in scene.cards])
        x1, y1 = np.maximum(pts.min(0) - 40, 0).astype(int)
        x2, y2 = np.minimum(pts.max(0) + 40, (1280, 720)).astype(int)
        name = f"market_{k}.jpg"  # ... cut to its market zone, at native resolution
        cv2.imwrite(str(OUT / name), scene.image[y1:y2, x1:x2], [cv2.IMWRITE_JPEG_QUALITY, 90])
        truth[name] = sorted(c.card for c in scene.cards if c.face_up)
    (OUT / "market_truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(json.dumps(truth, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markets", action="store_true",
                    help="write only the whole-card reader's fixtures (market_*.jpg, market_truth.json)")
    args = ap.parse_args(argv)  # --help answers before anything is written
    if args.markets:
        return markets()
    from bench_reader import cascade_scene
    from reader_eval import truth_cards
    from vision.synth.conditions import SceneConditions
    from vision.synth.layouts import random_scene
    from vision.synth.procedural import make_procedural_deck
    from vision.synth.scene import CardPlacement, compose_table

    OUT.mkdir(parents=True, exist_ok=True)
    decks = [make_procedural_deck(2_000_100 + i) for i in range(4)]
    rng = np.random.default_rng(2026)
    truth: dict[str, list[str]] = {}

    def save(name: str, scene) -> None:  # noqa: ANN001
        cv2.imwrite(str(OUT / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        truth[name] = sorted(t["card"] for t in truth_cards(scene).values())

    for k in range(3):  # single cards close up (indices ~50-70 px: the reader must rescale)
        deck = decks[k]
        card = str(rng.choice(deck.cards))
        p = CardPlacement(card, (200.0, 260.0), float(rng.uniform(-15, 15)), 420.0)
        save(f"closeup_{k}_{card}.jpg", compose_table([p], deck, (400, 520), SceneConditions.clean(), rng))
    for k in range(3):  # small tables, 640×360 (a 720p frame's zone at native resolution)
        save(f"table_{k}.jpg", random_scene(rng, decks[k : k + 2], size=(640, 360), card_height_range=(100, 170)))
    for k in range(2):  # overlapped cascades and hands, full 1280×720
        save(f"cascade_{k}.jpg", cascade_scene(rng, decks[3 - k], (1280, 720)))
    (OUT / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(json.dumps(truth, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
