"""A diagnostic card reader that answers from the recording's card truth, not the image.

`referee eval --oracle-reader` uses it to measure the table tracker alone (a perfect reader
upstream); the report says so in its summary (`reader: "oracle"`), and its card-read
figures are then 1.0 by construction. It needs card truth on every frame
(`referee synth video --card-every 0`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.evaluate.dataset import DatasetError, Recording
from vision.types import CardDetections


class OracleReader:
    """`read(image, roi)` returns the truth cards of the current frame inside `roi`."""

    def __init__(self, rec: Recording, frames: int) -> None:
        self.by_frame = {f.frame: f.cards for f in rec.frames}
        missing = [i for i in range(frames) if i not in self.by_frame]
        if missing:
            raise DatasetError(
                f"{rec.root / str(rec.meta.get('cards', 'cards.jsonl'))}: the oracle reader needs card truth on every "
                f"frame; {len(missing)} of {frames} frames have none (simulate with --card-every 0)"
            )
        self.index = 0

    def read(self, image: np.ndarray, roi: tuple[int, int, int, int] | None = None, two_decks: bool = False) -> CardDetections:
        cards = self.by_frame.get(self.index, ())
        if roi is not None:
            x1, y1, x2, y2 = roi
            cards = tuple(c for c in cards if x1 <= (c.box[0] + c.box[2]) / 2 <= x2 and y1 <= (c.box[1] + c.box[3]) / 2 <= y2)
        if not cards:
            return CardDetections.empty()
        boxes: Any = np.array([c.box for c in cards], np.float32)
        return CardDetections(boxes, np.ones(len(cards), np.float32), [c.card for c in cards])
