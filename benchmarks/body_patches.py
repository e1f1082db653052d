"""Whole-card networks side by side on held-out patches (a body round's val.npz / test.npz).

    .venv/bin/python benchmarks/body_patches.py runs/reader-body4/body/val.npz \
        --body runs/body-round2/card_body.onnx --body runs/reader-body4/card_body.onnx

Per deck family: rank-and-suit accuracy on face-up cards, suit and rank accuracy, and the
"is a face-up card" output's precision / recall at 0.5 (`train_body.evaluate`), each network
run with ONNX Runtime on the same patches as `BodyClassifier` feeds them (float network;
the INT8 runtime copy reads within about 0.001 of it). Why: a new round's report scores only
the new network, and a round's val / test scenes change with its seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def run_onnx(path: Path, patches: np.ndarray, batch: int = 512) -> np.ndarray:
    from vision.reader.runtime import load_session
    from vision.train.train_body import to_tensor

    sess = load_session(path, threads=2, backend="onnxruntime")
    return np.concatenate([sess.run(to_tensor(patches[i : i + batch]).numpy()) for i in range(0, len(patches), batch)])


def main(argv: list[str] | None = None) -> int:
    from vision.train.train_body import evaluate, load_patches

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patches", type=Path, help="a body round's val.npz or test.npz")
    ap.add_argument("--body", type=Path, action="append", required=True, help="a card_body.onnx (repeat to compare)")
    ap.add_argument("--json", action="store_true", help="print the full results as one JSON object")
    a = ap.parse_args(argv)
    for p in (a.patches, *a.body):
        if not p.is_file():
            ap.error(f"not found: {p}")
    data = load_patches(a.patches)
    res = {str(b): evaluate(run_onnx(b, data["patches"]), data) for b in a.body}
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    fams = list(next(iter(res.values())))
    print(f"{a.patches} ({len(data['rank'])} patches): rank and suit right / suit right / is-card recall")
    print("| family | cards | " + " | ".join(str(b) for b in a.body) + " |")
    print("|---|---|" + "---|" * len(a.body))
    for f in fams:
        cells = [f"{r[f]['card_acc']:.3f} / {r[f]['suit_acc']:.3f} / {r[f]['is_card_recall']:.2f}" for r in res.values()]
        print(f"| {f} | {next(iter(res.values()))[f]['cards']} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
