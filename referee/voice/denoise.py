"""Streaming noise reduction in front of the keyword spotter (optional; numpy only).

A Wiener-style gain over STFT frames with a minimum-statistics noise estimate (after
Martin, 2001: the noise power in each bin is the minimum of the smoothed power over the
last `window_s`, times a bias factor), decision-directed a-priori SNR (Ephraim-Malah)
and a gain floor so speech is never gated to silence.

- 16 kHz mono int16 in, int16 out, any piece size; the output is the same whatever the
  pieces (every frame is computed alone, in stream order).
- 20 ms frames (sqrt-Hann analysis and synthesis windows), 10 ms hop: overlap-add
  completes a sample 10 ms after it arrives, so `process()` returns the stream up to
  10 ms behind what it was given, aligned sample for sample with the input (output sample
  i is input sample i, cleaned; stream time is unchanged). `flush()` returns the rest.

    den = Denoiser()
    clean = den.process(pcm16_bytes)   # len(clean) may be up to 10 ms shorter
    tail = den.flush()                 # end of stream
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RATE = 16000
FRAME = 320  # 20 ms
HOP = 160  # 10 ms: the delay this adds
DELAY_S = (FRAME - HOP) / RATE


@dataclass(frozen=True)
class DenoiseConfig:
    """Settings (configs/voice.yaml `denoise:`)."""

    enabled: bool = False
    floor_db: float = -12.0  # lowest gain: a noise-only bin is attenuated this much, no more
    window_s: float = 1.5  # minimum-statistics window: the noise is the quietest level seen in it
    smooth: float = 0.85  # first-order smoothing of each bin's power before taking minima
    bias: float = 2.0  # mean / minimum of the smoothed periodogram of steady noise (measured 2.07-2.10)
    over: float = 1.0  # over-subtraction: the noise estimate is multiplied by this
    dd: float = 0.96  # decision-directed weight of the previous frame's clean-speech estimate


def _window() -> np.ndarray:
    # periodic Hann; its square root for analysis and synthesis sums to 1 at 50 % overlap
    n = np.arange(FRAME)
    return np.sqrt(0.5 - 0.5 * np.cos(2.0 * np.pi * n / FRAME))


class Denoiser:
    """`Denoiser(DenoiseConfig()).process(pcm16_bytes) -> pcm16_bytes` (see module doc)."""

    def __init__(self, config: DenoiseConfig | None = None) -> None:
        self.config = config or DenoiseConfig()
        c = self.config
        self._win = _window()
        self._gmin = 10.0 ** (c.floor_db / 20.0)
        frames = max(8, round(c.window_s / (HOP / RATE)))
        self._sub = 8  # sub-windows of the minimum search (U in Martin's paper)
        self._sub_len = max(1, frames // self._sub)  # frames per sub-window (V)
        nb = FRAME // 2 + 1
        self._in = np.zeros(FRAME, dtype=np.float64)  # the last FRAME input samples
        self._pending = 0  # new input samples since the last frame
        self._ola = np.zeros(FRAME, dtype=np.float64)  # overlap-add accumulator
        self._smooth = np.zeros(nb)
        self._sub_min = np.full(nb, np.inf)  # minimum in the running sub-window
        self._mins: list[np.ndarray] = []  # minima of the last completed sub-windows
        self._sub_count = 0
        self._noise = np.zeros(nb)
        self._prev_clean = np.zeros(nb)  # |G X|^2 of the previous frame
        self._frames = 0
        self._out_started = False  # the first HOP samples of output (before sample 0) were dropped
        self._queue = bytearray()  # input not yet framed, as int16 bytes
        self._received = 0
        self._emitted = 0

    # -- streaming ------------------------------------------------------------------------

    def process(self, pcm16: bytes) -> bytes:
        """Add int16 mono 16 kHz audio; return the cleaned audio completed so far."""
        if len(pcm16) % 2:
            raise ValueError("PCM must be 16-bit: an even number of bytes")
        self._queue.extend(pcm16)
        self._received += len(pcm16) // 2
        out: list[np.ndarray] = []
        while len(self._queue) >= 2 * HOP:
            x = np.frombuffer(bytes(self._queue[: 2 * HOP]), dtype="<i2").astype(np.float64)
            del self._queue[: 2 * HOP]
            out.append(self._hop(x))
        return self._emit(out)

    def flush(self) -> bytes:
        """End of stream: the rest of the cleaned audio (the last ≤ 10 ms and any partial hop)."""
        out: list[np.ndarray] = []
        n_left = len(self._queue) // 2
        if n_left:
            x = np.zeros(HOP)
            x[:n_left] = np.frombuffer(bytes(self._queue), dtype="<i2")
            self._queue.clear()
            out.append(self._hop(x))
        out.append(self._hop(np.zeros(HOP)))  # pushes the last real samples out of the overlap
        return self._emit(out, final=True)

    def _emit(self, pieces: list[np.ndarray], final: bool = False) -> bytes:
        if not pieces:
            return b""
        y = np.concatenate(pieces)
        if not self._out_started:  # the first hop of output is the frame before sample 0
            y = y[HOP:]
            self._out_started = True
        if final:
            y = y[: max(0, self._received - self._emitted)]
        self._emitted += len(y)
        return np.clip(np.rint(y), -32768, 32767).astype("<i2").tobytes()

    # -- one 10 ms hop ----------------------------------------------------------------------

    def _hop(self, x: np.ndarray) -> np.ndarray:
        """Shift in HOP samples, clean the 20 ms frame ending there, return the HOP samples
        of output that are now complete."""
        self._in[:-HOP] = self._in[HOP:]
        self._in[-HOP:] = x
        spec = np.fft.rfft(self._in * self._win)
        power = spec.real * spec.real + spec.imag * spec.imag
        gain = self._gain(power)
        y = np.fft.irfft(spec * gain, FRAME) * self._win
        self._ola += y
        done = self._ola[:HOP].copy()
        self._ola[:-HOP] = self._ola[HOP:]
        self._ola[-HOP:] = 0.0
        return done

    def _gain(self, power: np.ndarray) -> np.ndarray:
        c = self.config
        first = self._frames == 0
        self._frames += 1
        self._smooth = power.copy() if first else c.smooth * self._smooth + (1.0 - c.smooth) * power
        # minimum statistics: running minimum of the sub-window, minima of the last U sub-windows
        np.minimum(self._sub_min, self._smooth, out=self._sub_min)
        self._sub_count += 1
        if self._sub_count >= self._sub_len:
            self._mins.append(self._sub_min.copy())
            if len(self._mins) > self._sub:
                self._mins.pop(0)
            self._sub_min = np.full_like(self._sub_min, np.inf)
            self._sub_count = 0
        low = self._sub_min
        for m in self._mins:
            low = np.minimum(low, m)
        self._noise = np.maximum(low * (c.bias * c.over), 1e-3)
        # decision-directed a-priori SNR and Wiener gain
        post = power / self._noise
        prio = c.dd * self._prev_clean / self._noise + (1.0 - c.dd) * np.maximum(post - 1.0, 0.0)
        gain = np.maximum(prio / (1.0 + prio), self._gmin)
        self._prev_clean = gain * gain * power
        return gain

    @property
    def noise_db(self) -> float:
        """The current noise estimate, dB per sample (mean over bins; for diagnostics)."""
        return float(10.0 * np.log10(self._noise.mean() / (FRAME * (self._win ** 2).mean()) + 1.0))
