"""Event-sourced game sessions on SQLite: the log is the truth, the state is its fold.

``append(event)`` runs the pure rules first (they cannot fail half-way and touch no
storage), then commits the accepted event to the log (WAL, ``synchronous=FULL``) and only
then publishes the new state, so no state is ever visible that is not durably logged. A
process killed at any point reopens (``Session.open``) to exactly the state of the events
committed so far. Rejected events are not part of the game: they are kept, flagged, in a
separate ``rejected`` table for audit. ``undo()`` marks the last accepted event as undone
(it stays in the file) and records the override in ``overrides``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from referee.events import GameEvent, event_from
from referee.rules.common import Applied, Rejected, RejectCode
from referee.rules.engine import new_game

SCHEMA = """
CREATE TABLE IF NOT EXISTS header (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    body TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rejected (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    after_seq INTEGER,
    body TEXT NOT NULL,
    code TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action TEXT NOT NULL,
    seq INTEGER NOT NULL
);
"""


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.executescript(SCHEMA)
    return conn


class Session:
    """One game: header + event log in an SQLite file, state folded from the log."""

    def __init__(self, conn: sqlite3.Connection, path: Path, header: dict[str, Any]) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        self.header = header
        self.game = new_game(header)
        self._state = self.game.initial_state()
        self.last: Applied | Rejected | None = None

    # ---------------------------------------------------------------- construction
    @classmethod
    def create(cls, db_path: str | Path, header: dict[str, Any]) -> Session:
        """A new game file. ``ValueError`` if the header is invalid or the file holds a game."""
        path = Path(db_path)
        new_game(header)  # validate before touching the disk
        conn = _connect(path)
        try:
            if conn.execute("SELECT 1 FROM header").fetchone():
                raise ValueError(f"{path} already holds a game (use Session.open)")
            conn.execute("INSERT INTO header (id, body) VALUES (1, ?)", (json.dumps(header),))
        except Exception:
            conn.close()
            raise
        return cls(conn, path, header)

    @classmethod
    def open(cls, db_path: str | Path) -> Session:
        """Reopen a game file and rebuild its state by folding the log."""
        path = Path(db_path)
        if not path.exists():
            raise ValueError(f"no session file at {path}")
        conn = _connect(path)
        row = conn.execute("SELECT body FROM header WHERE id = 1").fetchone()
        if row is None:
            conn.close()
            raise ValueError(f"{path} holds no game header")
        session = cls(conn, path, json.loads(row[0]))
        session._refold()
        return session

    @classmethod
    def from_jsonl(cls, jsonl_path: str | Path, db_path: str | Path) -> Session:
        """Import a JSONL game log (header line + events); a rejected event -> ValueError."""
        header, events = read_jsonl(jsonl_path)
        session = cls.create(db_path, header)
        for line_no, event in events:
            result = session.append(event)
            if isinstance(result, Rejected):
                session.close()
                raise ValueError(f"{jsonl_path}:{line_no}: rejected: {result.reason}")
        return session

    # ---------------------------------------------------------------- queries
    @property
    def state(self) -> Any:
        with self._lock:
            return self._state

    def accepts(self, event: GameEvent | dict[str, Any]) -> bool:
        """Whether `event` would be accepted now (a query: nothing is logged or changed)."""
        with self._lock:
            try:
                typed = event_from(event)
            except ValueError:
                return False
            return not isinstance(self.game.apply(self._state, typed), Rejected)

    def events(self) -> list[dict[str, Any]]:
        """Accepted, not undone events in order (their dict form)."""
        with self._lock:
            rows = self._conn.execute("SELECT body FROM events WHERE undone = 0 ORDER BY seq").fetchall()
        return [json.loads(r[0]) for r in rows]

    def rejected(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT after_seq, body, code, reason FROM rejected ORDER BY id").fetchall()
        return [{"after_seq": a, "event": json.loads(b), "code": c, "reason": r} for a, b, c, r in rows]

    def view(self) -> dict[str, Any]:
        with self._lock:
            return self.game.view(self._state)

    # ---------------------------------------------------------------- changes
    def append(self, event: GameEvent | dict[str, Any]) -> Applied | Rejected:
        """Judge one event; if accepted, log it durably, then publish the new state."""
        with self._lock:
            try:
                typed = event_from(event)
            except ValueError as exc:
                result: Applied | Rejected = Rejected(str(exc), RejectCode.BAD_EVENT)
                body = event if isinstance(event, dict) else {"repr": repr(event)}
                self._log_rejected(body, result)
                self.last = result
                return result
            result = self.game.apply(self._state, typed)
            if isinstance(result, Rejected):
                self._log_rejected(typed.to_dict(), result)
            else:
                self._conn.execute("INSERT INTO events (body) VALUES (?)", (json.dumps(typed.to_dict()),))
                self._state = result.state
            self.last = result
            return result

    def undo(self) -> dict[str, Any] | None:
        """Remove the last accepted event (a logged human override); returns it, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT seq, body FROM events WHERE undone = 0 ORDER BY seq DESC LIMIT 1").fetchone()
            if row is None:
                return None
            seq, body = row
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("UPDATE events SET undone = 1 WHERE seq = ?", (seq,))
                self._conn.execute("INSERT INTO overrides (action, seq) VALUES ('undo', ?)", (seq,))
                self._conn.execute("COMMIT")
            except Exception:
                self._conn.execute("ROLLBACK")
                raise
            self._refold()
            return json.loads(body)

    def export_jsonl(self, path: str | Path) -> Path:
        """Write the public log: header line, then one accepted event per line."""
        out = Path(path)
        lines = [json.dumps(self.header)] + [json.dumps(e) for e in self.events()]
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return out

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- internals
    def _log_rejected(self, body: dict[str, Any], result: Rejected) -> None:
        seq = self._conn.execute("SELECT MAX(seq) FROM events").fetchone()[0]
        self._conn.execute(
            "INSERT INTO rejected (after_seq, body, code, reason) VALUES (?, ?, ?, ?)",
            (seq, json.dumps(body, default=str), result.code.value, result.reason),
        )

    def _refold(self) -> None:
        state = self.game.initial_state()
        rows = self._conn.execute("SELECT seq, body FROM events WHERE undone = 0 ORDER BY seq").fetchall()
        for seq, body in rows:
            result = self.game.apply(state, json.loads(body))
            if isinstance(result, Rejected):
                raise ValueError(f"{self.path}: logged event #{seq} no longer applies: {result.reason}")
            state = result.state
        self._state = state


def read_jsonl(path: str | Path) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    """Header and (line number, event dict) pairs of a JSONL log; ``ValueError`` on bad JSON."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # a BOM (saved by a Windows editor) is not part of the header
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{p}: not a UTF-8 text file (a JSON-lines game log is expected)") from None
    header: dict[str, Any] | None = None
    events: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}:{n}: not JSON ({exc.msg})") from None
        if header is None:
            if not isinstance(obj, dict) or "game" not in obj:
                raise ValueError(f"{p}:{n}: the first line must be the game header")
            header = obj
        else:
            events.append((n, obj))
    if header is None:
        raise ValueError(f"{p}: empty log (no header line)")
    return header, events
