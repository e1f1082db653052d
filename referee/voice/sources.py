"""Audio sources for the call listener, all delivering 16 kHz mono int16 PCM bytes.

- `read_wav(path)`: a WAV file of any common rate/width/channels, resampled.
- `Microphone`: the server's own microphone through sounddevice (PortAudio). No
  PortAudio or no input device raises `MicUnavailable` with one clear line; nothing else
  in the server depends on it.
- `PcmStream`: the browser's microphone, arriving as WebSocket messages of int16 PCM
  (see referee/web/voice/mic.js); it keeps the listener's clock on the server's clock so
  voice calls order fairly against button and phone calls.
"""

from __future__ import annotations

import queue
import struct
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000


class MicUnavailable(RuntimeError):
    """The server microphone cannot be used (message is one line for the user)."""


class AudioFileError(ValueError):
    """A WAV file that cannot be read."""


# -- WAV files ---------------------------------------------------------------------------

def read_wav(path: str | Path) -> bytes:
    """Read a WAV file (integer PCM of 8–32 bits or 32/64-bit float, plain or
    WAVE_FORMAT_EXTENSIBLE, any rate and channel count) and return 16 kHz mono int16 bytes."""
    p = Path(path)
    try:
        with wave.open(str(p), "rb") as w:
            rate, width, channels = w.getframerate(), w.getsampwidth(), w.getnchannels()
            samples = _to_float(w.readframes(w.getnframes()), width)
    except FileNotFoundError as exc:
        raise AudioFileError(f"{p}: no such file") from exc
    except IsADirectoryError as exc:
        raise AudioFileError(f"{p}: is a directory, not a WAV file") from exc
    except (wave.Error, EOFError) as exc:
        # Python's wave reads integer PCM only; float WAVs (Audacity's default export) and
        # extensible headers (24-bit field recorders) are read from the chunks directly.
        rate, channels, samples = _read_riff(p, str(exc))
    if rate < MIN_RATE:
        raise AudioFileError(f"{p}: the WAV header gives {rate} Hz, under the {MIN_RATE} Hz any recording has (a damaged file?)")
    if channels > 1:
        samples = samples[: len(samples) // channels * channels].reshape(-1, channels).mean(axis=1)
    return to_pcm16(resample(samples, rate, RATE))


def _read_riff(p: Path, why: str) -> tuple[int, int, np.ndarray]:
    """(rate, channels, samples in [-1, 1]) from a RIFF/WAVE file's fmt and data chunks."""
    data = p.read_bytes()
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise AudioFileError(f"{p}: not a WAV file ({why})")
    chunks: dict[bytes, bytes] = {}
    pos = 12
    while pos + 8 <= len(data):
        size = int.from_bytes(data[pos + 4 : pos + 8], "little")
        chunks.setdefault(data[pos : pos + 4], data[pos + 8 : pos + 8 + size])
        pos += 8 + size + (size & 1)
    fmt, raw = chunks.get(b"fmt "), chunks.get(b"data")
    if fmt is None or len(fmt) < 16 or raw is None:
        raise AudioFileError(f"{p}: not a PCM WAV file ({why})")
    tag, channels, rate = struct.unpack("<HHI", fmt[:8])
    bits = struct.unpack("<H", fmt[14:16])[0]
    if tag == 0xFFFE and len(fmt) >= 26:  # WAVE_FORMAT_EXTENSIBLE: the real tag opens the subformat
        tag = struct.unpack("<H", fmt[24:26])[0]
    if channels < 1 or rate < 1:
        raise AudioFileError(f"{p}: WAV header gives {channels} channels at {rate} Hz")
    if tag == 1 and bits in (8, 16, 24, 32):
        return rate, channels, _to_float(raw, bits // 8)
    if tag == 3 and bits in (32, 64):
        width = bits // 8
        x = np.frombuffer(raw[: len(raw) // width * width], "<f4" if width == 4 else "<f8").astype(np.float64)
        return rate, channels, np.nan_to_num(x)
    raise AudioFileError(f"{p}: unsupported WAV encoding (format {tag}, {bits} bits): use PCM or float")


MIN_RATE = 4000  # Hz: below any microphone; a header giving less is damaged (1 Hz: an 11.9 GiB resample)


def _to_float(raw: bytes, width: int) -> np.ndarray:
    if width in (1, 2, 3, 4):  # a file cut mid-sample (an interrupted recording): drop the part
        raw = raw[: len(raw) // width * width]
    if width == 1:
        return (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128.0) / 128.0
    if width == 2:
        return np.frombuffer(raw, dtype="<i2").astype(np.float64) / 32768.0
    if width == 3:
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v & 0x800000, v - 0x1000000, v)
        return v.astype(np.float64) / 8388608.0
    if width == 4:
        return np.frombuffer(raw, dtype="<i4").astype(np.float64) / 2147483648.0
    raise AudioFileError(f"unsupported sample width: {width} bytes")


def resample(x: np.ndarray, rate_in: int, rate_out: int = RATE) -> np.ndarray:
    """Band-limited resampling: windowed-sinc low-pass (when downsampling), then linear
    interpolation. Good enough for speech recognition; no extra dependency."""
    if rate_in == rate_out or len(x) == 0:
        return np.asarray(x, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if rate_out < rate_in:
        cutoff = 0.45 * rate_out / rate_in  # cycles per input sample, below the new Nyquist
        n = np.arange(-64, 65)
        h = 2 * cutoff * np.sinc(2 * cutoff * n) * np.hamming(len(n))
        x = np.convolve(x, h / h.sum(), mode="same")
    n_out = int(round(len(x) * rate_out / rate_in))
    t = np.arange(n_out) * (rate_in / rate_out)
    return np.interp(t, np.arange(len(x)), x)


def to_pcm16(x: np.ndarray) -> bytes:
    return (np.clip(x, -1.0, 1.0 - 1 / 32768) * 32768.0).astype("<i2").tobytes()


# -- server microphone -------------------------------------------------------------------

def _sounddevice() -> Any:
    try:
        import sounddevice as sd
    except (ImportError, OSError) as exc:  # OSError: "PortAudio library not found"
        raise MicUnavailable(
            "no microphone: the PortAudio library is missing (apt install libportaudio2), "
            "use the browser microphone instead"
        ) from exc
    return sd


def check_microphone(device: int | str | None = None) -> str:
    """Name of the input device that would be used; MicUnavailable when there is none."""
    sd = _sounddevice()
    try:
        info = sd.query_devices(device, kind="input")
    except Exception as exc:  # PortAudioError or ValueError: no such / no input device
        raise MicUnavailable(f"no microphone: {_one_line(exc)}") from exc
    if not info or int(info.get("max_input_channels", 0)) < 1:
        raise MicUnavailable("no microphone: no audio input device found")
    return str(info.get("name", "input"))


def microphone_status(device: int | str | None = None) -> tuple[bool, str]:
    """(available, device name or the reason): for a status endpoint, never raises."""
    try:
        return True, check_microphone(device)
    except MicUnavailable as exc:
        return False, str(exc)


class Microphone:
    """The server's microphone: `with Microphone() as mic: for pcm in mic.chunks(): ...`.

    PortAudio captures at 16 kHz mono int16 where the device allows it; otherwise at the
    device's own rate, resampled here.
    """

    def __init__(self, device: int | str | None = None, block_ms: int = 20) -> None:
        self.device = device
        self.block_ms = block_ms
        self.name = check_microphone(device)
        self._queue: queue.Queue[bytes] = queue.Queue(maxsize=500)
        self._stream: Any = None
        self._rate = RATE
        self.dropped = 0

    def __enter__(self) -> Microphone:
        sd = _sounddevice()
        try:
            self._stream = self._open(sd, RATE)
        except Exception:
            rate = int(sd.query_devices(self.device, kind="input")["default_samplerate"])
            try:
                self._stream = self._open(sd, rate)
            except Exception as exc:
                raise MicUnavailable(f"cannot open microphone {self.name!r}: {_one_line(exc)}") from exc
        self._stream.start()
        return self

    def _open(self, sd: Any, rate: int) -> Any:
        self._rate = rate
        return sd.RawInputStream(
            samplerate=rate,
            channels=1,
            dtype="int16",
            blocksize=int(rate * self.block_ms / 1000),
            device=self.device,
            callback=self._callback,
        )

    def _callback(self, indata: Any, frames: int, time_info: Any, status: Any) -> None:
        try:
            self._queue.put_nowait(bytes(indata))
        except queue.Full:  # the consumer stalled: drop rather than block the audio thread
            self.dropped += 1

    def __exit__(self, *exc: object) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None

    def chunks(self, timeout_s: float = 1.0) -> Iterator[bytes]:
        """16 kHz mono int16 blocks as they arrive (stops when the stream is closed)."""
        while self._stream is not None:
            try:
                data = self._queue.get(timeout=timeout_s)
            except queue.Empty:
                continue
            if self._rate != RATE:
                x = np.frombuffer(data, dtype="<i2").astype(np.float64) / 32768.0
                data = to_pcm16(resample(x, self._rate, RATE))
            yield data


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# -- browser stream ----------------------------------------------------------------------

class PcmStream:
    """Browser microphone over a WebSocket: bytes in, `VoiceCall`s out.

    Messages may have any length (an odd byte is kept for the next one). Calls are
    stamped on `clock` (default `time.time`, the server clock): the first message sets
    the origin, then time advances with the samples so jitter does not reorder calls;
    after a gap (the tab was hidden, the network stalled) the origin is re-anchored.
    """

    def __init__(self, listener: Any, clock: Callable[[], float] = time.time, max_lag_s: float = 0.5) -> None:
        self.listener = listener
        self.clock = clock
        self.max_lag_s = max_lag_s
        self._odd = b""
        self._t0: float | None = None  # clock time of the first sample
        self._samples = 0

    def push(self, message: bytes) -> list[Any]:
        data = self._odd + bytes(message)
        if len(data) % 2:
            data, self._odd = data[:-1], data[-1:]
        else:
            self._odd = b""
        if not data:
            return []
        n = len(data) // 2
        now = self.clock()
        start = now - n / RATE  # the message's first sample, by arrival time
        t0 = None
        if self._t0 is None or start - (self._t0 + self._samples / RATE) > self.max_lag_s:
            self._t0 = start - self._samples / RATE
            t0 = start
        self._samples += n
        return list(self.listener.feed(data, t0=t0))

    def close(self) -> list[Any]:
        return list(self.listener.flush())
