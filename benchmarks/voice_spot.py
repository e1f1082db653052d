"""Choose the word-embedding spotting settings (`embed_spot:` in configs/voice.yaml).

    nice .venv/bin/python benchmarks/voice_spot.py dump      # ~10 CPU-min: ends, similarities, spotter misses
    .venv/bin/python benchmarks/voice_spot.py tune           # grid on the tune voices, pick, then the test side

Since 2026-12-03 evening the shipped settings (a second window, the cohort check) are
chosen by benchmarks/voice_spot_variants.py from this dump; `tune` here knows one window only.

`dump` runs, for every corpus stream in clean and 20 dB noise: the listener as configured
but with `embed_spot` off (which two-word calls the spotter hears), and at every speech end
`SegmentEnds` finds with the shortest pause of the grid, the embedding's cosine similarity
with each reference rendering, at two window offsets. `tune` replays `embed_spot`'s
decision under each setting from that dump.

Tune side: each tune voice's audio is compared with the other tune voice's renderings only
(awb against slt's, slt against awb's, top 2 of 3), as the embedding check was chosen; the
settings kept are those that recover the most spotter-missed tune calls with at most
`FA_CAP` false prompts a minute of tune chatter (benchmark + tune2 chatter) per game, then
the fewest false prompts. The test side (kal16, rms: both renderings voices, top 3 of 6, as
the listener runs) is printed for the chosen setting only. Figures are estimates: the bench
(`benchmarks/bench_voice.py`) measures the listener itself.
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_voice import TEST_VOICES, TUNE_VOICES, first_match, run_stream  # noqa: E402
from voice_corpus import CONDITIONS, NAMES, load_corpus, with_noise  # noqa: E402

from referee.voice.embed_spot import EmbedSpotConfig  # noqa: E402
from referee.voice.embedding import RATE, shared_embedder, window_before  # noqa: E402
from referee.voice.grammar import load_config  # noqa: E402
from referee.voice.phrase_refs import PhraseReferences  # noqa: E402
from referee.voice.segment_ends import SegmentEndConfig, SegmentEnds, frame_levels_db  # noqa: E402

PHRASES = [f"cut {n}" for n in NAMES] + ["stop kemps", "double kem's", "contre kem's"]
GAME = {"kemps": [0, 1, 2, 3, 4], "kems": [5, 6]}
OFFSETS = (0.15, 0.25, 0.35)
CONDS = ("clean", "pink 20 dB", "babble 20 dB")
FA_CAP = 0.1  # false prompts a minute of tune chatter, per game
GRID = {"similarity": (0.3, 0.35, 0.4, 0.45, 0.5), "margin": (0.0, 0.1, 0.15, 0.2), "after_s": OFFSETS,
        "pause": ((0.15, None), (0.3, None), (0.15, 1.5), (0.3, 1.5), (0.3, 1.2))}
MATCH = (-0.3, 0.4)  # a speech end within these seconds of a call's end is that call's


_STATE: dict = {}


def dump_audio(pcm0: np.ndarray, k: int, ci: int, babble: np.ndarray) -> np.ndarray:
    """Stream `k` in condition `ci` with the dump's noise (voice_spot_variants.py embeds the same audio)."""
    _cname, kind, snr = CONDITIONS[ci]
    return with_noise(pcm0, kind, snr, babble, seed=1000 + k * len(CONDITIONS) + ci)


def _dump_job(job: tuple[Path, int, int]) -> dict:
    """One stream in one condition (each worker loads the corpus and the model once)."""
    cache, k, ci = job
    if not _STATE:
        streams, babble = load_corpus(cache, heldout_voices=TEST_VOICES, tune_voices=TUNE_VOICES)
        config = load_config(None)
        emb = shared_embedder()
        refs = PhraseReferences(PHRASES, config.embed_verify, emb)
        _STATE.update(streams=streams, babble=babble, emb=emb, ref_mat=np.stack([refs.renderings(p) for p in PHRASES]),
                      plain=replace(config, embed_spot=replace(config.embed_spot, enabled=False)))
    streams, babble, emb, ref_mat, plain = (_STATE[x] for x in ("streams", "babble", "emb", "ref_mat", "plain"))
    pcm0, st = streams[k]
    cname = CONDITIONS[ci][0]
    pcm = dump_audio(pcm0, k, ci, babble)
    lv = frame_levels_db(pcm).astype(np.float32)  # float32, as the listener keeps them
    se = SegmentEnds(SegmentEndConfig(pause_s=min(p for p, _ in GRID["pause"])))
    ends = [e for e in (se.push(float(v)) for v in lv) if e is not None]
    sims = np.zeros((len(ends), len(OFFSETS), len(PHRASES), ref_mat.shape[1]), np.float32)
    for j, f in enumerate(ends):
        for o, off in enumerate(OFFSETS):
            sims[j, o] = ref_mat @ emb.embed(window_before(pcm, (f + 1) * 160 + int(off * RATE)))
    truths = []
    if st.kind == "calls":
        res = run_stream(pcm, st.game, plain)
        used: set[int] = set()
        for t in st.truths:
            m = first_match(t, res.calls, used)
            if m is not None:
                used.add(m)
            if len(t.key.split()) > 1:
                truths.append({"phrase": f"cut {t.target}" if t.call == "cut" and t.target else t.key,
                               "end": t.end, "heard": m is not None})
    return {"stream": st.name, "kind": st.kind, "game": st.game, "voice": st.voice, "cond": cname,
            "minutes": st.seconds / 60, "ends": ends, "sims": sims, "levels": lv, "truths": truths}


def dump(cache: Path, out: Path, jobs: int) -> None:
    streams, _babble = load_corpus(cache, heldout_voices=TEST_VOICES, tune_voices=TUNE_VOICES)  # built once, here
    todo = [(cache, k, ci) for k in range(len(streams)) for ci, c in enumerate(CONDITIONS) if c[0] in CONDS]
    if jobs > 1:
        from multiprocessing import get_context

        with get_context("spawn").Pool(jobs) as pool:
            rows = list(tqdm(pool.imap(_dump_job, todo), total=len(todo), desc="streams x conditions"))
    else:
        rows = [_dump_job(j) for j in tqdm(todo, desc="streams x conditions")]
    ecfg = load_config(None).embed_verify
    out.write_bytes(pickle.dumps({"rows": rows, "phrases": PHRASES, "offsets": OFFSETS, "ref_voices": ecfg.voices,
                                  "styles": len(ecfg.styles), "top_k": ecfg.top_k}))
    print(f"wrote {out}")


def phrase_sims(sims: np.ndarray, voice: str, ref_voices: tuple[str, ...], styles: int, top_k: int) -> np.ndarray:
    """(ends, offsets, phrases) similarities: a voice that renders the references against the
    other voices' renderings only (top_k scaled to their share, rounded up: 2 of 3 for awb
    against slt), any other voice against all of them (top_k, as the listener)."""
    keep = [k for k, v in enumerate(ref_voices) if v != voice] or list(range(len(ref_voices)))
    cols = [k * styles + j for k in keep for j in range(styles)]
    k = max(1, -(-top_k * len(keep) // len(ref_voices)))
    s = np.sort(sims[..., cols], axis=-1)[..., ::-1]
    return s[..., :k].mean(-1)


class Replay:
    def __init__(self, dumped: dict) -> None:
        self.rows = dumped["rows"]
        self._refs = (tuple(dumped["ref_voices"]), dumped["styles"], dumped["top_k"])
        self._ends: dict = {}

    def ends(self, r: dict, pause_s: float, max_speech: float | None) -> list[int]:
        """Indices of the dumped ends that `SegmentEnds` with these settings also reports."""
        key = (r["stream"], r["cond"], pause_s, max_speech)
        if key not in self._ends:
            se = SegmentEnds(SegmentEndConfig(pause_s=pause_s, max_speech_s=max_speech))
            new = [e for e in (se.push(float(v)) for v in r["levels"]) if e is not None]
            known = np.array(r["ends"] or [-(10**9)])
            self._ends[key] = [int(np.argmin(np.abs(known - f))) for f in new if np.min(np.abs(known - f)) <= 3]
        return self._ends[key]

    def decisions(self, r: dict, game: str, s: dict) -> list[tuple[float, str]]:
        """(end time, phrase) of every prompt `embed_spot` would give in this stream."""
        sim = phrase_sims(r["sims"], r["voice"], *self._refs)[:, OFFSETS.index(s["after_s"]), GAME[game]]
        out = []
        for j in self.ends(r, *s["pause"]):
            order = np.argsort(sim[j])[::-1]
            top, lead = sim[j][order[0]], sim[j][order[0]] - sim[j][order[1]]
            if top >= s["similarity"] and lead >= s["margin"]:
                out.append(((r["ends"][j] + 1) * 0.01, PHRASES[GAME[game][order[0]]]))
        return out

    def score(self, voices: tuple[str, ...], s: dict, conds: tuple[str, ...], chatter: tuple[str, ...]) -> dict:
        res = {}
        for game in GAME:
            calls = heard = new = wrong = 0
            for r in self.rows:
                if r["kind"] != "calls" or r["game"] != game or r["voice"] not in voices or r["cond"] not in conds:
                    continue
                dec = self.decisions(r, game, s)
                for t in r["truths"]:
                    calls += 1
                    heard += t["heard"]
                    if t["heard"]:
                        continue
                    near = [p for e, p in dec if MATCH[0] <= e - t["end"] <= MATCH[1]]
                    new += t["phrase"] in near
                    wrong += bool(near) and t["phrase"] not in near
            false = minutes = 0.0
            for r in self.rows:
                if r["kind"] in chatter and r["voice"] in voices and r["cond"] in conds:
                    minutes += r["minutes"]
                    false += len(self.decisions(r, game, s))
            res[game] = {"calls": calls, "heard": heard, "new": new, "wrong": wrong, "false_per_min": false / max(minutes, 1e-9)}
        return res


def tune(path: Path) -> None:
    replay = Replay(pickle.loads(path.read_bytes()))
    best = None
    for values in itertools.product(*GRID.values()):
        s = dict(zip(GRID, values))
        r = replay.score(TUNE_VOICES, s, CONDS, ("chatter", "chatter-tune2"))
        ok = all(g["false_per_min"] <= FA_CAP + 1e-9 for g in r.values())
        key = (sum(g["new"] for g in r.values()), -sum(g["false_per_min"] for g in r.values()))
        print(s, " ".join(f"{k}: +{g['new']} of {g['calls'] - g['heard']} missed, wrong {g['wrong']}, "
                          f"false {g['false_per_min']:.2f}/min" for k, g in r.items()), "" if ok else "(over cap)")
        if ok and (best is None or key > best[0]):
            best = (key, s)
    if best is None:
        print("no setting within the cap")
        return
    s = best[1]
    print("\nchosen (tune voices):", s)
    print("test voices (kal16, rms), chatter = benchmark + held-out 2:")
    for c in CONDS:
        r = replay.score(TEST_VOICES, s, (c,), ("chatter", "chatter-heldout2"))
        print(f"  {c}: " + " ".join(f"{k}: heard {g['heard']}+{g['new']} of {g['calls']}, wrong {g['wrong']}, "
                                     f"false {g['false_per_min']:.2f}/min" for k, g in r.items()))
    print("\nembed_spot:", {k: v for k, v in s.items() if k != "pause"} | {"pause_s": s["pause"][0], "max_speech_s": s["pause"][1]},
          f"(defaults: {EmbedSpotConfig()})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=("dump", "tune"), help="dump: decode and embed (slow); tune: replay the grid")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="where generated speech is kept")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for dump (default 1)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/referee-voice-bench/spot-dump.pkl"), help="the dump file")
    args = ap.parse_args()
    if args.step == "dump":
        dump(args.cache, args.out, args.jobs)
    else:
        if not args.out.is_file():
            ap.error(f"{args.out} not found: run `benchmarks/voice_spot.py dump` first")
        tune(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
