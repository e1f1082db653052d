"""Synthetic test speech for the call listener: Debian `flite` and `festival` voices + `sox`.

Used by `scripts/make_voice_fixtures.py` (committed test fixtures) and
`benchmarks/bench_voice.py`. No espeak-ng: pocketsphinx does not recognise its speech at all
(see docs/voice.md). Every clip comes with the time its last word ends, taken from the
synthesiser's own segment timing (flite `-psdur`, festival's Segment relation), so latency
can be measured exactly.

The festival voices (`FESTIVAL_VOICES`: the "ked" diphone voice, a speaker none of the flite
voices is, and slt's HTS voice) and the neural voices (`neural_voices.KOKORO_VOICES`: Kokoro-82M
with five voice styles, an accent none of the others has; their end of speech is read from the
level) are optional extras of the benchmark (`scripts/install.sh --voices`); nothing else
needs them.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.voice import neural_voices

RATE = 16000
VOICES: tuple[str, ...] = ("kal16", "slt", "awb", "rms")
# benchmark voice name -> festival voice function (Debian festvox-kdlpc16k, festvox-us-slt-hts)
FESTIVAL_VOICES: dict[str, str] = {"ked": "voice_ked_diphone", "slt_hts": "voice_cmu_us_slt_arctic_hts"}
_VOWELS = frozenset("aa ae ah ao aw ax axr ay eh er ey ih iy ow oy uh uw".split())


@dataclass(frozen=True)
class Spoken:
    """One synthesised utterance: int16 samples at 16 kHz and the end of its last word."""

    pcm: np.ndarray
    speech_start: float
    speech_end: float


def require_tools(voices: tuple[str, ...] = ()) -> None:
    """Raise when a tool the corpus needs is missing (festival only for `FESTIVAL_VOICES`)."""
    missing = [t for t in ("flite", "sox") if shutil.which(t) is None]
    if any(v in FESTIVAL_VOICES for v in voices) and shutil.which("festival") is None:
        missing.append("festival")
    if any(neural_voices.is_neural(v) for v in voices):
        missing += neural_voices.missing()
    if missing:
        raise RuntimeError(
            f"{' and '.join(missing)} not installed (bash scripts/install.sh installs them; "
            "festival, espeak-ng and the neural voices: bash scripts/install.sh --voices)"
        )


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != RATE:
            raise ValueError(f"{path}: expected 16-bit mono {RATE} Hz")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).copy()


def write_wav(path: Path, pcm: np.ndarray, rate: int = RATE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
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

    `voice`: a flite voice, a name in `FESTIVAL_VOICES` or in `neural_voices.KOKORO_VOICES`.
    `stretch` > 1 speaks slower (the synthesiser's own duration setting, so the timing stays
    exact); `pitch_cents` shifts pitch with sox without changing duration.
    """
    if neural_voices.is_neural(voice):
        return _say_neural(text, voice, stretch, pitch_cents, phones)
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        out = Path(tmp) / "out.wav"
        if voice in FESTIVAL_VOICES:
            segments = _festival(text, FESTIVAL_VOICES[voice], stretch, phones, raw, Path(tmp) / "say.scm")
        else:
            cmd = ["flite", "-voice", voice, "--setf", f"duration_stretch={stretch}", "-psdur"]
            cmd += ["-p" if phones else "-t", text, str(raw)]
            segments = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        start, end = _speech_bounds(segments)
        return Spoken(_to_16k(raw, out, pitch_cents), start, end)


def _to_16k(raw: Path, out: Path, pitch_cents: int, repeatable: bool = False) -> np.ndarray:
    """`raw` as 16 kHz mono int16 through sox, pitch shifted by `pitch_cents`. `repeatable`:
    sox's dither seeded (-R), so the same input gives the same samples (the neural voices;
    the flite corpus was built without it and is kept so, for comparable figures)."""
    sox = ["sox", *(["-R"] if repeatable else []), str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out)]
    subprocess.run(sox + (["pitch", str(pitch_cents)] if pitch_cents else []), capture_output=True, check=True)
    return read_wav(out)


def _say_neural(text: str, voice: str, stretch: float, pitch_cents: int, phones: bool) -> Spoken:
    """`say` with a Kokoro voice (neural_voices.py): its own speed setting, sox for the rate
    and pitch, speech bounds from the level (the model reports no segment timing)."""
    audio = neural_voices.synthesise(text, voice, 1.0 / stretch, phones)
    peak = max(float(np.max(np.abs(audio))), 1e-6) if len(audio) else 1.0
    with tempfile.TemporaryDirectory() as tmp:
        raw, out = Path(tmp) / "raw.wav", Path(tmp) / "out.wav"
        write_wav(raw, np.round(audio * (0.9 * 32767 / peak)).astype(np.int16), neural_voices.MODEL_RATE)
        pcm = _to_16k(raw, out, pitch_cents, repeatable=True)
    start, end = neural_voices.speech_bounds(pcm, RATE)
    return Spoken(pcm, start, end)


def _scheme_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def syllables(phones: str) -> list[tuple[list[str], int]]:
    """A flite phone string as festival lexicon syllables: one per vowel, a run of consonants
    between two vowels split so the next syllable gets the last one as its onset; stress 0
    on schwa ("ax"), else 1."""
    ph = phones.split()
    nuclei = [i for i, p in enumerate(ph) if p in _VOWELS]
    if not nuclei:
        return [(ph, 1)]
    cuts = [0] + [max(a + 1, b - 1) for a, b in zip(nuclei, nuclei[1:])] + [len(ph)]
    return [(ph[cuts[k] : cuts[k + 1]], 0 if ph[nuclei[k]] == "ax" else 1) for k in range(len(nuclei))]


def _festival(text: str, voice_fn: str, stretch: float, phones: bool, wav: Path, script: Path) -> str:
    """Say `text` with a festival voice into `wav`; returns its segments as "phone:end ..."
    (flite's -psdur format). A phone string is said as a made-up word with that pronunciation."""
    lines = [f"({voice_fn})"]
    if voice_fn.endswith("_hts"):  # HTS ignores Duration_Stretch; its engine's -r is a speed rate
        lines.append(f'(set! hts_engine_params (append hts_engine_params (list (list "-r" {1.0 / stretch:.4f}))))')
    else:
        lines.append(f"(Parameter.set 'Duration_Stretch {stretch:.4f})")
    if phones:
        syl = " ".join(f"(({' '.join(p)}) {st})" for p, st in syllables(text))
        lines.append(f"(lex.add.entry '(\"zzphrase\" nil ({syl})))")
        text = "zzphrase"
    lines += [
        f"(set! utt (utt.synth (Utterance Text {_scheme_str(text)})))",
        f"(utt.save.wave utt {_scheme_str(str(wav))} 'riff)",
        "(mapcar (lambda (s) (format t \"%s:%f \" (item.name s) (item.feat s \"end\"))) (utt.relation.items utt 'Segment))",
    ]
    script.write_text("\n".join(lines) + "\n")
    res = subprocess.run(["festival", "-b", str(script)], capture_output=True, text=True, check=True)
    if not wav.is_file():
        raise RuntimeError(f"festival {voice_fn} said nothing: {res.stderr.strip()[-300:]}")
    return res.stdout


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
