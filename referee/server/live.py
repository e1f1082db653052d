"""The running referee: session, call order, camera feed, phones, voice and the reveal draft.

One `LiveReferee` per app, built in the lifespan and kept on `app.state.live`. Routers
reach it through `deps.LiveDep`; it holds no module globals. Everything that decides
the game goes through `GameService.append` (the event-sourced session).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from pathlib import Path
from typing import Any

from referee.server.access import PhoneRegistry, TokenBucket
from referee.server.calls import CallArbiter, CallRecord
from referee.server.connections import ConnectionManager
from referee.server.drafts import Heard, RevealDraft
from referee.server.feed import FrameFeed
from referee.server.outcome import Outcome
from referee.server.service import GameService
from referee.server.settings import ServerSettings

log = logging.getLogger("referee.server")


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("camera event not recorded: %s", task.exception())


def calibration_path(settings: ServerSettings) -> Path:
    """Where the dashboard's calibration is kept: beside the game database."""
    return settings.db_path.with_suffix(".layout.yaml")


MAX_HEARD = 12  # voice prompts waiting for a tap; the oldest go first


class LiveReferee:
    def __init__(self, settings: ServerSettings, service: GameService, manager: ConnectionManager,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.settings = settings
        self.service = service
        self.manager = manager
        self.loop = loop
        self.arbiter = CallArbiter(judge=self._judge, window_s=settings.call_window_s)
        self.phones = PhoneRegistry(path=Path(f"{settings.db_path}.phones.json"))
        self.phone_limits = TokenBucket(settings.phone_calls_per_s, settings.phone_call_burst)
        self.join_limits = TokenBucket(settings.joins_per_minute / 60.0, settings.joins_per_minute)
        self.feed: FrameFeed | None = None
        self.layout: Any = None  # vision.tracker.layout.Layout, when there is a camera view
        self.layout_saved_to: str | None = None
        self.table: dict[str, Any] | None = None
        self.reveal: RevealDraft | None = None
        self.heard: dict[str, Heard] = {}
        self.voice_status: str = "not connected"
        self.notices: deque[dict[str, Any]] = deque(maxlen=20)
        self.started = time.time()
        self._last_awaiting: Any = None
        service.listeners.append(self._on_snapshot_threadsafe)

    # ---- decisions -------------------------------------------------------------------
    async def _judge(self, event: dict[str, Any], source: str) -> Outcome:
        return await self.service.append(event, source)

    async def call(self, call: str, by: str, target: str | None, source: str,
                   at: float | None = None, audio_t: float | None = None) -> CallRecord:
        event: dict[str, Any] = {"type": "call", "call": call, "by": by}
        if target:
            event["target"] = target
        record = await self.arbiter.call(event, source, at=at, audio_t=audio_t)
        self.push_state()
        return record

    async def submit(self, event: dict[str, Any], source: str) -> Outcome:
        """A non-call event (deal, swap, stale, reset, reveal, new_hand, Khmer moves…)."""
        if event.get("type") == "call":
            record = await self.call(str(event.get("call")), str(event.get("by")),
                                     event.get("target"), source)
            assert record.outcome is not None
            return record.outcome
        return await self.service.append(event, source)

    async def confirm_reveal(self, hands: dict[str, list[str]] | None) -> Outcome:
        draft = self.reveal
        final = hands if hands is not None else (draft.to_json()["hands"] if draft else {})
        outcome = await self.service.append({"type": "reveal", "hands": final}, "dashboard")
        if outcome.accepted:
            self.reveal = None
            if self.feed is not None:
                self.feed.command(lambda p: getattr(getattr(p, "reveals", None), "cancel", lambda: None)())
        self.push_state()
        return outcome

    def correct_reveal(self, seat: str, cards: list[str]) -> None:
        if self.reveal is None:
            self.reveal = RevealDraft(seats=[seat])
        if seat not in self.reveal.seats:
            self.reveal.seats.append(seat)
        self.reveal.hands[seat] = list(cards)
        self.reveal.confidence[seat] = [1.0] * len(cards)
        self.reveal.corrected.add(seat)
        if self.feed is not None:
            self.feed.correct_reveal(seat, list(cards))
        self.push_state()

    # ---- camera thread → loop ------------------------------------------------------------
    def on_vision_events(self, events: list[dict[str, Any]], t: float) -> None:
        """Called on the camera thread. Reveal readings are drafts; the rest is appended."""
        self.loop.call_soon_threadsafe(self._vision_events, events)

    def _vision_events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            kind = event.get("type")
            if kind == "reveal":
                self._draft_from_camera(event)
            elif kind == "call":
                continue  # calls come from people, never from the camera
            else:
                task = asyncio.ensure_future(self.service.append(event, "camera"))
                task.add_done_callback(_log_failure)
        self.push_state()

    def on_notices(self, notices: list[dict[str, Any]]) -> None:
        """Camera notices (reveal time-out prompts, anomalies, reshuffles): shown, not judged."""
        self.loop.call_soon_threadsafe(self._notices, notices)

    def _notices(self, notices: list[dict[str, Any]]) -> None:
        for notice in notices:
            self.notices.append(notice)
            self.manager.broadcast("dashboard", {"type": "notice", "item": notice})

    def _draft_from_camera(self, event: dict[str, Any]) -> None:
        """The camera settled a reveal: show it for confirmation (never judged unconfirmed)."""
        if self.reveal is None:
            return  # nothing is waiting for a reveal (a late read after a confirmation)
        meta = event.get("meta") or {}
        cards = meta.get("cards") or event.get("hands") or {}
        conf = meta.get("confidence") or {}
        for seat, hand in cards.items():
            if seat in self.reveal.corrected:
                continue  # a person's correction beats the camera
            self.reveal.hands[seat] = [str(c) for c in hand]
            self.reveal.confidence[seat] = [float(c) for c in conf.get(seat, [])] or [0.0] * len(hand)
            if seat not in self.reveal.seats:
                self.reveal.seats.append(seat)

    def on_recorded_call(self, event: dict[str, Any]) -> None:
        """--demo: a call the recorded players made, replayed at its time (camera thread).

        Only while the camera reads cards: without a reader the referee has no hand to judge.
        """
        if self.feed is None or self.feed.status.reader != "ok":
            return

        def call() -> None:
            if event.get("type") == "call":
                asyncio.ensure_future(self.call(str(event["call"]), str(event["by"]), event.get("target"), "recording"))
            else:  # a Khmer close or fold: declared, not seen
                asyncio.ensure_future(self._declared(dict(event)))

        self.loop.call_soon_threadsafe(call)

    async def _declared(self, event: dict[str, Any]) -> None:
        await self.service.append(event, "recording")
        self.push_state()

    def on_feed_status(self) -> None:
        """The camera thread's reader came up (or failed): the browsers get a fresh state."""
        self.loop.call_soon_threadsafe(self.push_state)

    def on_loop(self) -> None:
        """The demo recording starts over: new hand (or a new game once this one is over)."""
        self.loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._restart_demo_hand()))

    async def _restart_demo_hand(self) -> None:
        view = self.service.snapshot.get("view") or {}
        if view.get("finished"):
            await self.service.new_game(self.service.header())
        elif view.get("phase") not in ("deal", None):
            # A reveal the camera read and nobody confirmed: the demo's players confirm it, so the
            # demo shows the deal judged (a Khmer deal cannot start over before its reveal).
            draft = self.reveal.to_json() if self.reveal is not None else None
            if draft and all(draft["hands"].get(seat) for seat in draft["seats"]):
                confirmed = await self.service.append({"type": "reveal", "hands": draft["hands"]}, "demo")
                if confirmed.accepted and (self.service.snapshot.get("view") or {}).get("finished"):
                    await self.service.new_game(self.service.header())
                    self.reveal = None
                    self.push_state()
                    return
            outcome = await self.service.append({"type": "new_hand"}, "demo")
            if not outcome.accepted:  # a deal that still cannot end (its reveal never read): start clean
                await self.service.new_game(self.service.header())
        self.reveal = None
        self.push_state()

    def on_table(self, table: dict[str, Any] | None) -> None:
        self.loop.call_soon_threadsafe(self._set_table, table)

    def _set_table(self, table: dict[str, Any] | None) -> None:
        self.table = table
        self.manager.broadcast("dashboard", {"type": "table", "table": table})

    def on_frame(self, packet: bytes, overlay: dict[str, Any]) -> None:
        self.loop.call_soon_threadsafe(self._send_frame, packet)

    def _send_frame(self, packet: bytes) -> None:
        if self.manager.count("video"):
            self.manager.broadcast("video", packet)

    # ---- session snapshots (worker thread → loop) ---------------------------------------
    def _on_snapshot_threadsafe(self, snapshot: dict[str, Any]) -> None:
        try:
            self.loop.call_soon_threadsafe(self._on_snapshot, snapshot)
        except RuntimeError:  # loop closed during shutdown
            pass

    def resume(self) -> None:
        """After a restart: a reveal the log is waiting for is asked for again."""
        self._follow_awaiting(self.service.snapshot.get("awaiting") or {})

    def _on_snapshot(self, snapshot: dict[str, Any]) -> None:
        self._follow_awaiting(snapshot.get("awaiting") or {})
        last = snapshot.get("last") or {}
        if last.get("accepted") and (last.get("event") or {}).get("type") in ("new_hand", "new_game"):
            if self.feed is not None:
                self.feed.new_hand()
        if last.get("announcements"):
            self.manager.broadcast("dashboard", {"type": "announce", "items": last["announcements"]})
            self.manager.broadcast("phone", {"type": "announce", "items": last["announcements"]})
        self.push_state()

    def _follow_awaiting(self, awaiting: dict[str, Any]) -> None:
        if awaiting != self._last_awaiting:
            self._last_awaiting = awaiting
            if isinstance(awaiting, dict) and awaiting.get("kind") == "reveal":
                seats = [str(s) for s in awaiting.get("seats", [])]
                if self.reveal is None:
                    self.reveal = RevealDraft(seats=seats)
                else:  # a later call joined the reveal: keep what was read or corrected
                    self.reveal.seats = seats
                if self.feed is not None:
                    self.feed.request_reveal(seats, awaiting.get("sizes"))  # Khmer: cards each must show
            elif self.reveal is not None:
                self.reveal = None

    # ---- what browsers see ----------------------------------------------------------------
    def state_message(self) -> dict[str, Any]:
        snap = self.service.snapshot
        return {
            "type": "state",
            "game": snap,
            "table": self.table,
            "reveal": self.reveal.to_json() if self.reveal else None,
            "calls": self.arbiter.recent(30),
            "heard": [h.to_json() for h in self.heard.values()],
            "feed": self.feed.status.to_json() if self.feed else {"running": False, "reader": "no video source"},
            "voice": self.voice_status,
            "phones": [{"id": p.id, "seat": p.seat, "name": p.name} for p in self.phones.list()],
            "lan": self.settings.lan,
            "notices": list(self.notices)[-5:],
        }

    def phone_message(self) -> dict[str, Any]:
        snap = self.service.snapshot
        return {"type": "state", "standings": snap.get("standings"), "awaiting": snap.get("awaiting"),
                "header": snap.get("header"), "calls": self.arbiter.recent(8)}

    def push_state(self) -> None:
        self.manager.broadcast("dashboard", self.state_message())
        if self.manager.count("phone"):
            self.manager.broadcast("phone", self.phone_message())

    def new_game_started(self) -> None:
        """Seats may have changed: a layout for them, and a tracker built for the new header."""
        if self.feed is None:
            return
        players = [str(p) for p in self.service.header().get("players", [])]
        if self.layout is None or set(self.layout.seats) != set(players):
            from dataclasses import replace

            from referee.server.app import default_layout

            try:
                self.layout = default_layout(replace(self.settings, header=self.service.header(), layout_path=None))
            except Exception as exc:  # shown as the reader status; the game goes on
                log.warning("no layout for the new seats: %s", exc)
        self.feed.rebuild_pipeline()

    # ---- layout (calibration) ------------------------------------------------------------
    def layout_json(self) -> dict[str, Any]:
        if self.layout is None:
            return {"layout": None, "zones": {}}
        zones = {name: [list(p) for p in poly] for name, poly in self.layout.zones().items()}
        return {"layout": self.layout.to_dict(), "zones": zones, "size": list(self.layout.size),
                "saved_to": self.layout_saved_to}

    def set_layout(self, layout: Any) -> None:
        """Keep the calibration (saved next to the game database) and give it to the camera."""
        self.layout = layout
        self.layout_saved_to = str(layout.save(calibration_path(self.settings)))
        if self.feed is not None:
            self.feed.rebuild_pipeline()
        self.manager.broadcast("dashboard", {"type": "layout", **self.layout_json()})

    # ---- voice -------------------------------------------------------------------------
    def add_heard(self, call: str, target: str | None, by: str | None, confidence: float,
                  audio_t: float, at: float) -> Heard:
        heard = Heard(uuid.uuid4().hex[:8], call, target, by, confidence, audio_t, at)
        self.heard[heard.id] = heard
        # Unanswered prompts are not kept for ever: every state message carries them (an audit
        # of 7 Dec: 500 of them made each message 51 KB). The oldest go past MAX_HEARD.
        while len(self.heard) > MAX_HEARD:
            self.heard.pop(next(iter(self.heard)))
        self.manager.broadcast("dashboard", {"type": "heard", "item": heard.to_json()})
        self.push_state()
        return heard
