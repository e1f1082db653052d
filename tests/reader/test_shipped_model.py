"""The shipped model (models/) reads the committed fixture images.

Fixtures come from held-out procedural decks (benchmarks/make_reader_fixtures.py): designs
the model never trained on. Over all fixtures the card-level F1 must stay at or above the
floor below: the shipped model measured 0.54 here (models/MODEL_CARD.md); the floor leaves
room for runtime/library differences only, so a worse model fails. Images are read in
photo mode (the `referee read` default: the scale of each image is found), except where a
test says otherwise. At the fixed camera scale the close-ups fail (indices 3–4× larger than
any the detector saw: it boxes the rank without its suit), which is why photo mode exists.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reader.reader import DEFAULT_MODEL_DIR, CardReader
from vision.types import CardDetections

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "reader"
TRUTH: dict[str, list[str]] = json.loads((FIX / "truth.json").read_text()) if (FIX / "truth.json").is_file() else {}
F1_FLOOR = 0.45

pytestmark = pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "reader.json").is_file(), reason="no shipped model")


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader.load()


def _read(reader: CardReader, name: str, multiscale: bool = True) -> CardDetections:
    img = cv2.imread(str(FIX / name))
    assert img is not None, name
    return reader.read(img, multiscale=multiscale)


def test_fixtures_exist() -> None:
    assert len(TRUTH) >= 6 and all((FIX / n).is_file() for n in TRUTH)


@pytest.mark.parametrize("name", sorted(n for n in TRUTH if n.startswith("closeup")))
def test_single_card_close_up(reader: CardReader, name: str) -> None:
    det = _read(reader, name)
    assert det.cards == TRUTH[name]
    assert det.confidence[0] > 0.5
    h, w = cv2.imread(str(FIX / name)).shape[:2]
    x1, y1, x2, y2 = det.xyxy[0]
    assert -w * 0.2 <= x1 < x2 <= w * 1.2 and -h * 0.2 <= y1 < y2 <= h * 1.2


@pytest.mark.parametrize("multiscale", [True, False], ids=["photo-mode", "camera-scale"])
def test_all_fixtures_f1(reader: CardReader, multiscale: bool) -> None:
    tp = fp = fn = 0
    for name, cards in TRUTH.items():
        det = _read(reader, name, multiscale)
        want, got = Counter(cards), Counter(det.cards)
        hit = sum((want & got).values())
        tp, fp, fn = tp + hit, fp + sum(got.values()) - hit, fn + sum(want.values()) - hit
        assert len(det.cards) == len(set(det.cards)), f"{name}: a card reported twice in a one-deck game"
    f1 = 2 * tp / max(2 * tp + fp + fn, 1)
    assert f1 >= F1_FLOOR, f"fixture F1 {f1:.3f} (tp {tp}, fp {fp}, fn {fn})"


def test_roi_results_are_in_full_image_coordinates(reader: CardReader) -> None:
    name = next(n for n in sorted(TRUTH) if n.startswith("table"))
    img = cv2.imread(str(FIX / name))
    full = reader.read(img)
    pad = np.full((img.shape[0] + 100, img.shape[1] + 200, 3), 90, np.uint8)
    pad[100:, 200:] = img
    part = reader.read(pad, roi=(200, 100, pad.shape[1], pad.shape[0]))
    assert sorted(part.cards) == sorted(full.cards)
    for c, box in zip(part.cards, part.xyxy):
        ref = full.xyxy[full.cards.index(c)]
        assert np.allclose(box, ref + np.array([200, 100, 200, 100]), atol=2.0)


def test_a_zone_whose_indices_are_small_for_the_caller_is_read_enlarged(reader: CardReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """`index_px` (the tracker's `reveal_index_px`): a zone whose indices come out under 0.8 ×
    the size asked for is read again enlarged towards it (at most `upscale_max`), at any frame
    size, and its cards come back in the full image's px where the plain read puts them; a
    zone whose indices are big enough is read once."""
    img = cv2.imread(str(FIX / "market_0.jpg"))
    pad = np.full((img.shape[0] + 100, img.shape[1] + 200, 3), 90, np.uint8)
    pad[100:, 200:] = img
    roi = (200, 100, pad.shape[1], pad.shape[0])
    plain, idx = reader.read_with_indices(pad, roi=roi)
    size = float(np.median([o.size for o in idx]))
    factors: list[float] = []
    real = reader._read_enlarged
    monkeypatch.setattr(reader, "_read_enlarged", lambda image, f, *a, **k: factors.append(f) or real(image, f, *a, **k))
    assert reader.read(pad, roi=roi, index_px=size) is not None and factors == []  # big enough
    zoomed = reader.read(pad, roi=roi, index_px=1.5 * size)
    assert factors == [pytest.approx(1.5, abs=0.01)]
    assert len(plain) >= 3 and sorted(zoomed.cards) == sorted(plain.cards)
    for c, box in zip(zoomed.cards, zoomed.xyxy):
        ref = plain.xyxy[plain.cards.index(c)]
        assert np.abs(box - ref).max() < 0.1 * (ref[3] - ref[1])  # the same card, to a tenth of its height
    reader.read(pad, roi=roi, index_px=10 * size)
    assert factors[-1] == reader.meta.upscale_max


def test_photo_refine_follows_reader_json(reader: CardReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """photo_scale refines the picked scale (one more detector pass) only when reader.json
    says so, or when asked."""
    import dataclasses

    img = cv2.imread(str(FIX / "closeup_0_QC.jpg"))
    passes: list[float | None] = []
    real = reader.read_indices
    monkeypatch.setattr(reader, "read_indices", lambda image, scale=None, conf=None, **kw: passes.append(scale) or real(image, scale, conf, **kw))
    n = len(reader.meta.multiscale)
    for refine, expected in ((False, n), (True, n + 1)):
        monkeypatch.setattr(reader, "meta", dataclasses.replace(reader.meta, photo_refine=refine))
        passes.clear()
        reader.photo_scale(img)
        assert len(passes) == expected, (refine, passes)
    passes.clear()
    reader.photo_scale(img, refine=False)  # an explicit argument wins over reader.json
    assert len(passes) == n


def test_photo_card_threshold_applies_in_photo_mode_only(reader: CardReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """reader.json `photo_min_card_p` is the card floor of photo mode; the camera path keeps
    `min_card_p`."""
    import dataclasses

    img = cv2.imread(str(FIX / "closeup_0_QC.jpg"))
    floors: list[float | None] = []
    real = reader.detections_from
    monkeypatch.setattr(reader, "detections_from", lambda ind, two=False, cards=None, min_p=None: floors.append(min_p) or real(ind, two, cards, min_p))
    monkeypatch.setattr(reader, "meta", dataclasses.replace(reader.meta, photo_min_card_p=0.123))
    reader.read(img, multiscale=True)
    reader.read(img)
    assert floors == [0.123, None]
    monkeypatch.setattr(reader, "body", None)  # corner reads only: the floor decides alone
    monkeypatch.setattr(reader, "meta", dataclasses.replace(reader.meta, photo_min_card_p=0.4))
    assert len(reader.read(img, multiscale=True)) == 1
    monkeypatch.setattr(reader, "meta", dataclasses.replace(reader.meta, photo_min_card_p=1.01))
    assert len(reader.read(img, multiscale=True)) == 0


def test_photo_mode_second_look(reader: CardReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """reader.json `photo_second_look`: photo mode runs the detector once more at that
    multiple of the picked scale and merges the indices; None turns it off; the camera
    path never does it."""
    import dataclasses

    img = cv2.imread(str(FIX / "closeup_0_QC.jpg"))
    passes: list[float | None] = []
    real = reader.read_indices
    monkeypatch.setattr(reader, "read_indices", lambda image, scale=None, conf=None, **kw: passes.append(scale) or real(image, scale, conf, **kw))
    monkeypatch.setattr(reader, "meta", dataclasses.replace(reader.meta, photo_second_look=None))
    reader.read(img, multiscale=True)
    off = list(passes)
    passes.clear()
    monkeypatch.setattr(reader, "meta", dataclasses.replace(reader.meta, photo_second_look=1.5))
    det = reader.read(img, multiscale=True)
    assert passes[:-1] == off and passes[-1] == pytest.approx(reader.photo_scale(img)[0] * 1.5)
    assert det.cards == TRUTH["closeup_0_QC.jpg"]  # the second look's reading of the same index merged, not added
    passes.clear()
    reader.read(img)
    assert passes == [None]


def test_merge_indices_keeps_one_reading_per_index() -> None:
    from vision.reader.grouping import IndexObs
    from vision.reader.reader import merge_indices

    a = IndexObs(box=(0, 0, 10, 20), card="QC", p=0.6)
    b = IndexObs(box=(1, 1, 11, 21), card="QS", p=0.9)  # the same index, read at another scale
    c = IndexObs(box=(50, 50, 60, 70), card="4D", p=0.3)
    assert merge_indices([a, b, c], 0.5) == [b, c]
    assert merge_indices([a], 0.5) == [a]


# Markets: four separate cards at camera scale (benchmarks/make_reader_fixtures.py --markets).
MARKETS: dict[str, list[str]] = (
    json.loads((FIX / "market_truth.json").read_text()) if (FIX / "market_truth.json").is_file() else {}
)


def test_market_fixtures_exist() -> None:
    assert len(MARKETS) >= 3 and all((FIX / n).is_file() for n in MARKETS)


def test_markets_are_read_at_camera_scale(reader: CardReader) -> None:
    """Corners and faces together: measured 12 of 12 right, nothing extra (without the
    whole-card network: 10 right, one 3C read 4C, the AS missed)."""
    tp = fp = fn = 0
    for name, cards in MARKETS.items():
        got = Counter(_read(reader, name, multiscale=False).cards)
        want = Counter(cards)
        tp += sum((got & want).values())
        fp += sum((got - want).values())
        fn += sum((want - got).values())
    assert 2 * tp / (2 * tp + fp + fn) >= 0.9, (tp, fp, fn)


def test_whole_card_network_reads_separate_cards_by_their_face(reader: CardReader) -> None:
    """The shipped network alone, on the outlines it is given: what it calls a card
    (P ≥ 0.5) it reads right; measured 7 of the 12 cards (some outlines are not found)."""
    from vision.reader.body import card_outlines

    assert reader.body is not None, "the shipped reader.json names a whole-card network"
    right = 0
    for name, cards in MARKETS.items():
        img = cv2.imread(str(FIX / name))
        reads = reader.body.classify(img, card_outlines(img))
        for k in np.flatnonzero(reads.card_p >= 0.5):
            card = reader.meta.ranks[int(reads.rank_probs[k].argmax())] + reader.meta.suits[int(reads.suit_probs[k].argmax())]
            assert card in cards, (name, card)
            right += 1
    assert right >= 6


def test_outlines_searched_alongside_the_corner_reader_change_nothing(reader: CardReader) -> None:
    """`read` searches outlines on its own thread while the corner networks run; the
    result is the same as doing both one after the other (with_bodies searching itself)."""
    for name in MARKETS:
        img = cv2.imread(str(FIX / name))
        alongside = reader.read(img)
        serial = reader.with_bodies(img, reader.detections_from(reader.read_indices(img)))
        assert alongside.cards == serial.cards, name
        np.testing.assert_allclose(alongside.confidence, serial.confidence, rtol=1e-5)


def test_small_cards_are_read_enlarged(reader: CardReader) -> None:
    """The market fixtures shrunk to 0.6 (a lower-resolution camera: indices ~11 px instead
    of ~18): reader.json's `camera_index_px` has those whose indices come out small read
    again from an enlarged copy. Measured 2026-12-02 (right / extra / missed, F1): INT8
    detector 9 / 1 / 3 (0.82), 2 of 3 enlarged, at their own size 9 / 3 / 3 (0.75); bf16
    detector 10 / 3 / 2 (0.80), 3 of 3 enlarged, own size 0.78. (At 0.7, the bf16 detector's
    boxes, ~7 % larger, stay just over the enlarging threshold.) 2026-12-06, f32 detector (the
    default without native bf16): 10 / 2 / 2 (0.83); its KC, a four-corner card, lay half
    outside the image until grouping placed it from all its corners. Boxes come back in the
    shrunken image's pixels; at the camera's own scale nothing is enlarged."""
    assert reader.meta.camera_index_px is not None
    tp = fp = fn = enlarged = 0
    for name, cards in MARKETS.items():
        img = cv2.imread(str(FIX / name))
        assert reader.upscale_for(reader.read_indices(img)) == 1.0, name
        small = cv2.resize(img, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)
        enlarged += reader.upscale_for(reader.read_indices(small)) > 1
        det = reader.read(small)
        h, w = small.shape[:2]
        assert len(det) and (det.xyxy[:, [0, 2]] <= w + 2).all() and (det.xyxy[:, [1, 3]] <= h + 2).all()
        got, want = Counter(det.cards), Counter(cards)
        tp += sum((got & want).values())
        fp += sum((got - want).values())
        fn += sum((want - got).values())
    assert enlarged >= 2
    assert 2 * tp / (2 * tp + fp + fn) >= 0.78, (tp, fp, fn)


def test_a_720p_frame_is_never_read_enlarged(reader: CardReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 1280×720 indices that come out small are spurious reads (an oxygen deck's rank-only
    corners), not small cards: `upscale_frame_below` keeps such frames at their own size
    even when their indices ask for enlarging, and a smaller frame still gets it."""
    crop = cv2.imread(str(FIX / next(iter(MARKETS))))  # a 299×262 crop: padded to a 720p frame
    h, w = crop.shape[:2]
    img = cv2.copyMakeBorder(crop, 0, 720 - h, 0, 1280 - w, cv2.BORDER_REPLICATE)
    assert min(img.shape[:2]) >= reader.meta.upscale_frame_below
    monkeypatch.setattr(CardReader, "upscale_for", lambda self, indices: 2.0)
    called: list[float] = []
    real = CardReader._read_enlarged

    def spy(self, image, f, *a):  # noqa: ANN001, ANN202
        called.append(f)
        return real(self, image, f, *a)

    monkeypatch.setattr(CardReader, "_read_enlarged", spy)
    reader.read(img)
    assert called == []
    reader.read(crop)  # a frame under 600 px: enlarged
    assert called == [2.0]


def test_a_zone_read_reads_outlines_by_face_at_its_own_threshold(reader: CardReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """`body_skip_above_zone`: a read with an roi (the tracker's zones) passes its own 'sure'
    threshold to the whole-card stage; a full frame keeps `body_skip_above`."""
    import vision.reader.reader as rr

    seen: list[float] = []
    real = rr.unsure_mask
    monkeypatch.setattr(rr, "unsure_mask", lambda det, quads, sure: seen.append(sure) or real(det, quads, sure))
    img = cv2.imread(str(FIX / "market_0.jpg"))
    h, w = img.shape[:2]
    monkeypatch.setattr(reader.meta, "body_skip_above_zone", 1.0)
    reader.read(img)
    reader.read(img, roi=(0, 0, w, h))
    assert seen == [reader.meta.body_skip_above, 1.0]
    monkeypatch.setattr(reader.meta, "body_skip_above_zone", None)
    seen.clear()
    reader.read(img, roi=(0, 0, w, h))
    assert seen == [reader.meta.body_skip_above]
