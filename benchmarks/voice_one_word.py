"""Choose the one-word calls' settings on a `voice_replay.py dump` of the tune voices.

    .venv/bin/python benchmarks/voice_one_word.py --out CACHE/replay-t5 \
        --tune-voices awb,slt,ked,kokoro_alpha,kokoro_gongitsune

For each one-word phrase ("kemps", "counter", "kem's") and each setting of its spotting
threshold and `pause_late_ms` on a grid (the other phrases as configured), the replayed
listener's share of that phrase's tune calls heard, per group of voices, and its false
one-word prompts per minute of tune chatter (clean and 20 dB). The pick per phrase: the
setting hearing most of the pooled tune calls whose false prompts stay within `--cap` a
minute (the `FA_CAP_ONE_WORD` of bench_voice.py's tuning) and rise at most `--max-rise` a
minute over the configured setting's; fewer false prompts on a tie.
It chooses on the voices it is given; report with bench_voice.py on voices it was not given.
The replay does not model the word-embedding stages, so check a pick with the real listener
on the same tune voices' call streams before shipping it (benchmarks/voice_tune_calls.py):
on 2026-12-07 the picked lower thresholds lost two-word calls there, and only the late
pause windows were kept (docs/voice.md "One-word calls of accented speakers").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_voice as bv  # noqa: E402
import voice_replay as vr  # noqa: E402

from referee.voice.grammar import TEMPLATES, load_config  # noqa: E402
from referee.voice.listener import _spoken  # noqa: E402

GRID_EXP = {"kemps": (34, 31, 28, 25, 22, 19), "counter": (3, 1, -2, -5), "kem's": (25, 22, 19, 16, 13, 10)}
GRID_LATE = (0, 100, 200, 300)
GAME = {t.key: game for game, ts in TEMPLATES.items() for t in ts}  # phrase -> the game it is a call of


def score(recs: list[dict], overrides: dict, audio: vr.StreamAudio | None, groups: dict[str, str]) -> dict:
    """Per one-word phrase: heard/total per voice group, and false prompts and chatter minutes."""
    rp = vr.Replayer(load_config(overrides=overrides), audio)
    heard: dict = defaultdict(Counter)
    fa: Counter = Counter()
    minutes: Counter = Counter()
    for rec in recs:
        st = rec["stream"]
        for game in rec["games"]:
            calls = rp.replay(rec, game)
            lis = rp.listener(game)
            by = {_spoken(p): p for p in lis._by_text.values()}  # a call carries the spoken form ("kem's")
            if st.kind != "calls":
                minutes[game] += st.seconds / 60
                for c, _ in calls:
                    p = by.get(c.phrase)
                    if c.provisional and p is not None and p.n_words == 1:
                        fa[p.template] += 1
                continue
            for t, hit in bv.match_truths(st.truths, calls):
                if bv.one_word(t.key):
                    heard[(t.key, groups[st.voice])]["heard"] += hit is not None
                    heard[(t.key, groups[st.voice])]["n"] += 1
    return {"heard": {f"{k}|{g}": dict(v) for (k, g), v in heard.items()},
            "fa_per_min": {k: fa[k] / max(minutes[GAME[k]], 1e-9) for k in GRID_EXP}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"))
    ap.add_argument("--out", type=Path, required=True, help="the dump (voice_replay.py dump --out)")
    ap.add_argument("--tune-voices", default="awb,slt,ked,kokoro_alpha,kokoro_gongitsune")
    ap.add_argument("--conditions", default="clean,pink 20 dB,babble 20 dB")
    ap.add_argument("--cap", type=float, default=bv.FA_CAP_ONE_WORD, help="false one-word prompts a minute, per phrase")
    ap.add_argument("--max-rise", type=float, default=1.0, help="false one-word prompts a minute over the configured setting's")
    ap.add_argument("--phrases", default="kemps,counter,kem's")
    ap.add_argument("--json", type=Path, default=None, help="write every setting's figures here")
    args = ap.parse_args()
    voices = tuple(v for v in args.tune_voices.split(",") if v)
    bv.TUNE_VOICES = voices
    groups = {v: bv.voice_group(v) for v in voices}
    recs = [r for r in vr.load_records(args.out, voices) if r["cond"] in args.conditions.split(",")]
    if not recs:
        print(f"no dump in {args.out} for {','.join(voices)}", file=sys.stderr)
        return 2
    base = load_config()
    audio = vr.StreamAudio(args.cache, base) if (base.embed_verify.enabled or base.lm_verify.enabled) else None
    table: list[dict] = []
    for phrase in args.phrases.split(","):
        rows = []
        for e in GRID_EXP[phrase]:
            for late in GRID_LATE:
                ov = {"thresholds": {**base.thresholds, phrase: float(f"1e{e}")}, "pause_late_ms": {phrase: late}}
                r = score(recs, ov, audio, groups)
                h = {k.split("|")[1]: v for k, v in r["heard"].items() if k.split("|")[0] == phrase}
                pooled = sum(v["heard"] for v in h.values()) / max(1, sum(v["n"] for v in h.values()))
                row = {"phrase": phrase, "threshold": f"1e{e}", "late_ms": late, "pooled": pooled,
                       "by_group": {g: f"{v['heard']}/{v['n']}" for g, v in sorted(h.items())},
                       "fa_per_min": round(r["fa_per_min"][phrase], 2)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        shipped = score(recs, {}, audio, groups)["fa_per_min"][phrase]
        print(f"configured: {phrase} threshold {base.thresholds[phrase]:g}, "
              f"late {base.pause_late_ms.get(phrase, 0):g} ms, {shipped:.2f} false prompts/min", flush=True)
        ok = [r for r in rows if r["fa_per_min"] <= min(args.cap, shipped + args.max_rise)]
        pick = max(ok, key=lambda r: (r["pooled"], -r["fa_per_min"])) if ok else None
        print(f"PICK {phrase}: {json.dumps(pick)}", flush=True)
        table += rows
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
