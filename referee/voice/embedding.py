"""A pretrained spoken-word embedding: how much does this audio sound like that phrase?

The keyword spotter scores a phrase against a free phone loop with one acoustic model. A
second, independent neural model gives a second opinion on the same audio: the ResNet-50
word embedding of EfficientWord-Net (Apache-2.0; its authors trained it with an ArcFace loss
so that 1.5 s windows holding the same spoken word land close together, for few-shot
hotword detection from a handful of samples). `scripts/install_voice_model.py` takes its int8 ONNX file from the
`efficientword-net` wheel on PyPI into `~/.cache/kemps-referee/voice/` (nothing else of
that package is installed or used). Its input is 64 log mel filterbank energies of 25 ms
frames every 10 ms over 1.5 s, computed here in numpy exactly as the model was trained
(python_speech_features' `logfbank`: no window, no pre-emphasis, 512-point FFT); its output
a unit vector of 2048 numbers. Measured use: referee/voice/phrase_refs.py and docs/voice.md
("Word-embedding check").
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

RATE = 16000
WINDOW = int(1.5 * RATE)  # samples the model looks at
FRAME, STEP, NFFT, NFILT = 400, 160, 512, 64
MODEL_FILE = "word-embedding-resnet50-arc-qint8.onnx"
MODEL_SHA256 = "08189e02003f00d1438c9fa05277ac1a91affeb7c58981d11bc5ac89ddbd0424"


class EmbeddingUnavailable(RuntimeError):
    """The word-embedding model is not installed (or is not the file we expect)."""


def model_path() -> Path:
    """$KEMPS_VOICE_MODEL, else ~/.cache/kemps-referee/voice/<MODEL_FILE>."""
    env = os.environ.get("KEMPS_VOICE_MODEL")
    return Path(env) if env else Path.home() / ".cache" / "kemps-referee" / "voice" / MODEL_FILE


@lru_cache(maxsize=1)
def _mel_filters() -> np.ndarray:
    """Triangular mel filters (NFILT x NFFT/2+1), python_speech_features' construction."""
    hz2mel = lambda hz: 2595.0 * np.log10(1.0 + hz / 700.0)  # noqa: E731
    mel2hz = lambda mel: 700.0 * (10.0 ** (mel / 2595.0) - 1.0)  # noqa: E731
    points = np.linspace(hz2mel(0.0), hz2mel(RATE / 2), NFILT + 2)
    bins = np.floor((NFFT + 1) * mel2hz(points) / RATE)
    fb = np.zeros((NFILT, NFFT // 2 + 1))
    for j in range(NFILT):
        lo, mid, hi = int(bins[j]), int(bins[j + 1]), int(bins[j + 2])
        fb[j, lo:mid] = (np.arange(lo, mid) - bins[j]) / (bins[j + 1] - bins[j])
        fb[j, mid:hi] = (bins[j + 2] - np.arange(mid, hi)) / (bins[j + 2] - bins[j + 1])
    return fb


@lru_cache(maxsize=1)
def _mel_bands() -> tuple[tuple[int, int, np.ndarray], ...]:
    """Each filter's non-zero bins (first, end) and weights."""
    out = []
    for row in _mel_filters():
        nz = np.flatnonzero(row)
        lo, hi = (int(nz[0]), int(nz[-1]) + 1) if len(nz) else (0, 0)
        out.append((lo, hi, row[lo:hi].copy()))
    return tuple(out)


def mel_energies(power: np.ndarray) -> np.ndarray:
    """power (frames, NFFT/2+1) -> (frames, NFILT), the same numbers as `power @ filters.T`.

    Filter by filter over its few non-zero bins, not as one matrix product: a product that
    size wakes OpenBLAS's thread pool, whose threads then busy-wait on the other core through
    the embedding that follows (measured: the listener's CPU 6.4 -> 4.6 % of a core on three
    corpus streams, benchmarks/voice_cpu.py; docs/voice.md "CPU")."""
    out = np.zeros((power.shape[0], NFILT))
    for j, (lo, hi, w) in enumerate(_mel_bands()):
        if hi > lo:
            out[:, j] = power[:, lo:hi] @ w
    return out


def log_fbank(signal: np.ndarray) -> np.ndarray:
    """(frames, 64) log mel energies of a float signal in [-1, 1] at 16 kHz."""
    x = np.asarray(signal, dtype=np.float64)
    n = 1 if len(x) <= FRAME else 1 + int(np.ceil((len(x) - FRAME) / STEP))
    x = np.concatenate([x, np.zeros((n - 1) * STEP + FRAME - len(x))])
    frames = np.lib.stride_tricks.sliding_window_view(x, FRAME)[::STEP][:n]
    power = np.abs(np.fft.rfft(frames, NFFT)) ** 2 / NFFT
    feat = mel_energies(power)
    return np.log(np.where(feat == 0, np.finfo(float).eps, feat))


def window_before(pcm: np.ndarray, end: int) -> np.ndarray:
    """The WINDOW samples of int16 `pcm` ending at sample `end`, as floats in [-1, 1]
    (zeros where the audio does not reach)."""
    out = np.zeros(WINDOW, dtype=np.float64)
    a = end - WINDOW
    lo, hi = max(0, a), max(0, min(len(pcm), end))
    if hi > lo:
        out[lo - a : hi - a] = pcm[lo:hi] / 32768.0
    return out


class WordEmbedder:
    """`WordEmbedder().embed(window)` -> unit vector (2048,); one ONNX Runtime thread.

    Raises `EmbeddingUnavailable` with the install command when the model file is missing
    or is not the expected one."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or model_path()
        if not path.is_file():
            raise EmbeddingUnavailable(
                f"word-embedding model not found at {path}: run `python scripts/install_voice_model.py` "
                "(bash scripts/install.sh does), or switch `embed_verify` off in configs/voice.yaml")
        if _sha256(path) != MODEL_SHA256:
            raise EmbeddingUnavailable(f"{path} is not the expected word-embedding model (sha256 differs): "
                                       "re-run `python scripts/install_voice_model.py`")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # the listener must stay a few % of one core
        opts.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name
        self._lock = threading.Lock()  # one session shared by every listener of the process

    def embed(self, window: np.ndarray) -> np.ndarray:
        """Embedding of WINDOW float samples (see `window_before`)."""
        if len(window) != WINDOW:
            raise ValueError(f"the model takes {WINDOW} samples, got {len(window)}")
        feats = log_fbank(window).astype(np.float32)[None, None]
        with self._lock:
            out = self._session.run(None, {self._input: feats})[0][0]
        return out / max(float(np.linalg.norm(out)), 1e-9)


@lru_cache(maxsize=4)
def shared_embedder(path: str | None = None) -> WordEmbedder:
    """One embedder per model file for the whole process (loading takes ~0.2 s)."""
    return WordEmbedder(Path(path) if path else None)


@lru_cache(maxsize=8)
def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
