"""Where the spoken-call listener's CPU goes: feed() real-time factor per stage, one run.

    .venv/bin/python benchmarks/voice_cpu.py            # ~3 min on 2 cores, corpus of bench_voice.py

Runs the listener (configs/voice.yaml) on three corpus streams (Kemps calls in pink 20 dB,
Kem's calls in babble 20 dB, clean chatter; test voices) and prints process time / audio
time for: the listener as configured; the same with the embedding's mel filterbank as one
matrix product (the code before 2026-12-03 evening: OpenBLAS's thread pool then busy-waits
on the other core through each embedding); `embed_spot` off; both embedding stages off;
and pocketsphinx's decoder alone on the same audio. process_time counts every thread of the
process, so a spinning BLAS thread shows here as it does on the machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from bench_voice import NAMES, run_stream  # noqa: E402
from voice_corpus import with_noise  # noqa: E402

from referee.voice import embedding  # noqa: E402
from referee.voice.grammar import VoiceConfig, load_config  # noqa: E402
from referee.voice.listener import CallListener  # noqa: E402

STREAMS = (("calls-kemps-rms", "kemps", "pink", 20.0), ("calls-kems-kal16", "kems", "babble", 20.0),
           ("chatter-kal16", "kemps", None, None))


def _load(cache: Path) -> list[tuple[str, np.ndarray]]:
    folder = cache / "v3"
    if not (folder / "babble.npy").is_file():
        sys.exit(f"no voice corpus in {folder}: run `python benchmarks/bench_voice.py` once (it generates it)")
    babble = np.load(folder / "babble.npy")
    return [(game, with_noise(np.load(folder / f"{name}.npy"), kind, snr, babble, seed=1000))
            for name, game, kind, snr in STREAMS]


def listener_rtf(streams: list[tuple[str, np.ndarray]], config: VoiceConfig) -> float:
    cpu = audio = 0.0
    for game, pcm in streams:
        r = run_stream(pcm, game, config)
        cpu, audio = cpu + r.cpu_s, audio + r.audio_s
    return cpu / audio


def decoder_rtf(streams: list[tuple[str, np.ndarray]], config: VoiceConfig) -> float:
    cpu = audio = 0.0
    for game, pcm in streams:
        decoder = CallListener(game, NAMES, config)._decoder
        data = pcm.astype(np.int16).tobytes()
        t = time.process_time()
        decoder.start_utt()
        for i in range(0, len(data), 640):  # 20 ms pieces, as the benchmark feeds
            decoder.process_raw(data[i : i + 640], False, False)
        decoder.end_utt()
        cpu, audio = cpu + time.process_time() - t, audio + len(pcm) / 16000
    return cpu / audio


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="where generated speech is kept")
    args = ap.parse_args()
    streams = _load(args.cache)
    cfg = load_config(None)
    no_spot = replace(cfg, embed_spot=replace(cfg.embed_spot, enabled=False))
    no_embed = replace(no_spot, embed_verify=replace(cfg.embed_verify, enabled=False))
    banded = embedding.mel_energies
    rows = {"listener as configured": lambda: listener_rtf(streams, cfg)}

    def one_product() -> float:
        embedding.mel_energies = lambda power: power @ embedding._mel_filters().T
        try:
            return listener_rtf(streams, cfg)
        finally:
            embedding.mel_energies = banded

    rows["baseline: mel filterbank as one matrix product"] = one_product
    rows["embed_spot off"] = lambda: listener_rtf(streams, no_spot)
    rows["embed_spot and embed_verify off"] = lambda: listener_rtf(streams, no_embed)
    rows["pocketsphinx decoder alone"] = lambda: decoder_rtf(streams, no_embed)
    minutes = sum(len(p) for _, p in streams) / 16000 / 60
    print(f"{len(streams)} streams, {minutes:.1f} min of audio; CPU = feed() process time / audio time")
    for name, fn in rows.items():
        print(f"  {name:48s} {100 * fn():5.2f} % of one core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
