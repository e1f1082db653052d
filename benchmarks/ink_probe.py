"""Suit reads under recoloured ink: does the index classifier read the suit's shape or its colour?

    .venv/bin/python benchmarks/ink_probe.py [--model models] [--scenes 6] [--split val]

Random 1280×720 tables of held-out deck families; the detector's index boxes are classified
once as rendered and once per ink colour, with the image screen-blended towards that colour
(paper stays white, black ink becomes the colour, red ink a lighter red): a four-colour deck's
blue, green, violet or gold spades and clubs. Per truth suit, the share read right and the
share read as a suit of the other colour pair (black <-> red). Only boxes the classifier takes
for an index (index_p >= min_index_p) and that match a labelled index (IoU >= 0.4) count.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from reader_eval import _iou  # noqa: E402

# BGR ink colours of the probe ("grey": black printed light, as a washed-out camera shows it)
INKS: dict[str, tuple[int, int, int] | None] = {
    "as rendered": None, "blue": (200, 60, 40), "violet": (170, 90, 120), "green": (60, 140, 40),
    "gold": (40, 170, 210), "grey": (110, 110, 110),
}
PAIR = {"C": "black", "S": "black", "D": "red", "H": "red"}


def recolour(image: np.ndarray, ink: tuple[int, int, int] | None) -> np.ndarray:
    if ink is None:
        return image
    c = np.asarray(ink, np.float32) / 255.0
    x = 1.0 - (1.0 - image.astype(np.float32) / 255.0) * (1.0 - c)
    return (x * 255.0).round().astype(np.uint8)


def probe(reader, decks: dict[str, list], scenes: int, seed: int) -> dict[str, Counter]:  # noqa: ANN001
    from tqdm import tqdm

    from bench_reader import FRAME
    from vision.synth.layouts import random_scene

    rng = np.random.default_rng(seed)
    counts: dict[str, Counter] = {name: Counter() for name in INKS}
    bar = tqdm(total=len(decks) * scenes, desc="ink probe")
    for ds in decks.values():
        for _ in range(scenes):
            scene = random_scene(rng, ds, size=FRAME)
            boxes, _ = reader._detect(scene.image)
            truth = [_truth_suit(scene, b) for b in boxes]
            for name, ink in INKS.items():
                r = reader.classifier.classify(recolour(scene.image, ink), boxes)
                for i, suit in enumerate(truth):
                    if suit is None or r.index_p[i] < reader.meta.min_index_p:
                        continue
                    got = reader.meta.suits[r.suit[i]]
                    counts[name][(suit, "n")] += 1
                    counts[name][(suit, "right")] += got == suit
                    counts[name][(suit, "crossed")] += PAIR[got] != PAIR[suit]
            bar.update()
    bar.close()
    return counts


def _truth_suit(scene, box: np.ndarray) -> str | None:  # noqa: ANN001
    best, suit = 0.0, None
    for lb in scene.labels:
        v = _iou(np.asarray(lb.box, np.float32), box)
        if v > best:
            best, suit = v, str(lb.card)[-1]
    return suit if best >= 0.4 else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="reader model folder (default: models/)")
    ap.add_argument("--scenes", type=int, default=6, help="tables per held-out family")
    ap.add_argument("--split", choices=("val", "test", "both"), default="val", help="held-out families to use")
    ap.add_argument("--seed", type=int, default=5, help="scene seed")
    args = ap.parse_args(argv)
    from bench_reader import held_out_decks
    from vision.reader.reader import CardReader

    reader = CardReader.load(args.model)
    decks = {k: v for k, v in held_out_decks(4).items() if args.split == "both" or f"({args.split})" in k}
    counts = probe(reader, decks, args.scenes, args.seed)
    print(f"model {args.model}, {args.split} families, {args.scenes} tables each; per truth suit: read right / read as the other colour pair")
    print("| ink | " + " | ".join(f"{s} right / crossed" for s in "CDHS") + " | black suits right |")
    print("|---" * 6 + "|")
    for name, c in counts.items():
        cells = [f"{c[(s, 'right')] / max(c[(s, 'n')], 1):.2f} / {c[(s, 'crossed')] / max(c[(s, 'n')], 1):.2f}" for s in "CDHS"]
        black = (c[("C", "right")] + c[("S", "right")]) / max(c[("C", "n")] + c[("S", "n")], 1)
        print(f"| {name} | " + " | ".join(cells) + f" | {black:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
