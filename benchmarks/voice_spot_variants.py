"""Replays of `embed_spot` variants: the second window and cohort check of configs/voice.yaml
were chosen here, the others measured and left alone (docs/voice.md, "Second window and
cohort check").

    nice .venv/bin/python benchmarks/voice_spot.py dump                 # first: the ends (~10 min)
    .venv/bin/python benchmarks/voice_spot_variants.py vectors           # ~5 min: embeddings at the ends
    .venv/bin/python benchmarks/voice_spot_variants.py tune              # ~1 min: the grid, both sides
    nice .venv/bin/python benchmarks/voice_spot_variants.py direct       # ~9 min: the cohort on direct calls

Variants, alone and together: several windows per end (the best of the windows ending
0.15 / 0.25 / 0.35 s after it, from the dump's own similarities); a cohort check (the
phrase's similarity must beat the best of the game's decoy words, `grammar.DECOYS`, rendered
like the phrases, by `cohort`); each end moved over a weak tail (to the last frame before
50 ms under background + `tail` dB, at most 0.35 s on) before the window is embedded. The
tune rule is `voice_spot.py tune`'s (tune voices against each other's renderings), jointly
for both games and per game; the test voices are printed for the picks only.

`direct` asks whether the same cohort could guard the *direct* calls: the listener as
configured on every stream of awb, slt, ked (tune side) and kal16, rms (test), clean and
20 dB; each two-word direct call's window embedded; the false ones listed with their
phrase and best-decoy similarities, and for each margin the false direct calls a minute
left and the true direct calls kept if a call under the margin were demoted to a prompt.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import voice_spot as V  # noqa: E402
from voice_corpus import CONDITIONS, load_corpus, with_noise  # noqa: E402

from referee.voice.embedding import RATE, shared_embedder, window_before  # noqa: E402
from referee.voice.grammar import DECOYS, load_config  # noqa: E402
from referee.voice.phrase_refs import PhraseReferences  # noqa: E402

TAILS = (3.0, 5.0)
GRID = {"similarity": (0.2, 0.25, 0.275, 0.3, 0.325, 0.35), "pause": ((0.3, 1.2), (0.3, None)),
        "windows": ((0.15,), (0.15, 0.25), (0.15, 0.25, 0.35)), "tail": (None,) + TAILS,
        "cohort": (None, 0.0, 0.05, 0.1, 0.15)}


def tail_end(levels: np.ndarray, f: int, tail_db: float, reach: int = 35, quiet: int = 5) -> int:
    """The last frame before `quiet` frames (3-frame means) under background + `tail_db`,
    at most `reach` frames after end `f`; `f` when the level never gets there."""
    floor = np.percentile(levels[max(0, f - 330) : max(1, f - 30)], 10)
    sm = np.convolve(levels, np.ones(3) / 3, mode="same")
    for j in range(f + 1, min(len(levels) - quiet, f + reach) + 1):
        if np.all(sm[j : j + quiet] < floor + tail_db):
            return j - 1
    return f


def vectors(dump: Path, out: Path, cache: Path) -> None:
    d = pickle.loads(dump.read_bytes())
    streams, babble = load_corpus(cache, heldout_voices=V.TEST_VOICES, tune_voices=V.TUNE_VOICES)
    index = {st.name: k for k, (_pcm, st) in enumerate(streams)}
    cond = {c[0]: i for i, c in enumerate(CONDITIONS)}
    emb = shared_embedder()
    vecs: dict = {}
    for r in tqdm(d["rows"], desc="streams x conditions"):
        k, ci = index[r["stream"]], cond[r["cond"]]
        pcm = V.dump_audio(streams[k][0], k, ci, babble)  # the dump's own audio: its ends index these vectors
        lv = r["levels"].astype(np.float64)
        for tail in (None,) + TAILS:
            ends = list(r["ends"]) if tail is None else [tail_end(lv, f, tail) for f in r["ends"]]
            v = np.zeros((len(ends), 2048), np.float32)
            for j, f in enumerate(ends):
                v[j] = emb.embed(window_before(pcm, (f + 1) * 160 + int(0.15 * RATE)))
            vecs[(r["stream"], r["cond"], tail)] = (ends, v)
    out.write_bytes(pickle.dumps(vecs))
    print(f"wrote {out}")


class Variants(V.Replay):
    def __init__(self, dumped: dict, vecs: dict) -> None:
        super().__init__(dumped)
        cfg = load_config(None).embed_verify
        words = sorted(set(DECOYS["kemps"]) | set(DECOYS["kems"]))
        refs = PhraseReferences(V.PHRASES + words, cfg, shared_embedder())
        self._phr = np.stack([refs.renderings(p) for p in V.PHRASES])
        self._coh = {g: np.stack([refs.renderings(w) for w in DECOYS[g]]) for g in DECOYS}
        self._vecs = vecs
        self._memo: dict = {}

    def _scored(self, r: dict, game: str, s: dict) -> tuple[list[int], np.ndarray, np.ndarray]:
        key = (r["stream"], r["cond"], game, s["tail"], s["windows"])
        if key not in self._memo:
            ends, vec = self._vecs[(r["stream"], r["cond"], s["tail"])]
            if s["tail"] is None and len(s["windows"]) > 1:  # more windows: the dump's own offsets
                offs = [V.OFFSETS.index(o) for o in s["windows"]]
                sims = V.phrase_sims(r["sims"], r["voice"], *self._refs)[:, offs][..., V.GAME[game]].max(1)
            else:
                sims = V.phrase_sims(np.einsum("pkd,ed->epk", self._phr, vec), r["voice"], *self._refs)[:, V.GAME[game]]
            coh = V.phrase_sims(np.einsum("wkd,ed->ewk", self._coh[game], vec), r["voice"], *self._refs).max(1)
            self._memo[key] = (ends, sims, coh)
        return self._memo[key]

    def decisions(self, r: dict, game: str, s: dict) -> list[tuple[float, str]]:
        if s["tail"] is not None and len(s["windows"]) > 1:
            return []  # not combined (a tail end already reaches as far as the later windows)
        ends, sim, coh = self._scored(r, game, s)
        out = []
        for j in self.ends(r, *s["pause"]):
            best = int(np.argmax(sim[j]))
            top = sim[j][best]
            if top >= s["similarity"] and (s["cohort"] is None or top - coh[j] >= s["cohort"]):
                out.append(((ends[j] + 1) * 0.01, V.PHRASES[V.GAME[game][best]]))
        return out


def tune(dump: Path, vec_path: Path) -> None:
    replay = Variants(pickle.loads(dump.read_bytes()), pickle.loads(vec_path.read_bytes()))
    scored = []
    for values in tqdm(list(itertools.product(*GRID.values())), desc="settings"):
        s = dict(zip(GRID, values))
        scored.append((s, replay.score(V.TUNE_VOICES, s, V.CONDS, ("chatter", "chatter-tune2"))))

    def pick(games: tuple[str, ...]) -> dict | None:
        ok = [(s, r) for s, r in scored if all(r[g]["false_per_min"] <= V.FA_CAP + 1e-9 for g in games)]
        key = lambda sr: (sum(sr[1][g]["new"] for g in games), -sum(sr[1][g]["false_per_min"] for g in games))  # noqa: E731
        return max(ok, key=key)[0] if ok else None

    shipped = {"similarity": 0.3, "pause": (0.3, 1.2), "windows": (0.15,), "tail": None, "cohort": None}
    picks = {"before (one window, no cohort)": (shipped, ("kemps", "kems")), "joint pick": (pick(("kemps", "kems")), ("kemps", "kems")),
             "kemps pick": (pick(("kemps",)), ("kemps",)), "kems pick": (pick(("kems",)), ("kems",))}
    for name, (s, games) in picks.items():
        if s is None:
            print(name, ": no setting within the cap")
            continue
        tune_r = replay.score(V.TUNE_VOICES, s, V.CONDS, ("chatter", "chatter-tune2"))
        print(f"\n{name}: {s}")
        print("  tune: " + ", ".join(f"{g} +{tune_r[g]['new']} of {tune_r[g]['calls'] - tune_r[g]['heard']} missed, "
                                     f"false {tune_r[g]['false_per_min']:.2f}/min" for g in games))
        for c in V.CONDS:
            r = replay.score(V.TEST_VOICES, s, (c,), ("chatter", "chatter-heldout2"))
            print(f"  test {c}: " + ", ".join(f"{g} heard {r[g]['heard']}+{r[g]['new']} of {r[g]['calls']}, "
                                              f"wrong {r[g]['wrong']}, false {r[g]['false_per_min']:.2f}/min" for g in games))


DIRECT_VOICES = ("awb", "slt", "ked", "kal16", "rms")
_DIRECT: dict = {}


def _direct_job(job: tuple[Path, int, int]) -> dict:
    """Two-word direct calls of one stream in one condition, each with its window's embedding."""
    from bench_voice import first_match, run_stream

    cache, k, ci = job
    if not _DIRECT:
        streams, babble = load_corpus(cache, heldout_voices=("kal16", "rms", "ked"), tune_voices=V.TUNE_VOICES)
        _DIRECT.update(streams=streams, babble=babble, cfg=load_config(None), emb=shared_embedder())
    pcm0, st = _DIRECT["streams"][k]
    cname, kind, snr = CONDITIONS[ci]
    pcm = with_noise(pcm0, kind, snr, _DIRECT["babble"], seed=1000 + k)
    games = [st.game] if st.kind == "calls" else ["kemps", "kems"]
    rows = []
    for game in games:
        res = run_stream(pcm, game, _DIRECT["cfg"])
        used: set[int] = set()
        for t in st.truths if st.kind == "calls" else ():
            m = first_match(t, res.calls, used)
            if m is not None:
                used.add(m)
        for i, (c, _) in enumerate(res.calls):
            if not c.provisional and len(c.phrase.split()) > 1:
                v = _DIRECT["emb"].embed(window_before(pcm, round(c.t * RATE) + round(0.15 * RATE)))
                rows.append({"voice": st.voice, "cond": cname, "game": game, "kind": st.kind, "phrase": c.phrase,
                             "true": i in used, "vec": v.astype(np.float32)})
    return {"voice": st.voice, "cond": cname, "kind": st.kind, "games": games, "minutes": st.seconds / 60, "rows": rows}


def direct(cache: Path, jobs: int) -> None:
    streams, _ = load_corpus(cache, heldout_voices=("kal16", "rms", "ked"), tune_voices=V.TUNE_VOICES)
    todo = [(cache, k, ci) for k, (_p, st) in enumerate(streams) if st.voice in DIRECT_VOICES
            for ci, c in enumerate(CONDITIONS) if c[0] in V.CONDS]
    from multiprocessing import get_context

    with get_context("spawn").Pool(jobs) as pool:
        out = list(tqdm(pool.imap_unordered(_direct_job, todo), total=len(todo), desc="streams x conditions"))
    direct_report(out)


def direct_report(out: list[dict]) -> None:
    cfg = load_config(None).embed_verify
    words = sorted(set(DECOYS["kemps"]) | set(DECOYS["kems"]))
    refs = PhraseReferences(V.PHRASES + words, cfg, shared_embedder())
    rv, st_n, k = cfg.voices, len(cfg.styles), cfg.top_k
    rows = [r for o in out for r in o["rows"]]
    for r in rows:  # a tune voice against the other voice's renderings only, as in `tune`
        r["ps"] = float(V.phrase_sims((refs.renderings(r["phrase"]) @ r["vec"])[None], r["voice"], rv, st_n, k)[0])
        coh = [float(V.phrase_sims((refs.renderings(w) @ r["vec"])[None], r["voice"], rv, st_n, k)[0]) for w in DECOYS[r["game"]]]
        r["cb"], r["cw"] = max(coh), DECOYS[r["game"]][int(np.argmax(coh))]
    print("false direct calls in chatter:")
    for r in rows:
        if r["kind"] != "calls":
            print(f"  {r['voice']:5s} {r['cond']:12s} {r['game']:5s} {r['phrase']:13s} phrase {r['ps']:.3f}, best decoy {r['cb']:.3f} ({r['cw']})")
    sides = {"tune awb+slt+ked": ("awb", "slt", "ked"), "test kal16+rms": ("kal16", "rms")}
    for m in (None, -0.1, -0.05, 0.0, 0.05, 0.1):
        cells = []
        for side, voices in sides.items():
            for game in ("kemps", "kems"):
                sel = [r for r in rows if r["voice"] in voices and r["game"] == game]
                keep = [r for r in sel if m is None or r["ps"] - r["cb"] >= m]
                kept = {id(r) for r in keep}
                minutes = sum(o["minutes"] for o in out if o["kind"] != "calls" and o["voice"] in voices and game in o["games"])
                true = [r for r in sel if r["kind"] == "calls" and r["true"]]
                cells.append(f"{side} {game}: false {sum(r['kind'] != 'calls' for r in keep) / max(minutes, 1e-9):.2f}/min, "
                             f"true direct kept {sum(id(r) in kept for r in true)}/{len(true)}")
        print(f"margin {m}: " + " | ".join(cells))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=("vectors", "tune", "direct"),
                    help="vectors: embed at the dumped ends (slow); tune: replay; direct: the cohort on direct calls")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for direct (default 2)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="where generated speech is kept")
    ap.add_argument("--dump", type=Path, default=Path("/tmp/referee-voice-bench/spot-dump.pkl"), help="voice_spot.py's dump")
    ap.add_argument("--vectors", type=Path, default=Path("/tmp/referee-voice-bench/spot-vectors.pkl"), help="this step's file")
    args = ap.parse_args()
    if args.step == "direct":
        direct(args.cache, max(1, args.jobs))
        return 0
    if not args.dump.is_file():
        ap.error(f"{args.dump} not found: run `benchmarks/voice_spot.py dump` first")
    if args.step == "vectors":
        vectors(args.dump, args.vectors, args.cache)
    elif not args.vectors.is_file():
        ap.error(f"{args.vectors} not found: run `{Path(__file__).name} vectors` first")
    else:
        tune(args.dump, args.vectors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
