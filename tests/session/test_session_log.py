"""Sessions: append-before-publish to SQLite, fold on open, undo, export/import JSONL."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from referee.events import parse_event
from referee.rules import RejectCode
from referee.session import Session

REPO = Path(__file__).resolve().parents[2]
KEMPS = REPO / "datasets" / "games" / "kemps-full.jsonl"


def _log(path: Path):
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return lines[0], lines[1:]


def test_append_undo_reopen(tmp_path):
    header, events = _log(KEMPS)
    db = tmp_path / "game.sqlite"
    s = Session.create(db, header)
    for e in events[:2]:
        assert s.append(e).ok
    after2 = s.state
    bad = s.append({"type": "swap", "player": "N", "give": "QH", "take": "KH"})
    assert not bad.ok and bad.code == RejectCode.NOT_IN_HAND
    assert s.state == after2 and len(s.events()) == 2
    assert s.rejected()[0]["reason"] == bad.reason and s.rejected()[0]["after_seq"] == 2
    junk = s.append({"type": "teleport"})
    assert junk.code == RejectCode.BAD_EVENT
    assert s.append(parse_event(events[2])).ok  # typed events too
    assert s.state.phase == "hand_over" and s.state.scores == (0, 1)
    undone = s.undo()
    assert undone == parse_event(events[2]).to_dict()
    assert s.state == after2 and s.state.scores == (0, 0)
    s.close()
    with Session.open(db) as again:
        assert again.state == after2
        assert again.events() == [parse_event(e).to_dict() for e in events[:2]]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT action, seq FROM overrides").fetchall() == [("undo", 3)]
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 3  # the undone one is kept, flagged
    conn.close()


def test_undo_on_empty_and_create_twice(tmp_path):
    header, _ = _log(KEMPS)
    db = tmp_path / "g.sqlite"
    with Session.create(db, header) as s:
        assert s.undo() is None
    with pytest.raises(ValueError, match="already holds a game"):
        Session.create(db, header)
    with pytest.raises(ValueError, match="no session file"):
        Session.open(tmp_path / "missing.sqlite")
    with pytest.raises(ValueError, match="rules"):
        Session.create(tmp_path / "bad.sqlite", dict(header, rules={"nope": 1}))


def test_export_and_import(tmp_path):
    header, events = _log(KEMPS)
    with Session.create(tmp_path / "a.sqlite", header) as s:
        for e in events:
            assert s.append(e).ok
        out = s.export_jsonl(tmp_path / "a.jsonl")
        state = s.state
        view = s.view()
    lines = out.read_text().splitlines()
    assert json.loads(lines[0]) == header and len(lines) == 1 + len(events)
    with Session.from_jsonl(out, tmp_path / "b.sqlite") as b:
        assert b.state == state and b.view() == view
    assert view["finished"] and view["standings"][1]["letters"] == "KEMPS"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps({"type": "stale"}) + "\n")
    with pytest.raises(ValueError, match=":2: rejected"):
        Session.from_jsonl(bad, tmp_path / "c.sqlite")


def test_threads_share_one_session(tmp_path):
    header = {"game": "khmer", "players": ["N", "S"], "rules": {"deck_anomaly": "reject"}}
    with Session.create(tmp_path / "k.sqlite", header) as s:
        assert s.append({"type": "deal"}).ok
        results = []

        def worker(player: str) -> None:
            for _ in range(20):
                results.append(s.append({"type": "play", "player": player, "card": 1}).ok)

        threads = [threading.Thread(target=worker, args=(p,)) for p in ("N", "S")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # only in-turn plays of the two 1s of the deck can be accepted, and each one is logged
        assert 1 <= sum(results) <= 2
        assert len(s.events()) == 1 + sum(results)
    with Session.open(tmp_path / "k.sqlite") as again:
        assert again.state.rows == s.state.rows
