"""`CardReader`: image -> `CardDetections`, with the exported two-stage model.

Stage a: a one-class corner-index detector on a downscaled copy of the image (indices
~9–30 px tall there, as in training). Stage b: an index classifier on square crops of the
full-resolution image (rank, suit, "is an index", reading direction). Then grouping
(`vision.reader.grouping`) turns indices into physical cards. Last, when reader.json names a
whole-card network (`body_file`), cards lying alone are found by their outline and read
from their face (`vision.reader.body`), which adds cards the corners missed and re-weighs
the identities of those they read unsurely.
"""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.reader.body import BodyClassifier, BodyFusion, card_outlines, fuse_bodies, snap_to_outlines, unsure_mask
from vision.reader.classifier import IndexClassifier, TwoViewClassifier
from vision.reader.detector import IndexDetector
from vision.reader.grouping import CardGeometry, CardGroup, IndexObs, group_indices
from vision.reader.labels import RANKS, SUITS
from vision.reader.runtime import ModelError, cpu_float_precision, load_session, nms
from vision.types import CardDetections, box_quad

DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[2] / "models"
META_FILE = "reader.json"
# Smallest image side worth reading: a card index needs ~7 px, a card several times that;
# below this the networks' resizes would be degenerate (a 1×1 image crashed OpenCV).
MIN_SIDE = 16
# `read(index_px=…)`: indices are enlarged only when they come out under this share of the
# size asked for (a median a little short of it reads as well as it is)
ZOOM_BELOW = 0.8


@dataclass(slots=True)
class ReaderMeta:
    """Everything the runtime needs to know about a shipped model (models/reader.json)."""

    detector_file: str = "index_detector.xml"
    # The float detector, loaded instead of `detector_file` by default (`detector_choice`):
    # in bf16 where OpenVINO computes float models so by default (AMX: it also beats the INT8
    # file there, network 5.4 vs 7.9 ms, 2026-12-02), in f32 elsewhere (INT8 reads small
    # indices worse). None: always `detector_file`. `CardReader.load(precision=...)` overrides.
    detector_bf16_file: str | None = None
    detector_input_hw: tuple[int, int] = (384, 640)
    detector_conf: float = 0.25
    detector_iou: float = 0.5
    index_px_range: tuple[float, float] = (9.0, 30.0)  # index long side at detector scale
    index_px_target: float = 17.0
    classifier_file: str = "index_classifier.onnx"
    classifier_size: int = 40
    classifier_pad: float = 1.25
    ranks: tuple[str, ...] = RANKS
    suits: tuple[str, ...] = SUITS
    min_index_p: float = 0.5
    min_card_p: float = 0.3
    # the first classifier's unsure index crops read again turned by 180° and the readings
    # fused (classifier.IndexClassifier `turned_below`); None: off
    classifier_turned_below: float | None = None
    multiscale: tuple[float, ...] = (1.0, 0.55, 0.3, 0.17)  # photo mode: detector scales tried, × the fit scale
    multiscale_sigma: float = 0.45  # photo mode: how fast a scale's trust falls with log index size
    # photo mode's detector threshold (None: detector_conf). Photo mode is not bound by the
    # camera's frame time, so it can afford the boxes a higher live threshold drops for speed.
    photo_detector_conf: float | None = None
    # photo mode: refine the picked scale so the median index has the trained size. On by
    # default (chosen with round 2); round 5 turned it off: on 80 val photos
    # (benchmarks/tune_photo_mode.py --scenes 24) refining lost F1 0.724 -> 0.703 (round 4: even);
    # round 6 turns it on again there: 0.696 -> 0.747. Re-checked with each model.
    photo_refine: bool = True
    # photo mode's card threshold (None: min_card_p). A photo read at a small detector scale
    # (a close-up: the index ~180 px, the image shrunk ~10x) gets looser boxes and so lower
    # card probabilities for right reads; chosen on val-family photos (docs in MODEL_CARD).
    photo_min_card_p: float | None = None
    # photo mode: the detector run a second time at this multiple of the picked scale and
    # the two sets of indices merged (NMS), None: off. The picked scale fits the median
    # index; indices smaller than it (a card further away, an index half out of the image)
    # were missed there, and 16 of the 28 missed indices on 60 val photos were found at 1.4–2×.
    photo_second_look: float | None = None
    classifier2_file: str | None = None  # optional second view (classifier.TwoViewClassifier)
    classifier2_size: int = 40
    classifier2_pad: float = 1.25
    classifier2_weight: float = 0.5  # the second view's share in the fused readings
    classifier2_below: float = 1.0  # second view only where the first's rank_p × suit_p is below this
    fuse_indices: bool = False  # fuse the two corners' readings of a card (grouping.py); the shipped model sets it
    geometry: CardGeometry = field(default_factory=CardGeometry)
    # whole-card reader (body.py): separate face-up cards read from their face too. None:
    # corner reads only (model folders before 2026-11-30 late).
    body_file: str | None = None
    body_size: tuple[int, int] = (44, 64)  # W, H of the rectified card
    body_min_card_p: float = 0.5
    body_add_p: float = 0.5
    body_fuse: bool = True
    body_weight: float = 1.0
    # outlines holding a corner-read card this sure are not read by face: the network's
    # time goes where the corners failed (speed; 1.0 reads every outline)
    body_skip_above: float = 0.9
    # The same for a zone read (`read(..., roi=…)`: the tracker's market, reveal areas, Khmer
    # stacks). A zone crop holds a few cards, so reading each of its outlines by face costs
    # little, and a card lying alone is where the face read is surest: it can overrule a
    # corner read that is sure and wrong (a 6C read 8C, an AS read AC). None: as a full frame.
    body_skip_above_zone: float | None = None
    body_sure_identity_p: float | None = None  # BodyFusion.sure_identity_p (None: off)
    # A card whose indices lie in exactly one found outline of a fitting size and place
    # takes its box from that outline instead of the one predicted from a typical card shape
    # (`body.snap_to_outlines`; needs the whole-card network's outline search).
    outline_boxes: bool = True
    # Small cards (a 640×480 webcam, a camera far above the table): the indices' median
    # long side in image px at the camera scale the networks were trained for (~18 px at
    # 1280×720). A camera read whose indices come out under `upscale_below` × this is read
    # again from the image enlarged (cubic) towards this size, by at most `upscale_max`: the
    # index crops and the outline search then get the pixels they were trained on. None: off.
    camera_index_px: float | None = None
    upscale_below: float = 0.7
    upscale_max: float = 2.0
    # Frames whose short side is at least this are never enlarged: at 720p, indices that
    # come out small are spurious reads (an oxygen deck's rank-only corners, a deck's back),
    # not small cards, and enlarging there changed oxygen recordings (khmer-7605 event F1
    # 0.73 -> 0.67). The camera's resolution, unlike a crop's indices, says what it can show.
    upscale_frame_below: int = 600

    @property
    def body_fusion(self) -> BodyFusion:
        return BodyFusion(self.body_min_card_p, self.body_add_p, self.body_fuse, self.body_weight,
                          sure_identity_p=self.body_sure_identity_p)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReaderMeta:
        data = dict(data)
        geom = CardGeometry(**data.pop("geometry", {}))
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ModelError(f"{META_FILE}: unknown keys {sorted(unknown)}")
        for key in ("detector_input_hw", "index_px_range", "ranks", "suits", "body_size"):
            if key in data:
                data[key] = tuple(data[key])
        return cls(geometry=geom, **data)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["geometry"] = asdict(self.geometry)
        return d


class CardReader:
    """Reads cards from BGR images. Build with `CardReader.load()`."""

    def __init__(
        self, meta: ReaderMeta, detector: IndexDetector, classifier: IndexClassifier | TwoViewClassifier,
        body: BodyClassifier | None = None, detector_file: str | None = None,
        photo_detector: IndexDetector | None = None,
    ) -> None:  # fmt: skip
        self.meta, self.detector, self.classifier, self.body = meta, detector, classifier, body
        self.detector_file = detector_file or meta.detector_file  # the file loaded (`detector_choice`)
        # Photo mode's detector: the INT8 `detector_file` even where the camera path runs the
        # bf16 one. Photo mode's thresholds and scale search were chosen with the INT8 file,
        # and with the float one its photos read worse (2026-12-02: F1 0.714 -> 0.652); photo
        # mode is not bound by a frame time.
        self.photo_detector = photo_detector or detector
        # The outline search (OpenCV, which releases the GIL) runs on this thread while the
        # corner reader's networks run on the caller's: the networks leave part of the two
        # cores idle; measured 2.8 ms less a 1280×720 frame (paired median, bench frames).
        self._outline_thread: ThreadPoolExecutor | None = None

    @classmethod
    def load(cls, model_dir: str | Path | None = None, threads: int = 2, precision: str = "auto") -> CardReader:
        """Load the shipped model (default: the repo's models/). Raises ModelError (one line).
        precision: the detector's, "auto" (the float detector where the model ships one, in
        bf16 where the CPU computes it natively, else f32), "int8", "bf16" or "f32"."""
        root = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        meta_path = root / META_FILE
        if not root.is_dir():
            raise ModelError(f"model directory not found: {root}")
        if not meta_path.is_file():
            raise ModelError(f"not a card-reader model directory (no {META_FILE}): {root}")
        try:
            meta = ReaderMeta.from_json(json.loads(meta_path.read_text()))
        except (ValueError, TypeError) as exc:
            raise ModelError(f"corrupt {meta_path}: {exc}") from None
        return cls.from_meta(root, meta, threads, precision)

    @classmethod
    def from_meta(cls, root: Path, meta: ReaderMeta, threads: int = 2, precision: str = "auto") -> CardReader:
        """The networks `meta` names, opened from `root` (e.g. the float files beside INT8)."""
        det_file, det_precision = detector_choice(meta, precision)

        def detector(file: str, hint: str | None) -> IndexDetector:
            session = load_session(root / file, threads, image_input=True, precision=hint)
            return IndexDetector(session, meta.detector_input_hw, meta.detector_conf, meta.detector_iou)

        det = detector(det_file, det_precision)
        photo_det = detector(meta.detector_file, None) if det_file != meta.detector_file else det
        clf = IndexClassifier(
            load_session(root / meta.classifier_file, threads, image_input=True),
            meta.classifier_size,
            meta.classifier_pad,
            len(meta.ranks),
            len(meta.suits),
            turned_below=meta.classifier_turned_below,
            min_index_p=meta.min_index_p,
        )
        if meta.classifier2_file:
            second = IndexClassifier(
                load_session(root / meta.classifier2_file, threads, image_input=True),
                meta.classifier2_size, meta.classifier2_pad, len(meta.ranks), len(meta.suits),
            )  # fmt: skip
            clf = TwoViewClassifier(clf, second, meta.classifier2_weight, meta.classifier2_below, meta.min_index_p)  # type: ignore[assignment]
        clf.warm()
        body = None
        if meta.body_file:
            body_session = load_session(root / meta.body_file, threads, image_input=True)
            body = BodyClassifier(body_session, meta.body_size, len(meta.ranks), len(meta.suits))
            body.warm()
        return cls(meta, det, clf, body, det_file, photo_det)

    # -- stage a: find indices at a scale where they look like the training ones ----------
    def _detect(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ih, iw = self.meta.detector_input_hw
        h, w = image.shape[:2]
        lo, hi = self.meta.index_px_range
        s0 = min(1.0, iw / w, ih / h)
        boxes, scores, scale = np.zeros((0, 4), np.float32), np.zeros((0,), np.float32), s0
        for s in (s0, s0 * 0.4, s0 * 0.16):  # close-ups: indices too big at s0
            boxes, scores = self.detector.detect(image, s)
            scale = s
            if len(boxes):
                break
        if not len(boxes):
            return boxes, scores
        size = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) * scale
        if not lo <= size <= hi:
            rescaled = scale * self.meta.index_px_target / size
            b2, s2 = self.detector.detect(image, rescaled)
            if len(b2):
                boxes, scores = b2, s2
        return boxes, scores

    def read_indices(
        self, image: np.ndarray, scale: float | None = None, conf: float | None = None, photo: bool = False
    ) -> list[IndexObs]:
        """Stage a + b: classified corner indices, before grouping. `scale`: run the
        detector at exactly this image scale (default: chosen from the image); `conf`: its
        score threshold there (default: detector_conf); `photo`: with photo mode's detector
        (`photo_detector`; needs `scale`)."""
        if scale is None:
            boxes, scores = self._detect(image)
        else:
            boxes, scores = (self.photo_detector if photo else self.detector).detect(image, scale, conf)
        r = self.classifier.classify(image, boxes)
        obs = []
        for i, box in enumerate(boxes):
            if r.index_p[i] < self.meta.min_index_p:
                continue
            up = None
            if r.up is not None and np.linalg.norm(r.up[i]) > 0.3:
                u = r.up[i] / np.linalg.norm(r.up[i])
                up = (float(u[0]), float(u[1]))
            card = self.meta.ranks[r.rank[i]] + self.meta.suits[r.suit[i]]
            p = float(r.rank_p[i] * r.suit_p[i] * r.index_p[i])
            obs.append(
                IndexObs(
                    box=tuple(float(v) for v in box), card=card, p=p, up=up, det=float(scores[i]),  # type: ignore[arg-type]
                    index_p=float(r.index_p[i]),
                    rank_probs=None if r.rank_probs is None else r.rank_probs[i],
                    suit_probs=None if r.suit_probs is None else r.suit_probs[i],
                )
            )  # fmt: skip
        return obs

    def read(
        self,
        image_bgr: np.ndarray,
        roi: tuple[int, int, int, int] | None = None,
        two_decks: bool = False,
        multiscale: bool = False,
        cards: frozenset[str] | None = None,
        min_p: float | None = None,
        index_px: float | None = None,
    ) -> CardDetections:
        """Cards in `image_bgr` (H×W×3 uint8), each physical card once; boxes in full-image px.

        roi: (x1, y1, x2, y2) to read only that part (a zone crop); results are shifted back.
        two_decks: keep up to two cards of the same identity (two-deck games).
        cards: the identities the game's deck holds (None: all 52); every card is read as one
        of them (grouping.group_indices `allowed`).
        multiscale: photo mode, for images of unknown scale (a close-up, a phone photo): find
        the detector scale first (`photo_scale`, ≈5× the work; the live camera path knows
        its scale and does not need it). roi is ignored in photo mode.
        min_p: the corner-read card floor (default `min_card_p`; photo mode keeps its own), for a
        caller that votes over many reads and wants the doubtful ones too (the tracker's reveals).
        index_px: the indices' long side (px) this read wants: when they come out under
        `ZOOM_BELOW` × this, the image (or roi) is read again enlarged towards it (cubic, at most
        `upscale_max`), at any frame size (`zoom_for`); for a read that can afford 2-4x the
        pixels (the tracker's reveal areas). None: only the reader's own small-camera rule
        (`upscale_for`). Ignored in photo mode.
        An image (or roi) too small to hold a readable card (under `MIN_SIDE` px) reads as none.
        """
        h, w = image_bgr.shape[:2]
        if roi is not None and not multiscale:
            h, w = min(roi[3], h) - max(roi[1], 0), min(roi[2], w) - max(roi[0], 0)
        if min(h, w) < MIN_SIDE:
            return CardDetections.empty()
        if multiscale:
            return self.read_multiscale(image_bgr, two_decks, cards)
        return self.read_with_indices(image_bgr, roi, two_decks, cards, min_p, index_px)[0]

    @property
    def _labels(self) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """(ranks, suits) when grouping fuses the corners' distributions, else None."""
        return (self.meta.ranks, self.meta.suits) if self.meta.fuse_indices else None

    def detections_from(
        self, indices: list[IndexObs], two_decks: bool = False, cards: frozenset[str] | None = None,
        min_p: float | None = None,
    ) -> CardDetections:
        """Stage c: classified indices -> physical cards above the confidence threshold
        (`min_p`, default `min_card_p`)."""
        groups = group_indices(indices, self.meta.geometry, two_decks, self._labels, cards)
        floor = self.meta.min_card_p if min_p is None else min_p
        return _detections([g for g in groups if g.confidence >= floor])

    def photo_scale(self, image: np.ndarray, refine: bool | None = None) -> tuple[float, list[IndexObs]]:
        """The detector scale for an image of unknown scale, and the indices read there.

        Each scale in `multiscale` is tried; its reads are worth their summed probability,
        weighted by how typical their size is for the detector (far from the trained sizes
        it finds fragments, e.g. a rank without its suit). The best scale is then refined
        so the median index has the trained size (`refine`, default `photo_refine`). Measured on held-out photo-like
        scenes (benchmarks/tune_photo_mode.py): voting across scales did worse than picking one.
        """
        h, w = image.shape[:2]
        ih, iw = self.meta.detector_input_hw
        fit = min(1.0, iw / w, ih / h)
        target = self.meta.index_px_target
        best: tuple[float, float, float, list[IndexObs]] | None = None
        conf = self.meta.photo_detector_conf
        for m in self.meta.multiscale:
            obs = self.read_indices(image, fit * m, conf, photo=True)
            if not obs:
                continue
            size = float(np.median([o.size for o in obs])) * fit * m
            score = sum(o.p for o in obs) * scale_weight(size, target, self.meta.multiscale_sigma)
            if best is None or score > best[0]:
                best = (score, fit * m, size, obs)
        if best is None:
            return fit, []
        _, scale, size, obs = best
        if refine is None:
            refine = self.meta.photo_refine
        if refine and abs(np.log(size / target)) > 0.15:  # indices at the trained size
            refined = self.read_indices(image, scale * target / size, conf, photo=True)
            if refined:
                return scale * target / size, refined
        return scale, obs

    def read_multiscale(
        self, image_bgr: np.ndarray, two_decks: bool = False, cards: frozenset[str] | None = None
    ) -> CardDetections:
        image = _check_image(image_bgr)
        outlines = self._start_outlines(image)
        scale, indices = self.photo_scale(image)
        indices = self.second_look(image, scale, indices)
        det = self.detections_from(indices, two_decks, cards, self.meta.photo_min_card_p)
        return self.with_bodies(image, det, two_decks, outlines)

    def second_look(self, image: np.ndarray, scale: float, indices: list[IndexObs], factor: float | None = None) -> list[IndexObs]:
        """Photo mode's `indices` (read at `scale`) merged with a detector pass at `factor` ×
        that scale (default `photo_second_look`; None or 0 there: `indices` as they are)."""
        f = self.meta.photo_second_look if factor is None else factor
        if not f or not indices:
            return indices
        more = self.read_indices(image, scale * f, self.meta.photo_detector_conf, photo=True)
        return merge_indices(indices + more, self.meta.detector_iou)

    def read_with_indices(
        self,
        image_bgr: np.ndarray,
        roi: tuple[int, int, int, int] | None = None,
        two_decks: bool = False,
        cards: frozenset[str] | None = None,
        min_p: float | None = None,
        index_px: float | None = None,
    ) -> tuple[CardDetections, list[IndexObs]]:
        """`read`, plus the classified indices it grouped (in full-image px)."""
        image = _check_image(image_bgr)
        small_frame = min(image.shape[:2]) < self.meta.upscale_frame_below
        dx = dy = 0
        if roi is not None:
            x1, y1, x2, y2 = (int(v) for v in roi)
            x1, y1 = max(x1, 0), max(y1, 0)
            x2, y2 = min(x2, image.shape[1]), min(y2, image.shape[0])
            if x2 - x1 < 2 or y2 - y1 < 2:
                raise ValueError(f"roi {roi} is empty inside a {image.shape[1]}×{image.shape[0]} image")
            image, dx, dy = image[y1:y2, x1:x2], x1, y1
        zone = roi is not None
        outlines = self._start_outlines(image)
        indices = self.read_indices(image)
        if index_px is not None:
            f = self.zoom_for(indices, index_px)
        else:
            f = self.upscale_for(indices) if small_frame else 1.0
        if f > 1:  # small cards: read again enlarged, results back in this image's px
            det, indices = self._read_enlarged(image, f, two_decks, cards, outlines, min_p, zone)
        else:
            det = self.with_bodies(image, self.detections_from(indices, two_decks, cards, min_p), two_decks, outlines, zone)
        return self._shifted(det, indices, dx, dy)

    @staticmethod
    def _shifted(det: CardDetections, indices: list[IndexObs], dx: int, dy: int) -> tuple[CardDetections, list[IndexObs]]:
        """A roi's reads moved back into the full image's px."""
        if dx or dy:
            det = det.offset(dx, dy)
            for o in indices:
                o.box = (o.box[0] + dx, o.box[1] + dy, o.box[2] + dx, o.box[3] + dy)
        return det, indices

    def zoom_for(self, indices: list[IndexObs], index_px: float, below: float = ZOOM_BELOW) -> float:
        """How much to enlarge an image whose indices came out this size, for a caller that
        wants them about `index_px` long: 1 (not at all) unless their median is under
        `below` × that, else towards it, by at most `upscale_max`."""
        if not indices:
            return 1.0
        size = float(np.median([o.size for o in indices]))
        if size >= below * index_px:
            return 1.0
        return min(self.meta.upscale_max, index_px / max(size, 1.0))

    def upscale_for(self, indices: list[IndexObs]) -> float:
        """How much to enlarge a camera read whose indices came out this size (1: not at all):
        `zoom_for` towards `camera_index_px` below `upscale_below` of it."""
        target = self.meta.camera_index_px
        return 1.0 if target is None else self.zoom_for(indices, target, self.meta.upscale_below)

    def _read_enlarged(
        self, image: np.ndarray, f: float, two_decks: bool, cards: frozenset[str] | None,
        started: Future[list[np.ndarray]] | None, min_p: float | None = None, zone: bool = False,
    ) -> tuple[CardDetections, list[IndexObs]]:  # fmt: skip
        import cv2

        if started is not None:
            started.cancel()  # the native-size outline search is not needed now
        big = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
        outlines = self._start_outlines(big)
        indices = self.read_indices(big)
        det = self.with_bodies(big, self.detections_from(indices, two_decks, cards, min_p), two_decks, outlines, zone)
        for o in indices:
            o.box = tuple(v / f for v in o.box)  # type: ignore[assignment]
        return det.scaled(1 / f), indices

    def _start_outlines(self, image: np.ndarray) -> Future[list[np.ndarray]] | None:
        """The card outlines of `image`, searched on the reader's own thread (None without a
        whole-card network)."""
        if self.body is None:
            return None
        if self._outline_thread is None:
            self._outline_thread = ThreadPoolExecutor(1, thread_name_prefix="card-outlines")
        return self._outline_thread.submit(card_outlines, image)

    def with_bodies(
        self, image: np.ndarray, det: CardDetections, two_decks: bool = False, outlines: Future[list[np.ndarray]] | None = None,
        zone: bool = False,
    ) -> CardDetections:
        """`det` joined with the whole-card reads of the separate cards in `image` (body.py);
        `det` itself when the model has no whole-card network. `outlines`: the outline
        search already started on `image` (`_start_outlines`), else it runs here.
        `zone`: the image is a zone crop, so outlines are skipped by `body_skip_above_zone`
        (when set) instead of `body_skip_above`."""
        if self.body is None:
            return det
        quads = outlines.result() if outlines is not None else card_outlines(image)
        z = self.meta.body_skip_above_zone
        keep = unsure_mask(det, quads, z if zone and z is not None else self.meta.body_skip_above)
        reads = self.body.classify(image, [q for q, k in zip(quads, keep) if k])
        det = fuse_bodies(det, reads, self.meta.ranks, self.meta.suits, self.meta.body_fusion, two_decks)
        return snap_to_outlines(det, quads, image.shape) if self.meta.outline_boxes else det


PRECISIONS = ("auto", "int8", "bf16", "f32")


def detector_choice(meta: ReaderMeta, precision: str = "auto") -> tuple[str, str | None]:
    """(detector file, OpenVINO precision hint) for `precision` (one of PRECISIONS).

    "auto" loads the float detector wherever the model ships one, in bf16 where the CPU
    computes it natively and in f32 elsewhere. It used to take the INT8 file on CPUs without
    native bf16 (faster there), but INT8 reads small indices worse: on a CPU without AVX-512
    the Kemps sample filmed at 640x360 lost its deal (6H read as 8H) and a reveal (event F1
    0.667 vs 1.0 with the float file in f32 or bf16; reproduced here with precision="int8",
    2026-12-06). Reading right comes first; "int8" stays for speed by choice."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    float_file = meta.detector_bf16_file
    if float_file is None or precision == "int8":
        return meta.detector_file, None
    if precision == "auto":
        precision = "bf16" if cpu_float_precision() == "bf16" else "f32"
    return float_file, precision


def merge_indices(indices: list[IndexObs], iou: float) -> list[IndexObs]:
    """One reading per printed index among readings from several detector scales: of
    boxes overlapping by more than `iou`, the most probable reading stays."""
    if len(indices) < 2:
        return indices
    keep = nms(np.array([o.box for o in indices], np.float32), np.array([o.p for o in indices], np.float32), iou)
    return [indices[i] for i in keep]


def scale_weight(index_px: float, target_px: float, sigma: float = 0.45) -> float:
    """Trust in reads whose indices are `index_px` long at detector scale: 1 at the size the
    detector was trained around, falling off as a Gaussian in log size."""
    return float(np.exp(-(np.log(max(index_px, 1e-3) / target_px) ** 2) / (2 * sigma**2)))


def _detections(groups: list[CardGroup]) -> CardDetections:
    if not groups:
        return CardDetections.empty()
    quads = np.stack([g.quad if g.quad is not None else box_quad(g.xyxy) for g in groups])
    return CardDetections(
        xyxy=np.array([g.xyxy for g in groups], np.float32),
        confidence=np.array([g.confidence for g in groups], np.float32),
        cards=[g.card for g in groups],
        index_boxes=[g.index_boxes for g in groups],
        quads=quads,
        alternatives=[g.alternatives or ((g.card, g.confidence),) for g in groups],
    )


def _check_image(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError("image must be a non-empty H×W×3 uint8 BGR array")
    if image.ndim == 2:
        import cv2

        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        image = image[:, :, :3]
    if image.dtype != np.uint8:
        raise ValueError(f"image must be uint8, got {image.dtype}")
    return np.ascontiguousarray(image)
