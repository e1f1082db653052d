"""INT8 post-training quantization of the exported reader networks (NNCF + OpenVINO).

The CPU here has VNNI: 8-bit convolutions run about twice as fast as float ones. NNCF
calibrates activation ranges on inputs that look like the runtime's own:
- detector: synthetic 1280×720 tables from TRAINING decks, letterboxed exactly as the
  runtime does (`vision.reader.runtime.letterbox`), so no held-out deck leaks in;
- classifier: the runtime's crops around the true indices of those tables, plus crops of
  look-alike places (the classifier also says "not an index");
- whole-card network (`quantize_body`): its own training patches, cards and non-cards.
The detection head's box arithmetic stays in float (ultralytics quantizes YOLO the same
way), so boxes keep their sub-pixel precision. The float models are kept beside the INT8
ones: `reader.json` names which files the runtime loads, and the benchmark measures both.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def calibration_scenes(n: int, seed: int = 12345, frame: tuple[int, int] = (1280, 720)) -> list:
    """Synthetic tables drawn from training designs only (procedural train seeds)."""
    from vision.synth.layouts import random_scene
    from vision.synth.procedural import make_procedural_deck

    rng = np.random.default_rng(seed)
    decks = [make_procedural_deck(int(s)) for s in rng.choice(400, size=min(8, max(1, n // 4)), replace=False)]
    return [random_scene(rng, decks, size=frame) for _ in range(n)]


def _save(model, path: Path) -> Path:  # noqa: ANN001
    import openvino as ov

    path.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def quantize_detector(xml: Path, scenes: list, out_xml: Path, input_hw: tuple[int, int], scale: float = 0.5) -> Path:
    import nncf
    import openvino as ov

    from vision.reader.runtime import letterbox

    model = ov.Core().read_model(str(xml))
    items = [letterbox(s.image, scale, input_hw)[0] for s in scenes]
    # the Detect head's decoding (DFL softmax, anchor arithmetic) is left in float
    ignored = nncf.IgnoredScope(types=["Sigmoid", "Softmax"], patterns=[".*/dfl/.*", ".*Sub.*", ".*Add_[0-9]*$"], validate=False)
    q = nncf.quantize(
        model, nncf.Dataset(items), preset=nncf.QuantizationPreset.MIXED, subset_size=len(items), ignored_scope=ignored
    )
    return _save(q, out_xml)


def quantize_classifier(onnx: Path, scenes: list, out_xml: Path, size: int, pad: float) -> Path:
    import nncf
    import openvino as ov

    from vision.reader.classifier import to_input
    from vision.reader.crops import square_crops

    model = ov.Core().read_model(str(onnx))
    items = []
    rng = np.random.default_rng(0)
    for s in scenes:
        boxes = np.array([lb.box for lb in s.labels], np.float32).reshape(-1, 4)
        if not len(boxes):
            continue
        shift = (rng.random(boxes.shape) - 0.5) * 0.3 * (boxes[:, 2:3] - boxes[:, 0:1])
        jitter = np.concatenate([boxes, boxes + shift * 4])  # true indices and near misses
        crops = to_input(square_crops(s.image, jitter, size, pad))
        items += [crops[i : i + 64] for i in range(0, len(crops), 64)]
    q = nncf.quantize(model, nncf.Dataset(items), preset=nncf.QuantizationPreset.MIXED, subset_size=min(len(items), 300))
    return _save(q, out_xml)


def quantize_reader(
    model_dir: Path, input_hw: tuple[int, int], crop_size: int, crop_pad: float, n_scenes: int = 96,
    scenes: list | None = None,
) -> dict[str, Path]:
    """Write index_detector_int8.xml/.bin and index_classifier_int8.xml/.bin in model_dir
    from its float index_detector.xml and index_classifier.onnx (`scenes`: calibration
    tables already drawn, else `n_scenes` of them)."""
    scenes = calibration_scenes(n_scenes) if scenes is None else scenes
    return {
        "detector": quantize_detector(model_dir / "index_detector.xml", scenes, model_dir / "index_detector_int8.xml", input_hw),
        "classifier": quantize_classifier(
            model_dir / "index_classifier.onnx", scenes, model_dir / "index_classifier_int8.xml", crop_size, crop_pad
        ),
    }


def quantize_body(onnx: Path, patches: np.ndarray, out_xml: Path, n: int = 2048, seed: int = 0) -> Path:
    """INT8 copy of the whole-card network, calibrated on `n` of its TRAINING patches
    ((N, H, W, 3) BGR uint8, as `body_data` stores them: cards and non-cards alike)."""
    import nncf
    import openvino as ov

    from vision.reader.classifier import to_input

    model = ov.Core().read_model(str(onnx))
    pick = np.random.default_rng(seed).choice(len(patches), size=min(n, len(patches)), replace=False)
    x = np.ascontiguousarray(to_input(patches[np.sort(pick)]))
    items = [x[i : i + 64] for i in range(0, len(x), 64)]
    q = nncf.quantize(model, nncf.Dataset(items), preset=nncf.QuantizationPreset.MIXED, subset_size=len(items))
    return _save(q, out_xml)
