"""Runtime pieces without a trained model: letterbox, NMS, YOLO decoding, crops."""

from __future__ import annotations

import numpy as np

from vision.reader.crops import square_crops
from vision.reader.detector import IndexDetector
from vision.reader.runtime import decode_yolo, letterbox, nms


def test_letterbox_maps_boxes_back() -> None:
    img = np.zeros((720, 1280, 3), np.uint8)
    x, lb = letterbox(img, 0.5, (384, 640))
    assert x.shape == (1, 3, 384, 640) and x.dtype == np.float32
    assert lb.scale == 0.5
    back = lb.to_image(np.array([[10, 20, 30, 40]], np.float32))
    assert back.tolist() == [[20, 40, 60, 80]]


def test_letterbox_never_overflows_the_input() -> None:
    x, lb = letterbox(np.zeros((1000, 300, 3), np.uint8), 1.0, (384, 640))
    assert x.shape == (1, 3, 384, 640) and lb.scale <= 384 / 1000 + 1e-6


def test_nms_keeps_the_best_of_overlapping_boxes() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]], np.float32)
    keep = nms(boxes, np.array([0.5, 0.9, 0.7], np.float32), 0.5)
    assert keep.tolist() == [1, 2]


def test_decode_yolo_converts_centre_width_height() -> None:
    raw = np.zeros((1, 5, 3), np.float32)
    raw[0, :, 0] = [100, 50, 20, 10, 0.9]
    raw[0, :, 1] = [101, 50, 20, 10, 0.8]  # duplicate of the first
    raw[0, :, 2] = [300, 50, 20, 10, 0.1]  # below threshold
    boxes, scores = decode_yolo(raw, conf=0.25, iou=0.5)
    assert boxes.tolist() == [[90, 45, 110, 55]] and scores.tolist() == [np.float32(0.9)]


class _FakeSession:
    """Returns one box at the centre of whatever input it gets; records input shapes."""

    def __init__(self) -> None:
        self.calls = 0

    def run(self, x: np.ndarray) -> np.ndarray:
        self.calls += 1
        raw = np.zeros((1, 5, 1), np.float32)
        raw[0, :, 0] = [20, 20, 10, 10, 0.9]
        return raw

    def run_image(self, canvas_bgr: np.ndarray) -> np.ndarray:
        assert canvas_bgr.dtype == np.uint8 and canvas_bgr.shape == (384, 640, 3)  # the input size, as is
        return self.run(canvas_bgr)


def test_detector_tiles_large_images_and_maps_to_image_px() -> None:
    sess = _FakeSession()
    det = IndexDetector(sess, (384, 640))
    boxes, _ = det.detect(np.zeros((720, 1280, 3), np.uint8), 0.5)  # fits: one pass
    assert sess.calls == 1 and boxes.tolist() == [[30, 30, 50, 50]]
    sess.calls = 0
    boxes, _ = det.detect(np.zeros((720, 1280, 3), np.uint8), 1.0)  # needs tiles
    assert sess.calls == 6 and len(boxes) == 6  # 3 x 2 overlapping 640x384 windows


def test_square_crops_are_centred_and_sized() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    img[40:60, 45:55] = 255  # a 10x20 white "index"
    crops = square_crops(img, np.array([[45, 40, 55, 60]], np.float32), 40, 1.0)
    assert crops.shape == (1, 40, 40, 3)
    row = crops[0, 20, :, 0]
    assert row[20] == 255 and row[2] == 0  # white in the middle, black at the sides
    # boxes outside the image still give a crop (border replicated), never an error
    assert square_crops(img, np.array([[500, 500, 510, 520]], np.float32), 40, 1.25).shape == (1, 40, 40, 3)


def test_letterbox_is_rgb_in_zero_one_with_grey_padding() -> None:
    img = np.zeros((10, 20, 3), np.uint8)
    img[..., 0] = 255  # blue in BGR
    x, _ = letterbox(img, 1.0, (16, 32))
    assert np.allclose(x[0, 2, :10, :20], 1.0) and np.allclose(x[0, 0, :10, :20], 0.0)  # B went to channel 2
    assert np.allclose(x[0, :, 12, 25], 114 / 255)


def test_read_json_boxes_are_clipped_to_the_image() -> None:
    from vision.types import CardDetections

    det = CardDetections(
        xyxy=np.array([[-20, 5, 50, 900]], np.float32), confidence=np.array([0.9], np.float32),
        cards=["QS"], index_boxes=[[(0, 5, 10, 20)]],
    )  # fmt: skip
    assert det.to_json((640, 360))[0]["box"] == [0.0, 5.0, 50.0, 360.0]
    assert det.to_json()[0]["box"] == [-20.0, 5.0, 50.0, 900.0]


def test_image_input_session_matches_the_float_input() -> None:
    """The detector session converts uint8 BGR inside the graph: the same detections as
    with the float blob (rounding differs slightly: the /255 is folded into the graph)."""
    from pathlib import Path

    import cv2
    import pytest

    from vision.reader.reader import DEFAULT_MODEL_DIR
    from vision.reader.runtime import letterbox_image, load_session, to_blob

    xml = Path(DEFAULT_MODEL_DIR) / "index_detector.xml"
    frame = Path(__file__).resolve().parents[1] / "fixtures" / "reader" / "cascade_0.jpg"
    if not xml.is_file() or not frame.is_file():
        pytest.skip("no shipped model or fixture")
    canvas, _ = letterbox_image(cv2.imread(str(frame)), 0.5, (384, 640))
    ba, sa = decode_yolo(load_session(xml, 1, image_input=True).run_image(canvas), 0.25, 0.5)
    bb, sb = decode_yolo(load_session(xml, 1).run(to_blob(canvas)), 0.25, 0.5)
    assert len(ba) == len(bb) > 5
    # near-equal scores may swap places in NMS order: match each box to its nearest twin
    # (round 6's detector: one box of 22 moved by exactly 1 px, the others by at most 0.375 px)
    nearest = np.abs(ba[:, None, :] - bb[None, :, :]).max(axis=2).min(axis=1)
    assert np.median(nearest) < 0.25 and nearest.max() < 2.0
    assert abs(float(np.sort(sa).sum() - np.sort(sb).sum())) < 1e-2 * len(sa)


def test_padded_classifier_batches_give_the_same_logits() -> None:
    """Batches are padded to a multiple of BUCKET (one compiled shape per bucket, not per
    count): the padding must not change any crop's result."""
    from vision.reader.classifier import BUCKET, IndexClassifier

    class Recording:
        shapes: list[int] = []

        def run(self, x: np.ndarray) -> np.ndarray:
            self.shapes.append(len(x))
            return x.reshape(len(x), -1)[:, :5] * 2.0  # per-crop: any padding leak would show

    sess = Recording()
    clf = IndexClassifier(sess, size=8, pad=1.5, n_ranks=2, n_suits=1, batch=16)  # type: ignore[arg-type]
    crops = np.random.default_rng(0).integers(0, 255, (21, 8, 8, 3), dtype=np.uint8)
    out = clf.logits(crops)
    one_by_one = np.concatenate([clf.logits(crops[i : i + 1]) for i in range(len(crops))])
    assert out.shape == (21, 5) and np.array_equal(out, one_by_one)
    assert all(n % BUCKET == 0 for n in sess.shapes)


def test_uint8_crop_sessions_give_the_float_inputs_logits() -> None:
    """The classifiers take uint8 BGR crops and convert them inside the OpenVINO graph
    (`image_input=True`, `run_images`); measured 2026-12-07 on the shipped INT8 files: the
    same logits as the float RGB input the networks were trained on, to the last bit. The
    test allows float rounding in case another OpenVINO version folds the /255 elsewhere."""
    from pathlib import Path

    import pytest

    from vision.reader.reader import DEFAULT_MODEL_DIR
    from vision.reader.runtime import load_session, run_images, to_blobs

    rng = np.random.default_rng(0)
    for name, (h, w) in (("index_classifier_int8.xml", (48, 48)), ("card_body_int8.xml", (64, 44))):
        xml = Path(DEFAULT_MODEL_DIR) / name
        if not xml.is_file():
            pytest.skip("no shipped model")
        crops = rng.integers(0, 255, (8, h, w, 3), dtype=np.uint8)
        fast = run_images(load_session(xml, 1, image_input=True), crops)
        plain = load_session(xml, 1).run(to_blobs(crops))
        assert fast.shape == plain.shape and np.allclose(fast, plain, atol=1e-3)
