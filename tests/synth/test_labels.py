"""Labels land on the printed index, hidden indices get none, the camera model is consistent."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth.conditions import SceneConditions
from vision.synth.decks import DeckArt
from vision.synth.scene import CardPlacement, Occluder, compose_table


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a.astype(np.float32).ravel() - a.mean()
    b = b.astype(np.float32).ravel() - b.mean()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-6))


def _grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def _face_index_crop(deck: DeckArt, card: str, box: tuple[float, float, float, float]) -> np.ndarray:
    face = cv2.cvtColor(deck.faces[card], cv2.COLOR_RGBA2BGR)
    h, w = face.shape[:2]
    x1, y1, x2, y2 = box
    return face[int(round(y1 * h)) : int(round(y2 * h)), int(round(x1 * w)) : int(round(x2 * w))]


@pytest.mark.parametrize("angle", [0, 90, 180, 270])
def test_label_crop_matches_the_cards_own_index(deck: DeckArt, angle: int) -> None:
    cards = ["AS", "10H", "QC", "7D"]
    places = [CardPlacement(c, (110 + 170 * i, 200), angle, 150) for i, c in enumerate(cards)]
    scene = compose_table(places, deck, (720, 400), SceneConditions.clean("plain"), np.random.default_rng(0))
    assert len(scene.labels) == 2 * len(cards)
    for lab in scene.labels:
        x1, y1, x2, y2 = (int(round(v)) for v in lab.box)
        crop = _grey(scene.image[y1:y2, x1:x2])
        # the best match among the card's own index crops, rotated as the card is
        scores = []
        for box in deck.index_boxes[lab.card]:
            ref = _grey(np.ascontiguousarray(np.rot90(_face_index_crop(deck, lab.card, box), k=angle // 90)))
            scores.append(_ncc(cv2.resize(ref, crop.shape[::-1], interpolation=cv2.INTER_AREA), crop))
        assert max(scores) > 0.85, (lab, scores)
        # and a different card's index does not match as well
        other = "KH" if lab.card != "KH" else "2C"
        ref = _grey(np.ascontiguousarray(np.rot90(_face_index_crop(deck, other, deck.index_boxes[other][0]), k=angle // 90)))
        assert _ncc(cv2.resize(ref, crop.shape[::-1], interpolation=cv2.INTER_AREA), crop) < max(scores)


def test_labels_follow_tilt_and_lens_distortion(deck: DeckArt) -> None:
    """Under a tilted, distorted camera, each label box still frames index ink."""
    cond = SceneConditions(surface="plain", surface_variant=1, tilt_deg=25, tilt_dir_deg=40, roll_deg=5, distortion_k1=-0.2)
    places = [CardPlacement(c, (250 + 140 * (i % 2), 240 + 170 * (i // 2)), 15 * i, 130) for i, c in enumerate(["AS", "5H", "JD", "9C"])]
    scene = compose_table(places, deck, (640, 640), cond, np.random.default_rng(1))
    assert len(scene.labels) >= 6
    for lab in scene.labels:
        x1, y1, x2, y2 = (int(round(v)) for v in lab.box)
        crop = scene.image[y1:y2, x1:x2].astype(np.int16)
        # ink (coloured or dark glyph pixels) present, on white-ish card paper
        dark = (crop.max(axis=2) - crop.min(axis=2) > 80) | (crop.max(axis=2) < 110)
        assert dark.mean() > 0.08, lab
    # card quads: the projected outline matches where the card's pixels are
    mask = np.zeros((640, 640), np.uint8)
    for c in scene.cards:
        cv2.fillConvexPoly(mask, np.round(c.quad).astype(np.int32), 1)
    paper = (scene.image.min(axis=2) > 200).astype(np.uint8)
    inside = (paper & mask).sum() / max(1, paper.sum())
    assert inside > 0.97


def test_covered_index_gets_no_label(deck: DeckArt) -> None:
    cond = SceneConditions.clean()
    rng = np.random.default_rng(0)
    # B exactly on top of A: A fully hidden
    both = compose_table([CardPlacement("AS", (200, 200), 0, 180), CardPlacement("KD", (200, 200), 0, 180)], deck, (400, 400), cond, rng)
    assert {lab.card for lab in both.labels} == {"KD"}
    assert both.cards[0].visible_fraction < 0.01
    # B shifted right and down: A's top-left index stays, its bottom-right one is covered
    cascade = compose_table([CardPlacement("AS", (150, 150), 0, 180), CardPlacement("KD", (220, 210), 0, 180)], deck, (400, 400), cond, rng)
    a_labels = [lab for lab in cascade.labels if lab.card == "AS"]
    assert len(a_labels) == 1
    assert a_labels[0].box[0] < 150 and a_labels[0].box[1] < 150  # the top-left one
    assert sum(lab.card == "KD" for lab in cascade.labels) == 2


def test_arm_hides_index_and_off_frame_is_hidden(deck: DeckArt) -> None:
    cond = SceneConditions.clean()
    rng = np.random.default_rng(0)
    place = [CardPlacement("9H", (200, 200), 0, 180)]
    free = compose_table(place, deck, (400, 400), cond, rng)
    assert len(free.labels) == 2
    # an arm over the whole card
    arm = Occluder.arm((200, 500), (200, 150), 200, np.random.default_rng(3))
    covered = compose_table(place, deck, (400, 400), cond, rng, occluders=[arm])
    assert len(covered.labels) < 2
    # a card half off the image: its outside index is not labelled
    edge = compose_table([CardPlacement("9H", (10, 200), 0, 180)], deck, (400, 400), cond, rng)
    assert all(lab.box[0] >= 0 for lab in edge.labels)
    assert len(edge.labels) == 1


def test_face_down_cards_have_no_labels(deck: DeckArt) -> None:
    scene = compose_table([CardPlacement("AS", (200, 200), 30, 180, face_up=False)], deck, (400, 400), SceneConditions.clean(), np.random.default_rng(0))
    assert scene.labels == []
    assert scene.cards[0].face_up is False
