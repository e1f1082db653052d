"""Where a stretch of speech ends in a pause: the moments a shouted call can have just ended.

The keyword spotter misses some two-word calls entirely in noise (no candidate within 25
nats of the threshold; docs/voice.md "Word-embedding spotting"). The word embedding hears
many of them, but it is far too costly to run every 10 ms frame (15-30 ms of CPU a window). A
call is an exclamation followed by a pause, so the embedding is asked only where the level
drops after speech: a few times per sentence of chatter, about once per call.

`SegmentEnds` is fed the listener's 10 ms frame levels (dB) one by one and reports frame
`f` (the last loud frame) once the `pause_s` after it (from 50 ms on) is known, when
- frame f is speech: within `LOUD_DB` of the 80th percentile of the `PEAK_FRAMES` before it;
- the pause is under the peak by min(`drop_db`, max(`min_db`, `fraction` × (peak −
  background))) — the background-relative pause the listener also asks of a call
  (background: the 10th percentile of the 3 s before) — and in 80 % of its frames, not on
  average: with the mean, the end was found up to ~0.2 s before the speech really stopped
  (a loud start of the "pause" averaged out by the silence after it), so the embedded
  window missed the end of the call;
- no end was reported in the `REFRACTORY` frames before (one report per pause);
- with `max_speech_s` set, the speech began at most that long before, after a pause as
  deep and as long: the embedding model was trained on single words in 1.5 s windows, a
  shout fits one, and the end of a long sentence (most of the chatter) is not asked about.
Pure and stream-clocked: the same levels always give the same ends.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

FRAME = 160  # samples in a 10 ms frame at 16 kHz
PEAK_FRAMES = 30  # 300 ms of speech before the end give its level
PAUSE_START = 5  # the pause is measured from 50 ms after the end (as the listener's PAUSE_WINDOW)
LOUD_DB = 10.0  # the end frame itself is still speech
FLOOR_FRAMES = 300  # background: the 3 s before the speech
FLOOR_MIN_FRAMES = 50
REFRACTORY = 30  # frames after a reported end in which no other is reported


@dataclass(frozen=True)
class SegmentEndConfig:
    drop_db: float = 12.0
    min_db: float = 3.0
    fraction: float = 0.5
    pause_s: float = 0.15  # how long the level must stay down (after the first 50 ms)
    max_speech_s: float | None = None  # longest speech before the end (after a like pause); None: any

    @property
    def pause_frames(self) -> tuple[int, int]:
        return PAUSE_START, PAUSE_START + max(1, round(self.pause_s / 0.01))


def frame_levels_db(pcm: np.ndarray) -> np.ndarray:
    """dB of each whole 10 ms frame (160 samples) of int16 `pcm`: 10 log10(variance + 1), the
    frame's own mean taken out. The listener's frame levels and the benchmarks' replays both
    come from here, so a replay finds the same ends as the listener.

    The mean is taken out because a microphone's DC offset is no sound: counted as loudness
    (mean square), +1000 of offset read as 60 dB of "noise" under every pause, so no call was
    followed by the level drop the pause checks ask for (an audit of 7 Dec: every direct call
    of the fixtures a prompt, and at a low gain every call lost)."""
    n = len(pcm) // FRAME
    x = np.asarray(pcm[: n * FRAME], dtype=np.float64).reshape(n, FRAME)
    return 10.0 * np.log10(x.var(axis=1) + 1.0)


def _rank(n: int, q: float) -> int:
    """Index of the `q` quantile in `n` sorted values."""
    return min(n - 1, int(q * (n - 1) + 0.5))


def _pct(values: list[float], q: float) -> float:
    return sorted(values)[_rank(len(values), q)]


class SegmentEnds:
    """`ends = SegmentEnds(); ends.push(level_db)` -> the frame index of a speech end, or None."""

    def __init__(self, config: SegmentEndConfig | None = None) -> None:
        self.config = config or SegmentEndConfig()
        self._lv = array("f")
        self._base = 0  # absolute frame index of self._lv[0]
        self._last = -(10**9)

    @property
    def frames(self) -> int:
        """Frames pushed so far."""
        return self._base + len(self._lv)

    def push(self, level_db: float) -> int | None:
        self._lv.append(level_db)
        pa, pb = self.config.pause_frames
        keep = FLOOR_FRAMES + PEAK_FRAMES + pb + 1
        if len(self._lv) > 2 * keep:
            self._base += len(self._lv) - keep
            del self._lv[:-keep]
        f = self.frames - 1 - pb  # the candidate end: its pause is now known
        levels = self._end_levels(f, pa, pb)
        return None if levels is None else self._last_loud(f, pa, pb, *levels)

    def _end_levels(self, f: int, pa: int, pb: int) -> tuple[float, float] | None:
        """(speech level, pause level) when frame `f` is a speech end, else None."""
        i = f - self._base
        if i < PEAK_FRAMES or f - self._last < REFRACTORY:
            return None
        lv = self._lv
        pause = _pct(list(lv[i + pa : i + pb]), 0.8)
        if lv[i] - pause < self.config.min_db:
            return None  # one sort per frame: in silence and inside steady speech this already fails
        peak = _pct(list(lv[i - PEAK_FRAMES : i + 1]), 0.8)
        if lv[i] < peak - LOUD_DB:
            return None
        drop = peak - pause
        if drop < self.config.min_db:
            return None
        before = list(lv[max(0, i - PEAK_FRAMES - FLOOR_FRAMES) : i - PEAK_FRAMES])
        floor = _pct(before, 0.1) if len(before) >= FLOOR_MIN_FRAMES else min(lv[: i + 1])
        c = self.config
        need = min(c.drop_db, max(c.min_db, c.fraction * (peak - floor)))
        if drop < need or lv[i] - pause < need:
            return None  # no pause, or frame f is no louder than the pause (the room after a call)
        self._last = f  # refractory from here even when the speech is too long: one verdict per pause
        if c.max_speech_s is not None and self._speech_frames(i, peak - need, pb - pa) > round(c.max_speech_s / 0.01):
            return None
        return peak, pause

    def _last_loud(self, f: int, pa: int, pb: int, peak: float, pause: float) -> int:
        """The speech's true last frame: the 80 % rule lets the first fifth of the pause be
        loud, so the end found can be that much early; move it to the last frame there that is
        still above the pause's level by half the peak's lead over it."""
        i = f - self._base
        lv = self._lv
        loud = pause + 0.5 * (peak - pause)
        reach = i + pa + (pb - pa) // 5
        return f + max((j - i for j in range(i, reach + 1) if lv[j] >= loud), default=0)

    def _speech_frames(self, i: int, quiet_db: float, pause_len: int) -> int:
        """Frames from the last pause before frame `i` (`pause_len` frames, 80 % of them at
        most `quiet_db`: the rule the end itself passed) to `i`; a large number when none lies
        within `max_speech_s`."""
        limit = round((self.config.max_speech_s or 0.0) / 0.01)
        lo = max(0, i - limit - pause_len)
        seg = np.asarray(self._lv[lo : i + 1], dtype=np.float64)
        if len(seg) <= pause_len:
            return limit + 1 if lo > 0 else 0  # the stream began within the limit: nothing before it
        windows = np.lib.stride_tricks.sliding_window_view(seg, pause_len)  # windows[g]: frames g..g+len-1
        quiet = np.flatnonzero(np.sort(windows, axis=1)[:, _rank(pause_len, 0.8)] <= quiet_db)
        if len(quiet) == 0:
            return limit + 1 if lo > 0 else i
        return (len(seg) - 1) - (int(quiet[-1]) + pause_len - 1)
