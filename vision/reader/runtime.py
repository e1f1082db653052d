"""Exported-model runtime without torch: OpenVINO first, ONNX Runtime as fallback.

Also the detector's own pre-processing (letterbox) and post-processing (decode + NMS) for
ultralytics' raw export output `(1, 4 + nc, anchors)` with boxes as centre-x, centre-y,
width, height in input pixels.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np


class ModelError(RuntimeError):
    """A model file is missing, unreadable or not what the reader expects."""


class Session(Protocol):
    def run(self, x: np.ndarray) -> np.ndarray: ...

    def run_image(self, canvas_bgr: np.ndarray) -> np.ndarray:
        """One H×W×3 uint8 BGR image (already at the input size) -> network output."""
        ...

    def run_images(self, batch_bgr: np.ndarray) -> np.ndarray:
        """N×H×W×3 uint8 BGR crops (already at the input size) -> network output."""
        ...


class _OpenVinoSession:
    def __init__(self, path: Path, threads: int, image_input: bool = False, precision: str | None = None) -> None:
        import openvino as ov

        core = ov.Core()
        if path.suffix == ".onnx":  # the ONNX frontend only: no probing of other formats
            from openvino.frontend import FrontEndManager

            fe = FrontEndManager().load_by_framework("onnx")
            model = fe.convert(fe.load(str(path)))
        else:
            model = core.read_model(str(path), str(path.with_suffix(".bin")))
        self._image_input = image_input
        if image_input:  # uint8 BGR HWC in; conversion to RGB NCHW 0..1 runs inside the graph
            model = _image_preprocess(model)
        cfg: dict[str, object] = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1}
        if precision is not None:
            cfg["INFERENCE_PRECISION_HINT"] = precision
        self._compiled = core.compile_model(model, "CPU", cfg)
        self._request = self._compiled.create_infer_request()
        self._static = not model.inputs[0].get_partial_shape().is_dynamic

    def run(self, x: np.ndarray) -> np.ndarray:
        if self._image_input:
            raise TypeError("this session takes images: use run_image")
        self._request.infer({0: np.ascontiguousarray(x, np.float32)})
        return np.asarray(self._request.get_output_tensor(0).data).copy()

    def run_image(self, canvas_bgr: np.ndarray) -> np.ndarray:
        if not self._image_input:
            return self.run(to_blob(canvas_bgr))
        return self.run_images(canvas_bgr[None])

    def run_images(self, batch_bgr: np.ndarray) -> np.ndarray:
        if not self._image_input:
            return self.run(to_blobs(batch_bgr))
        self._request.infer({0: np.ascontiguousarray(batch_bgr, np.uint8)})
        return np.asarray(self._request.get_output_tensor(0).data).copy()


def _image_preprocess(model):  # noqa: ANN001, ANN202
    """Let OpenVINO take the letterboxed uint8 BGR canvas as is (saves a numpy/OpenCV pass)."""
    import openvino as ov
    from openvino.preprocess import ColorFormat, PrePostProcessor

    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC")).set_color_format(ColorFormat.BGR)
    ppp.input().preprocess().convert_element_type(ov.Type.f32).convert_color(ColorFormat.RGB).scale(255.0)
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    return ppp.build()


def to_blob(canvas_bgr: np.ndarray) -> np.ndarray:
    """H×W×3 uint8 BGR -> 1×3×H×W float RGB 0..1, in one OpenCV pass."""
    return cv2.dnn.blobFromImage(canvas_bgr, 1.0 / 255.0, swapRB=True)


def to_blobs(batch_bgr: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR -> (N, 3, H, W) float RGB 0..1: the classifiers' input, as
    trained (vision/train uses the same function)."""
    return batch_bgr[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def run_images(session: Session, batch_bgr: np.ndarray) -> np.ndarray:
    """`session.run_images`, for sessions that have it (the runtime's; test doubles may
    define `run` alone, which then gets the float input)."""
    run = getattr(session, "run_images", None)
    return run(batch_bgr) if run is not None else session.run(to_blobs(batch_bgr))


class _OrtSession:
    def __init__(self, path: Path, threads: int) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self._sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self._name = self._sess.get_inputs()[0].name

    def run(self, x: np.ndarray) -> np.ndarray:
        return self._sess.run(None, {self._name: np.ascontiguousarray(x, np.float32)})[0]

    def run_image(self, canvas_bgr: np.ndarray) -> np.ndarray:
        return self.run(to_blob(canvas_bgr))

    def run_images(self, batch_bgr: np.ndarray) -> np.ndarray:
        return self.run(to_blobs(batch_bgr))


def load_session(
    path: Path, threads: int = 2, backend: str = "auto", image_input: bool = False, precision: str | None = None
) -> Session:
    """Open an `.xml` (OpenVINO IR) or `.onnx` model; one clear ModelError on failure.
    image_input: the session will be fed uint8 BGR images (`run_image`, `run_images`): with
    OpenVINO the conversion to float RGB runs inside the graph (for the index classifiers,
    ~0.6 ms less a 1280×720 frame, identical logits; 2026-12-07).
    precision: OpenVINO's inference precision for a float model ("f32", "bf16"; None: the
    CPU's default, see `cpu_float_precision`); ONNX Runtime ignores it."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"model file not found: {path}")
    if path.suffix == ".xml" and not path.with_suffix(".bin").is_file():
        raise ModelError(f"OpenVINO weights missing next to {path} (expected {path.with_suffix('.bin').name})")
    order = {"auto": ("openvino", "onnxruntime"), "openvino": ("openvino",), "onnxruntime": ("onnxruntime",)}[backend]
    if path.suffix == ".xml":
        order = ("openvino",)
    errors: list[str] = []
    for name in order:
        try:
            if name == "openvino":
                return _OpenVinoSession(path, threads, image_input, precision)
            return _OrtSession(path, threads)
        except ImportError as exc:
            errors.append(f"{name} not installed ({exc})")
        except Exception as exc:  # noqa: BLE001 - every backend error means "cannot load this file"
            errors.append(f"{name}: {_reason(exc)}")
    raise ModelError(f"cannot load model {path}: " + "; ".join(errors))


@functools.cache
def cpu_float_precision() -> str:
    """The precision OpenVINO computes float models in on this CPU by default: "bf16" where
    the CPU has bfloat16 matrix units (AMX; OpenVINO's own choice), else "f32". "" without
    OpenVINO."""
    try:
        import openvino as ov

        return str(ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()).lower()
    except Exception:  # noqa: BLE001 - no OpenVINO, no CPU plugin: no preference
        return ""


def _reason(exc: Exception) -> str:
    """The informative line of a runtime's multi-line error (not its source location)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(("Exception from", "Check '", "FrontEnd API failed"))]
    text = (useful or lines or [type(exc).__name__])[-1]
    return text[:200]


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How an image was placed into the network input: input = image * scale + (dx, dy)."""

    scale: float
    dx: float
    dy: float

    def to_image(self, boxes: np.ndarray) -> np.ndarray:
        off = np.array([self.dx, self.dy, self.dx, self.dy], np.float32)
        return (boxes - off) / self.scale


def letterbox(image: np.ndarray, scale: float, input_hw: tuple[int, int]) -> tuple[np.ndarray, Letterbox]:
    """`letterbox_image`, then NCHW float RGB 0..1 (what the float network takes)."""
    canvas, lb = letterbox_image(image, scale, input_hw)
    return to_blob(canvas), lb


def letterbox_image(image: np.ndarray, scale: float, input_hw: tuple[int, int]) -> tuple[np.ndarray, Letterbox]:
    """Resize by `scale` (clipped to fit), pad to `input_hw` with grey 114 (ultralytics'
    value), top-left aligned so no pixel shifts by half a stride. Returns uint8 BGR HWC."""
    ih, iw = input_hw
    h, w = image.shape[:2]
    scale = min(scale, iw / w, ih / h)
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (nw, nh), interpolation=interp)
    canvas = np.full((ih, iw, 3), 114, np.uint8)
    canvas[:nh, :nw] = resized
    return canvas, Letterbox(scale=nw / w, dx=0.0, dy=0.0)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_thr: float) -> np.ndarray:
    """Greedy non-maximum suppression; returns kept indices by descending score."""
    order = np.argsort(-scores)
    x1, y1, x2, y2 = boxes.T
    areas = np.maximum(x2 - x1, 0) * np.maximum(y2 - y1, 0)
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        iw = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        ih = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = iw * ih
        iou = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9)
        order = rest[iou <= iou_thr]
    return np.asarray(keep, np.int64)


def decode_yolo(raw: np.ndarray, conf: float, iou: float, max_det: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """ultralytics raw output (1, 4+nc, A) -> (boxes xyxy in input px, scores), class-agnostic."""
    pred = raw[0]
    scores = pred[4:].max(axis=0)
    mask = scores >= conf
    if not mask.any():
        return np.zeros((0, 4), np.float32), np.zeros((0,), np.float32)
    cx, cy, w, h = pred[:4, mask]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    scores = scores[mask].astype(np.float32)
    keep = nms(boxes, scores, iou)[:max_det]
    return boxes[keep], scores[keep]
