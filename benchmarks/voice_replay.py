"""Decode once, decide many times: tune and diagnose the call listener's decision rules.

    nice -n 19 .venv/bin/python benchmarks/voice_replay.py dump --jobs 2           # ~10 CPU-min
    .venv/bin/python benchmarks/voice_replay.py eval '{}' '{"extra_words_db": 15}'  # tune voices
    .venv/bin/python benchmarks/voice_replay.py diagnose --voices kal16,rms '{}'    # why calls miss
    ... dump --config DN.yaml --out CACHE/replay-dn --conditions 'clean,pink 20 dB'   # another front end

`dump` runs the listener once per stream, condition and game at permissive thresholds
(no pause rule, no decoys) and keeps every raw decoder candidate (phrase, start, end,
score, frame when reported) and the stream's 10 ms frame levels (after the denoiser when
`--config` switches it on: decoding, and so the dump, depend on it; keep one `--out` per
front end). `eval` and `diagnose`
then replay those candidates through the real `CallListener._decide` (same code: holds,
arbitration, pause check, thresholds filtered from the recorded scores) under any config
override, in about a second per config instead of minutes of decoding.

With `lm_verify` switched on in an override, the audio of each stream is rebuilt (same noise
seeds as the dump) and every candidate the listener asks about is decoded by the real LM
verifier once; the hypotheses are kept in OUT/lm-hyps.cache, so another threshold or
`on_reject` replays without decoding again:

    ... eval --conditions 'clean,pink 20 dB,babble 20 dB' '{}' '{"lm_verify": {"enabled": true}, "embed_verify": {"enabled": false}}'

It is a close approximation, not the benchmark: with a permissive threshold the decoder
can report a phrase at a slightly different end frame than with the real threshold, and
utterance restarts differ; checked against `bench_voice.py` on the test voices it gives
the same heard shares within one call per cell at clean and 20 dB, and up to five calls
more at 10 dB. Figures quoted in docs/voice.md come from
`bench_voice.py`; this tool only chooses settings (on the tune voices) and explains misses.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import time
from array import array
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_voice as bv  # noqa: E402
from voice_corpus import CONDITIONS, NAMES, load_corpus, with_noise  # noqa: E402

from referee.voice.denoise import Denoiser  # noqa: E402
from referee.voice.grammar import VoiceConfig, load_config  # noqa: E402
from referee.voice.listener import PAUSE_WINDOW, CallListener, _Candidate  # noqa: E402

GROUPS = {"clean": ("clean",), "20 dB": ("pink 20 dB", "babble 20 dB"), "10 dB": ("pink 10 dB", "babble 10 dB")}


def frame_levels(pcm: np.ndarray, config: VoiceConfig | None = None) -> np.ndarray:
    """dB of every 10 ms frame, exactly as the listener computes it (of the cleaned audio
    when the config switches the denoiser on: the listener's levels are taken after it)."""
    if config is not None and config.denoise.enabled:
        den = Denoiser(config.denoise)
        raw = pcm.astype("<i2").tobytes()
        pcm = np.frombuffer(den.process(raw) + den.flush(), dtype="<i2")
    n = len(pcm) // 160
    x = pcm[: n * 160].astype(np.float64).reshape(n, 160)
    return (10 * np.log10((x * x).mean(1) + 1.0)).astype(np.float32)


def _dump_job(job: tuple) -> tuple[str, float]:
    pcm, st, (cname, kind, snr), seed, babble, config, out = job
    path = out / f"{st.name}__{cname.replace(' ', '')}.pkl"
    if path.is_file():
        return path.name, 0.0
    audio = with_noise(pcm, kind, snr, babble, seed=seed).astype(np.int16)
    rec = {"stream": st, "cond": cname, "levels": frame_levels(audio, config), "games": {}}
    t = time.process_time()
    for game in ([st.game] if st.kind == "calls" else ["kemps", "kems"]):
        res = bv.run_stream(audio, game, config)
        rec["games"][game] = [(c.phrase.text, c.start, c.end, c.score, c.seen) for c in res.candidates]
    rec["cpu"] = time.process_time() - t
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(rec))
    tmp.replace(path)
    return path.name, rec["cpu"]


def dump(cache: Path, out: Path, jobs: int, test_calls: bool, config_path: Path | None = None,
         conditions: tuple[str, ...] | None = None) -> None:
    """Permissive pass over the tune voices' calls and tune chatter (every condition, the
    noise seeds of `bench_voice --tune`), and with `test_calls` the test voices' call
    streams (the seeds of the report), for diagnosis only."""
    loose = replace(bv.permissive(load_config(config_path)), decoys=False)  # its denoiser setting too
    streams, babble = load_corpus(cache, heldout_voices=bv.TEST_VOICES, tune_voices=bv.TUNE_VOICES)
    tune = [(pcm, st, cond) for pcm, st in streams
            if st.voice in bv.TUNE_VOICES and not st.kind.startswith("chatter-heldout") for cond in CONDITIONS]
    work = [(pcm, st, cond, k, babble, loose, out) for k, (pcm, st, cond) in enumerate(tune)]
    if test_calls:
        test = [(pcm, st, cond) for pcm, st in streams if st.voice in bv.TEST_VOICES for cond in CONDITIONS]
        work += [(pcm, st, cond, 1000 + k, babble, loose, out) for k, (pcm, st, cond) in enumerate(test)
                 if st.kind == "calls"]
    if conditions:  # a subset; the noise seeds stay those of the full dump
        work = [j for j in work if j[2][0] in conditions]
    out.mkdir(parents=True, exist_ok=True)
    work.sort(key=lambda j: -len(j[0]))
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max(1, jobs)) as ex:
        for name, cpu in ex.map(_dump_job, work):
            print(f"{name} {cpu:.1f} s", flush=True)


def load_records(out: Path, voices: tuple[str, ...]) -> list[dict]:
    recs = [pickle.loads(p.read_bytes()) for p in sorted(out.glob("*.pkl"))]
    return [r for r in recs if r["stream"].voice in voices]


class StreamAudio:
    """The audio of a dumped stream, rebuilt exactly (same noise seeds as `dump`): the LM
    verification (`lm_verify`) needs the audio of each candidate, which the dump lacks."""

    def __init__(self, cache: Path, config: VoiceConfig | None = None) -> None:
        streams, self.babble = load_corpus(cache, heldout_voices=bv.TEST_VOICES, tune_voices=bv.TUNE_VOICES)
        self.config = config
        self.jobs: dict[tuple[str, str], tuple] = {}
        tune = [(pcm, st, cond) for pcm, st in streams
                if st.voice in bv.TUNE_VOICES and not st.kind.startswith("chatter-heldout") for cond in CONDITIONS]
        for k, (pcm, st, cond) in enumerate(tune):
            self.jobs[(st.name, cond[0])] = (pcm, cond, k)
        test = [(pcm, st, cond) for pcm, st in streams if st.voice in bv.TEST_VOICES for cond in CONDITIONS]
        for k, (pcm, st, cond) in enumerate(test):
            if st.kind == "calls":
                self.jobs[(st.name, cond[0])] = (pcm, cond, 1000 + k)
        self._last: tuple[tuple[str, str], bytes] | None = None

    def get(self, rec: dict) -> bytes:
        key = (rec["stream"].name, rec["cond"])
        if self._last is None or self._last[0] != key:
            pcm, (_, kind, snr), seed = self.jobs[key]
            audio = with_noise(pcm, kind, snr, self.babble, seed=seed).astype(np.int16)
            if self.config is not None and self.config.denoise.enabled:
                den = Denoiser(self.config.denoise)
                audio = np.frombuffer(den.process(audio.tobytes()) + den.flush(), dtype="<i2")
            self._last = (key, audio.astype("<i2").tobytes())
        return self._last[1]


class HypCache:
    """LM hypotheses per (stream, condition, span, verifier settings), kept on disk: a
    replay under another threshold or `on_reject` decodes nothing new."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict = pickle.loads(path.read_bytes()) if path.is_file() else {}
        self.new = 0
        self.cpu: list[float] = []  # CPU seconds of each new decode

    def save(self) -> None:
        if self.new:
            tmp = self.path.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(self.data))
            tmp.replace(self.path)
            self.new = 0


def _verify_key(config: VoiceConfig) -> tuple:
    v = config.lm_verify
    return (v.before_s, v.after_s, v.lw, v.word_weight, v.decoder, v.boost, v.vocab)


_SIMS: dict[tuple, dict] = {}  # embedding similarities per stream (embed_verify), for the whole run


class Replayer:
    """One listener per game and config, reused across streams (no decoding happens,
    except the LM verification's, cached in `hyps`, when the config switches it on)."""

    def __init__(self, config: VoiceConfig, audio: StreamAudio | None = None, hyps: HypCache | None = None) -> None:
        self.config = config
        self._lis: dict[str, CallListener] = {}
        self.audio, self.hyps = audio, hyps

    def listener(self, game: str) -> CallListener:
        if game not in self._lis:
            self._lis[game] = CallListener(game, NAMES, self.config)
        return self._lis[game]

    def candidates(self, rec: dict, game: str, every: bool = False) -> list[_Candidate]:
        by = self.listener(game)._by_text
        out = []
        for text, s, e, score, seen in rec["games"][game]:
            p = by.get(text)
            if p is not None and not p.is_decoy and (every or score >= math.log(p.threshold)):
                out.append(_Candidate(p, s, e, score, seen))
        return sorted(out, key=lambda c: c.seen)

    def replay(self, rec: dict, game: str) -> list[tuple]:
        """[(VoiceCall, stream time when it was decided)], as `feed()` in 20 ms pieces."""
        lis = self.listener(game)
        lis._pending, lis._emitted, lis._decoys = [], [], []
        if lis._refs is not None:  # the embedding check reads the candidates' audio
            if self.audio is None:
                raise ValueError("embed_verify on: the replay needs the streams' audio")
            lis._audio, lis._audio_base = bytearray(self.audio.get(rec)), 0
            e = self.config.embed_verify  # similarities do not depend on weight or center: shared by every config
            lis._sims = _SIMS.setdefault((rec["stream"].name, rec["cond"], e.voices, e.styles, e.after_s, e.top_k), {})
        if lis._verifier is not None:
            if self.audio is None or self.hyps is None:
                raise ValueError("lm_verify on: the replay needs the streams' audio and a hypothesis cache")
            lis._audio, lis._audio_base = self.audio.get(rec), 0
            vkey = _verify_key(self.config)
            name = (rec["stream"].name, rec["cond"])

            def hyp(start: int, end: int, lis: CallListener = lis) -> list[str]:
                key = (name, start, end, vkey)
                if key not in self.hyps.data:
                    lis._hyps = {}
                    self.hyps.data[key] = CallListener.lm_hypothesis(lis, start, end)
                    self.hyps.cpu.append(lis.verify_log[-1][3])
                    self.hyps.new += 1
                return self.hyps.data[key]

            lis.lm_hypothesis = hyp  # type: ignore[method-assign]
        lis._level, lis._level_base, lis._processed, lis._t_base = array("f"), 0, 0, 0.0
        cands = self.candidates(rec, game)
        lv = rec["levels"]
        n = len(lv)
        # decisions only change when a candidate is reported, its hold ends or (pause_late_ms)
        # its last pause window comes in hand or its wait for a longer reading ends
        late = [x for c in cands if c.phrase.pause_late_frames
                for x in (c.end + PAUSE_WINDOW[1] + c.phrase.pause_late_frames,
                          c.seen + PAUSE_WINDOW[1] + c.phrase.pause_late_frames + lis._hold)]
        steps = sorted({min(n + n % 2, x + x % 2) for c in cands for x in (c.seen, c.seen + lis._hold)}
                       | {min(n + n % 2, x + x % 2) for x in late})
        out, i, have = [], 0, 0
        for f in steps:
            if f > have:
                lis._level.extend(lv[have:f].tolist())
                have = f
            lis._processed = f * 160
            while i < len(cands) and cands[i].seen <= f:
                lis._pending.append(cands[i])
                i += 1
            out += [(c, f / 100) for c in lis._decide(False)]
        lis._level.extend(lv[have:].tolist())
        lis._processed = n * 160
        return out + [(c, n / 100) for c in lis._decide(True)]


def evaluate(recs: list[dict], config: VoiceConfig, audio: StreamAudio | None = None,
             hyps: HypCache | None = None) -> dict:
    """Per (game, condition group): two-word heard/direct, one-word heard, per phrase heard,
    false direct / two-word prompt / one-word prompt per minute of chatter."""
    rp = Replayer(config, audio, hyps)
    acc: dict = defaultdict(lambda: {"det": defaultdict(list), "fa": Counter(), "min": 0.0})
    group_of = {c: g for g, cs in GROUPS.items() for c in cs}
    for rec in recs:
        st = rec["stream"]
        for game in rec["games"]:
            row = acc[(game, group_of[rec["cond"]])]
            calls = rp.replay(rec, game)
            if st.kind != "calls":
                row["min"] += st.seconds / 60
                for c, _ in calls:
                    row["fa"]["direct" if not c.provisional else ("p2" if len(c.phrase.split()) > 1 else "p1")] += 1
                continue
            for t, hit in bv.match_truths(st.truths, calls):
                row["det"][t.key].append((hit is not None, hit is not None and not calls[hit][0].provisional))
    return dict(acc)


def _share(v: list) -> float:
    return sum(v) / len(v) if v else float("nan")


def format_eval(acc: dict, label: str) -> str:
    lines = []
    for (game, group), row in sorted(acc.items()):
        two = [x for k, v in row["det"].items() if not bv.one_word(k) for x in v]
        one = [x for k, v in row["det"].items() if bv.one_word(k) for x in v]
        m = max(row["min"], 1e-9)
        per = " ".join(f"{k} {_share([h for h, _ in v]):.0%}" for k, v in row["det"].items())
        lines.append(f"{label} | {game:5s} {group:5s} | 2-word {_share([h for h, _ in two]):.0%} "
                     f"(direct {_share([d for _, d in two]):.0%}) 1-word {_share([h for h, _ in one]):.0%} | "
                     f"false/min direct {row['fa']['direct'] / m:.2f} 2-word {row['fa']['p2'] / m:.2f} "
                     f"1-word {row['fa']['p1'] / m:.2f} | {per}")
    return "\n".join(lines)


def diagnose(recs: list[dict], config: VoiceConfig, audio: StreamAudio | None = None,
             hyps: HypCache | None = None) -> dict:
    """Why each call stream's missed calls were missed: no candidate at all (even at
    permissive thresholds), below the threshold, failed the pause check, or lost the
    arbitration (another phrase or name won the same audio, or the LM check rejected it)."""
    rp = Replayer(config, audio, hyps)
    out: dict = defaultdict(Counter)
    for rec in recs:
        st = rec["stream"]
        if st.kind != "calls":
            continue
        calls = rp.replay(rec, st.game)
        lis = rp.listener(st.game)  # holds the whole stream's levels after the replay
        every = rp.candidates(rec, st.game, every=True)
        for t, hit in bv.match_truths(st.truths, calls):
            if hit is not None:
                out[(rec["cond"], t.key)]["heard"] += 1
                continue
            mine = [c for c in every if c.phrase.template == t.key and c.phrase.target == t.target
                    and bv._matches(t, c.phrase.call, c.phrase.target, c.start / 100, (c.end + 1) / 100)]
            above = [c for c in mine if c.score >= math.log(c.phrase.threshold)]
            if not mine:
                why = "no candidate"
            elif not above:
                why = "threshold"
            elif not any(lis._paused(c, c.phrase.detect_pause_db) for c in above):
                why = "pause"
            else:
                why = "arbitration"
            out[(rec["cond"], t.key)][why] += 1
    return dict(out)


def format_diagnosis(d: dict) -> str:
    lines = ["| condition | phrase | calls | heard | below threshold | no pause | lost arbitration | no candidate |",
             "|---|---|---|---|---|---|---|---|"]
    order = {c[0]: i for i, c in enumerate(CONDITIONS)}
    for (cond, key), n in sorted(d.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        lines.append(f"| {cond} | {key} | {sum(n.values())} | {n['heard']} | {n['threshold']} | {n['pause']} | "
                     f"{n['arbitration']} | {n['no candidate']} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("dump", "eval", "diagnose"))
    ap.add_argument("overrides", nargs="*", help="JSON config overrides, one set per argument (default: '{}')")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/referee-voice-bench"), help="generated speech (bench_voice)")
    ap.add_argument("--out", type=Path, default=None, help="where the dump is kept (default CACHE/replay-v1)")
    ap.add_argument("--config", type=Path, default=None, help="voice config the overrides apply to")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--conditions", default=None, help="only these conditions, e.g. 'clean,pink 20 dB'")
    ap.add_argument("--test-calls", action="store_true", help="dump: also the test voices' call streams (diagnosis)")
    ap.add_argument("--voices", default=None, help="eval/diagnose: these voices (default: the tune voices)")
    ap.add_argument("--tune-voices", default=",".join(bv.TUNE_VOICES),
                    help="the voices dumped and replayed as tune voices (default %(default)s; festival's ked: "
                         "awb,slt,ked). Their streams' noise seeds follow their order in the corpus, so "
                         "an added voice leaves the others' dumps valid")
    args = ap.parse_intermixed_args()
    bv.TUNE_VOICES = tuple(v for v in args.tune_voices.split(",") if v)
    args.voices = args.voices or ",".join(bv.TUNE_VOICES)
    out = args.out or args.cache / "replay-v1"
    if args.what == "dump":
        dump(args.cache, out, args.jobs, args.test_calls, args.config,
             tuple(args.conditions.split(",")) if args.conditions else None)
        return 0
    recs = load_records(out, tuple(args.voices.split(",")))
    if args.conditions:
        recs = [r for r in recs if r["cond"] in args.conditions.split(",")]
    if not recs:
        print(f"no dump in {out} for {args.voices}: run `{Path(__file__).name} dump` first", file=sys.stderr)
        return 2
    audio: StreamAudio | None = None
    hyps = HypCache(out / "lm-hyps.cache")  # not *.pkl: those are the dump
    for ov in args.overrides or ["{}"]:
        config = load_config(args.config, overrides=json.loads(ov))
        if (config.lm_verify.enabled or config.embed_verify.enabled) and audio is None:
            audio = StreamAudio(args.cache, config)
        if args.what == "eval":
            print(format_eval(evaluate(recs, config, audio, hyps), ov))
        else:
            print(f"\n{ov}\n" + format_diagnosis(diagnose(recs, config, audio, hyps)))
        if hyps.cpu:
            cpu = sorted(hyps.cpu)
            print(f"  LM decodes: {len(cpu)} new, CPU per decode median {cpu[len(cpu) // 2] * 1000:.0f} ms, "
                  f"p90 {cpu[int(0.9 * (len(cpu) - 1))] * 1000:.0f} ms")
            hyps.cpu.clear()
        hyps.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
