"""What the pause check costs when a player goes on talking right after the call.

The listener's `detect_pause_db` drops a call whose level does not fall after it (docs/voice.md,
"Pause after the call"); in bench_voice.py every call is followed by 0.7-1.0 s of silence, so
that price is never measured there. Here the same call streams are built (same voices,
phrases, styles and chatter before each call; voice_corpus.build_call_stream), except that `--gap` seconds after each call's
last sound (flite's padding cut) the caller says a short follow-up ("Ha!", "I win!", "Got you"), then the usual silence. Each
stream is run with the shipped settings and with `detect_pause_db: {}` (the pause then only
decides what goes direct), clean and in pink noise at 20 dB; the share of calls heard and
sent direct is printed. Test voices by default (a measurement, nothing is chosen on it).

    .venv/bin/python benchmarks/voice_talk_on.py                  # ~10 CPU-min
    .venv/bin/python benchmarks/voice_talk_on.py --voices awb --games kemps
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_voice as bv  # noqa: E402
import voice_corpus as vc  # noqa: E402

from referee.voice.grammar import load_config  # noqa: E402

CONDITIONS = (("clean", None, None), ("pink 20 dB", "pink", 20.0))
SETTINGS = {"shipped": {}, "no detection pause": {"detect_pause_db": {}}}


def talk_on_stream(game: str, voice: str, talk_on: bool, gap: tuple[float, float] = (0.08, 0.25)) -> tuple[np.ndarray, list[vc.Truth]]:
    """The call stream of `voice` (voice_corpus.build_call_stream, seeded apart from the
    benchmark's), with (or, `talk_on` False, without) a follow-up `gap` after each call."""
    pcm, st = vc.build_call_stream(game, voice, gap if talk_on else None, tag="calls-talk-on")
    return pcm, list(st.truths)


def _job(job: tuple) -> tuple:
    game, voice, talk_on, (cname, kind, snr), seed, babble, gap = job
    pcm, truths = talk_on_stream(game, voice, talk_on, gap)
    audio = vc.with_noise(pcm, kind, snr, babble, seed=seed).astype(np.int16)
    out = {}
    for label, override in SETTINGS.items():
        calls = bv.run_stream(audio, game, load_config(None, overrides=override)).calls
        used: set[int] = set()
        rows = []
        for t in truths:
            hit = bv.first_match(t, calls, used)
            if hit is not None:
                used.add(hit)
            rows.append((t.key, hit is not None, hit is not None and not calls[hit][0].provisional))
        out[label] = rows
    return game, voice, talk_on, cname, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--voices", default=",".join(bv.TEST_VOICES))
    ap.add_argument("--games", default="kemps,kems")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="bench_voice's speech cache (babble)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--gap", default="0.08,0.25", help="silence between the call and the follow-up, min,max seconds")
    args = ap.parse_args()
    _, babble = vc.load_corpus(args.cache, heldout_voices=bv.TEST_VOICES, tune_voices=bv.TUNE_VOICES)
    gap = tuple(float(x) for x in args.gap.split(","))
    jobs = [(g, v, talk, cond, 5000 + k, babble, gap)
            for k, (g, v, talk, cond) in enumerate((g, v, talk, cond) for g in args.games.split(",")
                                                   for v in args.voices.split(",") for talk in (False, True)
                                                   for cond in CONDITIONS)]  # fmt: skip
    acc: dict = {}
    with ProcessPoolExecutor(max(1, args.jobs)) as ex:
        for game, _voice, talk, cname, out in ex.map(_job, jobs):
            for label, rows in out.items():
                acc.setdefault((game, cname, talk, label), []).extend(rows)
    print("| game | condition | after the call | setting | two-word heard (direct) | one-word heard |")
    print("|---|---|---|---|---|---|")
    for (game, cname, talk, label), rows in sorted(acc.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        two = [r for r in rows if not bv.one_word(r[0])]
        one = [r for r in rows if bv.one_word(r[0])]
        share = lambda xs, i: sum(x[i] for x in xs) / max(1, len(xs))  # noqa: E731
        print(f"| {game} | {cname} | {'talks on' if talk else 'silence'} | {label} | "
              f"{share(two, 1):.0%} ({share(two, 2):.0%}) of {len(two)} | {share(one, 1):.0%} of {len(one)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
