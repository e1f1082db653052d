"""Make the short committed WAV fixtures for tests/voice (flite voices + sox).

    .venv/bin/python scripts/make_voice_fixtures.py [--out tests/fixtures/voice]

Writes 16 kHz mono WAVs and `expected.json` (each call's words, timing from flite):
  kemps_calls.wav   "cut east", "stop kemps", "kemps"  (voice rms)
  kems_calls.wav    "double kem's", "contre kem's", "kem's"  (voice slt, French-like phones)
  kemps_pink20.wav  "cut south", "stop kemps" in pink noise at 20 dB  (voice kal16)
  chatter.wav       table talk full of confusables and no call  (voice awb)
Deterministic: same flite/sox → same files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.voice import testaudio as ta  # noqa: E402

# (text or flite phones, is phones, call, target)
Item = tuple[str, bool, str | None, str | None]

FIXTURES: dict[str, tuple[str, list[Item], float | None]] = {
    "kemps_calls": ("rms", [
        ("cut east", False, "cut", "east"),
        ("stop kemps", False, "cut", None),
        ("kemps", False, "kemps", None),
    ], None),
    "kems_calls": ("slt", [
        ("d uw b l ax k eh m s", True, "double_kems", None),
        ("k ao n t r ax k eh m s", True, "contre_kems", None),
        ("kems", False, "kems", None),
    ], None),
    "kemps_pink20": ("kal16", [
        ("cut south", False, "cut", "south"),
        ("stop kemps", False, "cut", None),
    ], 20.0),
    "chatter": ("awb", [
        ("We went to summer camps by the counter.", False, None, None),
        ("Mister Kemp counted the temps.", False, None, None),
        ("Cut the deck, then stop.", False, None, None),
    ], None),
}


def build(voice: str, items: list[Item], snr: float | None) -> tuple[np.ndarray, list[dict]]:
    parts = [ta.silence(0.3)]
    pos = len(parts[0])
    calls = []
    for text, phones, call, target in items:
        sp = ta.say(text, voice, phones=phones)
        pcm = ta.normalise(sp.pcm)
        if call is not None:
            calls.append({
                "call": call, "target": target, "words": text if not phones else call,
                "start": round((pos / ta.RATE) + sp.speech_start, 3),
                "end": round((pos / ta.RATE) + sp.speech_end, 3),
            })
        gap = ta.silence(0.35)
        parts += [pcm, gap]
        pos += len(pcm) + len(gap)
    audio = np.concatenate(parts)
    if snr is not None:
        audio = ta.mix_at_snr(audio, ta.pink_noise(len(audio) / ta.RATE + 1, seed=1), snr)
    return audio, calls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "voice", help="output folder")
    args = ap.parse_args()
    ta.require_tools()
    expected = {}
    for name, (voice, items, snr) in FIXTURES.items():
        audio, calls = build(voice, items, snr)
        ta.write_wav(args.out / f"{name}.wav", audio)
        expected[name] = {"voice": voice, "snr_db": snr, "calls": calls}
        print(f"{name}.wav  {len(audio) / ta.RATE:.1f} s  {len(calls)} call(s)")
    (args.out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
