"""The level drop before each call the listener sends straight to the referee, true calls vs chatter.

    nice -n 5 .venv/bin/python benchmarks/voice_lead_pause.py [--voices awb,slt,ked]
        [--conditions 'clean,pink 20 dB,babble 20 dB'] [--jobs 2]

Runs the listener (configs/voice.yaml, or --config) on the voices' call streams and chatter
streams (benchmarks/voice_corpus.py, the same noise seeds as bench_voice.py's tuning side),
measures for every two-word call it sends direct the lead drop (phrase level minus the mean
level 50-250 ms before its start, as `CallListener.lead_drop`), and prints per phrase the
percentiles of the true calls' drops, the share kept direct at each candidate
`direct_lead_pause_db`, and every false direct call on chatter with its drop. This is how
the 15 dB of configs/voice.yaml was chosen (docs/voice.md "Pause before a direct call"):
run it on tune voices only; test voices are for bench_voice.py's report.

To see the raw drops the config must not already demote calls: the run clears
`direct_lead_pause_db` first.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from bench_voice import OTHER_TUNE_VOICES, TUNE_VOICES, first_match, run_stream  # noqa: E402
from voice_corpus import CONDITIONS, load_corpus, with_noise  # noqa: E402

from referee.voice.grammar import VoiceConfig, load_config  # noqa: E402
from referee.voice.listener import lead_drop_db  # noqa: E402
from referee.voice.segment_ends import frame_levels_db  # noqa: E402

CANDIDATES = (6.0, 9.0, 12.0, 15.0, 18.0)  # dB tried for direct_lead_pause_db


def _job(job: tuple) -> list[dict]:
    k, pcm, st, (cname, kind, snr), babble, config = job
    audio = with_noise(pcm, kind, snr, babble, seed=1000 + k)
    levels = frame_levels_db(audio)
    rows = []
    for game in [st.game] if st.kind == "calls" else ["kemps", "kems"]:
        res = run_stream(audio, game, config)
        used: set[int] = set()
        truth_of: dict[int, str] = {}
        for t in st.truths:
            m = first_match(t, res.calls, used)
            if m is not None:
                used.add(m)
                truth_of[m] = t.key
        for i, (c, _) in enumerate(res.calls):
            if c.provisional or c.t_start is None or len(c.phrase.split()) < 2:
                continue
            drop = lead_drop_db(levels, round(c.t_start / 0.01), round(c.t / 0.01))  # frames start..end+1
            rows.append({"voice": st.voice, "kind": st.kind, "game": game, "cond": cname, "phrase": c.phrase,
                         "truth": truth_of.get(i), "lead": 99.0 if drop is None else drop})
        if st.kind != "calls":
            rows.append({"chatter_min": len(pcm) / 16000 / 60, "game": game})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="where generated speech is kept")
    ap.add_argument("--config", type=Path, default=None, help="voice config (default configs/voice.yaml)")
    ap.add_argument("--voices", default=",".join(TUNE_VOICES + OTHER_TUNE_VOICES[:1]), help="voices to run (default awb,slt,ked)")
    ap.add_argument("--conditions", default="clean,pink 20 dB,babble 20 dB", help="comma-separated conditions")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = ap.parse_args()
    voices = tuple(v for v in args.voices.split(",") if v)
    conds = set(args.conditions.split(","))
    unknown = conds - {c[0] for c in CONDITIONS}
    if unknown:
        ap.error(f"unknown condition(s) {', '.join(sorted(unknown))}; known: {', '.join(c[0] for c in CONDITIONS)}")
    config: VoiceConfig = replace(load_config(args.config), direct_lead_pause_db={})
    streams, babble = load_corpus(args.cache, tune_voices=voices)
    jobs = [(k, pcm, st, c, babble, config) for k, (pcm, st) in enumerate(streams) for c in CONDITIONS
            if st.voice in voices and c[0] in conds]
    with Pool(max(1, args.jobs)) as pool:
        rows = [r for part in pool.imap_unordered(_job, jobs) for r in part]
    report(rows)
    return 0


def report(rows: list[dict]) -> None:
    minutes = sum(r["chatter_min"] for r in rows if "chatter_min" in r)
    true = [r for r in rows if "lead" in r and r["kind"] == "calls" and r["truth"]]
    false = sorted((r for r in rows if "lead" in r and r["kind"] != "calls"), key=lambda r: r["lead"])
    print(f"calls sent direct, true calls (lead drop in dB): {len(true)}")
    print("phrase          n   p1    p5    p50   kept direct at " + " / ".join(f"{c:.0f}" for c in CANDIDATES) + " dB")
    by: dict[str, list[float]] = defaultdict(list)
    for r in true:
        by[r["truth"]].append(r["lead"])
    for key, v in sorted(by.items()):
        a = np.array(v)
        kept = " / ".join(f"{(a >= c).mean():.0%}" for c in CANDIDATES)
        print(f"{key:14s} {len(a):3d}  {np.percentile(a, 1):5.1f} {np.percentile(a, 5):5.1f} {np.percentile(a, 50):5.1f}   {kept}")
    print(f"\nfalse direct calls on {minutes:.1f} min of chatter (both games): {len(false)}")
    for r in false:
        print(f"  {r['lead']:5.1f} dB  {r['phrase']:14s} {r['voice']:6s} {r['kind']:16s} {r['game']:5s} {r['cond']}")


if __name__ == "__main__":
    sys.exit(main())
