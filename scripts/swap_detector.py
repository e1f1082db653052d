"""A detector-only round: a copy of a reader model folder with a newly trained detector.

    python scripts/swap_detector.py RUN_DIR MODEL_DIR OUT_DIR [--int8-scenes 96]

RUN_DIR holds the trained `index_detector.pt` (`referee train --stages detector`); MODEL_DIR
is the reader it joins (classifiers, whole-card network, reader.json: copied unchanged);
OUT_DIR gets the copy with the detector exported (OpenVINO float IR + ONNX) and quantized
to INT8 exactly as the export stage does (vision/train/pipeline.py). reader.json keeps its
file names, so OUT_DIR is a drop-in candidate for `--model` in the benchmarks.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.train.config import TrainConfig  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", type=Path, help="training run folder holding index_detector.pt")
    ap.add_argument("model_dir", type=Path, help="reader model folder to copy (e.g. models)")
    ap.add_argument("out_dir", type=Path, help="where the candidate reader is written (must not be MODEL_DIR)")
    default_scenes = TrainConfig.__dataclass_fields__["int8_scenes"].default
    ap.add_argument("--int8-scenes", type=int, default=default_scenes, help=f"calibration tables for INT8 (default {default_scenes}, as the export stage)")
    args = ap.parse_args(argv)
    weights = args.run_dir / "index_detector.pt"
    meta_path = args.model_dir / "reader.json"
    if not weights.is_file():
        ap.error(f"{weights} not found: run the detector stage first")
    if not meta_path.is_file():
        ap.error(f"{meta_path} not found: MODEL_DIR is not a reader model folder")
    if args.out_dir.resolve() == args.model_dir.resolve():
        ap.error("OUT_DIR must differ from MODEL_DIR (the shipped files are never overwritten here)")

    from vision.train.quantize import calibration_scenes, quantize_detector
    from vision.train.train_detector import export_detector

    meta = json.loads(meta_path.read_text())
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for f in args.model_dir.iterdir():
        if f.is_file() and not f.name.startswith("index_detector"):
            shutil.copyfile(f, args.out_dir / f.name)
    hw = tuple(meta["detector_input_hw"])
    files = export_detector(weights, args.out_dir, hw)  # index_detector.{xml,bin,onnx,pt}
    int8_name = meta["detector_file"]
    if int8_name != files["xml"].name:  # the shipped reader runs an INT8 detector
        quantize_detector(files["xml"], calibration_scenes(args.int8_scenes), args.out_dir / int8_name, hw)
    print(json.dumps({"out": str(args.out_dir), "detector": int8_name, "float": files["xml"].name}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
