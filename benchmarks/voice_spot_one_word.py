"""Choose `embed_spot`'s one-word stage (`one_word_similarity`, `one_word_cohort` in
configs/voice.yaml) on the tune voices.

    nice .venv/bin/python benchmarks/voice_spot_one_word.py run --jobs 2   # the listener, wide open
    .venv/bin/python benchmarks/voice_spot_one_word.py tune                # the grid and the pick

`run` runs the listener as configured, but with the one-word stage wide open (similarity
`OPEN`, no cohort check), on the tune voices' call streams, benchmark chatter and tune
chatter in clean, pink 20 dB and babble 20 dB, and keeps every one-word prompt the
embedding gave with its similarity and that of the best decoy word. `tune` replays each
setting of the grid by keeping only the prompts that pass it (a prompt that does not pass
changes nothing else, up to its stand-in reading: see the caveat in docs/voice.md).

The rule, fixed before the first run: the most tune one-word calls heard (both games) with
at most `FA_CAP` more false one-word prompts a minute of tune chatter (benchmark + tune2
chatter, all three conditions) than the listener as configured in each game, then the
fewest false prompts. (The first grid started at 0.25 and its pick lay on that edge; the
grid was then extended down to `OPEN`.) Tune side only: the report is `bench_voice.py` on
the test voices.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import bench_voice as bv  # noqa: E402
from voice_corpus import CONDITIONS, load_corpus, with_noise  # noqa: E402

import referee.voice.listener as L  # noqa: E402
from referee.voice.grammar import load_config  # noqa: E402
from referee.voice.listener import SPOT_CONF_HALF  # noqa: E402

VOICES = ("awb", "slt", "ked", "kokoro_alpha", "kokoro_gongitsune")  # the tune side of pause_late_ms (docs/voice.md)
CONDS = ("clean", "pink 20 dB", "babble 20 dB")
KINDS = ("calls", "chatter", "chatter-tune2")
OPEN = 0.15  # the wide-open similarity of `run`: under every value of the grid
FA_CAP = 0.5  # more false one-word prompts a minute of tune chatter, per game
GRID = {"similarity": (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5), "cohort": (None, 0.0, 0.05, 0.1, 0.15)}
_STATE: dict = {}


def _open_config():  # noqa: ANN202
    cfg = load_config(None)
    return replace(cfg, embed_spot=replace(cfg.embed_spot, one_word_similarity=OPEN, one_word_cohort=None))


def _job(job: tuple[Path, int, int]) -> list[dict]:
    cache, k, ci = job
    if not _STATE:
        streams, babble = load_corpus(cache, tune_voices=VOICES)
        _STATE.update(streams=streams, babble=babble, cfg=_open_config())
        orig = L.spot

        def logged(*a, **kw):  # noqa: ANN002, ANN003, ANN202 - every result of embed_spot, in order
            got = orig(*a, **kw)
            if got is not None:
                _STATE["log"].append(got)
            return got

        L.spot = logged
    pcm0, st = _STATE["streams"][k]
    cname, kind, snr = CONDITIONS[ci]
    pcm = with_noise(pcm0, kind, snr, _STATE["babble"], seed=3000 + k * len(CONDITIONS) + ci)
    rows = []
    for game in [st.game] if st.kind == "calls" else ["kemps", "kems"]:
        _STATE["log"] = []
        res = bv.run_stream(pcm, game, _STATE["cfg"])
        log = _STATE["log"]
        calls = []
        for c, _t in res.calls:
            extra = None
            if c.t_start is None and len(c.phrase.split()) == 1:  # the embedding's one-word prompt
                sim = OPEN + SPOT_CONF_HALF * c.confidence / max(1e-9, 1 - c.confidence)
                same = [g for g in log if g.phrase == c.phrase]
                got = min(same, key=lambda g: abs(g.similarity - sim))
                extra = (got.similarity, got.decoy)
            calls.append((c, extra))
        rows.append({"voice": st.voice, "kind": st.kind, "game": game, "cond": cname, "minutes": res.audio_s / 60,
                     "truths": st.truths, "calls": calls})
    return rows


def run(cache: Path, out: Path, jobs: int) -> None:
    streams, _ = load_corpus(cache, tune_voices=VOICES)  # built once, here
    todo = [(cache, k, ci) for k, (_p, st) in enumerate(streams) if st.voice in VOICES and st.kind in KINDS
            for ci, c in enumerate(CONDITIONS) if c[0] in CONDS]
    from multiprocessing import get_context

    with get_context("spawn").Pool(jobs) as pool:
        rows = [r for rs in tqdm(pool.imap_unordered(_job, todo), total=len(todo), desc="streams x conditions") for r in rs]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(pickle.dumps(rows))
    print(f"wrote {out}")


def passes(extra: tuple[float, float | None], s: dict) -> bool:
    sim, decoy = extra
    return sim >= s["similarity"] and (s["cohort"] is None or decoy is None or sim - decoy >= s["cohort"])


def score(rows: list[dict], s: dict | None, voices: tuple[str, ...], game: str) -> dict:
    """One-word calls heard and false one-word prompts a minute under setting `s` (None: the
    listener as configured, no one-word prompt of the embedding)."""
    heard = calls = false = 0
    minutes = 0.0
    for r in rows:
        if r["voice"] not in voices or r["game"] != game:
            continue
        kept = [(c, 0.0) for c, extra in r["calls"] if extra is None or (s is not None and passes(extra, s))]
        if r["kind"] == "calls":
            for t, hit in bv.match_truths(r["truths"], kept):
                if bv.one_word(t.key):
                    calls += 1
                    heard += hit is not None
        else:
            minutes += r["minutes"]
            false += sum(1 for c, _ in kept if c.provisional and len(c.phrase.split()) == 1)
    return {"heard": heard, "calls": calls, "false_per_min": false / max(minutes, 1e-9)}


def tune(path: Path) -> None:
    rows = pickle.loads(path.read_bytes())
    groups = {"flite/festival": tuple(v for v in VOICES if bv.voice_group(v) != "neural"),
              "neural": tuple(v for v in VOICES if bv.voice_group(v) == "neural")}
    games = ("kemps", "kems")
    base = {g: score(rows, None, VOICES, g) for g in games}
    for g in games:
        print(f"{g}: as configured, one-word heard {base[g]['heard']} of {base[g]['calls']}, "
              f"false one-word prompts {base[g]['false_per_min']:.2f}/min")
    best = None
    for values in itertools.product(*GRID.values()):
        s = dict(zip(GRID, values))
        r = {g: score(rows, s, VOICES, g) for g in games}
        ok = all(r[g]["false_per_min"] <= base[g]["false_per_min"] + FA_CAP + 1e-9 for g in games)
        cells = []
        for g in games:
            by = ", ".join(f"{k} {score(rows, s, v, g)['heard']}" for k, v in groups.items())
            cells.append(f"{g} heard {r[g]['heard']} ({by}), false {r[g]['false_per_min']:.2f}/min")
        print(f"  {s}: " + "; ".join(cells) + ("" if ok else " (over cap)"))
        key = (sum(r[g]["heard"] for g in games), -sum(r[g]["false_per_min"] for g in games))
        if ok and (best is None or key > best[0]):
            best = (key, s)
    print(f"pick (one setting for both games): {best[1] if best else 'none within the cap'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=("run", "tune"), help="run: the listener wide open (slow); tune: replay the grid")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="where generated speech is kept")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for run (default 2)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/referee-voice-bench/one-word-spot.pkl"), help="run's file")
    args = ap.parse_args()
    if args.step == "run":
        run(args.cache, args.out, max(1, args.jobs))
    elif not args.out.is_file():
        ap.error(f"{args.out} not found: run `{Path(__file__).name} run` first")
    else:
        tune(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
