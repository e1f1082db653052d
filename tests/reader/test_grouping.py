"""Grouping corner indices into physical cards (pure logic, no model)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reader.grouping import CardGeometry, IndexObs, _Pairs, group_indices, predicted_centre, same_card

GEOM = CardGeometry(cx=1.5, cy=2.3, width=3.8, height=5.4, link_radius=1.4, opposite_deg=120.0)
S = 20.0  # index long side in px


def card_indices(card: str, centre: tuple[float, float], angle_deg: float, p: float = 0.9) -> tuple[IndexObs, IndexObs]:
    """The two corner indices of an ideal card (exactly GEOM) turned by angle (CCW, y down)."""
    a = np.radians(angle_deg)
    up = np.array([-np.sin(a), -np.cos(a)])  # angle 0: up is (0, -1)
    right, down = np.array([-up[1], up[0]]), -up
    c = np.asarray(centre, float)
    tl = c - (right * GEOM.cx + down * GEOM.cy) * S
    br = c + (right * GEOM.cx + down * GEOM.cy) * S

    def box(p_: np.ndarray) -> tuple[float, float, float, float]:
        return (p_[0] - S / 4, p_[1] - S / 2, p_[0] + S / 4, p_[1] + S / 2)

    return (IndexObs(box(tl), card, p, (float(up[0]), float(up[1]))), IndexObs(box(br), card, p, (float(-up[0]), float(-up[1]))))


@pytest.mark.parametrize("angle", [0, 33, 90, 180, 271])
def test_both_indices_predict_the_same_centre(angle: float) -> None:
    a, b = card_indices("QS", (300, 200), angle)
    ca, cb = predicted_centre(a, GEOM), predicted_centre(b, GEOM)
    assert ca is not None and cb is not None
    assert np.linalg.norm(ca - np.array([300, 200])) < 3
    assert np.linalg.norm(cb - np.array([300, 200])) < 3
    assert same_card(a, b, GEOM)


def test_one_card_two_indices_is_one_card() -> None:
    cards = group_indices(list(card_indices("7H", (200, 200), 20)), GEOM)
    assert [c.card for c in cards] == ["7H"]
    assert len(cards[0].members) == 2
    assert cards[0].confidence == pytest.approx(1 - 0.1 * 0.1)
    assert cards[0].quad is not None and cards[0].quad.shape == (4, 2)
    x1, y1, x2, y2 = cards[0].xyxy
    assert x1 < 200 < x2 and y1 < 200 < y2


def test_identical_cards_in_a_cascade_stay_apart_with_two_decks() -> None:
    # two 5D one index-height apart, same orientation: only top-left indices visible
    a, _ = card_indices("5D", (200, 200), 0)
    b, _ = card_indices("5D", (200, 200 + 1.2 * S), 0)
    assert not same_card(a, b, GEOM)
    two = group_indices([a, b], GEOM, two_decks=True)
    assert [c.card for c in two] == ["5D", "5D"]
    one = group_indices([a, b], GEOM, two_decks=False)
    assert [c.card for c in one] == ["5D"]


def test_one_deck_keeps_each_card_once_even_when_read_twice_far_apart() -> None:
    a, b = card_indices("KC", (100, 100), 0, p=0.95)
    far, _ = card_indices("KC", (600, 400), 45, p=0.4)
    cards = group_indices([a, b, far], GEOM, two_decks=False)
    assert len(cards) == 1 and len(cards[0].members) == 2  # the best-supported group wins
    assert len(group_indices([a, b, far], GEOM, two_decks=True)) == 2


def test_duplicate_boxes_of_one_index_merge() -> None:
    a, _ = card_indices("AS", (200, 200), 0)
    dup = IndexObs((a.box[0] + 1, a.box[1] + 1, a.box[2] + 1, a.box[3] + 1), "AS", 0.5, None)
    cards = group_indices([a, dup], GEOM, two_decks=True)
    assert len(cards) == 1 and len(cards[0].members) == 2


def test_one_index_boxed_tightly_and_widely_is_one_card_even_with_two_decks() -> None:
    # seen on a Khmer row: the index boxed alone (10x14 px) and with the card beside it
    # (22x14): IoU 0.28, but the tight box lies wholly inside the wide one
    up = (0.0, -1.0)
    tight = IndexObs((231, 440, 241, 454), "5S", 0.9, up)
    wide = IndexObs((234, 440, 256, 454), "5S", 0.8, up)
    assert same_card(tight, wide, GEOM)
    assert [c.card for c in group_indices([tight, wide], GEOM, two_decks=True)] == ["5S"]


def test_identical_cards_cascaded_sideways_stay_apart_with_two_decks() -> None:
    # a Khmer row: the second 5S a quarter of a card to the right of the first
    a, _ = card_indices("5S", (200, 200), 0)
    b, _ = card_indices("5S", (200 + 0.25 * GEOM.width * S, 200), 0)
    assert not same_card(a, b, GEOM)
    assert [c.card for c in group_indices([a, b], GEOM, two_decks=True)] == ["5S", "5S"]


def test_a_corner_on_its_cascaded_twins_diagonal_does_not_join_the_two_cards() -> None:
    # seen on a Khmer row: two 6D, the second 0.4 of a card to the right; the first card's
    # top-left index lies on the diagonal of the second card, whose two corners both show
    first_tl, _ = card_indices("6D", (200, 200), 0)
    second_tl, second_br = card_indices("6D", (200 + 0.4 * GEOM.width * S, 200), 0)
    assert same_card(first_tl, second_br, GEOM)  # the diagonal link on its own
    cards = group_indices([first_tl, second_tl, second_br], GEOM, two_decks=True)
    assert sorted(len(c.members) for c in cards) == [1, 2]
    assert [c.card for c in cards] == ["6D", "6D"]


def test_different_cards_never_merge() -> None:
    a, b = card_indices("9C", (200, 200), 0)
    c, d = card_indices("6C", (200, 200), 180)  # same place, other identity
    cards = group_indices([a, b, c, d], GEOM)
    assert sorted(x.card for x in cards) == ["6C", "9C"]


def test_without_reading_direction_only_overlap_links() -> None:
    a, b = card_indices("3H", (200, 200), 0)
    a.up = b.up = None
    assert not same_card(a, b, GEOM)
    cards = group_indices([a, b], GEOM, two_decks=False)
    assert len(cards) == 1 and cards[0].quad is None  # one deck: still one card
    x1, y1, x2, y2 = cards[0].xyxy
    assert (x1, y1, x2, y2) == pytest.approx(a.box)  # the best group's own index box


def test_empty_input() -> None:
    assert group_indices([], GEOM) == []


def test_deck_with_small_indices_still_pairs_its_two_corners() -> None:
    # the card is 1.8x larger relative to its index than the typical geometry says
    a, b = card_indices("JD", (300, 300), 30)
    centre = np.array([300.0, 300.0])
    far = []
    for o in (a, b):
        c = centre + (o.centre - centre) * 1.8
        x1, y1, x2, y2 = o.box
        w, h = x2 - x1, y2 - y1
        far.append(IndexObs((c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2), o.card, o.p, o.up))
    assert same_card(far[0], far[1], GEOM)
    cards = group_indices(far, GEOM, two_decks=True)
    assert len(cards) == 1
    quad_centre = cards[0].quad.mean(axis=0)
    assert np.linalg.norm(quad_centre - centre) < 2  # midpoint of the two corners


# ---- fused grouping: the two corners' full distributions combined ------------------------
RANKS_T = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS_T = ("C", "D", "H", "S")


def with_probs(o: IndexObs, reads: dict[str, float]) -> IndexObs:
    """`o` with rank/suit distributions putting `reads` mass on those cards (rest spread)."""
    r = np.full(len(RANKS_T), 0.01)
    s = np.full(len(SUITS_T), 0.01)
    for card, p in reads.items():
        r[RANKS_T.index(card[:-1])] += p
        s[SUITS_T.index(card[-1])] += p
    o.rank_probs, o.suit_probs = r / r.sum(), s / s.sum()
    return o


def test_fused_corners_that_disagree_give_one_card_read_from_both() -> None:
    a, b = card_indices("QS", (300, 200), 15)
    a = with_probs(a, {"QS": 0.55, "QC": 0.4})
    b = with_probs(b, {"QC": 0.45, "QS": 0.5})
    a.card, b.card = "QS", "QC"  # each index's own top reading
    assert len(group_indices([a, b], GEOM)) == 2  # without fusion: two guesses
    fused = group_indices([a, b], GEOM, labels=(RANKS_T, SUITS_T))
    assert [c.card for c in fused] == ["QS"] and len(fused[0].members) == 2


def test_fused_confident_different_reads_stay_two_cards() -> None:
    a, _ = card_indices("3H", (200, 200), 0)
    _, b = card_indices("9C", (200, 200), 0)  # where 3H's other corner would be
    a = with_probs(a, {"3H": 0.95})
    b = with_probs(b, {"9C": 0.95})
    fused = group_indices([a, b], GEOM, labels=(RANKS_T, SUITS_T))
    assert sorted(c.card for c in fused) == ["3H", "9C"]


def test_fused_single_index_keeps_its_own_probability() -> None:
    a, _ = card_indices("7D", (200, 200), 40)
    a = with_probs(a, {"7D": 0.9})
    a.index_p = 0.8
    (card,) = group_indices([a], GEOM, labels=(RANKS_T, SUITS_T))
    joint = float(np.outer(a.rank_probs, a.suit_probs).max())  # type: ignore[arg-type]
    assert card.card == "7D" and card.confidence == pytest.approx(joint * 0.8, rel=1e-3)


def test_fused_card_lists_its_runners_up_on_the_confidence_scale() -> None:
    """`CardGroup.alternatives`: the top identity (exactly card, confidence) then the next
    most likely ones, each probability × the same "is an index" factor."""
    from vision.reader.grouping import TOP_K

    a, _ = card_indices("QS", (200, 200), 0)
    a = with_probs(a, {"QS": 0.55, "QC": 0.4})
    a.index_p = 0.9
    (card,) = group_indices([a], GEOM, labels=(RANKS_T, SUITS_T))
    alts = card.alternatives
    assert len(alts) == TOP_K and alts[0] == (card.card, card.confidence)
    assert [c for c, _ in alts[:2]] == ["QS", "QC"]
    post = np.outer(a.rank_probs, a.suit_probs).ravel()  # type: ignore[arg-type]
    post /= post.sum()
    assert alts[1][1] == pytest.approx(float(post[RANKS_T.index("Q") * 4 + SUITS_T.index("C")]) * 0.9, rel=1e-3)
    assert alts[0][1] >= alts[1][1] >= alts[2][1]
    # Without distributions there is nothing but the top card.
    b, _ = card_indices("7D", (200, 200), 0)
    (plain,) = group_indices([b], GEOM)
    assert plain.alternatives == ()


# ---- one deck: a weaker duplicate re-read without the identity a surer card holds --------
def _dup_scene(unsure: dict[str, float], gap: float) -> list[IndexObs]:
    sure, _ = card_indices("6D", (200, 200), 0)
    other, _ = card_indices("6D", (200 + gap, 200), 0)
    return [with_probs(sure, {"6D": 0.95}), with_probs(other, unsure)]


def test_reread_gives_an_unsure_duplicate_its_runner_up() -> None:
    from dataclasses import replace

    obs = _dup_scene({"6D": 0.5, "8D": 0.45}, gap=300)
    geom = replace(GEOM, reassign_below=0.8)
    assert [c.card for c in group_indices(obs, GEOM, labels=(RANKS_T, SUITS_T))] == ["6D"]  # off: dropped
    cards = group_indices(obs, geom, labels=(RANKS_T, SUITS_T))
    assert sorted(c.card for c in cards) == ["6D", "8D"]
    eight = next(c for c in cards if c.card == "8D")
    assert eight.alternatives[0] == ("8D", eight.confidence) and "6D" not in [c for c, _ in eight.alternatives]
    assert eight.confidence > 0.5  # conditioned on not being 6D, it is mostly 8D


def test_reread_keeps_dropping_sure_duplicates_and_split_halves_of_one_card() -> None:
    from dataclasses import replace

    geom = replace(GEOM, reassign_below=0.8)
    sure_twice = group_indices(_dup_scene({"6D": 0.95}, gap=300), geom, labels=(RANKS_T, SUITS_T))
    assert [c.card for c in sure_twice] == ["6D"]  # both sure: one card seen twice, not two cards
    near = group_indices(_dup_scene({"6D": 0.5, "8D": 0.45}, gap=2 * S), geom, labels=(RANKS_T, SUITS_T))
    assert [c.card for c in near] == ["6D"]  # within a card of the holder: the same card
    two_decks = group_indices(_dup_scene({"6D": 0.5, "8D": 0.45}, gap=300), geom, two_decks=True, labels=(RANKS_T, SUITS_T))
    assert sorted(c.card for c in two_decks) == ["6D", "6D"]  # two decks: both 6D stay


def test_a_corner_misread_as_a_card_the_deck_lacks_does_not_take_the_card_with_it() -> None:
    # seen on a Khmer row (A-6 deck): the top-left index read 6S, the upside-down
    # bottom-right one 8S with more confidence; fused, the card became 8S and was then
    # dropped as a card Khmer does not have, so the play was missed for 15 s
    a, b = card_indices("6S", (300, 200), 180)
    a = with_probs(a, {"6S": 0.85, "8S": 0.1})
    b = with_probs(b, {"8S": 0.97})
    labels = (RANKS_T, SUITS_T)
    assert [c.card for c in group_indices([a, b], GEOM, labels=labels)] == ["8S"]
    khmer = frozenset(r + s for r in ("A", "2", "3", "4", "5", "6") for s in SUITS_T)
    (card,) = group_indices([a, b], GEOM, labels=labels, allowed=khmer)
    assert card.card == "6S" and len(card.members) == 2


@pytest.mark.parametrize("seed", range(6))
def test_the_pair_tables_agree_with_same_card(seed: int) -> None:
    """`_Pairs` (all pairs at once) says what the scalar `same_card` says, pair by pair: on
    real cards (both corners), cascades, jittered boxes, indices with no direction."""
    rng = np.random.default_rng(seed)
    obs: list[IndexObs] = []
    for k in range(6):
        a, b = card_indices("QS", (float(rng.uniform(100, 700)), float(rng.uniform(100, 500))), float(rng.uniform(0, 360)))
        obs += [a, b] if k % 2 else [a]
    for o in list(obs[:4]):  # the same index found twice, offset; a cascade twin
        x1, y1, x2, y2 = o.box
        d = float(rng.uniform(-4, 4))
        obs.append(IndexObs((x1 + d, y1 + d, x2 + d, y2 + 2 * d), "QS", 0.5, o.up))
        obs.append(IndexObs((x1 + 9, y1 + 14, x2 + 9, y2 + 14), "QS", 0.5, o.up))
    obs.append(IndexObs(obs[0].box, "QS", 0.5, None))
    t = _Pairs.of(obs, GEOM)
    for i in range(len(obs)):
        for j in range(len(obs)):
            if i != j:
                assert bool(t.same_card[i, j]) == same_card(obs[i], obs[j], GEOM), (i, j)


def four_corner_indices(card: str, centre: tuple[float, float], angle_deg: float) -> list[IndexObs]:
    """An ideal card of a deck that prints its index in all four corners: the two of
    `card_indices` plus their mirror images (top-right reads upright, bottom-left turned)."""
    tl, br = card_indices(card, centre, angle_deg)
    assert tl.up is not None
    up = np.array(tl.up)
    right = np.array([-up[1], up[0]])
    shift = right * 2 * GEOM.cx * S  # from the top-left index to the top-right one

    def moved(o: IndexObs, d: np.ndarray, p: float) -> IndexObs:
        x1, y1, x2, y2 = o.box
        return IndexObs((x1 + d[0], y1 + d[1], x2 + d[0], y2 + d[1]), card, p, o.up)

    return [moved(tl, shift, 0.9), moved(tl, 0 * shift, 0.6), moved(br, -shift, 0.6), moved(br, 0 * shift, 0.6)]


@pytest.mark.parametrize("angle", [0, 15, 90, 200])
def test_a_four_corner_card_is_placed_from_all_its_corners(angle: float) -> None:
    """The surest corner is the top-right one: alone it puts the card beside itself. Its
    other corners, dropped as the same identity, still place the outline on the card."""
    obs = four_corner_indices("KC", (300, 300), angle)
    cards = group_indices(obs, GEOM)
    assert [c.card for c in cards] == ["KC"]
    assert len(cards[0].members) == 4
    assert cards[0].quad is not None
    assert np.linalg.norm(cards[0].quad.mean(axis=0) - np.array([300, 300])) < 0.2 * S
    # the top-right corner alone would have put it more than an index width away
    alone = group_indices(obs[:1], GEOM)[0]
    assert alone.quad is not None and np.linalg.norm(alone.quad.mean(axis=0) - np.array([300, 300])) > S


def test_a_stray_read_of_the_same_card_does_not_move_its_outline() -> None:
    """One deck: a far-off index read as the same card is dropped and lends nothing; one
    within reach that does not fit inside the merged outline lends nothing either."""
    tl, br = card_indices("9H", (300, 300), 0)
    x1, y1, x2, y2 = tl.box
    for dx, dy in ((40 * S, 0), (-2 * S, S)):
        stray = IndexObs((x1 + dx, y1 + dy, x2 + dx, y2 + dy), "9H", 0.3, tl.up)
        cards = group_indices([tl, br, stray], GEOM)
        assert [c.card for c in cards] == ["9H"] and len(cards[0].members) == 2
        assert cards[0].quad is not None and np.linalg.norm(cards[0].quad.mean(axis=0) - np.array([300, 300])) < 1


def deck_card(card: str, centre: tuple[float, float], k: float, corners: str = "both") -> list[IndexObs]:
    """An upright card of a deck `k` times bigger than GEOM's typical card for its index
    size S: its indices sit k × (cx, cy) index sizes from its centre."""
    cx, cy = centre
    tl, br = (cx - k * GEOM.cx * S, cy - k * GEOM.cy * S), (cx + k * GEOM.cx * S, cy + k * GEOM.cy * S)

    def box(p: tuple[float, float]) -> tuple[float, float, float, float]:
        return (p[0] - S / 4, p[1] - S / 2, p[0] + S / 4, p[1] + S / 2)

    out = [IndexObs(box(tl), card, 0.9, (0.0, -1.0)), IndexObs(box(br), card, 0.9, (0.0, 1.0))]
    return out[:1] if corners == "top" else out


@pytest.mark.parametrize("k", [0.75, 1.3])
def test_a_card_seen_by_one_corner_is_sized_by_the_deck_in_view(k: float) -> None:
    """Two cards read from both corners measure the deck's proportion; the card seen by its
    top-left corner alone gets an outline of that deck's size, centred on the card."""
    obs = deck_card("2C", (200, 300), k) + deck_card("3D", (500, 300), k) + deck_card("4H", (800, 300), k, "top")
    cards = {g.card: g for g in group_indices(obs, GEOM)}
    lone = cards["4H"]
    assert lone.quad is not None
    assert np.linalg.norm(lone.quad.mean(axis=0) - np.array([800, 300])) < 0.1 * S
    assert np.linalg.norm(lone.quad[1] - lone.quad[0]) == pytest.approx(k * GEOM.width * S, rel=0.05)


def test_one_measured_card_or_a_typical_deck_changes_nothing() -> None:
    """With only one two-corner card, or a deck of the typical proportion, a one-corner card
    keeps the outline its index predicts."""
    lone = deck_card("4H", (800, 300), 1.0, "top")
    alone = group_indices(lone, GEOM)[0].quad
    for obs in (deck_card("2C", (200, 300), 1.3) + lone, deck_card("2C", (200, 300), 1.0) + deck_card("3D", (500, 300), 1.0) + lone):
        quad = {g.card: g for g in group_indices(obs, GEOM)}["4H"].quad
        np.testing.assert_allclose(quad, alone)
