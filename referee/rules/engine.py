"""Entry point of the rules: ``new_game(header) -> Game``.

``header`` is the first line of a game log::

    {"game": "kemps"|"kems"|"khmer", "rules": {"variant": "cut", ...overrides},
     "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]}

Players are listed clockwise (seat order). Optional keys: ``dealer`` (first dealer,
default the first player), ``first`` (Khmer: who plays the first deal), ``meta`` (free).
Every game offers the same pure API: ``initial_state()``, ``apply(state, event)``,
``is_legal``, ``standings``, ``is_finished``, ``awaiting``, ``view``, ``outcome``.
"""

from __future__ import annotations

from typing import Any, Protocol, Union

from referee.cards import piquet_deck, standard_deck
from referee.events import GameEvent
from referee.rules.common import Applied, Illegal, Rejected, RejectCode
from referee.rules.config import GAMES, Rules, load_rules
from referee.rules.kemps import KempsScoring
from referee.rules.kems import KemsScoring
from referee.rules.khmer import KhmerGame, KhmerState
from referee.rules.market import MARKET_SIZE
from referee.rules.table import TableGame, TableState

__all__ = [
    "Applied", "Game", "Illegal", "Rejected", "RejectCode", "State", "new_game",
    "HEADER_KEYS",
]

State = Union[TableState, KhmerState]
HEADER_KEYS = frozenset({"game", "rules", "players", "teams", "dealer", "first", "meta"})


class Game(Protocol):
    name: str
    header: dict[str, Any]
    rules: Rules
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...]

    def initial_state(self) -> Any: ...
    def apply(self, state: Any, event: GameEvent | dict[str, Any]) -> Applied | Rejected: ...
    def is_legal(self, state: Any, event: GameEvent | dict[str, Any]) -> bool: ...
    def standings(self, state: Any) -> list[dict[str, Any]]: ...
    def is_finished(self, state: Any) -> bool: ...
    def awaiting(self, state: Any) -> dict[str, Any] | None: ...
    def view(self, state: Any) -> dict[str, Any]: ...
    def outcome(self, state: Any) -> dict[str, Any] | None: ...


def _players(header: dict[str, Any]) -> tuple[str, ...]:
    players = header.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise ValueError("header: 'players' must be a list of player names (clockwise)")
    if len(set(players)) != len(players):
        raise ValueError("header: player names must be unique")
    return tuple(players)


def _teams(header: dict[str, Any], players: tuple[str, ...], rules: Rules) -> tuple[tuple[str, ...], ...]:
    teams = header.get("teams")
    if not isinstance(teams, list) or not all(
        isinstance(t, list) and all(isinstance(p, str) for p in t) for t in teams
    ):
        raise ValueError("header: 'teams' must be a list of lists of player names")
    flat = [p for t in teams for p in t]
    if sorted(flat) != sorted(players):
        raise ValueError("header: every player must be in exactly one team")
    if len(teams) < 2:
        raise ValueError("header: at least two teams")
    for t in teams:
        if len(t) not in rules.team_sizes:
            raise ValueError(f"header: team {'+'.join(t)} has {len(t)} players, allowed sizes {list(rules.team_sizes)}")
    if rules.seating == "not_adjacent":
        n = len(players)
        for t in teams:
            for a in t:
                for b in t:
                    i, j = players.index(a), players.index(b)
                    if a < b and (abs(i - j) == 1 or abs(i - j) == n - 1):
                        raise ValueError(
                            f"header: partners {a} and {b} sit side by side (players are listed "
                            "clockwise; set rules.seating: off to allow it)")
    return tuple(tuple(t) for t in teams)


def default_teams(players: list[str] | tuple[str, ...]) -> list[list[str]] | None:
    """Teams for players listed clockwise when nobody said: facing pairs (i with i + n/2) for an
    even table, teams of three spread around it (i, i + n/3, i + 2n/3) for an odd one that
    divides by three (Kem's: 9 players); None when neither fits (7 players)."""
    n = len(players)
    size = 2 if n % 2 == 0 else 3 if n % 3 == 0 else 0
    if n < 4 or not size:
        return None
    k = n // size
    return [[players[i + j * k] for j in range(size)] for i in range(k)]


def _deck(rules: Rules, n_players: int) -> tuple[str, ...]:
    copies = rules.decks
    if copies == "auto":
        copies = 2 if n_players >= rules.two_decks_from else 1
    deck = piquet_deck(copies) if rules.deck == "piquet" else standard_deck(copies)
    if n_players * rules.hand_size + MARKET_SIZE > len(deck):
        raise ValueError(
            f"header: {n_players} players x {rules.hand_size} cards + {MARKET_SIZE} market cards"
            f" do not fit a {len(deck)}-card deck")
    return deck


def new_game(header: dict[str, Any]) -> TableGame | KhmerGame:
    """Build the game a log header describes; ``ValueError`` names whatever is wrong."""
    if not isinstance(header, dict):
        raise ValueError("header must be a JSON object")
    unknown = sorted(set(header) - HEADER_KEYS)
    if unknown:
        raise ValueError(f"header: unknown key(s) {', '.join(unknown)}")
    name = header.get("game")
    if name not in GAMES:
        raise ValueError(f"header: 'game' must be one of {', '.join(GAMES)}, got {name!r}")
    overrides = header.get("rules") or {}
    if not isinstance(overrides, dict):
        raise ValueError("header: 'rules' must be an object of option overrides")
    rules = load_rules(name, overrides)
    players = _players(header)
    if name == "khmer":
        if len(players) != 2:
            raise ValueError("header: Khmer is played by exactly 2 players")
        return KhmerGame(header, rules, players)
    if not rules.min_players <= len(players) <= rules.max_players:
        raise ValueError(f"header: {name} needs {rules.min_players}-{rules.max_players} players, got {len(players)}")
    teams = _teams(header, players, rules)
    if header.get("dealer") is not None and header["dealer"] not in players:
        raise ValueError(f"header: dealer {header['dealer']!r} is not a player")
    if rules.kind_size > rules.hand_size:
        raise ValueError(
            f"header: a {name} needs {rules.kind_size} cards of one rank but hands hold "
            f"{rules.hand_size} (set kind_size, e.g. the three_card variant)")
    deck = _deck(rules, len(players))
    scoring = KempsScoring() if name == "kemps" else KemsScoring()
    return TableGame(name, header, rules, players, teams, deck, scoring)
