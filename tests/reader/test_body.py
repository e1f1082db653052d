"""Whole-card reading (vision/reader/body.py): outlines, rectification, fusion (no model)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reader.body import BodyFusion, BodyReads, card_outlines, fuse_bodies, order_quad, rectify, snap_to_outlines
from vision.reader.labels import RANKS, SUITS, split_card
from vision.types import CardDetections


def table_with_cards(cards: list[tuple[tuple[float, float], float, float]], touching: bool = False) -> np.ndarray:
    """A green felt with white cards: ((cx, cy), angle_deg, height) each, pips drawn inside."""
    img = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    rng = np.random.default_rng(0)
    img = np.clip(img.astype(int) + rng.integers(-8, 9, img.shape), 0, 255).astype(np.uint8)
    for (cx, cy), ang, h in cards:
        box = cv2.boxPoints(((cx, cy), (0.7 * h, h), ang)).astype(np.int32)
        cv2.fillConvexPoly(img, box, (235, 235, 235))
        cv2.circle(img, (int(cx), int(cy - h / 4)), int(h / 12), (30, 30, 200), -1)
        cv2.circle(img, (int(cx), int(cy + h / 4)), int(h / 12), (30, 30, 200), -1)
    return img


def test_order_quad_is_clockwise_and_starts_on_a_short_edge() -> None:
    q = np.array([[0, 0], [0, 100], [70, 100], [70, 0]], np.float32)  # counter-clockwise, long edge first
    o = order_quad(q)
    x, y = o[:, 0], o[:, 1]
    assert 0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) > 0
    assert np.linalg.norm(o[1] - o[0]) == pytest.approx(70)
    assert {tuple(p) for p in o.tolist()} == {tuple(p) for p in q.tolist()}


def test_separate_cards_are_found_at_any_angle_and_the_table_is_not() -> None:
    spots = [((300, 300), 0, 100), ((600, 320), 25, 90), ((900, 400), 80, 120), ((400, 560), -40, 70)]
    quads = card_outlines(table_with_cards(spots))
    assert len(quads) == len(spots)
    for (cx, cy), _, h in spots:
        d = min(np.linalg.norm(q.mean(0) - (cx, cy)) for q in quads)
        assert d < 4
        q = min(quads, key=lambda q: np.linalg.norm(q.mean(0) - (cx, cy)))
        assert np.linalg.norm(q[2] - q[1]) == pytest.approx(h, rel=0.08)  # long side
    assert card_outlines(table_with_cards([])) == []


def test_a_covered_card_is_left_to_the_corner_reader() -> None:
    # the second card lies on the first: no outline is the first card's own (an outline of
    # the pair's union may be found; the network's "is a card" output is there for that)
    quads = card_outlines(table_with_cards([((500, 300), 0, 100), ((530, 330), 0, 100)]))
    assert not any(np.linalg.norm(q.mean(0) - (500, 300)) < 5 and abs(np.linalg.norm(q[2] - q[1]) - 100) < 10 for q in quads)


def test_rectify_turns_a_tilted_card_upright() -> None:
    img = table_with_cards([((640, 360), 30, 160)])
    (q,) = card_outlines(img)
    patch = rectify(img, q, (44, 64))
    assert patch.shape == (64, 44, 3)
    assert patch[2:-2, 2:-2].mean() > 150  # all card, no felt
    assert patch[:, :, 2].max() > 150 and patch[:, :, 0].min() < 100  # the red pips came along


def test_rectify_a_big_card_lying_off_the_image_gives_a_patch() -> None:
    # a big card's quad (long side > 5 patch heights) wholly off the image: nothing to shrink
    img = np.full((200, 300, 3), 90, np.uint8)
    q = np.array([[400, 10], [640, 10], [640, 360], [400, 360]], np.float32)
    assert rectify(img, q, (44, 64)).shape == (64, 44, 3)


def _reads(quads: list[np.ndarray], cards: list[str], p: float = 0.9, card_p: float = 0.95) -> BodyReads:
    n = len(cards)
    rank, suit = np.full((n, 13), (1 - p) / 12), np.full((n, 4), (1 - p) / 3)
    for i, c in enumerate(cards):
        r, s = split_card(c)
        rank[i, r], suit[i, s] = p, p
    return BodyReads(np.stack(quads).astype(np.float32), rank, suit, np.full(n, card_p))


QUAD_A = np.array([[100, 100], [170, 100], [170, 200], [100, 200]], np.float32)
QUAD_B = QUAD_A + np.array([300, 0], np.float32)


def test_an_outline_no_corner_read_found_adds_its_card() -> None:
    out = fuse_bodies(CardDetections.empty(), _reads([QUAD_A], ["7H"]), RANKS, SUITS)
    assert out.cards == ["7H"]
    assert out.confidence[0] == pytest.approx(0.9 * 0.9 * 0.95, rel=1e-3)
    assert out.index_boxes == [[]]
    np.testing.assert_allclose(out.quads[0], QUAD_A)


def test_weak_or_non_card_outlines_add_nothing() -> None:
    assert len(fuse_bodies(CardDetections.empty(), _reads([QUAD_A], ["7H"], p=0.5), RANKS, SUITS)) == 0
    assert len(fuse_bodies(CardDetections.empty(), _reads([QUAD_A], ["7H"], card_p=0.2), RANKS, SUITS)) == 0


@pytest.mark.parametrize(("p", "added"), [(0.95, True), (0.8, False)])
def test_an_outline_the_card_output_doubts_counts_when_its_identity_is_sure(p: float, added: bool) -> None:
    # an oxygen 4D: rank and suit sure, P(card) 0.07; with `sure_identity_p` its card
    # probability becomes the identity's (0.95² = 0.90 → added; 0.8² = 0.64 < 0.7 → not)
    reads = _reads([QUAD_A], ["4D"], p=p, card_p=0.07)
    assert len(fuse_bodies(CardDetections.empty(), reads, RANKS, SUITS)) == 0
    out = fuse_bodies(CardDetections.empty(), reads, RANKS, SUITS, BodyFusion(sure_identity_p=0.7))
    assert out.cards == (["4D"] if added else [])
    if added:
        assert out.confidence[0] == pytest.approx(p**4, rel=1e-3)


def _corner(card: str, alts: tuple[tuple[str, float], ...], at: tuple[float, float]) -> CardDetections:
    x, y = at
    return CardDetections(
        xyxy=np.array([[x - 5, y - 8, x + 5, y + 8]]), confidence=np.array([alts[0][1]]), cards=[card],
        index_boxes=[[(x - 5, y - 8, x + 5, y + 8)]], alternatives=[alts],
    )  # fmt: skip


def test_a_corner_read_is_reweighed_by_the_body_inside_the_same_outline() -> None:
    det = _corner("KS", (("KS", 0.55), ("KC", 0.40)), at=(110, 115))
    out = fuse_bodies(det, _reads([QUAD_A], ["KC"]), RANKS, SUITS)
    assert out.cards == ["KC"] and len(out) == 1
    assert out.confidence[0] > 0.5
    assert [c for c, _ in out.alternatives[0]][:2] == ["KC", "KS"]
    # the same reads with fusion off: the corner read stands
    kept = fuse_bodies(det, _reads([QUAD_A], ["KC"]), RANKS, SUITS, BodyFusion(fuse=False))
    assert kept.cards == ["KS"]


def test_a_corner_read_outside_every_outline_is_untouched_and_both_cards_are_kept() -> None:
    det = _corner("2D", (("2D", 0.8),), at=(600, 600))
    out = fuse_bodies(det, _reads([QUAD_B], ["9C"]), RANKS, SUITS)
    assert sorted(out.cards) == ["2D", "9C"]
    assert out.confidence[out.cards.index("2D")] == pytest.approx(0.8)


def test_an_outline_holding_two_corner_cards_changes_nothing() -> None:
    a = _corner("3C", (("3C", 0.7),), at=(110, 115))
    b = _corner("4C", (("4C", 0.7),), at=(160, 190))
    det = CardDetections(
        xyxy=np.concatenate([a.xyxy, b.xyxy]), confidence=np.array([0.7, 0.7]), cards=["3C", "4C"],
        index_boxes=a.index_boxes + b.index_boxes, alternatives=a.alternatives + b.alternatives,
    )  # fmt: skip
    out = fuse_bodies(det, _reads([QUAD_A], ["8H"]), RANKS, SUITS)
    assert out.cards == ["3C", "4C"]


def test_an_added_card_never_repeats_an_identity_in_a_one_deck_game() -> None:
    det = _corner("7H", (("7H", 0.8),), at=(600, 600))  # the same card, its corners read elsewhere
    assert fuse_bodies(det, _reads([QUAD_A], ["7H"]), RANKS, SUITS).cards == ["7H"]
    assert sorted(fuse_bodies(det, _reads([QUAD_A], ["7H"]), RANKS, SUITS, two_decks=True).cards) == ["7H", "7H"]


def _rect(x1: float, y1: float, x2: float, y2: float) -> np.ndarray:
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)


def _predicted(card: str, quad: np.ndarray, index: tuple[float, float, float, float]) -> CardDetections:
    x1, y1 = quad.min(0)
    x2, y2 = quad.max(0)
    return CardDetections(np.array([[x1, y1, x2, y2]]), np.array([0.9]), [card], [[index]], quads=quad[None])


def test_a_card_takes_its_box_from_the_outline_that_holds_it() -> None:
    """Predicted from a typical shape, the card sits 10 px off and is 15 % too small; the
    found outline around its index is the box it gets. Identity and confidence stay."""
    det = _predicted("7H", _rect(110, 110, 180, 210), (112, 112, 122, 130))
    outline = _rect(100, 100, 180, 215)
    out = snap_to_outlines(det, [outline], (720, 1280))
    np.testing.assert_allclose(out.xyxy[0], [100, 100, 180, 215])
    np.testing.assert_allclose(out.quads[0], outline)
    assert out.cards == ["7H"] and out.confidence[0] == pytest.approx(0.9)


def test_an_outline_that_does_not_fit_the_card_leaves_its_box() -> None:
    """Too big (a region around several cards), too far off, or holding a second card's
    index: the predicted box stays."""
    det = _predicted("7H", _rect(110, 110, 180, 210), (112, 112, 122, 130))
    for outline in (_rect(100, 100, 400, 400), _rect(60, 100, 140, 215)):
        np.testing.assert_allclose(snap_to_outlines(det, [outline], (720, 1280)).xyxy, det.xyxy)
    two = CardDetections(
        np.array([[110, 110, 180, 210], [150, 150, 220, 250]]), np.array([0.9, 0.8]), ["7H", "8S"],
        [[(112, 112, 122, 130)], [(152, 152, 162, 170)]], quads=np.stack([_rect(110, 110, 180, 210), _rect(150, 150, 220, 250)]),
    )  # fmt: skip
    np.testing.assert_allclose(snap_to_outlines(two, [_rect(100, 100, 185, 215)], (720, 1280)).xyxy, two.xyxy)


def test_the_image_frame_is_no_card_outline() -> None:
    """A close-up: the card fills most of a 230×200 image and the outline search returns
    the image's own border; the card keeps its predicted box."""
    det = _predicted("7H", _rect(20, 10, 200, 220), (22, 12, 40, 40))
    np.testing.assert_allclose(snap_to_outlines(det, [_rect(-2, -2, 200, 230)], (230, 200)).xyxy, det.xyxy)
    np.testing.assert_allclose(snap_to_outlines(det, [_rect(15, 8, 200, 222)], (230, 200)).xyxy, [[15, 8, 200, 222]])
