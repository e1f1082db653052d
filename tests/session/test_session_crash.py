"""A process killed mid-game resumes exactly from its SQLite log."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from referee.events import parse_event
from referee.rules import new_game
from referee.session import Session

REPO = Path(__file__).resolve().parents[2]

WRITER = r"""
import json, os, sys, time
from pathlib import Path
from referee.session import Session
db, log, progress = sys.argv[1:4]
lines = [json.loads(x) for x in Path(log).read_text().splitlines() if x.strip()]
s = Session.create(db, lines[0])
for i, e in enumerate(lines[1:], start=1):
    assert s.append(e).ok
    Path(progress + ".tmp").write_text(str(i))
    os.replace(progress + ".tmp", progress)  # atomic: the test never reads a half-written file
    time.sleep(0.02)
time.sleep(60)
"""


def test_sigkill_mid_game_resumes_identical_state(tmp_path):
    log = REPO / "datasets" / "games" / "khmer-match.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    header, events = lines[0], lines[1:]
    db, progress = tmp_path / "crash.sqlite", tmp_path / "progress"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(log), str(progress)], env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if progress.exists() and int(progress.read_text()) >= 20:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)  # mid-game: more events were still to come
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    with Session.open(db) as s:
        n = len(s.events())
        assert 20 <= n < len(events)
        # the reopened state is the fold of exactly the first n events of the game
        game = new_game(header)
        expected = game.initial_state()
        for e in events[:n]:
            expected = game.apply(expected, e).state
        assert s.state == expected
        assert s.events() == [parse_event(e).to_dict() for e in events[:n]]
        # and the game goes on from there to the same end
        for e in events[n:]:
            assert s.append(e).ok
        assert s.game.is_finished(s.state)
        assert s.game.standings(s.state) == [{"player": "N", "points": 2}, {"player": "S", "points": 7}]
