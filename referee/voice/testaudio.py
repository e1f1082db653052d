"""Synthetic test speech for the call listener: Debian `flite` voices + `sox` effects.

Used by `scripts/make_voice_fixtures.py` (committed test fixtures) and
`benchmarks/bench_voice.py`. Only flite voices: pocketsphinx does not recognise espeak-ng
speech at all (see docs/voice.md). Every clip comes with the time its last word ends, taken
from flite's own segment timing (`-psdur`), so latency can be measured exactly.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RATE = 16000
VOICES: tuple[str, ...] = ("kal16", "slt", "awb", "rms")


@dataclass(frozen=True)
class Spoken:
    """One synthesised utterance: int16 samples at 16 kHz and the end of its last word."""

    pcm: np.ndarray
    speech_start: float
    speech_end: float


def require_tools() -> None:
    missing = [t for t in ("flite", "sox") if shutil.which(t) is None]
    if missing:
        raise RuntimeError(
            f"{' and '.join(missing)} not installed (bash scripts/install.sh installs them)"
        )


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != RATE:
            raise ValueError(f"{path}: expected 16-bit mono {RATE} Hz")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).copy()


def write_wav(path: Path, pcm: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(np.asarray(pcm, dtype=np.int16).tobytes())


def _speech_bounds(psdur: str) -> tuple[float, float]:
    """Start of the first and end of the last non-pause segment from `flite -psdur`."""
    prev_end, start, end = 0.0, None, 0.0
    for item in psdur.split():
        phone, _, t = item.rpartition(":")
        t_end = float(t)
        if phone != "pau":
            start = prev_end if start is None else start
            end = t_end
        prev_end = t_end
    return (start or 0.0), end


def say(
    text: str,
    voice: str,
    stretch: float = 1.0,
    pitch_cents: int = 0,
    phones: bool = False,
) -> Spoken:
    """Synthesise `text` (or a flite phone string when `phones`) at 16 kHz mono.

    `stretch` > 1 speaks slower (flite duration_stretch, so the timing stays exact);
    `pitch_cents` shifts pitch with sox without changing duration.
    """
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        out = Path(tmp) / "out.wav"
        cmd = ["flite", "-voice", voice, "--setf", f"duration_stretch={stretch}", "-psdur"]
        cmd += ["-p" if phones else "-t", text, str(raw)]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        start, end = _speech_bounds(res.stdout)
        sox = ["sox", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out)]
        if pitch_cents:
            sox += ["pitch", str(pitch_cents)]
        subprocess.run(sox, capture_output=True, check=True)
        return Spoken(read_wav(out), start, end)


def pink_noise(seconds: float, seed: int) -> np.ndarray:
    """Pink noise from sox (int16)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pink.wav"
        cmd = ["sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-b", "16", str(out)]
        cmd += ["synth", f"{seconds:.3f}", "pinknoise", "vol", "0.5"]
        subprocess.run(cmd, capture_output=True, check=True)
        pcm = read_wav(out)
    # sox -R makes it repeatable; rotate by the seed so clips do not share noise.
    return np.roll(pcm, int(seed * 7919) % max(1, len(pcm)))


def rms(x: np.ndarray) -> float:
    x = x.astype(np.float64)
    return float(np.sqrt(np.mean(x * x))) if len(x) else 0.0


def active_rms(x: np.ndarray) -> float:
    """RMS over the 20 ms frames that carry speech (within 30 dB of the loudest)."""
    n = len(x) // 320
    if n == 0:
        return rms(x)
    frames = x[: n * 320].astype(np.float64).reshape(n, 320)
    e = np.sqrt(np.mean(frames**2, axis=1))
    keep = e > e.max() * 10 ** (-30 / 20)
    return float(np.sqrt(np.mean(e[keep] ** 2)))


def mix_at_snr(speech: np.ndarray, noise: np.ndarray, snr_db: float) -> np.ndarray:
    """Add `noise` (tiled/cut to length) so active-speech SNR is `snr_db`; clip to int16."""
    reps = int(np.ceil(len(speech) / max(1, len(noise))))
    noise = np.tile(noise, reps)[: len(speech)].astype(np.float64)
    gain = active_rms(speech) / (max(rms(noise), 1e-9) * 10 ** (snr_db / 20))
    mixed = speech.astype(np.float64) + gain * noise
    return np.clip(mixed, -32768, 32767).astype(np.int16)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(round(seconds * RATE)), dtype=np.int16)


def normalise(pcm: np.ndarray, peak: float = 0.5) -> np.ndarray:
    """Scale so the peak is `peak` of full scale (flite voices differ in level)."""
    m = float(np.max(np.abs(pcm))) if len(pcm) else 0.0
    if m == 0:
        return pcm
    return np.clip(pcm.astype(np.float64) * (peak * 32767 / m), -32768, 32767).astype(np.int16)
