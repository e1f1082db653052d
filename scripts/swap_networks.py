"""A candidate reader: a copy of a reader model folder with newly trained networks swapped in.

    python scripts/swap_networks.py MODEL_DIR OUT_DIR [--detector PT] [--classifier ONNX] [--classifier2 ONNX] [--int8-scenes 96]

MODEL_DIR is the reader the new networks join (the other networks and reader.json are copied
unchanged); OUT_DIR gets the copy. `--detector` is a trained `index_detector.pt` (`referee
train --stages detector`): exported (OpenVINO float IR + ONNX) and quantized to INT8 exactly as
the export stage does (vision/train/pipeline.py). `--classifier` is a trained
`index_classifier.onnx` (`--stages classifier`): copied and quantized the same way;
`--classifier2` the same for the second view (reader.json's `classifier2_file`). reader.json
keeps its file names, so OUT_DIR is a drop-in candidate for `--model` in the benchmarks.
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


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir", type=Path, help="reader model folder to copy (e.g. models)")
    ap.add_argument("out_dir", type=Path, help="where the candidate reader is written (must not be MODEL_DIR)")
    ap.add_argument("--detector", type=Path, help="trained index_detector.pt to swap in")
    ap.add_argument("--classifier", type=Path, help="trained index_classifier.onnx to swap in")
    ap.add_argument("--classifier2", type=Path, help="trained index_classifier.onnx to swap in as the second view")
    default_scenes = TrainConfig.__dataclass_fields__["int8_scenes"].default
    ap.add_argument("--int8-scenes", type=int, default=default_scenes, help=f"calibration tables for INT8 (default {default_scenes}, as the export stage)")
    args = ap.parse_args(argv)
    if args.detector is None and args.classifier is None and args.classifier2 is None:
        ap.error("nothing to swap: give --detector, --classifier and/or --classifier2")
    for name in ("detector", "classifier", "classifier2"):
        path = getattr(args, name)
        if path is not None and not path.is_file():
            ap.error(f"--{name} {path}: not found (train that stage first)")
    if not (args.model_dir / "reader.json").is_file():
        ap.error(f"{args.model_dir / 'reader.json'} not found: MODEL_DIR is not a reader model folder")
    if args.out_dir.resolve() == args.model_dir.resolve():
        ap.error("OUT_DIR must differ from MODEL_DIR (the shipped files are never overwritten here)")
    return args


def _swap_classifier(onnx_in: Path, out_dir: Path, meta: dict, key: str, scenes: list) -> str:
    """Copy a trained classifier in as reader.json's `{key}_file` ("classifier": the primary,
    "classifier2": the second view), quantized to INT8 when that file is an INT8 one."""
    from vision.train.quantize import quantize_classifier

    onnx = out_dir / ("index_classifier.onnx" if key == "classifier" else "index_classifier2.onnx")
    shutil.copyfile(onnx_in, onnx)
    if meta[f"{key}_file"] != onnx.name:
        quantize_classifier(onnx, scenes, out_dir / meta[f"{key}_file"], meta[f"{key}_size"], meta[f"{key}_pad"])
    return meta[f"{key}_file"]


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    from vision.train.quantize import calibration_scenes, quantize_detector
    from vision.train.train_detector import export_detector

    meta = json.loads((args.model_dir / "reader.json").read_text())
    args.out_dir.mkdir(parents=True, exist_ok=True)
    replaced: list[str] = []  # file-name prefixes of the networks written below, not copied
    if args.detector is not None:
        replaced.append("index_detector")
    if args.classifier is not None:
        replaced += ["index_classifier.", "index_classifier_"]  # not index_classifier2*: the second view stays
    if args.classifier2 is not None:
        if not meta.get("classifier2_file"):
            raise SystemExit(f"{args.model_dir / 'reader.json'} names no second view (classifier2_file)")
        replaced.append("index_classifier2")
    for f in args.model_dir.iterdir():
        if f.is_file() and not f.name.startswith(tuple(replaced)):
            shutil.copyfile(f, args.out_dir / f.name)
    scenes = calibration_scenes(args.int8_scenes)
    done = {"out": str(args.out_dir)}
    if args.detector is not None:
        hw = tuple(meta["detector_input_hw"])
        files = export_detector(args.detector, args.out_dir, hw)  # index_detector.{xml,bin,onnx,pt}
        if meta["detector_file"] != files["xml"].name:  # the shipped reader runs an INT8 detector
            quantize_detector(files["xml"], scenes, args.out_dir / meta["detector_file"], hw)
        done["detector"] = meta["detector_file"]
    for key, given in (("classifier", args.classifier), ("classifier2", args.classifier2)):
        if given is not None:
            done[key] = _swap_classifier(given, args.out_dir, meta, key, scenes)
    print(json.dumps(done))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
