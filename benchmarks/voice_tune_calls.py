"""The real listener on the tune voices' call streams, for a few configs side by side.

    .venv/bin/python benchmarks/voice_tune_calls.py --out CACHE/replay-t5 \
        --voices awb,slt,ked,kokoro_alpha,kokoro_gongitsune OLD.json '{}' '{"pause_late_ms": {"kemps": 100}}'

`voice_replay.py` and `voice_one_word.py` replay the spotter's readings and its checks but
not the word-embedding stages (`embed_spot`, `embed_verify`), which hear many two-word calls
the spotter misses; a one-word setting can cost such calls (a "kemps" reading inside "stop
kemps" blocks the embedding's find there). This runs `bench_voice.run_stream` (the listener
as the benchmark runs it) on each dumped call stream (audio rebuilt with the dump's noise
seeds) under each config (JSON overrides of configs/voice.yaml, or a .json file of them)
and prints, per voice group, condition group, game and phrase, the calls heard under each.
Tune voices only: it is a check on the choosing side, not a report.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_voice as bv  # noqa: E402
import voice_replay as vr  # noqa: E402

from referee.voice.grammar import load_config  # noqa: E402


def _overrides(arg: str) -> dict:
    return json.loads(Path(arg).read_text()) if arg.endswith(".json") else json.loads(arg)


def _job(job: tuple) -> tuple[int, str, str, Counter]:
    cache, out, voices, name, cond, k, overrides = job
    bv.TUNE_VOICES = voices
    rec = next(r for r in vr.load_records(out, voices) if r["stream"].name == name and r["cond"] == cond)
    st = rec["stream"]
    pcm = np.frombuffer(vr.StreamAudio(cache, load_config()).get(rec), dtype="<i2")
    res = bv.run_stream(pcm, st.game, load_config(overrides=overrides))
    got: Counter = Counter()
    for t, hit in bv.match_truths(st.truths, res.calls):
        got[(st.game, t.key, hit is not None)] += 1
    return k, bv.voice_group(st.voice), cond, got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="+", help="JSON overrides (or a .json file of them), one per config")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"))
    ap.add_argument("--out", type=Path, required=True, help="the dump (voice_replay.py dump --out)")
    ap.add_argument("--voices", default="awb,slt,ked,kokoro_alpha,kokoro_gongitsune")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    voices = tuple(v for v in args.voices.split(",") if v)
    bv.TUNE_VOICES = voices
    configs = [_overrides(c) for c in args.configs]
    recs = [r for r in vr.load_records(args.out, voices) if r["stream"].kind == "calls"]
    if not recs:
        print(f"no call streams of {args.voices} in {args.out}", file=sys.stderr)
        return 2
    work = [(args.cache, args.out, voices, r["stream"].name, r["cond"], k, ov)
            for r in recs for k, ov in enumerate(configs)]
    tally: dict = defaultdict(Counter)
    with ProcessPoolExecutor(max(1, args.jobs)) as ex:
        for k, group, cond, got in ex.map(_job, work):
            cgroup = "clean" if cond == "clean" else ("20 dB" if "20" in cond else "10 dB")
            for (game, key, heard), n in got.items():
                tally[(group, cgroup, game, key)][(k, heard)] += n
    print("| voices | condition | game | phrase | " + " | ".join(f"config {k}" for k in range(len(configs))) + " |")
    print("|---" * (4 + len(configs)) + "|")
    for key in sorted(tally):
        c = tally[key]
        cells = [f"{c[(k, True)]}/{c[(k, True)] + c[(k, False)]}" for k in range(len(configs))]
        print("| " + " | ".join(key) + " | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
