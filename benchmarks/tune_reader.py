"""Choose the reader's thresholds on the VAL families only (test families stay untouched).

    .venv/bin/python benchmarks/tune_reader.py --model models [--frames 20]

Reads each frame once at the most permissive detector threshold, then replays grouping
for every (detector_conf, min_index_p, min_card_p) and both grouping modes (fused: the two
corners' distributions combined; plain: each index read alone) and prints card-level F1.
`--reassign 0,0.8` also replays the fused rows with each `reassign_below` (grouping.py: a
weaker duplicate re-read without the identity a surer card holds; 0 = off).
`--deck khmer` (or `piquet`) draws the tables from that game's cards only and replays the
fused rows with and without telling the grouping which cards the deck holds (`allowed`).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from reader_eval import Score, score_frame  # noqa: E402
from vision.reader.reader import PRECISIONS  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="model folder")
    ap.add_argument("--frames", type=int, default=20, help="frames per val family")
    ap.add_argument("--seed", type=int, default=777, help="scene seed (differs from the benchmark's)")
    ap.add_argument("--reassign", default=None, help="comma-separated reassign_below values for the fused rows (default: the model's)")
    ap.add_argument("--deck", choices=("full", "khmer", "piquet"), default="full", help="cards on the tables (a game's deck)")
    ap.add_argument("--precision", choices=PRECISIONS, default="auto",
                    help="detector precision (CardReader.load): auto = the float detector, bf16 where the CPU computes it natively, else f32")
    args = ap.parse_args()

    from bench_reader import held_out_decks
    from referee.cards import deck_identities
    from tqdm import tqdm
    from vision.reader.reader import CardReader
    from vision.synth.layouts import random_scene

    reader = CardReader.load(args.model, precision=args.precision)
    print(f"detector: {reader.detector_file}")
    m = reader.meta
    shipped_geom = m.geometry
    reassigns = [float(v) for v in args.reassign.split(",")] if args.reassign else [shipped_geom.reassign_below]
    current = (m.fuse_indices, m.detector_conf, m.min_index_p, m.min_card_p)  # what reader.json ships
    reader.detector.conf = 0.02
    reader.meta.min_index_p = 0.0
    # A two-view reader keeps asking its second view only about boxes at or above the shipped
    # min_index_p (TwoViewClassifier.min_index_p): rows at that value are exact, rows below it
    # are without the second view for the extra boxes they let in.
    decks = {k: v for k, v in held_out_decks(4).items() if k.endswith("(val)")}
    allowed = None if args.deck == "full" else deck_identities(args.deck)  # as the tracker passes it
    if allowed is not None:  # the game's cards only; two of a card may then lie on a table
        decks = {k: [replace(d, faces={c: f for c, f in d.faces.items() if c in allowed}) for d in ds] for k, ds in decks.items()}
    two_decks = allowed is not None
    knowns = (None, allowed) if allowed is not None else (None,)
    rng = np.random.default_rng(args.seed)
    frames = []
    for fam, ds in tqdm(list(decks.items()), desc="val families"):
        for _ in range(args.frames):
            scene = random_scene(rng, ds, size=(1280, 720))
            frames.append((scene, reader.read_indices(scene.image)))
    grid = itertools.product((True, False), (0.02, 0.05, 0.1, 0.2), (0.3, 0.5, 0.7), (0.2, 0.3, 0.5, 0.7), reassigns, knowns)
    rows = []
    for fuse, dc, ip, cp, ra, known in grid:
        if not fuse and (ra != reassigns[0] or known is not None):
            continue  # re-reading and conditioning on the deck need the fused posteriors
        reader.meta.fuse_indices, reader.meta.min_card_p = fuse, cp  # stage c as the reader runs it
        reader.meta.geometry = replace(shipped_geom, reassign_below=ra)
        total = Score()
        for scene, obs in frames:
            kept = [o for o in obs if o.det >= dc and o.index_p >= ip]
            total.add(score_frame(scene, reader.detections_from(kept, two_decks, known)))
        rows.append((total.f1, fuse, dc, ip, cp, ra, known is not None, total.precision, total.recall))
    rows.sort(reverse=True)
    print(f"tables: {args.deck} deck, {len(frames)} frames")
    print("F1     fused det_conf min_index_p min_card_p reassign deck_known  P      R")
    shipped = [r for r in rows if r[1:5] in (current[:4], (not current[0], *current[1:4]))]
    for f1, fuse, dc, ip, cp, ra, kn, p, r in rows[:12] + shipped:
        print(f"{f1:.4f} {fuse!s:5} {dc:8.2f} {ip:11.2f} {cp:10.2f} {ra:8.2f} {kn!s:10}  {p:.3f}  {r:.3f}")
    for fuse in (True, False):
        best = max(r for r in rows if r[1] == fuse)
        print(
            f"best {'fused' if fuse else 'plain'}: F1 {best[0]:.4f} at det_conf {best[2]}, min_index_p {best[3]}, "
            f"min_card_p {best[4]}, reassign {best[5]}, deck known {best[6]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
