"""The server's one door to the referee: an event-sourced `Session` on its own thread.

SQLite connections belong to the thread that opened them, and the referee must see events
one at a time in the order the server chose, so the session lives on a single worker
thread: every append, undo and export is queued there (FIFO), from the event loop and
from the camera thread alike. After each change the worker also builds the dashboard
snapshot, so readers never touch the session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from referee.late_events import HELD_DECLARATIONS, LateEvents
from referee.server.outcome import Outcome

T = TypeVar("T")


def jsonable(value: Any) -> Any:
    """Dataclasses, pydantic models, tuples and sets → plain JSON values."""
    if hasattr(value, "to_dict") and callable(value.to_dict) and not isinstance(value, type):
        return jsonable(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if hasattr(value, "model_dump"):
        return jsonable(value.model_dump())
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "value") and isinstance(getattr(value, "value"), (str, int)):  # enums
        return value.value
    return str(value)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]



class GameService:
    """Owns the session: open or create, append, undo, export, new game, snapshot."""

    def __init__(self, db_path: Path, header: dict[str, Any], log_size: int = 200) -> None:
        self.db_path = Path(db_path)
        self.requested_header = header
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="session")
        self._session: Any = None
        self._log: deque[dict[str, Any]] = deque(maxlen=log_size)
        self._log_index = 0
        self.snapshot: dict[str, Any] = {}
        self.version = 0
        self.restored = False
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        # Camera events refused for turn order, offered again after each accepted event:
        # the camera can report a move after the next one (referee/late_events.py).
        self.late = LateEvents()
        self._camera_t = 0.0  # the last camera event's time (held events expire on it)
        self._held_source: dict[int, str] = {}  # id(held event) -> who sent it

    # ---- thread plumbing -------------------------------------------------------------
    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def submit_threadsafe(self, event: dict[str, Any], source: str) -> Any:
        """From any thread (the camera loop): queue an append, return a concurrent Future."""
        return self._executor.submit(self._append, event, source)

    # ---- lifecycle -------------------------------------------------------------------
    async def start(self) -> None:
        await self._run(self._open)

    async def close(self) -> None:
        await self._run(self._close)
        self._executor.shutdown(wait=True)

    def _open(self) -> None:
        from referee.session import Session

        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        if self.db_path.exists():
            self._session = Session.open(self.db_path)
            self.restored = True
        else:
            self._session = Session.create(self.db_path, self.requested_header)
        self._reload_log()
        self._refresh()

    def _close(self) -> None:
        close = getattr(self._session, "close", None)
        if callable(close):
            close()
        self._session = None

    # ---- operations (all on the worker thread) -----------------------------------------
    async def append(self, event: dict[str, Any], source: str) -> Outcome:
        return await self._run(self._append, event, source)

    async def undo(self) -> Outcome:
        return await self._run(self._undo)

    async def export(self, path: Path) -> Path:
        return await self._run(self._export, Path(path))

    async def new_game(self, header: dict[str, Any]) -> None:
        await self._run(self._new_game, header)

    def _append(self, event: dict[str, Any], source: str) -> Outcome:
        camera = source == "camera"
        if camera and isinstance(event.get("t"), (int, float)):
            self._camera_t = float(event["t"])
            self.late.expire(self._camera_t)
            held = {id(e) for _, e in self.late.held}  # who sent each held event: only while held
            self._held_source = {k: v for k, v in self._held_source.items() if k in held}
        # A camera move refused for turn order is held (read late: the earlier move may come);
        # so is a person's close or fold (a declaration made while the camera has not yet seen
        # the opponent's last card is taken once it has), at the camera's last time. A person's
        # other events are never held: a move entered out of turn is a mistake to be told at once.
        declared = event.get("type") in HELD_DECLARATIONS
        hold_t = float(event.get("t") or 0.0) if camera else (self._camera_t if declared else None)
        outcome = self._judge(event, source, hold_t=hold_t)
        if outcome.accepted:  # each held event may be legal now (its own log entry)
            self.late.retry(lambda e: self._session.accepts(e) and self._judge(e, f"{self._held_source.pop(id(e), 'camera')} (late)").accepted)
        return outcome

    def _judge(self, event: dict[str, Any], source: str, hold_t: float | None = None) -> Outcome:
        """One append, logged; with `hold_t` an event refused for turn order is held (`late`)."""
        from referee.session import Rejected

        result = self._session.append(event)
        if isinstance(result, Rejected):
            code = getattr(result, "code", None)
            outcome = Outcome(accepted=False, event=event, reason=str(result.reason),
                              code=str(getattr(code, "value", code) or "rejected"))
            if hold_t is not None and self.late.hold(event, outcome.code, hold_t):
                self._held_source[id(event)] = source
                outcome.reason = f"{outcome.reason} (held: offered again after the next accepted event)"
            self._push_log(event, source, outcome)
        else:
            outcome = Outcome(
                accepted=True,
                event=event,
                # Its place in the log: the accepted events before it (counted, not re-read: reading
                # the whole game back on every append grew ~5 ms per 1,000 events; audit, 7 Dec).
                index=self._log_index,
                announcements=[jsonable(a) for a in _as_list(getattr(result, "announcements", None))],
                results=[jsonable(r) for r in _as_list(getattr(result, "results", getattr(result, "result", None)))],
            )
            self._push_log(event, source, outcome)
        self._refresh(outcome)
        return outcome

    def _undo(self) -> Outcome:
        undone = self._session.undo()
        self.late.clear()  # held moves were judged against the state just undone
        self._held_source.clear()
        if undone is None:
            raise LookupError("Nothing to undo.")
        event = jsonable(undone)
        outcome = Outcome(accepted=True, event={"type": "undo", "undone": event})
        # The log keeps what it showed (each entry's announcements, source, the refusals): the
        # undone entry is marked, and the undo itself is logged. Reloading it from the session
        # wiped all of that (a dashboard audit, 7 Dec).
        last = next((e for e in reversed(self._log) if e.get("accepted") and e.get("i") == self._log_index - 1), None)
        if last is None:
            self._reload_log()
        else:
            last["undone"] = True
            self._log_index -= 1
            self._log.append({"i": None, "event": outcome.event, "accepted": True, "source": "undo"})
        self._refresh(outcome)
        return outcome

    def _export(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._session.export_jsonl(path)
        return path

    def _new_game(self, header: dict[str, Any]) -> None:
        """Archive the current game file (never delete a game), start a fresh one."""
        from referee.rules.engine import new_game
        from referee.session import Session

        new_game(header)  # a bad header is refused before the current game is touched
        self._close()
        self.late.clear()
        self._held_source.clear()
        archive_game(self.db_path)
        self.requested_header = header
        self._session = Session.create(self.db_path, header)
        self.restored = False
        self._log.clear()
        self._log_index = 0
        self._refresh(Outcome(accepted=True, event={"type": "new_game"}))

    # ---- log and snapshot ---------------------------------------------------------------
    def _session_events(self) -> list[dict[str, Any]] | None:
        for name in ("events", "log"):
            value = getattr(self._session, name, None)
            if callable(value):
                value = value()
            if isinstance(value, (list, tuple)):
                return [jsonable(e) for e in value]
        return None

    def _reload_log(self) -> None:
        """After a restart the session's own log is the truth for the event list; replayed
        through a fresh game, each entry gets its announcements and results back (who sent it
        is not stored: "log")."""
        self._log.clear()
        events = self._session_events() or []
        said = _replayed(self.header(), events)
        for i, event in enumerate(events):
            entry: dict[str, Any] = {"i": i, "event": event, "accepted": True, "source": "log"}
            if i < len(said):
                entry["announcements"], entry["results"] = said[i]
            self._log.append(entry)
        self._log_index = len(events)

    def _push_log(self, event: dict[str, Any], source: str, outcome: Outcome) -> None:
        entry: dict[str, Any] = {"i": outcome.index, "event": event, "accepted": outcome.accepted,
                                 "source": source}
        if outcome.accepted:
            self._log_index += 1
            entry["announcements"] = outcome.announcements
            entry["results"] = outcome.results
        else:
            entry["reason"] = outcome.reason
        self._log.append(entry)

    def header(self) -> dict[str, Any]:
        return jsonable(getattr(self._session, "header", None) or self.requested_header)

    def _refresh(self, last: Outcome | None = None) -> None:
        session = self._session
        game, state = session.game, session.state
        view = jsonable(game.view(state)) if hasattr(game, "view") else {"state": jsonable(state)}
        standings = jsonable(game.standings(state)) if hasattr(game, "standings") else None
        awaiting = jsonable(game.awaiting(state)) if hasattr(game, "awaiting") else view.get("awaiting")
        self.version += 1
        self.snapshot = {
            "version": self.version,
            "header": self.header(),
            "rules": jsonable(getattr(game, "rules", None)),
            "view": view,
            "standings": standings,
            "awaiting": awaiting,
            "log": list(self._log)[-60:],
            "restored": self.restored,
            "last": last.to_json() if last is not None else None,
        }
        for listener in list(self.listeners):
            listener(self.snapshot)


def archive_game(db_path: Path) -> Path:
    """Move the game file (and its SQLite sidecars) aside as `db_path.YYYYmmdd-HHMMSS`; return
    the archive's path. Never overwrites an earlier archive (`_free_stamp`)."""
    stamp = _free_stamp(db_path, time.strftime("%Y%m%d-%H%M%S"))
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(db_path) + suffix)
        if src.exists():
            shutil.move(src, Path(f"{db_path}.{stamp}{suffix}"))
    return Path(f"{db_path}.{stamp}")


def _free_stamp(db_path: Path, stamp: str) -> str:
    """`stamp`, or `stamp-2`, `stamp-3`…: an archive name no earlier archive holds. Two new
    games within one second (a double click) used to move the second archive over the first,
    which lost the game played before them."""
    name, n = stamp, 1
    while any(Path(f"{db_path}.{name}{suffix}").exists() for suffix in ("", "-wal", "-shm")):
        n += 1
        name = f"{stamp}-{n}"
    return name


def _replayed(header: dict[str, Any], events: list[dict[str, Any]]) -> list[tuple[list[Any], list[Any]]]:
    """(announcements, results) of each event, from a fresh game fed the log again (only the
    last `log_size` entries are kept by the caller; the game is cheap to replay)."""
    from referee.rules.engine import new_game

    try:
        game = new_game(header)
    except ValueError:
        return []
    state, out = game.initial_state(), []
    for event in events:
        result = game.apply(state, {k: v for k, v in event.items() if k != "t"})
        if not hasattr(result, "state"):  # cannot happen for a logged event; stop rather than guess
            break
        state = result.state
        out.append(([jsonable(a) for a in _as_list(getattr(result, "announcements", None))],
                     [jsonable(r) for r in _as_list(getattr(result, "results", None))]))
    return out
