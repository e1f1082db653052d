"""Corner-index detector at run time: image + scale -> index boxes in image pixels.

The exported network has a fixed input (e.g. 384×640). An image resized by `scale` that
does not fit is cut into overlapping input-sized tiles, so any image size works.
"""

from __future__ import annotations

import numpy as np

from vision.reader.runtime import Session, decode_yolo, letterbox_image, nms


class IndexDetector:
    def __init__(self, session: Session, input_hw: tuple[int, int], conf: float = 0.25, iou: float = 0.5) -> None:
        self.session, self.input_hw, self.conf, self.iou = session, input_hw, conf, iou

    def _tiles(self, h: int, w: int, scale: float) -> list[tuple[int, int, int, int]]:
        """Windows (x0, y0, x1, y1) in image px, each fitting the input at `scale`."""
        ih, iw = self.input_hw
        tw, th = iw / scale, ih / scale
        if w <= tw + 1 and h <= th + 1:
            return [(0, 0, w, h)]
        overlap = 0.1
        xs = _starts(w, int(tw), overlap)
        ys = _starts(h, int(th), overlap)
        return [(x, y, min(x + int(tw), w), min(y + int(th), h)) for y in ys for x in xs]

    def detect(self, image: np.ndarray, scale: float, conf: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(boxes xyxy in image px, scores); `conf`: score threshold (default: self.conf)."""
        conf = self.conf if conf is None else conf
        h, w = image.shape[:2]
        all_boxes, all_scores = [], []
        for x0, y0, x1, y1 in self._tiles(h, w, scale):
            canvas, lb = letterbox_image(image[y0:y1, x0:x1], scale, self.input_hw)
            boxes, scores = decode_yolo(self.session.run_image(canvas), conf, self.iou)
            boxes = lb.to_image(boxes) + np.array([x0, y0, x0, y0], np.float32)
            all_boxes.append(boxes)
            all_scores.append(scores)
        boxes = np.concatenate(all_boxes) if all_boxes else np.zeros((0, 4), np.float32)
        scores = np.concatenate(all_scores) if all_scores else np.zeros((0,), np.float32)
        if len(all_boxes) > 1 and len(boxes):
            keep = nms(boxes, scores, self.iou)
            boxes, scores = boxes[keep], scores[keep]
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes, scores


def _starts(length: int, window: int, overlap: float) -> list[int]:
    if length <= window:
        return [0]
    step = max(1, int(window * (1 - overlap)))
    starts = list(range(0, length - window, step))
    starts.append(length - window)
    return starts
