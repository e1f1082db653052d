"""Small helpers for the rules tests."""

from __future__ import annotations

from typing import Any

from referee.rules import Applied, Rejected, new_game

FOUR = {"players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]}


def header(game: str, rules: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"game": game, "rules": rules or {}}
    if game == "khmer":
        base["players"] = ["N", "S"]
    else:
        base.update(FOUR)
    base.update(extra)
    return base


def play(hdr: dict[str, Any], events: list[dict[str, Any]]):
    """Apply every event (each must be accepted); return (game, state, results, announcements)."""
    game = new_game(hdr)
    state = game.initial_state()
    results: list[dict[str, Any]] = []
    said: list[str] = []
    for e in events:
        r = game.apply(state, e)
        assert isinstance(r, Applied), f"{e} rejected: {r.reason}"
        state = r.state
        results += r.results
        said += [a.key for a in r.announcements]
    return game, state, results, said


def rejected(game: Any, state: Any, event: dict[str, Any]) -> Rejected:
    r = game.apply(state, event)
    assert isinstance(r, Rejected), f"{event} was accepted"
    assert r.reason
    return r


def calls(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if r["kind"] == "call"]


def anomalies(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if r["kind"] == "anomaly"]


def letters(game: Any, state: Any) -> dict[str, str]:
    return {"+".join(s["team"]): s["letters"] for s in game.standings(state)}


def points(game: Any, state: Any) -> dict[str, int]:
    return {"+".join(s["team"]) if "team" in s else s["player"]: s["points"]
            for s in game.standings(state)}
