"""Khmer table events from zone changes (pure logic, no camera)."""

from __future__ import annotations

from dataclasses import replace

from vision.tracker.filter import ZoneChange
from vision.tracker.khmer import KhmerTracker


def change(zone: str, t: float, before: list[str], after: list[str]) -> ZoneChange:
    removed = list(before)
    for c in after:
        if c in removed:
            removed.remove(c)
    added = list(after)
    for c in before:
        if c in added:
            added.remove(c)
    return ZoneChange(zone, t, tuple(removed), tuple(added), tuple(before), tuple(after))


def feed(kt: KhmerTracker, ch: ZoneChange) -> list[dict]:
    events, _ = kt.change(ch, ch.t)
    return events


def test_a_card_covered_by_the_next_play_and_uncovered_by_a_steal_is_not_played_again() -> None:
    # seen on a simulated row: S's 3S hid the 5S under it; N stole the 3S and the 5S showed again
    kt = KhmerTracker(["S", "N"])
    assert [e["card"] for e in feed(kt, change("row:S", 6.0, [], ["6C"]))] == ["6C"]
    assert [e["card"] for e in feed(kt, change("row:S", 12.8, ["6C"], ["6C", "5S"]))] == ["5S"]
    assert [e["card"] for e in feed(kt, change("row:S", 17.9, ["6C", "5S"], ["6C", "3S"]))] == ["3S"]
    notices = kt.tick(20.0)  # the 5S reached no pile: a notice, and it stays in the row
    assert [n["kind"] for n in notices] == ["vanished"]
    assert sorted(kt.rows["S"]) == ["3S", "5S", "6C"]
    assert [e["type"] for e in feed(kt, change("pile:N", 20.5, [], ["3S"]))] == ["steal"]
    assert feed(kt, change("row:S", 20.6, ["6C", "3S"], ["6C", "5S"])) == []  # uncovered, not played
    assert sorted(kt.rows["S"]) == ["5S", "6C"]
    assert kt.totals({"S": [], "N": []})["table"] == 5 + 6


def test_a_hidden_card_still_counts_in_the_table_total() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["4H"]))
    feed(kt, change("row:N", 5.0, ["4H"], ["2S"]))  # 2S laid over the 4H's index
    kt.tick(8.0)
    assert kt.totals({"S": [], "N": []})["table"] == 4 + 2


def test_a_card_read_again_within_pair_s_is_not_a_play_and_a_new_card_is() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:S", 1.0, [], ["AH"]))
    assert feed(kt, change("row:S", 2.0, ["AH"], [])) == []
    assert feed(kt, change("row:S", 2.5, [], ["AH"])) == []
    assert [e["card"] for e in feed(kt, change("row:S", 4.0, ["AH"], ["AH", "2H"]))] == ["2H"]
    assert kt.tick(10.0) == []


def test_a_hidden_card_can_be_stolen() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:S", 1.0, [], ["3D"]))
    feed(kt, change("row:S", 2.0, ["3D"], []))  # no longer read (glare), never left
    kt.tick(5.0)
    assert [e["type"] for e in feed(kt, change("pile:N", 6.0, [], ["3D"]))] == ["steal"]
    assert kt.rows["S"] == [] and kt.hidden["S"]["3D"] == 0
    assert kt.totals({"S": [], "N": ["AD"]})["players"]["N"] == 1 + 3


def test_a_card_laid_over_another_on_a_discard_is_new_even_when_its_twin_lies_lower() -> None:
    # two decks give six 6s: N discards 6C, then 6D, then the other 6C (S plays between)
    kt = KhmerTracker(["S", "N"])
    assert [e["card"] for e in feed(kt, change("discard:N", 1.0, [], ["6C"]))] == ["6C"]
    feed(kt, change("row:S", 3.0, [], ["2H"]))
    assert [e["card"] for e in feed(kt, change("discard:N", 5.0, ["6C"], ["6D"]))] == ["6D"]
    feed(kt, change("row:S", 7.0, ["2H"], ["2H", "3H"]))
    assert [e["card"] for e in feed(kt, change("discard:N", 9.0, ["6D"], ["6C"]))] == ["6C"]
    assert kt.discards["N"] == ["6C", "6D", "6C"]


def test_a_lower_card_seen_again_beside_the_top_or_a_misread_corrected_is_not_new() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("discard:S", 1.0, [], ["6H"]))
    feed(kt, change("discard:S", 4.0, ["6H"], ["6H", "6S"]))  # 6S laid, the 6H's corner still shows
    assert feed(kt, change("discard:S", 6.0, ["6H", "6S"], ["6S"])) == []  # 6H covered
    assert feed(kt, change("discard:S", 8.0, ["6S"], ["6H", "6S"])) == []  # its corner read again
    assert feed(kt, change("discard:S", 9.0, ["6H", "6S"], ["6S"])) == []
    # the top read 6H for a while with no arm near (the spot vote calls it a correction): the
    # top card misread, not a 6H laid on the 6S
    fix = ZoneChange("discard:S", 11.0, ("6S",), ("6H",), ("6S",), ("6H",), corrections=(("6S", "6H"),))
    assert feed(kt, fix) == []
    assert kt.discards["S"] == ["6H", "6S"]


def test_a_restack_is_the_zones_move_and_nothing_while_collecting() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("discard:N", 1.0, [], ["6D"]))
    assert kt.restacked("discard:N", "6D", 5.0) == [
        {"type": "discard", "player": "N", "card": "6D", "t": 5.0, "meta": {"restacked": True}}
    ]
    assert kt.discards["N"] == ["6D", "6D"]
    kt.collecting = True
    assert kt.restacked("discard:N", "6D", 9.0) == [] and kt.discards["N"] == ["6D", "6D"]


def test_a_row_card_renamed_in_place_is_no_play_and_a_new_value_is_corrected() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["4S"]))
    feed(kt, change("row:N", 5.0, ["4S"], ["4S", "AS"]))
    # AS read AC in its place: the suit alone, nothing for the referee
    ev, no = kt.change(ZoneChange("row:N", 6.0, ("AS",), ("AC",), ("4S", "AS"), ("4S", "AC"), renamed=(("AS", "AC"),)), 6.0)
    assert ev == [] and [n["type"] for n in no] == ["misread_corrected"] and kt.rows["N"] == ["4S", "AC"]
    # AC renamed 2C while the next card comes in: a correct event for the value, a play for the new card
    ch = ZoneChange("row:N", 9.0, ("AC",), ("3D", "2C"), ("4S", "AC"), ("4S", "2C", "3D"), renamed=(("AC", "2C"),))
    ev, _ = kt.change(ch, 9.0)
    assert ev == [{"type": "correct", "player": "N", "was": "AC", "now": "2C", "t": 9.0},
                  {"type": "play", "player": "N", "card": "3D", "t": 9.0}]
    assert kt.rows["N"] == ["4S", "2C", "3D"] and kt._orphans == []


def test_a_steal_and_the_next_play_in_its_place_seen_as_one_change_are_both_moves() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["4S"]))
    feed(kt, change("row:N", 5.0, ["4S"], ["4S", "AS"]))
    assert [e["type"] for e in feed(kt, change("pile:S", 8.0, [], ["AS"]))] == ["steal"]
    # N's row was not read between the steal and N's next play, laid in the AS's place
    ch = ZoneChange("row:N", 12.0, ("AS",), ("3D",), ("4S", "AS"), ("4S", "3D"), renamed=(("AS", "3D"),))
    ev, _ = kt.change(ch, 12.0)
    assert ev == [{"type": "play", "player": "N", "card": "3D", "t": 12.0}]
    assert kt.rows["N"] == ["4S", "3D"] and kt._expected_removals[("N", "AS")] == 0


def test_one_card_read_twice_in_a_row_is_one_play_and_its_ghost_comes_and_goes() -> None:
    # seen on a val deck (big index): a 6D laid in N's row read as two 6Ds; the copy then
    # dropped out of the read and came back; a later play laid over it took its place
    kt = KhmerTracker(["S", "N"])
    ev, no = kt.change(change("row:N", 10.5, [], ["6D", "6D"]), 10.5)
    assert [e["card"] for e in ev] == ["6D"] and [n["type"] for n in no] == ["twin_read"]
    assert feed(kt, change("row:N", 12.8, ["6D", "6D"], ["6D"])) == []  # the ghost went
    assert feed(kt, change("row:N", 13.5, ["6D"], ["6D", "6D"])) == []  # and came back
    renamed = replace(change("row:N", 16.0, ["6D", "6D"], ["6D", "AH"]), renamed=(("6D", "AH"),))
    ev, _ = kt.change(renamed, 16.0)  # laid over the ghost's place: a play, not a rename
    assert [(e["type"], e["card"]) for e in ev] == [("play", "AH")]
    assert kt.rows["N"] == ["6D", "AH"] and kt.tick(30.0) == []


def test_the_second_deck_copy_laid_later_is_a_play_and_twin_s_none_is_off() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["6D"]))
    feed(kt, change("row:S", 5.0, [], ["2H"]))
    assert [e["card"] for e in feed(kt, change("row:N", 9.0, ["6D"], ["6D", "6D"]))] == ["6D"]
    off = KhmerTracker(["S", "N"], twin_s=None)
    assert [e["card"] for e in feed(off, change("row:N", 1.0, [], ["6D", "6D"]))] == ["6D", "6D"]


def test_a_steal_read_twice_on_the_pile_is_one_steal() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["AH"]))
    ev, no = kt.change(change("pile:S", 5.0, [], ["AH", "AH"]), 5.0)
    assert [e["type"] for e in ev] == ["steal"] and [n["type"] for n in no] == ["twin_read"]
    assert kt.piles["S"] == ["AH"]


def test_two_names_read_at_one_place_are_one_play_the_surer_one() -> None:
    # seen on a val deck (tango): a 4H laid in N's row also read AH, 12 px away
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 11.0, [], ["6D"]))
    ch = replace(change("row:N", 17.0, ["6D"], ["6D", "AH", "4H"]), added_at=((758.0, 227.0), (757.0, 239.0)),
                 added_conf=(0.75, 0.99), added_size=(88.0, 84.0))
    ev, no = kt.change(ch, 17.0)
    assert [e["card"] for e in ev] == ["4H"] and [n["type"] for n in no] == ["twin_read"]
    assert feed(kt, change("row:N", 22.0, ["6D", "AH", "4H"], ["6D", "4H"])) == []  # the AH read goes: no move
    apart = replace(ch, added_at=((700.0, 227.0), (757.0, 239.0)))  # a card apart: both new
    assert [e["card"] for e in feed(KhmerTracker(["S", "N"]), apart)] == ["AH", "4H"]


def test_a_steal_read_again_a_moment_later_on_the_pile_is_one_steal() -> None:
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:S", 1.0, [], ["3S"]))
    assert [e["type"] for e in feed(kt, change("pile:N", 36.6, [], ["3S"]))] == ["steal"]
    assert feed(kt, change("pile:N", 36.9, ["3S"], ["3S", "3S"])) == []  # its twin, 0.3 s later
    off = KhmerTracker(["S", "N"], twin_s=None)
    feed(off, change("row:S", 1.0, [], ["3S"]))
    feed(off, change("pile:N", 36.6, [], ["3S"]))
    assert [e["type"] for e in feed(off, change("pile:N", 36.9, ["3S"], ["3S", "3S"]))] == ["steal"]


def test_the_last_moves_card_back_on_its_stack_with_no_move_since_is_no_second_move() -> None:
    # seen on a val deck (nicu-white): a discarded 6C and a stolen 2H each read a second time
    # 2.7 s later (one card taken for two identical ones) were a second discard and a second steal
    kt = KhmerTracker(["S", "N"])
    assert [e["type"] for e in feed(kt, change("discard:S", 7.6, [], ["6C"]))] == ["discard"]
    ev, no = kt.change(change("discard:S", 10.3, ["6C"], ["6C", "6C"]), 10.3)
    assert ev == [] and [n["type"] for n in no] == ["twin_read"]
    assert kt.discards["S"] == ["6C"]
    feed(kt, change("row:N", 20.0, [], ["2H"]))
    assert [e["type"] for e in feed(kt, change("pile:S", 26.7, [], ["2H"]))] == ["steal"]
    assert feed(kt, change("pile:S", 29.5, ["2H"], ["2H", "2H"])) == []
    # after another move, the same identity laid again is a move (two decks: six 6s)
    feed(kt, change("row:N", 31.0, ["2H"], ["4D"]))
    feed(kt, change("discard:S", 32.0, ["6C", "6C"], ["6C"]))
    assert [e["card"] for e in feed(kt, change("discard:S", 33.0, ["6C"], ["6C", "6C"]))] == ["6C"]
    assert kt.discards["S"] == ["6C", "6C"]
    off = KhmerTracker(["S", "N"], repeat_is_reread=False, own_turn_copy_is_reread=False)
    feed(off, change("discard:S", 7.6, [], ["6C"]))
    assert [e["type"] for e in feed(off, change("discard:S", 10.3, ["6C"], ["6C", "6C"]))] == ["discard"]


def test_a_card_read_twice_uncovered_where_a_stolen_card_lay_is_no_rename_with_rename_to_twin() -> None:
    # dev12 khmer-9122: N's 6H read on both corners; N's AH laid over its second corner and
    # read twice too; S stole the AH, and the 6H's corner showed where the AH's had been
    for on in (True, False):
        kt = KhmerTracker(["S", "N"], rename_to_twin=on)
        feed(kt, change("row:N", 10.0, [], ["6D"]))
        assert [e["card"] for e in feed(kt, change("row:N", 16.3, ["6D"], ["6D", "6H", "6H"]))] == ["6H"]
        assert [e["card"] for e in feed(kt, change("row:N", 21.3, ["6D", "6H", "6H"], ["6D", "6H", "AH", "AH"]))] == ["AH"]
        assert feed(kt, change("row:N", 24.9, ["6D", "6H", "AH", "AH"], ["6D", "6H", "AH"])) == []
        ch = ZoneChange("row:N", 25.1, ("AH",), ("6H",), ("6D", "6H", "AH"), ("6D", "6H", "6H"), renamed=(("AH", "6H"),))
        ev, _ = kt.change(ch, 25.1)
        steal = feed(kt, change("pile:S", 25.2, [], ["AH"]))
        if on:
            assert ev == [] and kt.rows["N"] == ["6D", "6H"]
            assert steal == [{"type": "steal", "player": "S", "t": 25.2, "meta": {"card": "AH"}}]
        else:  # the old reading: AH was a misread of 6H, so the referee's row lost its AH
            assert ev == [{"type": "correct", "player": "N", "was": "AH", "now": "6H", "t": 25.1}]
            assert kt.rows["N"] == ["6D", "6H", "6H"]


def test_a_row_card_read_again_in_the_change_that_lays_a_new_card_is_no_second_play() -> None:
    # khv18 khmer-8102: S laid a 5H and the same change read it twice and S's 6S twice too
    # (`own_turn_copy_is_reread` off: it would also catch the 6S, being read after the 5H)
    for on in (True, False):
        kt = KhmerTracker(["S", "N"], one_play_per_change=on, own_turn_copy_is_reread=False)
        feed(kt, change("row:S", 7.7, [], ["6C"]))
        feed(kt, change("row:S", 22.4, ["6C"], ["6C", "6S"]))
        ev, no = kt.change(change("row:S", 56.3, ["6C", "6S"], ["5H", "5H", "6C", "6S", "6S"]), 56.3)
        if on:
            assert [e["card"] for e in ev] == ["5H"] and [n["card"] for n in no] == ["5H", "6S"]
            assert sorted(kt.rows["S"]) == ["5H", "6C", "6S"]
            assert feed(kt, change("row:S", 56.7, ["5H", "5H", "6C", "6S", "6S"], ["5H", "6C", "6S"])) == []
            assert sorted(kt.rows["S"]) == ["5H", "6C", "6S"]
        else:
            assert [e["card"] for e in ev] == ["5H", "6S"]
    # the second deck's copy laid on its own, in a later turn, is still a play
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:S", 1.0, [], ["3H"]))
    feed(kt, change("row:N", 5.0, [], ["4D"]))
    assert [e["card"] for e in feed(kt, change("row:S", 9.0, ["3H"], ["3H", "3H"]))] == ["3H"]


def test_a_new_top_on_the_last_discard_a_moment_later_is_the_same_card_read_again() -> None:
    # khv18 khmer-8109: N's 6C read 6S as it was laid on N's discard, then 6C 0.27 s later
    for on in (True, False):
        kt = KhmerTracker(["S", "N"], retop_is_reread=on)
        feed(kt, change("discard:N", 48.6, [], ["6H"]))
        feed(kt, change("discard:S", 51.7, [], ["6S"]))
        assert [e["card"] for e in feed(kt, change("discard:N", 54.7, ["6H"], ["6S"]))] == ["6S"]
        ev, no = kt.change(change("discard:N", 55.0, ["6S"], ["6C"]), 55.0)
        if on:
            assert ev == [] and [n["type"] for n in no] == ["misread_corrected"]
            assert kt.discards["N"] == ["6H", "6C"]
        else:
            assert [e["card"] for e in ev] == ["6C"] and kt.discards["N"] == ["6H", "6S", "6C"]
    # later than twin_s, or after another move, a new top is a new discard
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("discard:N", 10.0, [], ["6H"]))
    assert [e["card"] for e in feed(kt, change("discard:N", 11.5, ["6H"], ["6C"]))] == ["6C"]
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("discard:N", 10.0, [], ["6H"]))
    feed(kt, change("row:S", 10.4, [], ["2S"]))
    assert [e["card"] for e in feed(kt, change("discard:N", 10.8, ["6H"], ["6C"]))] == ["6C"]


def test_a_copy_laid_in_a_zone_right_after_its_owners_own_move_is_a_second_read() -> None:
    # dev12 khmer-9113 (nicu-white): N's 5H read twice in N's row 21 s after it was laid,
    # right after N's own steal; then S's 6C twice on S's discard right after S's own play
    for on in (True, False):
        kt = KhmerTracker(["S", "N"], own_turn_copy_is_reread=on)
        feed(kt, change("discard:S", 7.6, [], ["6C"]))
        feed(kt, change("row:N", 16.8, [], ["5H"]))
        feed(kt, change("row:S", 20.9, [], ["6D"]))
        assert [e["type"] for e in feed(kt, change("pile:N", 37.0, [], ["6D"]))] == ["steal"]
        feed(kt, change("row:S", 37.4, ["6D"], []))
        ev, no = kt.change(change("row:N", 37.7, ["5H"], ["5H", "5H"]), 37.7)
        assert [e["card"] for e in ev] == ([] if on else ["5H"])
        assert [e["card"] for e in feed(kt, change("row:S", 40.5, [], ["5S"]))] == ["5S"]
        assert [e["type"] for e in feed(kt, change("discard:S", 48.1, ["6C"], ["6C", "6C"]))] == ([] if on else ["discard"])
        if on:
            assert [n["type"] for n in no] == ["twin_read"] and kt.rows["N"] == ["5H"] and kt.discards["S"] == ["6C"]
    # after the opponent's move, the second deck's copy is a play, and a new identity always is
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["5H"]))
    assert [e["card"] for e in feed(kt, change("row:N", 5.0, ["5H"], ["5H", "2S"]))] == ["2S"]
    feed(kt, change("row:S", 8.0, [], ["3H"]))
    assert [e["card"] for e in feed(kt, change("row:N", 11.0, ["5H", "2S"], ["5H", "2S", "5H"]))] == ["5H"]


def test_a_row_card_renamed_while_its_owner_is_to_move_is_a_card_laid_over_it() -> None:
    # khv18 khmer-8107: N's 2S laid over N's 6C was committed as a correction 6C -> 2S (no arm
    # seen); then N's 6S was read twice, S stole the 2S and N's 6C showed again
    def game(on: bool) -> tuple[KhmerTracker, list[dict]]:
        kt = KhmerTracker(["S", "N"], correction_on_turn_is_play=on)
        out = feed(kt, change("row:N", 39.9, [], ["6S"]))
        out += feed(kt, change("row:S", 43.3, [], ["6H"]))
        out += feed(kt, change("row:N", 47.3, ["6S"], ["6S", "6C"]))
        out += feed(kt, change("row:S", 50.0, ["6H"], ["6H", "6C"]))
        fix = ZoneChange("row:N", 52.6, ("6C",), ("2S",), ("6S", "6C"), ("2S", "6S"), corrections=(("6C", "2S"),))
        out += kt.change(fix, 52.6)[0]
        out += feed(kt, change("row:N", 53.4, ["2S", "6S"], ["6S", "2S", "6S"]))
        out += feed(kt, change("pile:S", 56.1, [], ["2S"]))
        out += feed(kt, change("row:N", 56.5, ["2S", "6S"], ["6C", "6S"]))
        return kt, out

    kt, out = game(True)
    assert [(e["type"], e.get("card")) for e in out][4:] == [("play", "2S"), ("steal", None)]
    assert out[-1]["meta"]["card"] == "2S" and sorted(kt.rows["N"]) == ["6C", "6S"]
    assert kt.totals({"S": [], "N": []})["table"] == 6 + 6 + 6 + 6
    kt, out = game(False)  # the old reading: a correction, and the 6S read twice a play
    assert [(e["type"], e.get("card")) for e in out][4:6] == [("correct", None), ("play", "6S")]
    # a misread corrected right after the owner's own play stays a correction
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:S", 1.0, [], ["2H"]))
    feed(kt, change("row:N", 4.0, [], ["AS"]))
    ev, no = kt.change(ZoneChange("row:N", 5.0, ("AS",), ("AC",), ("AS",), ("AC",), corrections=(("AS", "AC"),)), 5.0)
    assert ev == [] and [n["type"] for n in no] == ["misread_corrected"] and kt.rows["N"] == ["AC"]


def test_a_card_stolen_before_it_was_seen_laid_is_played_then_stolen() -> None:
    # khv18 khmer-8102 with the camera frozen 4 s: S's 6D was laid and N stole it while the
    # view froze; the steal alone was refused ("it is S's turn") and the deal stayed out of step.
    def table(**options: bool) -> KhmerTracker:
        kt = KhmerTracker(["S", "N"], **options)
        feed(kt, change("row:S", 22.4, [], ["6S"]))
        feed(kt, change("row:N", 31.3, [], ["4H"]))  # N moved last: S is to move
        return kt

    events = feed(table(), change("pile:N", 38.1, [], ["6D"]))
    assert [(e["type"], e["player"], e.get("card") or e["meta"]["card"]) for e in events] == [
        ("play", "S", "6D"), ("steal", "N", "6D")]
    assert events[0]["t"] < events[1]["t"] and events[0]["meta"]["inferred"]
    kt = table()
    feed(kt, change("pile:N", 38.1, [], ["6D"]))
    # the row's late sight of the card, then its leaving: no move either time
    assert feed(kt, change("row:S", 38.3, ["6S"], ["6S", "6D"])) == []
    assert feed(kt, change("row:S", 38.6, ["6S", "6D"], ["6S"])) == []
    assert kt.tick(45.0) == [] and kt.rows["S"] == ["6S"]
    assert [e["type"] for e in feed(table(steal_implies_play=False), change("pile:N", 38.1, [], ["6D"]))] == ["steal"]


def test_a_steal_of_an_unseen_card_after_the_opponents_move_infers_nothing() -> None:
    # S moved last (a misread play, say): the pile's card is no unseen play of S's
    kt = KhmerTracker(["S", "N"])
    feed(kt, change("row:N", 1.0, [], ["4H"]))
    feed(kt, change("row:S", 5.0, [], ["6C"]))  # truly a 6D, misread
    assert [e["type"] for e in feed(kt, change("pile:N", 9.0, [], ["6D"]))] == ["steal"]
