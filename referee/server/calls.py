"""Who called first: one monotonic sequence for buttons, phones and voice.

Ordering rule (also in docs/server.md):
1. Every call gets a sequence number the instant the server receives it, on the event
   loop, before any await: buttons, phone buzzers and voice share one counter.
2. Each call also has an instant `at` on the server's monotonic clock: its arrival for
   buttons and phones; for voice, the end of the spoken word on the audio clock mapped to
   the server clock (`stream start + t`), because recognition finishes a little after the
   word was said.
3. Calls are held for `call_window_s` after the first of a burst arrives, then judged in
   `(at, seq)` order. With no voice, `at` grows with `seq`, so this is plain arrival order;
   a spoken "Cut!" that ended before a button press but was recognised just after it still
   wins, as long as it reached the server inside the window.
4. A call that arrives after its burst was judged is judged after it, whatever its `at`.
The referee (the rules engine) then decides what each call means; later calls during the
same reveal are logged by the session, not scored (rules default 3).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from referee.server.outcome import Outcome


@dataclass(slots=True)
class CallRecord:
    seq: int
    at: float  # server monotonic seconds
    source: str  # "dashboard", "phone:<id>", "voice"
    event: dict[str, Any]
    judged: int | None = None  # position in judging order, set when judged
    outcome: Outcome | None = None
    audio_t: float | None = None

    def to_json(self, t0: float) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "at": round(self.at - t0, 4),
            "source": self.source,
            "call": self.event.get("call"),
            "by": self.event.get("by"),
            "target": self.event.get("target"),
            "judged": self.judged,
        }
        if self.audio_t is not None:
            out["audio_t"] = round(self.audio_t, 3)
        if self.outcome is not None:
            out["accepted"] = self.outcome.accepted
            if self.outcome.reason:
                out["reason"] = self.outcome.reason
        return out


@dataclass(slots=True)
class _Pending:
    record: CallRecord
    done: asyncio.Future[Outcome]


@dataclass
class CallArbiter:
    """Orders calls and hands them, one at a time, to `judge` (the session append)."""

    judge: Callable[[dict[str, Any], str], Awaitable[Outcome]]
    window_s: float = 0.15
    clock: Callable[[], float] = time.monotonic
    history: deque[CallRecord] = field(default_factory=lambda: deque(maxlen=1000))
    _seq: itertools.count = field(default_factory=lambda: itertools.count(1))
    _judged: itertools.count = field(default_factory=lambda: itertools.count(1))
    _pending: list[_Pending] = field(default_factory=list)
    _flusher: asyncio.Task[None] | None = None
    t0: float = field(default_factory=time.monotonic)
    total: int = 0

    def receive(self, event: dict[str, Any], source: str, at: float | None = None,
                audio_t: float | None = None) -> tuple[CallRecord, asyncio.Future[Outcome]]:
        """Stamp a call now (no await before the stamp) and queue it for judging."""
        now = self.clock()
        record = CallRecord(seq=next(self._seq), at=now if at is None else min(at, now),
                            source=source, event=event, audio_t=audio_t)
        self.total += 1
        self.history.append(record)
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._pending.append(_Pending(record, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_after_window())
        return record, done

    async def call(self, event: dict[str, Any], source: str, at: float | None = None,
                   audio_t: float | None = None) -> CallRecord:
        record, done = self.receive(event, source, at, audio_t)
        await done
        return record

    async def _flush_after_window(self) -> None:
        await asyncio.sleep(self.window_s)
        while self._pending:
            batch, self._pending = self._pending, []
            batch.sort(key=lambda p: (p.record.at, p.record.seq))
            for item in batch:
                position = next(self._judged)
                try:
                    item.record.outcome = await self.judge(item.record.event, item.record.source)
                except Exception as exc:  # a broken judge must not strand waiting callers
                    item.record.outcome = Outcome.failed(str(exc))
                # set with the outcome, not before the await: /api/calls read in between
                # showed a call as judged with no outcome yet (a CI failure, 30 Nov)
                item.record.judged = position
                if not item.done.done():
                    item.done.set_result(item.record.outcome)

    def recent(self, n: int = 50) -> list[dict[str, Any]]:
        return [r.to_json(self.t0) for r in list(self.history)[-n:]]

    async def drain(self) -> None:
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
