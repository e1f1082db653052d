"""Frame sources: a webcam index, a video file or a stream URL → `Frame` iterator.

`open_source(0)` opens a camera, `open_source("game.mp4")` a file, `open_source("rtsp://…")`
a stream. A file's frames are stamped `t = index / fps`, so a recording replays identically,
unless the file's own timestamps say otherwise by more than a frame (a variable frame rate
video: phones, screen recorders; `frame_time`). A live source's frames are stamped by the
clock since its first frame: a webcam that claims 30 fps and delivers 15 (dim light) made
every duration double (a stale call after 10 s instead of 5). Failures are one clear `CaptureError` line: no camera at that index, file
missing, unreadable or corrupt video. A live source (camera or stream) that stops delivering
frames mid-game is reported through `on_status` and reopened with a bounded exponential
backoff; only when every retry fails does iteration end with `CameraLostError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.types import Frame

_STREAM_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")


class CaptureError(RuntimeError):
    """The source cannot be opened or read (one clear line)."""


class CameraLostError(CaptureError):
    """A live source stopped delivering frames and did not come back."""


@dataclass(frozen=True)
class RetryPolicy:
    """Reopening a lost live source: delays `initial_s`, ×`factor`, capped, `attempts` tries."""

    attempts: int = 6
    initial_s: float = 0.5
    factor: float = 2.0
    max_s: float = 8.0

    def delays(self) -> Iterator[float]:
        d = self.initial_s
        for _ in range(self.attempts):
            yield d
            d = min(self.max_s, d * self.factor)


StatusCallback = Callable[[dict[str, Any]], None]


def _default_status(msg: dict[str, Any]) -> None:
    import sys

    print(f"capture: {msg['message']}", file=sys.stderr)


class FrameSource:
    """Iterates `Frame`s from one OpenCV capture; `fps`, `size`, `close()`; context manager."""

    def __init__(
        self,
        source: int | str,
        *,
        retry: RetryPolicy | None = None,
        on_status: StatusCallback | None = None,
        opener: Callable[[int | str], Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.live = isinstance(source, int) or str(source).startswith(_STREAM_PREFIXES)
        self.retry = retry or RetryPolicy()
        self.on_status = on_status or _default_status
        self._opener = opener or _cv2_open
        self._sleep = sleep
        self._clock = clock
        self._cap: Any = None
        self._index = 0
        self._t0: float | None = None  # live: the clock at the first frame
        self._pending_pts: float | None = None
        self._open_first()
        self._file_clock = FileClock(self.fps)

    # ---- opening ---------------------------------------------------------------------
    def _open_first(self) -> None:
        src = self.source
        if not self.live:
            path = Path(str(src))
            if not path.exists():
                raise CaptureError(f"video file not found: {path}")
            if path.is_dir():
                raise CaptureError(f"{path} is a folder, not a video file")
        cap = self._opener(src)
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            raise CaptureError(_open_failure(src))
        ok, first = cap.read()
        if not ok or first is None:
            cap.release()
            what = f"camera {src}" if isinstance(src, int) else str(src)
            raise CaptureError(f"{what}: opened but no frame could be decoded (corrupt or unsupported video?)")
        self._cap = cap
        self._pending = first
        self._pending_pts = pts_of(cap)
        fps = float(cap.get(5) or 0.0)  # cv2.CAP_PROP_FPS
        self.fps = fps if 1.0 <= fps <= 240.0 else 30.0
        if not 1.0 <= fps <= 240.0:
            self.on_status({"type": "fps_unknown", "source": str(src),
                            "message": f"{src}: the video gives {fps:g} frames a second; taking 30 (and its timestamps where it has them)"})  # fmt: skip
        self.size = (int(first.shape[1]), int(first.shape[0]))
        n = int(cap.get(7) or 0)  # cv2.CAP_PROP_FRAME_COUNT
        self.frame_count: int | None = n if (not self.live and n > 0) else None

    def _reopen(self) -> bool:
        """Live source lost: report, then retry with backoff. True when frames flow again."""
        self.on_status({"type": "camera_lost", "source": str(self.source), "message": f"{self._name()} lost; retrying"})
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        for attempt, delay in enumerate(self.retry.delays(), start=1):
            self._sleep(delay)
            cap = self._opener(self.source)
            if cap is not None and cap.isOpened():
                ok, img = cap.read()
                if ok and img is not None:
                    self._cap, self._pending, self._pending_pts = cap, img, pts_of(cap)
                    self.on_status({
                        "type": "camera_restored", "source": str(self.source), "attempt": attempt,
                        "message": f"{self._name()} back after {attempt} attempt(s)",
                    })  # fmt: skip
                    return True
            if cap is not None:
                cap.release()
            self.on_status({
                "type": "camera_retry", "source": str(self.source), "attempt": attempt,
                "message": f"{self._name()}: attempt {attempt}/{self.retry.attempts} failed",
            })  # fmt: skip
        return False

    def _name(self) -> str:
        return f"camera {self.source}" if isinstance(self.source, int) else f"stream {self.source}"

    # ---- iteration -------------------------------------------------------------------
    def __iter__(self) -> Iterator[Frame]:
        while True:
            img, pts = self._pending, self._pending_pts
            self._pending = self._pending_pts = None
            if img is None:
                if self._cap is None:
                    return
                ok, img = self._cap.read()
                if not ok or img is None:
                    if not self.live:
                        return  # end of file
                    if not self._reopen():
                        raise CameraLostError(f"{self._name()} lost and not back after {self.retry.attempts} attempts")
                    continue
                pts = pts_of(self._cap)
            yield Frame(image=img, t=self._stamp(pts), index=self._index)
            self._index += 1

    def _stamp(self, pts: float | None) -> float:
        if self.live:
            now = self._clock()
            if self._t0 is None:
                self._t0 = now
            return now - self._t0
        return self._file_clock(self._index, pts)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pts_of(cap: Any) -> float | None:
    """The timestamp (s) of the frame an OpenCV capture just decoded, from the file (None: none given)."""
    try:
        ms = float(cap.get(0))  # cv2.CAP_PROP_POS_MSEC
    except Exception:  # a stand-in capture without properties
        return None
    return ms / 1000.0 if ms == ms and ms >= 0 else None


class FileClock:
    """`frame_time` over a file's frames in order, trusting its timestamps only while they
    increase (a backend that gives none answers 0 for every frame)."""

    def __init__(self, fps: float) -> None:
        self.fps = fps
        self._last: float | None = None

    def __call__(self, index: int, pts: float | None) -> float:
        if pts is not None and index > 0 and (self._last is None or pts <= self._last):
            pts = None
        if pts is not None:
            self._last = pts
        return frame_time(index, self.fps, pts)


def frame_time(index: int, fps: float, pts: float | None) -> float:
    """A file frame's time: `index / fps`, the time every recording and truth file uses, unless
    the file's own timestamp (`pts`) disagrees by more than a frame, as in a variable frame
    rate video (measured, a server audit of 7 Dec: events 4.5-6.8 s late by index / fps)."""
    nominal = index / fps
    if pts is None or abs(pts - nominal) <= 1.0 / fps:
        return nominal
    return pts


def open_source(source: int | str, **kwargs: Any) -> FrameSource:
    """Open a webcam index (int or digit string), a video file path or a stream URL."""
    if isinstance(source, str) and source.strip().isdigit():
        source = int(source.strip())
    return FrameSource(source, **kwargs)


def _cv2_open(source: int | str) -> Any:
    import os

    import cv2

    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # FFmpeg's "moov atom not found" and the like
    # OpenCV's own multi-line warnings (V4L2, FFMPEG) would bury our one-line error.
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR if isinstance(source, str) else cv2.utils.logging.LOG_LEVEL_SILENT)
    return cv2.VideoCapture(source)


def _open_failure(src: int | str) -> str:
    if isinstance(src, int):
        return f"no camera at index {src} (check the cable, or try another --camera index)"
    if str(src).startswith(_STREAM_PREFIXES):
        return f"cannot open stream {src}"
    return f"cannot read video {src} (unsupported or corrupt file)"
