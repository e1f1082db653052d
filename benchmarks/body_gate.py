"""Which whole-card outlines the "is a card" output turns away, and what a sure identity would
let back in (vision/reader/body.py, `BodyFusion.sure_identity_p`).

    .venv/bin/python benchmarks/body_gate.py [--split val] [--frames 20]

For every outline `card_outlines` finds on random tables and markets of each held-out family
(the scenes of tune_body.py), the network's P(card) and top identity, and whether the outline's
centre lies on a real card (and that card's identity). Prints, per family, the real outlines
under min_card_p (0.5) and, for each threshold J, how many of those the rule "top identity
≥ J" lets back in read right and read wrong, and how many non-card outlines it lets in.
Choose on `--split val`; `--split test` is for the report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("val", "test"), default="val")
    ap.add_argument("--frames", type=int, default=20, help="frames of each kind (market, table) per family")
    ap.add_argument("--seed", type=int, default=4321)
    ap.add_argument("--min-card-p", type=float, default=0.5)
    args = ap.parse_args()

    import cv2
    from bench_reader import held_out_decks
    from reader_eval import truth_cards
    from tune_body import market_scene
    from vision.reader.body import _body_top, card_outlines
    from vision.reader.reader import CardReader
    from vision.synth.layouts import random_scene

    reader = CardReader.load()
    assert reader.body is not None, "the model has no whole-card network"
    decks = {k: v for k, v in held_out_decks(4).items() if k.endswith(f"({args.split})")}
    rng = np.random.default_rng(args.seed)
    rows = []  # (family, P(card), top identity, its probability, true card under the centre or None)
    for fam, ds in decks.items():
        for k in range(2 * args.frames):
            deck = ds[int(rng.integers(len(ds)))]
            scene = market_scene(rng, deck) if k % 2 else random_scene(rng, [deck], size=(1280, 720))
            quads = card_outlines(scene.image)
            if not quads:
                continue
            reads = reader.body.classify(scene.image, quads)
            truth = list(truth_cards(scene).values())
            for q in range(len(reads)):
                top, p = _body_top(reads.rank_probs[q], reads.suit_probs[q], reader.meta.ranks, reader.meta.suits, 1)[0]
                cx, cy = (float(v) for v in reads.quads[q].mean(0))
                under = next((t["card"] for t in truth if cv2.pointPolygonTest(t["quad"].reshape(-1, 1, 2).astype(np.float32), (cx, cy), False) >= 0), None)
                rows.append((fam, float(reads.card_p[q]), top, p, under))
    for fam in [*decks, None]:
        rs = [r for r in rows if fam is None or r[0] == fam]
        real = [r for r in rs if r[4] is not None]
        fake = [r for r in rs if r[4] is None]
        low = [r for r in real if r[1] < args.min_card_p]
        print(f"{fam or 'ALL'}: {len(real)} outlines on cards, {len(low)} under P(card) {args.min_card_p} "
              f"({sum(r[2] == r[4] for r in low)} of them read right); {len(fake)} elsewhere")
        for j in (0.4, 0.5, 0.6, 0.7):
            right = sum(1 for r in low if r[3] >= j and r[2] == r[4])
            wrong = sum(1 for r in low if r[3] >= j and r[2] != r[4])
            extra = sum(1 for r in fake if r[1] < args.min_card_p and r[3] >= j)
            print(f"   top identity >= {j}: back in {right} right, {wrong} wrong; non-card outlines in {extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
