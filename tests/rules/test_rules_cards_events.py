"""Cards, events and announcements: parsing, round trips, clear errors."""

from __future__ import annotations

import pytest

from referee.announce import LANGS, TEMPLATES, announce
from referee.cards import (ALL_CARDS, KHMER_DECK, RANKS, SUITS, khmer_value, parse_card,
                           piquet_deck, rank_of, suit_of)
from referee.events import EVENT_TYPES, Call, Swap, parse_event


@pytest.mark.parametrize("text,card", [("10h", "10H"), ("TH", "10H"), (" qs ", "QS"),
                                       ("ac", "AC"), ("1D", "AD"), ("7s", "7S")])
def test_parse_card_accepts(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "H", "11H", "ZZ", "10X", "QQ", 7, None])
def test_parse_card_rejects(text):
    with pytest.raises(ValueError):
        parse_card(text)


def test_deck_orders():
    assert len(ALL_CARDS) == 52 == len(set(ALL_CARDS))
    assert ALL_CARDS[:5] == ("AC", "AD", "AH", "AS", "2C")
    assert ALL_CARDS[-1] == "KS"
    assert [rank_of(c) for c in ALL_CARDS[::4]] == list(RANKS)
    assert {suit_of(c) for c in ALL_CARDS} == set(SUITS)
    p = piquet_deck()
    assert len(p) == 32 and {rank_of(c) for c in p} == {"7", "8", "9", "10", "J", "Q", "K", "A"}
    assert sorted(KHMER_DECK) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] + [6] * 6


@pytest.mark.parametrize("card,value", [("AH", 1), ("2C", 2), ("6S", 6), (3, 3)])
def test_khmer_value(card, value):
    assert khmer_value(card) == value


@pytest.mark.parametrize("card", ["7H", "KS", 0, 7, True])
def test_khmer_value_rejects(card):
    with pytest.raises(ValueError):
        khmer_value(card)


EXAMPLES = [
    {"type": "deal", "hands": {"N": ["7H", "7S", "2C", "9D"]}, "market": ["7C", "KD", "3S", "4H"]},
    {"type": "deal", "market": ["7C", "KD", "3S", "4H"], "t": 1.5, "source": "vision"},
    {"type": "deal", "hands": {"N": [1, 6, 3, 2, 5, 6], "S": [1, 2, 3, 4, 5, 6]}, "hidden": [4, 6, 6, 6]},
    {"type": "swap", "player": "N", "give": "2C", "take": "7C"},
    {"type": "swap", "give": "2C", "take": "7C"},
    {"type": "correct", "was": "8H", "now": "6H", "t": 2.0, "source": "vision"},
    {"type": "stale"},
    {"type": "reset", "market": ["2H", "3H", "4H", "5H"]},
    {"type": "call", "call": "kemps", "by": "S"},
    {"type": "call", "call": "cut", "by": "S", "target": "E", "source": "voice", "meta": {"conf": 0.8}},
    {"type": "reveal", "hands": {"N": ["7H", "7S", "2C", "9D"]}},
    {"type": "new_hand"},
    {"type": "show", "player": "E", "cards": ["2C", "3C"]},
    {"type": "redraw", "player": "E", "shown": ["2C", "2D", "2H"], "drawn": ["3C", "4C", "5C"]},
    {"type": "play", "player": "N", "card": 3},
    {"type": "play", "player": "N", "card": "AH"},
    {"type": "steal", "player": "S"},
    {"type": "discard", "player": "N", "card": 6},
    {"type": "close", "player": "S"},
    {"type": "fold", "player": "N"},
]


@pytest.mark.parametrize("d", EXAMPLES, ids=lambda d: d["type"])
def test_event_round_trip(d):
    e = parse_event(d)
    assert e.to_dict() == d
    assert parse_event(e.to_dict()) == e


def test_every_event_type_has_an_example():
    assert {d["type"] for d in EXAMPLES} == set(EVENT_TYPES)


def test_parse_normalises():
    e = parse_event({"type": "swap", "give": "2c", "take": "th"})
    assert isinstance(e, Swap) and (e.give, e.take, e.player) == ("2C", "10H", None)
    for alias in ("stop_kemps", "Stop Kemps", "counter", "COUNTER"):
        assert parse_event({"type": "call", "call": alias, "by": "S", "target": "E"}).call == "cut"
    assert isinstance(parse_event({"type": "call", "call": "Contre Kem's", "by": "N"}), Call)


@pytest.mark.parametrize("d,msg", [
    ({"type": "jump"}, "unknown event type"),
    ("swap", "JSON object"),
    ({"type": "swap", "give": "2C"}, "missing field(s) take"),
    ({"type": "swap", "give": "2C", "take": "ZZ"}, "take: not a card"),
    ({"type": "swap", "give": "2C", "take": "3C", "hand": "N"}, "unknown field(s) hand"),
    ({"type": "call", "call": "bingo", "by": "N"}, "unknown call"),
    ({"type": "play", "player": "N", "card": 7}, "1-6"),
    ({"type": "play", "player": "N", "card": "KH"}, "not in the Khmer deck"),
    ({"type": "stale", "t": -1}, "seconds"),
    ({"type": "stale", "source": "telepathy"}, "source"),
    ({"type": "reveal", "hands": ["7H"]}, "object"),
    ({"type": "call", "call": "kemps", "by": ""}, "player name"),
])
def test_parse_event_errors(d, msg):
    with pytest.raises(ValueError, match=None) as info:
        parse_event(d)
    assert msg in str(info.value)


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_every_announcement_renders_in_three_languages(key):
    import string

    names = {f for t in TEMPLATES[key] for _, f, _, _ in string.Formatter().parse(t) if f}
    a = announce(key, **{n: ["N", "S"] if n in ("team", "players", "seats") else "X" for n in names})
    assert set(a.text) == set(LANGS)
    assert all(a.text[lang] and "{" not in a.text[lang] for lang in LANGS)
    assert a.to_dict()["key"] == key
