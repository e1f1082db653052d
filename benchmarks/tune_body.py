"""Choose how whole-card reads join corner reads (vision/reader/body.py) on the VAL families.

    .venv/bin/python benchmarks/tune_body.py --body runs/body/card_body.onnx [--frames 30] [--split val]

Reads each frame once with the shipped corner reader and once with the whole-card network,
then replays `fuse_bodies` for every (min_card_p, add_p, fuse, weight, skip_above) and prints card-level
F1 on two kinds of 1280×720 frames: random tables (the reader benchmark's) and markets
(four separate face-up cards at camera scale, the tracker's main case). `--split test`
prints the held-out test families' figures for the settings named by --pick (several:
separated by ';'). `--scale 0.5` reads every frame shrunk to half size (a lower-resolution
camera with the same view: a 640×360 frame, cards about 35 px wide) and scores the reads
scaled back.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from reader_eval import Score, score_frame  # noqa: E402


def market_scene(rng: np.random.Generator, deck, size: tuple[int, int] = (1280, 720)):  # noqa: ANN001, ANN201
    """Four separate face-up cards near the centre (a Kemps market), at camera scale."""
    from vision.synth.conditions import SceneConditions
    from vision.synth.scene import CardPlacement, compose_table

    h = float(rng.uniform(70, 130))
    cx, cy = size[0] / 2 + rng.uniform(-150, 150), size[1] / 2 + rng.uniform(-80, 80)
    base = rng.uniform(-20, 20)
    cards = rng.choice(deck.cards, size=4, replace=False)
    gap = h * rng.uniform(0.85, 1.2)
    places = [
        CardPlacement(str(c), (cx + (i % 2 - 0.5) * gap * (1.3 if rng.random() < 0.5 else 1.0), cy + (i // 2 - 0.5) * gap * 1.25), base + rng.uniform(-12, 12), h)
        for i, c in enumerate(cards)
    ]  # fmt: skip
    return compose_table(places, deck, size, SceneConditions.random(rng), rng)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models"), help="corner-reader model folder")
    ap.add_argument("--body", required=True, help="whole-card network (.onnx)")
    ap.add_argument("--frames", type=int, default=30, help="frames of each kind per family")
    ap.add_argument("--split", choices=("val", "test"), default="val")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--pick", default=None, help="min_card_p,add_p,fuse,weight,skip_above[,sure_identity_p]: print only this setting, by family (several: separated by ';')")
    ap.add_argument("--scale", type=float, default=1.0, help="read each frame resized by this factor (0.5: a 640×360 camera); default 1")
    args = ap.parse_args()

    from bench_reader import held_out_decks
    from tqdm import tqdm
    from vision.reader.body import BodyClassifier, BodyFusion, BodyReads, card_outlines, fuse_bodies, unsure_mask
    from vision.reader.reader import CardReader
    from vision.reader.runtime import load_session
    from vision.synth.layouts import random_scene

    reader = CardReader.load(args.model)
    reader.body = None
    body = BodyClassifier(load_session(Path(args.body), 2), (44, 64))
    decks = {k: v for k, v in held_out_decks(4).items() if k.endswith(f"({args.split})")}
    rng = np.random.default_rng(args.seed)
    frames = []  # (kind, family, scene, corner detections, body reads)
    for fam, ds in tqdm(list(decks.items()), desc=f"{args.split} families"):
        for k in range(2 * args.frames):
            kind = "market" if k % 2 else "table"
            deck = ds[int(rng.integers(len(ds)))]
            scene = market_scene(rng, deck) if kind == "market" else random_scene(rng, [deck], size=(1280, 720))
            image = scene.image if args.scale == 1 else cv2.resize(scene.image, None, fx=args.scale, fy=args.scale, interpolation=cv2.INTER_AREA)
            frames.append((kind, fam, scene, reader.read(image), body.classify(image, card_outlines(image))))

    def unsure(det, reads: BodyReads, skip: float) -> BodyReads:  # noqa: ANN001
        m = unsure_mask(det, reads.quads, skip)
        return BodyReads(reads.quads[m], reads.rank_probs[m], reads.suit_probs[m], reads.card_p[m])

    def score(cfg: BodyFusion | None, kind: str, fam: str | None = None, skip: float = 1.0) -> Score:
        total = Score()
        for k, f, scene, det, reads in frames:
            if k == kind and (fam is None or f == fam):
                out = det if cfg is None else fuse_bodies(det, unsure(det, reads, skip), reader.meta.ranks, reader.meta.suits, cfg)
                total.add(score_frame(scene, out.scaled(1 / args.scale)))
        return total

    for pick in args.pick.split(";") if args.pick else []:
        mc, ap_, fu, w, sk, *sure = pick.split(",")
        cfg = BodyFusion(float(mc), float(ap_), fu.lower() in ("1", "true"), float(w), sure_identity_p=float(sure[0]) if sure else None)
        print(f"setting {pick} (scale {args.scale:g})")
        print("family                         kind    corner-only F1  with bodies F1")
        for fam in [*decks, None]:
            for kind in ("market", "table"):
                a, b = score(None, kind, fam), score(cfg, kind, fam, float(sk))
                print(f"{fam or 'ALL':30} {kind:7} {a.f1:.3f} (P {a.precision:.2f} R {a.recall:.2f})  {b.f1:.3f} (P {b.precision:.2f} R {b.recall:.2f})")
    if args.pick:
        return 0
    base = {kind: score(None, kind) for kind in ("market", "table")}
    print(f"corner reads only: market F1 {base['market'].f1:.4f}, table F1 {base['table'].f1:.4f}")
    rows = []
    grid = itertools.product((0.3, 0.5, 0.7), (0.2, 0.35, 0.5), (False, True), (0.5, 1.0), (0.8, 0.9, 1.0))
    for mc, ap_, fu, w, sk in grid:
        if not fu and w != 1.0:
            continue
        cfg = BodyFusion(mc, ap_, fu, w)
        m, t = score(cfg, "market", skip=sk), score(cfg, "table", skip=sk)
        rows.append(((m.f1 + t.f1) / 2, m.f1, t.f1, mc, ap_, fu, w, sk))
    rows.sort(reverse=True)
    print("mean   market table  min_card_p add_p fuse  weight skip_above")
    for r in rows[:20]:
        print(f"{r[0]:.4f} {r[1]:.4f} {r[2]:.4f} {r[3]:10.2f} {r[4]:5.2f} {r[5]!s:5} {r[6]:.1f}    {r[7]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
