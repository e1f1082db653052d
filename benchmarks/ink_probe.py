"""Suit reads under recoloured ink: does the index classifier read the suit's shape or its colour?

    .venv/bin/python benchmarks/ink_probe.py [--model models] [--scenes 6] [--split val] [--network index|body]

Random 1280×720 tables of held-out deck families; the detector's index boxes are classified
once as rendered and once per ink colour, with the image screen-blended towards that colour
(paper stays white, black ink becomes the colour, red ink a lighter red): a four-colour deck's
blue, green, violet or gold spades and clubs. Per truth suit, the share read right and the
share read as a suit of the other colour pair (black <-> red). Only boxes the classifier takes
for an index (index_p >= min_index_p) and that match a labelled index (IoU >= 0.4) count.
`--network body`: the whole-card network instead, on the card outlines found in the image as
rendered (`body.card_outlines`) whose centre lies on a card whose face is at least 90 %
visible; its suit is the most probable of its suit output.
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


def probe(reader, decks: dict[str, list], scenes: int, seed: int, network: str = "index") -> dict[str, Counter]:  # noqa: ANN001
    from tqdm import tqdm

    from bench_reader import FRAME
    from vision.synth.layouts import random_scene

    rng = np.random.default_rng(seed)
    counts: dict[str, Counter] = {name: Counter() for name in INKS}
    reads = _body_suits if network == "body" else _index_suits
    bar = tqdm(total=len(decks) * scenes, desc="ink probe")
    for ds in decks.values():
        for _ in range(scenes):
            scene = random_scene(rng, ds, size=FRAME)
            places, truth = _places(reader, scene, network)
            for name, ink in INKS.items():
                for suit, got in zip(truth, reads(reader, recolour(scene.image, ink), places)):
                    if suit is None or got is None:
                        continue
                    counts[name][(suit, "n")] += 1
                    counts[name][(suit, "right")] += got == suit
                    counts[name][(suit, "crossed")] += PAIR[got] != PAIR[suit]
            bar.update()
    bar.close()
    return counts


def _places(reader, scene, network: str) -> tuple[list, list[str | None]]:  # noqa: ANN001
    """Where to read (index boxes, or card outlines) and the true suit at each (None: no card)."""
    if network == "index":
        boxes, _ = reader._detect(scene.image)
        return list(boxes), [_truth_suit(scene, b) for b in boxes]
    import cv2

    from vision.reader.body import card_outlines

    quads = card_outlines(scene.image)
    truth: list[str | None] = []
    for q in quads:
        c = tuple(float(v) for v in np.asarray(q).mean(0))
        on = [card for card in scene.cards if cv2.pointPolygonTest(np.asarray(card.quad, np.float32).reshape(-1, 1, 2), c, False) >= 0]
        top = on[-1] if on else None  # cards are listed bottom to top
        readable = top is not None and top.face_up and top.visible_fraction >= 0.9
        truth.append(str(top.card)[-1] if readable else None)
    return quads, truth


def _index_suits(reader, image: np.ndarray, boxes: list) -> list[str | None]:  # noqa: ANN001
    r = reader.classifier.classify(image, np.asarray(boxes, np.float32).reshape(-1, 4))
    return [reader.meta.suits[r.suit[i]] if r.index_p[i] >= reader.meta.min_index_p else None for i in range(len(boxes))]


def _body_suits(reader, image: np.ndarray, quads: list) -> list[str | None]:  # noqa: ANN001
    r = reader.body.classify(image, quads)
    return [reader.meta.suits[int(np.argmax(r.suit_probs[i]))] for i in range(len(quads))]


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
    ap.add_argument("--network", choices=("index", "body"), default="index",
                    help="the index classifier (default) or the whole-card network")
    args = ap.parse_args(argv)
    from bench_reader import held_out_decks
    from vision.reader.reader import CardReader

    reader = CardReader.load(args.model)
    decks = {k: v for k, v in held_out_decks(4).items() if args.split == "both" or f"({args.split})" in k}
    if args.network == "body" and reader.body is None:
        ap.error(f"{args.model} has no whole-card network")
    counts = probe(reader, decks, args.scenes, args.seed, args.network)
    print(f"model {args.model}, {args.network} network, {args.split} families, {args.scenes} tables each; per truth suit: read right / read as the other colour pair")
    print("| ink | " + " | ".join(f"{s} right / crossed" for s in "CDHS") + " | black suits right |")
    print("|---" * 6 + "|")
    for name, c in counts.items():
        cells = [f"{c[(s, 'right')] / max(c[(s, 'n')], 1):.2f} / {c[(s, 'crossed')] / max(c[(s, 'n')], 1):.2f}" for s in "CDHS"]
        black = (c[("C", "right")] + c[("S", "right")]) / max(c[("C", "n")] + c[("S", "n")], 1)
        print(f"| {name} | " + " | ".join(cells) + f" | {black:.2f} |")
    n = counts["as rendered"]
    print("reads per suit: " + ", ".join(f"{s} {n[(s, 'n')]}" for s in "CDHS"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
