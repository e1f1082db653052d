"""The camera thread: frames → pipeline → events for the referee, JPEGs + overlays for browsers.

Runs on its own thread because capture and the card reader block. It never touches the
session: events go out through `on_events`, frames and table readings through
`on_frame` / `on_table`; the app turns those into session appends and WebSocket pushes.
Anything with the pipeline's `process(frame) -> step` method works here (the live
`TablePipeline`, or a test double driven by a recording).
"""

from __future__ import annotations

import json
import logging
import struct
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from vision.types import CardDetections, Frame, TableState

log = logging.getLogger("referee.server.feed")


class PipelineLike(Protocol):
    def process(self, frame: Frame) -> Any: ...


SourceFactory = Callable[[], Iterable[Frame]]


def table_json(state: TableState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {
        "t": round(float(state.t), 3),
        "market": list(state.market),
        "market_confidence": [round(float(c), 3) for c in state.market_confidence],
        "market_occluded": bool(state.market_occluded),
        "hand_in_market": bool(state.hand_in_market),
        "seconds_since_market_change": round(float(state.seconds_since_market_change), 1),
        "zones": {
            name: {"cards": list(z.cards), "confidence": [round(float(c), 3) for c in z.confidence],
                   "occluded": bool(z.occluded)}
            for name, z in state.zones.items()
        },
    }


def detections_json(det: CardDetections | None, scale: float) -> list[dict[str, Any]]:
    if det is None:
        return []
    return [
        {"card": c, "confidence": round(float(p), 3), "box": [round(float(v) * scale, 1) for v in box]}
        for c, p, box in zip(det.cards, det.confidence, det.xyxy)
    ]


def frame_packet(overlay: dict[str, Any], jpeg: bytes) -> bytes:
    """One WebSocket message per frame, so an overlay can never be paired with another frame."""
    head = json.dumps(overlay, separators=(",", ":")).encode()
    return struct.pack(">I", len(head)) + head + jpeg


@dataclass
class FeedStatus:
    running: bool = False
    source: str | None = None
    reader: str = "not started"  # "ok" or why there are no card reads
    error: str | None = None
    frames: int = 0
    fps: float = 0.0
    process_ms: float = 0.0
    loops: int = 0
    size: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class FrameFeed:
    """Reads frames on a thread; `stop()` ends it. Commands run between frames."""

    open_source: SourceFactory | None
    pipeline_factory: Callable[[float], PipelineLike | None]
    on_events: Callable[[list[dict[str, Any]], float], None]
    on_frame: Callable[[bytes, dict[str, Any]], None]
    on_table: Callable[[dict[str, Any] | None], None]
    on_notices: Callable[[list[dict[str, Any]]], None] = lambda _: None
    on_loop: Callable[[], None] = lambda: None
    # (recording time, call) pairs replayed by --demo; card reads always come from the camera
    script: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    on_script: Callable[[dict[str, Any]], None] = lambda _: None
    on_status: Callable[[], None] = lambda: None  # the reader's status changed: tell the browsers
    _script_next: int = 0
    source_name: str | None = None
    loop: bool = False
    live: bool = False  # a camera: reopened after a failure instead of giving up
    retry_s: float = 5.0
    realtime: bool = True
    jpeg_quality: int = 70
    max_stream_fps: float = 12.0
    stream_width: int = 960
    status: FeedStatus = field(default_factory=FeedStatus)
    last_jpeg: bytes | None = None
    last_overlay: dict[str, Any] = field(default_factory=dict)
    last_packet: bytes | None = None  # overlay JSON + JPEG, as sent on /ws/video
    last_table: dict[str, Any] | None = None
    _commands: queue.Queue[Callable[[PipelineLike], None]] = field(default_factory=queue.Queue)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _pipeline: PipelineLike | None = None
    _t_offset: float = 0.0
    last_t: float = 0.0
    source_fps: float = 30.0
    _last_table_key: dict[str, Any] | None = None
    _last_table_push: float = 0.0

    # ---- control (any thread) ------------------------------------------------------------
    def start(self) -> None:
        if self.open_source is None:
            self.status.reader = "no video source"
            return
        self._thread = threading.Thread(target=self._run, name="frame-feed", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def command(self, fn: Callable[[PipelineLike], None]) -> None:
        """Run `fn(pipeline)` on the camera thread before the next frame (dropped once the
        thread has ended, a video file played out: nothing would ever run them, and the queue
        grew by two commands each new hand; an audit, 7 Dec)."""
        if self._thread is not None and not self._thread.is_alive():
            return
        self._commands.put(fn)

    def rebuild_pipeline(self) -> None:
        """A new layout: the next frame builds a fresh pipeline (calibration changes zones)."""
        def reset(_: PipelineLike) -> None:
            self._pipeline = None
            self.status.reader = "not started"

        self.command(reset)

    def new_hand(self) -> None:
        self.command(lambda p: getattr(p, "new_hand", lambda *_: None)(self.last_t))

    def request_reveal(self, seats: list[str], sizes: dict[str, int] | None = None) -> None:
        """Read these seats' reveal areas; `sizes`: cards each must show, where known."""
        self.command(lambda p: getattr(p, "request_reveal", lambda *_: None)(seats, self.last_t, sizes))

    def correct_reveal(self, seat: str, cards: list[str]) -> None:
        self.command(lambda p: getattr(p, "correct_reveal", lambda *_: None)(seat, cards))

    # ---- the thread ---------------------------------------------------------------------
    def _frames(self) -> Iterator[Frame]:
        """Frames with a time that never goes back, even when the demo recording loops."""
        assert self.open_source is not None
        while not self._stop.is_set():
            last = 0.0
            source = self.open_source()
            self.source_fps = float(getattr(source, "fps", 0) or 30.0)
            self._script_next = 0
            for frame in source:
                last = frame.t
                self._play_script(frame.t)
                yield Frame(frame.image, frame.t + self._t_offset, frame.index)
                if self._stop.is_set():
                    return
            if not self.loop:
                return
            self._t_offset += last + 1.0
            self.status.loops += 1
            # The recording starts over: a fresh tracker, and the referee a fresh hand.
            self._pipeline = None
            self.status.reader = "not started"
            self.on_loop()

    def _play_script(self, t: float) -> None:
        """Demo only: the recorded players' calls, at the moments they made them."""
        while self._script_next < len(self.script) and self.script[self._script_next][0] <= t:
            self.on_script(dict(self.script[self._script_next][1]))
            self._script_next += 1

    def _run(self) -> None:
        self.status.source = self.source_name
        while not self._stop.is_set():
            self.status.running = True
            try:
                self._loop_frames()
                return  # a file ended
            except Exception as exc:  # shown on the dashboard; the game (buttons, phones) goes on
                log.exception("frame feed stopped")
                self.status.error = f"{type(exc).__name__}: {exc}"
            finally:
                self.status.running = False
            if not self.live:
                return
            # A camera lost beyond capture's own retries: keep trying while the game goes on.
            self.status.error += f" (retrying every {self.retry_s:.0f} s)"
            self._stop.wait(self.retry_s)

    def _make_pipeline(self, fps: float) -> None:
        try:
            self._pipeline = self.pipeline_factory(fps)
            self.status.reader = "ok" if self._pipeline is not None else "no card reader"
        except Exception as exc:
            self._pipeline = None
            self.status.reader = f"card reader unavailable: {exc}"
            log.warning("card reader unavailable: %s", exc)
        # Said at once: the browsers showed "reader: not started" and asked for the market by
        # hand after each demo loop until the next game event (a dashboard audit, 7 Dec).
        self.on_status()

    def _loop_frames(self) -> None:
        import cv2

        wall0: float | None = None
        t_first = 0.0
        next_push = 0.0
        window: list[float] = []
        for frame in self._frames():
            self.status.error = None
            if self._pipeline is None and self.status.reader == "not started":
                self._make_pipeline(self.source_fps)
            self.last_t = frame.t
            if wall0 is None:
                wall0, t_first = time.monotonic(), frame.t
            self._run_commands()
            started = time.perf_counter()
            step = self._pipeline.process(frame) if self._pipeline is not None else None
            self.status.process_ms = round((time.perf_counter() - started) * 1000, 1)
            self.status.frames += 1
            self.status.size = frame.size
            now = time.monotonic()
            window = [w for w in window if now - w < 2.0] + [now]
            self.status.fps = round(len(window) / 2.0, 1)
            if step is not None:
                self._publish_step(step, frame.t)
            if now >= next_push:
                next_push = now + 1.0 / self.max_stream_fps
                self._push_frame(cv2, frame, step)
            if self.realtime:  # files play at their own pace; cameras are never paced
                delay = (frame.t - t_first) - (time.monotonic() - wall0)
                if delay > 0:
                    self._stop.wait(delay)

    def _run_commands(self) -> None:
        while True:
            try:
                fn = self._commands.get_nowait()
            except queue.Empty:
                return
            if self._pipeline is not None:
                try:
                    fn(self._pipeline)
                except Exception as exc:
                    log.warning("pipeline command failed: %s", exc)

    def _publish_step(self, step: Any, t: float) -> None:
        events = list(getattr(step, "events", None) or [])
        if events:
            self.on_events(events, t)
        notices = list(getattr(step, "notices", None) or [])
        if notices:
            self.on_notices(notices)
        table = table_json(getattr(step, "state", None))
        reveals = getattr(self._pipeline, "reveals", None)
        if table is not None and reveals is not None and getattr(reveals, "active", False):
            table["reveal_status"] = reveals.status()  # per seat: cards read so far, settled?
        if table is not None:
            self.last_table = table
            # Push on change, else twice a second (the stale timer): not 30 times a second.
            key = {k: v for k, v in table.items() if k not in ("t", "seconds_since_market_change")}
            now = time.monotonic()
            if key != self._last_table_key or now - self._last_table_push >= 0.5:
                self._last_table_key, self._last_table_push = key, now
                self.on_table(table)

    def _push_frame(self, cv2: Any, frame: Frame, step: Any) -> None:
        image = frame.image
        h, w = image.shape[:2]
        scale = min(1.0, self.stream_width / float(w))
        if scale < 1.0:
            image = cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            return
        overlay = {
            "t": round(frame.t, 3),
            "size": [image.shape[1], image.shape[0]],
            "scale": scale,
            "cards": detections_json(getattr(step, "detections", None), scale),
        }
        self.last_jpeg = buf.tobytes()
        self.last_overlay = overlay
        self.last_packet = frame_packet(overlay, self.last_jpeg)
        self.on_frame(self.last_packet, overlay)
