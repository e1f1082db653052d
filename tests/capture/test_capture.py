"""Frame sources: files, cameras, streams; clear errors; a lost camera is retried."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.capture import CameraLostError, CaptureError, RetryPolicy, open_source


def write_video(path: Path, n: int = 12, fps: float = 15.0, size: tuple[int, int] = (96, 64)) -> Path:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    for i in range(n):
        img = np.full((size[1], size[0], 3), i * 20 % 255, np.uint8)
        w.write(img)
    w.release()
    return path


def test_file_frames_are_stamped_index_over_fps(tmp_path: Path) -> None:
    src = open_source(str(write_video(tmp_path / "v.avi")))
    assert src.fps == pytest.approx(15.0) and src.size == (96, 64)
    frames = list(src)
    src.close()
    assert len(frames) == 12
    assert [f.index for f in frames] == list(range(12))
    assert frames[3].t == pytest.approx(3 / 15.0)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="video file not found"):
        open_source(str(tmp_path / "nope.mp4"))


def test_unreadable_video(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00not a video at all" * 100)
    with pytest.raises(CaptureError) as exc:
        open_source(str(bad))
    assert str(bad) in str(exc.value) and "\n" not in str(exc.value)


def test_no_camera_at_index() -> None:
    with pytest.raises(CaptureError, match="no camera at index 57"):
        open_source(57)


class FakeCap:
    """A camera that delivers `frames` frames, then fails (unplugged)."""

    def __init__(self, frames: int, opens: bool = True) -> None:
        self.left, self.opens = frames, opens

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opens

    def read(self) -> tuple[bool, Any]:
        if self.left <= 0:
            return False, None
        self.left -= 1
        return True, np.zeros((4, 6, 3), np.uint8)

    def get(self, prop: int) -> float:
        return 30.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        self.opens = False


def test_camera_lost_mid_game_is_reported_and_retried() -> None:
    caps = iter([FakeCap(5), FakeCap(0, opens=False), FakeCap(0), FakeCap(3)])
    status: list[dict[str, Any]] = []
    sleeps: list[float] = []
    src = open_source(0, opener=lambda s: next(caps, FakeCap(0, opens=False)), on_status=status.append,
                      sleep=sleeps.append, retry=RetryPolicy(attempts=4, initial_s=0.5))  # fmt: skip
    frames = []
    with pytest.raises(CameraLostError):
        for f in src:
            frames.append(f)
    assert len(frames) == 8  # 5 before the loss, 3 after it came back
    assert [f.index for f in frames] == list(range(8))  # time keeps running from the start
    kinds = [s["type"] for s in status]
    assert kinds[:4] == ["camera_lost", "camera_retry", "camera_retry", "camera_restored"]
    assert sleeps[:3] == [0.5, 1.0, 2.0]


def test_camera_lost_for_good_ends_with_one_clear_error() -> None:
    def opener(_: Any, first: list[bool] = [True]) -> FakeCap:
        if first[0]:
            first[0] = False
            return FakeCap(2)
        return FakeCap(0, opens=False)

    status: list[dict[str, Any]] = []
    sleeps: list[float] = []
    src = open_source("rtsp://table.local/cam", opener=opener, on_status=status.append, sleep=sleeps.append,
                      retry=RetryPolicy(attempts=3, initial_s=1.0, max_s=1.5))  # fmt: skip
    it = iter(src)
    next(it), next(it)
    with pytest.raises(CameraLostError, match="not back after 3 attempts"):
        next(it)
    assert sleeps == [1.0, 1.5, 1.5]
    assert status[0]["type"] == "camera_lost" and len(status) == 4


def test_a_live_camera_is_stamped_by_the_clock_not_by_its_claimed_fps() -> None:
    # a webcam that claims 30 fps and delivers 15 (dim light) made every duration double
    # (an audit of 7 Dec): a stale call after 10 s instead of 5
    now = [100.0]

    def clock() -> float:
        now[0] += 1 / 15  # one frame every 66 ms
        return now[0]

    src = open_source(0, opener=lambda s: FakeCap(31), clock=clock)
    frames = list(itertools.islice(src, 31))
    assert frames[30].t == pytest.approx(2.0)  # 30 frames at 15 fps: 2 s (index / 30 said 1 s)


class PtsCap(FakeCap):
    """A file whose own timestamps (ms) are given per frame."""

    def __init__(self, pts_ms: list[float], fps: float) -> None:
        super().__init__(len(pts_ms))
        self.pts_ms, self.fps, self.i = pts_ms, fps, -1

    def read(self) -> tuple[bool, Any]:
        ok, img = super().read()
        self.i += ok
        return ok, img

    def get(self, prop: int) -> float:
        if prop == cv2.CAP_PROP_POS_MSEC:
            return self.pts_ms[self.i]
        return self.fps if prop == cv2.CAP_PROP_FPS else 0.0


def test_a_variable_frame_rate_file_keeps_its_own_timestamps(tmp_path) -> None:
    video = tmp_path / "v.mp4"
    video.write_bytes(b"x")
    steady = [i * 100.0 + (0.3 if i % 2 else 0.0) for i in range(20)]  # 10 fps, a little jitter
    src = open_source(str(video), opener=lambda s: PtsCap(steady, 10.0))
    assert [f.t for f in src] == [i / 10 for i in range(20)]  # index / fps, exactly as before
    bursty = [0, 100, 200, 1500, 1600, 1700, 4000]  # the phone paused: its clock, not index / fps
    src = open_source(str(video), opener=lambda s: PtsCap(bursty, 10.0))
    assert [round(f.t, 3) for f in src] == [0.0, 0.1, 0.2, 1.5, 1.6, 1.7, 4.0]
