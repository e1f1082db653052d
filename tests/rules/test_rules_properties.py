"""Property tests over random legal games from a physical-table simulator (gamesim.py)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.events import parse_event
from referee.replay import replay_log
from referee.rules import new_game
from referee.rules.market import conservation_errors
from referee.session import Session

from .gamesim import TABLE_HEADERS, KhmerSim, TableSim

KHMER_HEADERS = [
    {"game": "khmer", "players": ["N", "S"]},
    {"game": "khmer", "players": ["N", "S"], "rules": {"variant": ["single_deal", "strict_less"]}},
    {"game": "khmer", "players": ["N", "S"], "rules": {"steal_from": "last_play", "variant": "closer_over_table"}},
]
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(seed=st.integers(0, 2**31), which=st.integers(0, len(TABLE_HEADERS) - 1), hidden=st.booleans())
def test_table_games_conserve_cards_and_scores(seed, which, hidden):
    hdr = TABLE_HEADERS[which]
    events = TableSim(hdr, seed, hidden).events(150)
    game = new_game(hdr)
    state = game.initial_state()
    word = game.rules.get("word")
    for e in events:
        before = state
        r = game.apply(state, e)
        assert r.ok, (e, r)
        state = r.state
        # every card in exactly one place, at every step
        if state.table is not None:
            assert conservation_errors(state.table) == [], e
        # a consistent table never raises a false alarm
        assert not [x for x in r.results if x["kind"] == "anomaly"], r.results
        # letters (points) never shrink
        assert all(a <= b for a, b in zip(before.scores, state.scores))
        if word:
            # the game ends exactly when a word is complete (or one team is left)
            complete = [i for i, n in enumerate(state.scores) if n >= len(word)]
            if game.rules.end_mode == "first_to_finish_loses":
                assert game.is_finished(state) == bool(complete)
            else:
                assert game.is_finished(state) == (len(game.teams) - len(complete) <= 1)
            assert all(n <= len(word) for n in state.scores)
        else:
            target = game.rules.target_score
            assert game.is_finished(state) == (target is not None and max(state.scores) >= target)


@SETTINGS
@given(seed=st.integers(0, 2**31), which=st.integers(0, len(KHMER_HEADERS) - 1), hidden=st.booleans())
def test_khmer_conserves_cards_and_points(seed, which, hidden):
    hdr = KHMER_HEADERS[which]
    events = KhmerSim(hdr, seed, hidden).events(200)
    game = new_game(hdr)
    state = game.initial_state()
    for e in events:
        before = state
        r = game.apply(state, e)
        assert r.ok, (e, r)
        state = r.state
        assert game.conservation_errors(state) == [], e
        assert not [x for x in r.results if x["kind"] == "anomaly"]
        assert all(a <= b for a, b in zip(before.match, state.match))
        for x in r.results:
            if x["kind"] == "close" and x["winner"]:
                w, o = x["winner"], game.other(x["winner"])
                fits = {p: t <= x["table"] if game.rules.close_compare == "le" else t < x["table"]
                        for p, t in x["totals"].items()}
                assert fits[w] or game.rules.closer_over_table == "opponent_scores"
                assert not fits[o] or x["totals"][w] >= x["totals"][o]
    target = game.rules.match_target
    if target is not None:
        assert game.is_finished(state) == (max(state.match) >= target)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), which=st.integers(0, len(TABLE_HEADERS) + len(KHMER_HEADERS) - 1),
       hidden=st.booleans())
def test_exported_log_replays_to_the_same_state(seed, which, hidden):
    if which < len(TABLE_HEADERS):
        sim = TableSim(TABLE_HEADERS[which], seed, hidden)
    else:
        sim = KhmerSim(KHMER_HEADERS[which - len(TABLE_HEADERS)], seed, hidden)
    events = sim.events(80)
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "g.sqlite", Path(tmp) / "g.jsonl"
        with Session.create(db, sim.header) as s:
            for e in events:
                assert s.append(e).ok
            state = s.state
            s.export_jsonl(log)
        assert state == sim.state
        assert replay_log(log).final_state == state
        with Session.open(db) as again:
            assert again.state == state
        with Session.from_jsonl(log, Path(tmp) / "copy.sqlite") as copy:
            assert copy.state == state
            assert copy.events() == [parse_event(e).to_dict() for e in events]


def _corrupt(events, rng):
    """Replace one card of some events by a random card (a misread)."""
    from referee.cards import ALL_CARDS

    out = []
    for e in events:
        e = json.loads(json.dumps(e))
        if rng.random() < 0.15:
            if e["type"] in ("reset", "deal"):
                e["market"][rng.randrange(4)] = rng.choice(ALL_CARDS)
            elif e["type"] == "swap":
                e[rng.choice(["give", "take"])] = rng.choice(ALL_CARDS)
            elif e["type"] == "reveal":
                p = rng.choice(sorted(e["hands"]))
                e["hands"][p][rng.randrange(len(e["hands"][p]))] = rng.choice(ALL_CARDS)
        out.append(e)
    return out


@SETTINGS
@given(seed=st.integers(0, 2**31), which=st.integers(0, len(TABLE_HEADERS) - 1), hidden=st.booleans(),
       policy=st.sampled_from(["flag", "reject"]))
def test_misreads_are_flagged_or_rejected_and_accounting_survives(seed, which, hidden, policy):
    import random

    hdr = json.loads(json.dumps(TABLE_HEADERS[which]))
    hdr["rules"] = dict(hdr.get("rules") or {}, deck_anomaly=policy)
    events = _corrupt(TableSim(hdr, seed, hidden).events(120), random.Random(seed))
    game = new_game(hdr)
    state = game.initial_state()
    for e in events:
        r = game.apply(state, e)
        if not r.ok:
            assert r.reason
            continue
        state = r.state
        if policy == "reject":
            assert not [x for x in r.results if x["kind"] == "anomaly"]
        if state.table is not None:
            assert conservation_errors(state.table) == [], (e, r.results)
