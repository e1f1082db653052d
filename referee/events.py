"""The public game-log vocabulary as typed, immutable events.

On the wire an event is a dict (one JSON object per log line, see docs/game-log.md);
inside the referee it is one of the frozen dataclasses below. ``parse_event`` is strict:
an unknown ``type``, an unknown key or a malformed field raises ``ValueError`` with one
clear line. Every event may carry ``t`` (seconds), ``source`` (who produced it) and
``meta`` (free-form dict); the rules ignore all three, sessions store them.

Cards are canonical strings (``"10H"``). Khmer events also accept plain values 1-6,
which is how a Khmer log is usually written; the Khmer rules map cards to values.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Union

from referee.cards import khmer_value, parse_card

SOURCES: tuple[str, ...] = ("vision", "button", "phone", "voice", "log")
CALLS: tuple[str, ...] = ("kemps", "cut", "kems", "double_kems", "contre_kems")
# House-rule names for the counter-call: all mean "cut".
CALL_ALIASES: dict[str, str] = {
    "stop_kemps": "cut",
    "stop": "cut",
    "counter": "cut",
    "counter_kemps": "cut",
    "canhao": "cut",
    "double": "double_kems",
    "contre": "contre_kems",
}

KhmerCard = Union[int, str]
AnyCard = Union[int, str]


@dataclass(frozen=True, kw_only=True)
class _Base:
    type: ClassVar[str] = ""
    t: float | None = None
    source: str | None = None
    meta: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        base = ("t", "source", "meta")
        for name in [f.name for f in fields(self) if f.name not in base] + list(base):
            value = getattr(self, name)
            if value is not None:
                out[name] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class Deal(_Base):
    """Kemps/Kem's: ``market`` (4 cards) and optional ``hands``. Khmer: optional
    ``hands`` (6 each), ``hidden`` (4) and ``first`` (who plays first)."""

    type: ClassVar[str] = "deal"
    market: tuple[str, ...] | None = None
    hands: dict[str, tuple[AnyCard, ...]] | None = None
    hidden: tuple[KhmerCard, ...] | None = None
    first: str | None = None


@dataclass(frozen=True, kw_only=True)
class Swap(_Base):
    """One-for-one exchange with the market; ``player`` may be unknown (vision)."""

    type: ClassVar[str] = "swap"
    give: str
    take: str
    player: str | None = None


@dataclass(frozen=True, kw_only=True)
class Correct(_Base):
    """The camera corrects its own reading of a card nobody touched: ``was`` was never
    there, ``now`` has been all along; not a move (vision only). Kemps/Kem's: a market card.
    Khmer: the most recent ``was`` in ``player``'s row."""

    type: ClassVar[str] = "correct"
    was: str
    now: str
    player: str | None = None


@dataclass(frozen=True, kw_only=True)
class Stale(_Base):
    """Nobody wants the market: the four cards go to the discard pile."""

    type: ClassVar[str] = "stale"


@dataclass(frozen=True, kw_only=True)
class Reset(_Base):
    """Four new market cards dealt from the reserve after a stale market."""

    type: ClassVar[str] = "reset"
    market: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Call(_Base):
    """A spoken call: kemps, cut (stop kemps, counter), kems, double_kems, contre_kems."""

    type: ClassVar[str] = "call"
    call: str
    by: str
    target: str | None = None


@dataclass(frozen=True, kw_only=True)
class Reveal(_Base):
    """Hands laid face up (some or all players)."""

    type: ClassVar[str] = "reveal"
    hands: dict[str, tuple[AnyCard, ...]]
    hidden: tuple[KhmerCard, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class NewHand(_Base):
    """Collect, shuffle, next deal (Kemps hand, Kem's manche, Khmer deal)."""

    type: ClassVar[str] = "new_hand"


@dataclass(frozen=True, kw_only=True)
class Show(_Base):
    """Kem's: a player shows cards after a wrong Contre Kem's (two by default)."""

    type: ClassVar[str] = "show"
    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Redraw(_Base):
    """Kem's deal: a player shows 3-4 identical cards, puts them back and draws again."""

    type: ClassVar[str] = "redraw"
    player: str
    shown: tuple[str, ...]
    drawn: tuple[str, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class Play(_Base):
    """Khmer: play a card face up on top of your own row."""

    type: ClassVar[str] = "play"
    player: str
    card: KhmerCard


@dataclass(frozen=True, kw_only=True)
class Steal(_Base):
    """Khmer: take the opponent's most recently played card into your pile."""

    type: ClassVar[str] = "steal"
    player: str
    card: KhmerCard | None = None


@dataclass(frozen=True, kw_only=True)
class Discard(_Base):
    """Khmer: discard a 6 from your hand (out of the game)."""

    type: ClassVar[str] = "discard"
    player: str
    card: KhmerCard = 6


@dataclass(frozen=True, kw_only=True)
class Close(_Base):
    """Khmer: end the deal and compare totals."""

    type: ClassVar[str] = "close"
    player: str


@dataclass(frozen=True, kw_only=True)
class Fold(_Base):
    """Khmer match: give up the deal, the opponent scores `fold_points` (default 1)."""

    type: ClassVar[str] = "fold"
    player: str


GameEvent = Union[Deal, Swap, Correct, Stale, Reset, Call, Reveal, NewHand, Show, Redraw, Play, Steal,
                  Discard, Close, Fold]
EVENT_TYPES: dict[str, type] = {
    cls.type: cls
    for cls in (Deal, Swap, Correct, Stale, Reset, Call, Reveal, NewHand, Show, Redraw, Play, Steal,
                Discard, Close, Fold)
}


# ---------------------------------------------------------------- field parsers
def _card(name: str, v: Any) -> str:
    try:
        return parse_card(v)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _any_card(name: str, v: Any) -> AnyCard:
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            return khmer_value(v)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
    return _card(name, v)


def _khmer_card(name: str, v: Any) -> KhmerCard:
    card = _any_card(name, v)
    try:
        khmer_value(card)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return card


def _cards(name: str, v: Any, item=_card) -> tuple:
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{name}: expected a list of cards, got {type(v).__name__}")
    return tuple(item(f"{name}[{i}]", c) for i, c in enumerate(v))


def _hands(name: str, v: Any) -> dict[str, tuple[AnyCard, ...]]:
    if not isinstance(v, dict):
        raise ValueError(f"{name}: expected an object player -> list of cards")
    return {_player(f"{name} key", p): _cards(f"{name}.{p}", cs, _any_card) for p, cs in v.items()}


def _player(name: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{name}: expected a player name, got {v!r}")
    return v


def _call(name: str, v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{name}: expected a call name, got {v!r}")
    key = v.strip().lower().replace(" ", "_").replace("'", "").replace("-", "_")
    key = CALL_ALIASES.get(key, key)
    if key not in CALLS:
        raise ValueError(f"{name}: unknown call {v!r} (one of {', '.join(CALLS)})")
    return key


def _time(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise ValueError(f"{name}: expected seconds >= 0, got {v!r}")
    return float(v)


def _source(name: str, v: Any) -> str:
    if v not in SOURCES:
        raise ValueError(f"{name}: expected one of {', '.join(SOURCES)}, got {v!r}")
    return v


def _meta(name: str, v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValueError(f"{name}: expected an object")
    return dict(v)


_PARSERS: dict[str, Any] = {
    "t": _time,
    "source": _source,
    "meta": _meta,
    "market": _cards,
    "hands": _hands,
    "hidden": lambda n, v: _cards(n, v, _khmer_card),
    "first": _player,
    "give": _card,
    "take": _card,
    "was": _card,
    "now": _card,
    "player": _player,
    "by": _player,
    "target": _player,
    "call": _call,
    "cards": _cards,
    "shown": _cards,
    "drawn": _cards,
}
_KHMER_CARD_FIELD = {"play", "steal", "discard"}


def parse_event(d: dict[str, Any]) -> GameEvent:
    """Turn one log dict into a typed event, or raise ``ValueError`` saying what is wrong."""
    if not isinstance(d, dict):
        raise ValueError(f"event must be a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:  # a list or object is no name either
        raise ValueError(
            f"unknown event type {kind!r} (one of {', '.join(sorted(EVENT_TYPES))})"
        )
    cls = EVENT_TYPES[kind]
    known = {f.name: f for f in fields(cls)}
    extra = sorted(set(d) - set(known) - {"type"})
    if extra:
        raise ValueError(f"{kind} event: unknown field(s) {', '.join(extra)}")
    kwargs: dict[str, Any] = {}
    for key, value in d.items():
        if key == "type" or (value is None and key in ("t", "source", "meta", "target",
                                                       "player", "hands", "hidden", "first",
                                                       "drawn", "market")):
            continue
        if key == "card" and kind in _KHMER_CARD_FIELD:
            parser = _khmer_card
        else:
            parser = _PARSERS[key]
        try:
            kwargs[key] = parser(key, value)
        except ValueError as exc:
            raise ValueError(f"{kind} event: {exc}") from None
    try:
        return cls(**kwargs)
    except TypeError:
        missing = sorted(
            n for n, f in known.items()
            if n not in kwargs and f.default is f.default_factory  # both MISSING
        )
        raise ValueError(f"{kind} event: missing field(s) {', '.join(missing)}") from None


def event_from(obj: GameEvent | dict[str, Any]) -> GameEvent:
    """Accept either a typed event or its dict form."""
    return obj if isinstance(obj, _Base) else parse_event(obj)  # type: ignore[return-value]
