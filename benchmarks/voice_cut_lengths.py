"""Would a Cut threshold per name length separate calls from chatter better? (docs/voice.md)

The phone loop pays `kws_plp` (1e-12: 27.6 nats) per phone, so a 7-phone "cut north"
scores ~27 nats more against it than a 6-phone "cut east" that matches as well. This scores
each true "cut <name>" call by its best right reading and each stretch of chatter by its best
Cut reading, shifted by alpha x (phones - 6.5), and prints the share of calls heard at
0.25 / 0.5 / 1 / 2 false events per minute, for several alpha. Needs the permissive dump:

    .venv/bin/python benchmarks/voice_replay.py dump --jobs 2 --test-calls --conditions 'clean,pink 20 dB,babble 20 dB'
    .venv/bin/python benchmarks/voice_cut_lengths.py awb,slt 'pink 20 dB,babble 20 dB'
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_voice as bv  # noqa: E402
import voice_replay as vr  # noqa: E402

from referee.voice.grammar import load_config  # noqa: E402

DUMP = Path("/tmp/referee-voice-bench/replay-v1")  # voice_replay.py's default dump
Reading = tuple[float, int]  # (spotter score in nats, phones of the phrase)


def readings(voices: tuple[str, ...], conditions: list[str]) -> tuple[list[Reading], list[Reading], float]:
    """Best right reading of each true Cut call; best Cut reading of each 0.4 s of chatter
    (any name); minutes of chatter."""
    recs = [r for r in vr.load_records(DUMP, voices) if r["cond"] in conditions]
    rp = vr.Replayer(load_config(None, overrides={"embed_verify": {"enabled": False}}))
    calls: list[Reading] = []
    chat: list[Reading] = []
    minutes = 0.0
    for rec in recs:
        st = rec["stream"]
        if "kemps" not in rec["games"] or (st.kind == "calls" and st.game != "kemps"):
            continue
        cut = [c for c in rp.candidates(rec, "kemps", every=True) if c.phrase.template == "cut {name}"]
        if st.kind == "calls":
            for t in st.truths:
                if t.key == "cut {name}":
                    mine = [c for c in cut if c.phrase.target == t.target
                            and bv._matches(t, c.phrase.call, c.phrase.target, c.start / 100, (c.end + 1) / 100)]
                    calls.append(max(((c.score, c.phrase.n_phones) for c in mine), default=(-1e9, 6)))
            continue
        minutes += st.seconds / 60
        events: dict[int, Reading] = {}
        for c in cut:
            events[c.end // 40] = max(events.get(c.end // 40, (-1e9, 6)), (c.score, c.phrase.n_phones))
        chat += list(events.values())
    return calls, chat, minutes


def main() -> int:
    voices, conditions = tuple(sys.argv[1].split(",")), sys.argv[2].split(",")
    calls, chat, minutes = readings(voices, conditions)
    print(f"{len(calls)} calls, {minutes:.1f} min chatter, {len(chat)} chatter events")
    for alpha in (0.0, 10.0, 20.0, 27.6, 35.0):
        cs = np.array([s - alpha * (n - 6.5) for s, n in calls])
        fs = np.sort([s - alpha * (n - 6.5) for s, n in chat])[::-1]
        cells = []
        for fa in (0.25, 0.5, 1.0, 2.0):
            k = int(fa * minutes)  # false events allowed
            threshold = fs[k] + 1e-6 if k < len(fs) else -1e9
            cells.append(f"{(cs >= threshold).mean():.0%}@{fa}")
        print(f"alpha {alpha:5.1f}: heard " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
