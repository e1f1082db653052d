"""Streaming keyword spotter for spoken calls (pocketsphinx keyword mode).

Feed 16 kHz mono int16 PCM in pieces of any number of whole samples (an odd byte count is refused); get `VoiceCall`s back as they are decided.
How a detection is decided (each rule fixes a measured trap, see docs/voice.md):
- the utterance keeps running across detections (restarting after each one turns
  "stop kemps" into "kemps"); it is restarted only in silence, so cost stays bounded;
- a detection is held `hold_ms` after its end so a longer overlapping phrase can win
  ("stop kemps" over "kemps", "contre kem's" over "kem's");
- a phrase overlapping one already reported is the same call (de-duplication);
- decoys (words one phone away from a call word: "camps", "count") are spotted too; a
  call that a decoy fits better, per phone and by the phrase's `verify_margin`, is dropped;
- a call is an exclamation: where configured, a phrase that speech carries straight on
  after (the level 50-200 ms after its end has not dropped `direct_pause_db` below the
  phrase's own level) is only a "heard: ...?" prompt, and below `detect_pause_db` dropped;
  in a noisy room the detection drop asked is relative to the background (`pause_floor`);
  where configured (`pause_late_ms`) the detection pause may start a little after the
  reading's end (the speaker drew the word out past it), the decision waiting for it;
- and it starts out of a pause too: where configured (`direct_lead_pause_db`), a phrase that
  runs on from speech before it (the level 50-250 ms before its start is not that many dB
  below the phrase's own: "I think contra dancing…") is only a prompt, never direct;
- a longer phrase must leave its extra words real time and real voice: "double kem's"
  fitted over background babble before a lone "kem's" is not credible (`extra_words_db`).
Optionally (`denoise: enabled`) the audio first goes through a streaming noise reducer
(referee/voice/denoise.py, +10 ms); the decoder, the VAD and the frame levels of the
pause checks all see the cleaned audio, on the input's clock.
Optionally (`lm_verify: enabled`) a two-word call about to be reported is decoded again
with the general English language model (referee/voice/verify.py) and kept only if its
words come out; its detection threshold can then be lower (`lm_verify.thresholds`).
Optionally (`embed_verify: enabled`) a two-word candidate's score is moved up or down by
how much its audio sounds like flite renderings of the phrase to a pretrained word
embedding (referee/voice/phrase_refs.py): spotted `spot_below` nats under its threshold,
it is reported only if the moved score clears the usual threshold.
Optionally (`embed_spot: enabled`) the same embedding is also asked where speech ends in a
pause and the spotter reported nothing (referee/voice/embed_spot.py): the two-word call it
finds there, clearly, is reported as a one-tap prompt, never straight to the referee (and,
with `one_word_similarity` set, a one-word call where it finds no two-word one).
"""

from __future__ import annotations

import math
import tempfile
import time
from array import array
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from referee.voice.denoise import Denoiser
from referee.voice.embed_spot import spot
from referee.voice.embedding import WINDOW, EmbeddingUnavailable, shared_embedder
from referee.voice.grammar import DECOYS, Grammar, Phrase, VoiceConfig, build_grammar, load_config
from referee.voice.phrase_refs import PhraseReferences
from referee.voice.segment_ends import SegmentEnds, frame_levels_db
from referee.voice.verify import LmVerifier, base_word, heard

RATE = 16000
FRAME_S = 0.01  # pocketsphinx frames are 10 ms
_SILENCE_FOR_RESTART_S = 0.3
CONF_HALF = 4.0  # nats per phone above the threshold that give confidence 0.5
SPOT_CONF_HALF = 0.1  # embed_spot: similarity above its threshold that gives confidence 0.5
_LN_BASE = math.log(1.0001)  # pocketsphinx's logmath base
_SENSCR_SHIFT = 10  # pocketsphinx scores are logmath values >> 10
_KWS_MAX = 1500  # kws_search.c subtracts this from a detection's score before reporting
PAUSE_WINDOW = (5, 20)  # frames after a phrase's end whose level is compared with the phrase's
LEAD_WINDOW = (5, 25)  # frames before a phrase's start whose level is compared with the phrase's
_LEVEL_KEEP = 1000  # frames of level history kept (10 s)
_FLOOR_MIN_FRAMES = 50  # background level needs at least 0.5 s before the phrase
_AUDIO_KEEP_S = 6.0  # audio kept for the LM verification (lm_verify) and the embedding check, seconds
# embed_spot: a speech end is not asked about when a reading the spotter reported (or is
# still holding) overlaps these frames around it: that call was heard (or is being decided).
# The span reaches past the end because a "speech end" can fall inside a call (a long stop
# between "cut" and "south" in noise) whose reading the spotter reports only later: with
# 40 frames, rms's "cut north" in pink noise (reading ending 49 frames after the end found)
# became a prompt before the spotter's direct call.
SPOT_SPAN = (-50, 60)
# What the embedding hears at a speech end is not reported again when the same phrase (template
# and target) was reported ending up to this many frames before it: a drawn-out call runs on past
# the phrase the decoder matched (a neural test voice's "cut west" went on 0.5-0.6 s after the
# spotter's reading of it, and its speech end became a second prompt for the same call, 11 of
# 73 calls of one voice). Another phrase there is still reported: skipping such ends altogether
# lost a Cut call of the flite test voices in babble, and matching on the call alone (a "counter"
# and a "stop kemps" are both a Cut without a target) lost a neural voice's "stop kemps".
SPOT_SAME_CALL = 100
SPOT_WAIT = 100  # frames a speech end waits for the spotter's pending readings near it, at most


def kws_score(seg_prob: float) -> float:
    """A keyword segment's `prob` back to the quantity compared with the threshold:
    ln p(phrase path)/p(best phone-loop path). kws_search.c reports
    `(ratio in score units) - KWS_MAX` and the binding returns it through logmath exp."""
    units = math.log(seg_prob) / _LN_BASE + _KWS_MAX
    return units * (1 << _SENSCR_SHIFT) * _LN_BASE


@dataclass(frozen=True)
class VoiceCall:
    """A spoken call. `t` is when the phrase ended, on the stream's clock (seconds)."""

    t: float
    call: str  # kemps | cut | kems | double_kems | contre_kems
    target: str | None  # the named player, Cut only
    confidence: float  # 0..1, how far the score cleared the phrase's threshold
    provisional: bool  # confirm with a tap first: one-word calls, and calls below `direct`
    phrase: str  # the phrase heard, e.g. "cut east"
    t_start: float | None = None  # when the phrase began

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["t"] = round(self.t, 3)
        d["t_start"] = None if self.t_start is None else round(self.t_start, 3)
        d["confidence"] = round(self.confidence, 3)
        return d


@dataclass
class _Candidate:
    phrase: Phrase
    start: int  # absolute frame index in the stream
    end: int  # inclusive
    score: float  # ln p(phrase path)/p(best phone-loop path), compared with ln(threshold)
    seen: int = 0  # frame at which the decoder reported it (end + kws_delay or later)
    raw: float | None = None  # the spotter's own score, once the embedding check moved `score`

    @property
    def per_phone(self) -> float:
        return self.score / self.phrase.n_phones


def _cohort_words(game: str, names: list[str] | tuple[str, ...]) -> list[str]:
    """embed_spot's cohort: the game's decoy words and phrases, less any holding a player's name."""
    taken = {n.lower() for n in names}
    return [d for d in DECOYS[game] if not set(d.split()) & taken]


class CallListener:
    """`CallListener("kemps", ["north", "east", "south", "west"]).feed(pcm) -> [VoiceCall]`."""

    def __init__(
        self,
        rules_game: str,
        names: list[str] | tuple[str, ...],
        config: VoiceConfig | str | Path | None = None,
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        """`rules_game`: kemps, kems, kemps:no_cut…; `rules`: the game header's rule overrides
        (the no-Cut variant drops the Cut phrases)."""
        self.config = config if isinstance(config, VoiceConfig) else load_config(config)
        vcfg = self.config.lm_verify
        ecfg = self.config.embed_verify
        # with the LM check on, two-word phrases may be spotted below their usual threshold
        spot = replace(self.config, thresholds={**self.config.thresholds, **vcfg.thresholds}) if vcfg.enabled else self.config
        self.grammar: Grammar = build_grammar(rules_game, list(names), spot, rules)
        self._warnings = list(self.grammar.warnings)
        self._refs: PhraseReferences | None = None
        two_word = [_spoken(p) for p in self.grammar.phrases if not p.is_decoy and p.n_words >= 2]
        scfg = self.config.embed_spot
        # embed_spot's one-word calls (only with `one_word_similarity` set)
        one_word = [_spoken(p) for p in self.grammar.phrases if not p.is_decoy and p.n_words == 1] if (
            scfg.enabled and scfg.one_word_similarity is not None) else []
        refs = None
        if ecfg.enabled or scfg.enabled:
            try:
                refs = PhraseReferences(list(dict.fromkeys(two_word + one_word)), ecfg, shared_embedder())
            except EmbeddingUnavailable as exc:  # the spotter alone still hears every call it did before
                self._warnings.append(f"embedding check off: {exc}")
        if ecfg.enabled and refs is not None:  # with the check on, two-word phrases are spotted `spot_below` nats under their threshold
            self._refs = refs
            low = {k: v * math.exp(-ecfg.spot_below) if len(k.split()) > 1 else v for k, v in self.config.thresholds.items()}
            self.grammar = build_grammar(rules_game, list(names), replace(self.config, thresholds=low), rules)
        # embed_spot: the two-word calls the embedding is asked about where speech ends
        self._spot_refs = refs if scfg.enabled else None
        # spoken form -> its first phrase (reversed: an earlier variant overwrites a later one)
        self._spot_one_word = frozenset(one_word)
        self._spot_phrases = {_spoken(p): p for p in reversed(self.grammar.phrases)
                              if not p.is_decoy and (p.n_words >= 2 or _spoken(p) in self._spot_one_word)}
        self._spot_calls = {k: (p.call, p.target) for k, p in self._spot_phrases.items()}  # variants do not compete
        self._ends = SegmentEnds(scfg.ends) if self._spot_refs is not None else None
        self._cohort: PhraseReferences | None = None
        self._cohort_words: list[str] = []
        if self._spot_refs is not None and (scfg.cohort_margin is not None or (one_word and scfg.one_word_cohort is not None)):
            self._cohort_words = _cohort_words(self.grammar.game, names)
            self._cohort = PhraseReferences(self._cohort_words, ecfg, shared_embedder())  # ~8 s the first time, cached
        self._end_queue: deque[int] = deque()
        self._kws_delay = int(self.config.decoder.get("kws_delay", 10))  # frames the decoder reports a reading after its end
        self._usual_lt = {k: math.log(v) for k, v in self.config.thresholds.items()}  # ln, per template
        self._by_text = self.grammar.by_text()
        self._decoder = _make_decoder(self.grammar, self.config.decoder)
        from pocketsphinx import Vad

        self._vad = Vad(Vad.LOOSE, RATE, FRAME_S)
        self._vad_bytes = int(self._vad.frame_bytes)
        self._chunk_bytes = max(1, int(RATE * self.config.chunk_ms / 1000)) * 2
        self._hold = max(0, round(self.config.hold_ms / 1000 / FRAME_S))
        self._hold_below = max(0, round(self.config.embed_verify.hold_below_ms / 1000 / FRAME_S))
        self._denoiser = Denoiser(self.config.denoise) if self.config.denoise.enabled else None
        self._buf = bytearray()
        self._vad_buf = bytearray()
        self._received = 0  # samples handed to feed()
        self._processed = 0  # samples given to the decoder
        self._t_base = 0.0  # stream time of sample 0
        self._utt_start = 0  # sample index where the running utterance began
        self._in_utt = False
        self._silent_s = 0.0
        self._seen: set[tuple[str, int]] = set()
        self._pending: list[_Candidate] = []
        self._emitted: list[_Candidate] = []
        self._decoys: list[_Candidate] = []  # recent decoy detections (verification only)
        self._level = array("f")  # dB per 10 ms frame, the last _LEVEL_KEEP frames
        self._level_base = 0  # absolute frame index of self._level[0]
        self._floor_frames = max(_FLOOR_MIN_FRAMES, round(self.config.floor_window_s / FRAME_S))
        self._verifier = LmVerifier(_call_words(self.grammar), vcfg) if vcfg.enabled else None
        # the last embedding checks: (start frame, end frame, similarity, CPU s); embed_checks counts all
        self.embed_log: deque[tuple[int, int, float, float]] = deque(maxlen=256)
        self.embed_checks = 0
        # similarity per (phrase as spoken, window end sample): variants of a phrase
        # ("stop kemps", "stop kemps_b") often end on the same frame
        self._sims: dict[tuple[str, int], float] = {}
        self._audio = bytearray()  # the last seconds given to the decoder (LM or embedding check only)
        self._audio_base = 0  # sample index of self._audio[0]
        self._hyps: dict[tuple[int, int], list[str]] = {}  # LM hypotheses of recent spans
        # the last LM decodes: (start frame, end frame, hypothesis, CPU s); lm_decodes counts all
        self.verify_log: deque[tuple[int, int, list[str], float]] = deque(maxlen=256)
        self.lm_decodes = 0

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self._warnings)

    def feed(self, pcm16_mono_16k: bytes, t0: float | None = None) -> list[VoiceCall]:
        """Add audio; `t0` is the stream time of its first sample (defaults to continuing)."""
        if len(pcm16_mono_16k) % 2:
            raise ValueError("PCM must be 16-bit: an even number of bytes")
        if t0 is not None:
            self._t_base = t0 - self._received / RATE
        self._received += len(pcm16_mono_16k) // 2
        # the denoiser's output is aligned sample for sample with its input (only later)
        self._buf.extend(self._denoiser.process(pcm16_mono_16k) if self._denoiser else pcm16_mono_16k)
        out: list[VoiceCall] = []
        while len(self._buf) >= self._chunk_bytes:
            chunk = bytes(self._buf[: self._chunk_bytes])
            del self._buf[: self._chunk_bytes]
            out.extend(self._process(chunk))
        return out

    def flush(self) -> list[VoiceCall]:
        """End of stream: decide everything still held and close the utterance."""
        out: list[VoiceCall] = []
        if self._denoiser is not None:
            self._buf.extend(self._denoiser.flush())
            self._denoiser = Denoiser(self.config.denoise)  # a later stream starts afresh
            while len(self._buf) >= self._chunk_bytes:
                chunk = bytes(self._buf[: self._chunk_bytes])
                del self._buf[: self._chunk_bytes]
                out.extend(self._process(chunk))
        if self._buf:
            out.extend(self._process(bytes(self._buf)))
            self._buf.clear()
        if self._in_utt:
            self._decoder.end_utt()
            self._collect()
            self._in_utt = False
        out.extend(self._decide(final=True))
        if self._spot_refs is not None:
            out.extend(self._spot_ends(final=True))
        self._utt_start = self._processed
        self._seen.clear()
        return out

    # -- internals -------------------------------------------------------------------

    def _process(self, chunk: bytes) -> list[VoiceCall]:
        if not self._in_utt:
            self._decoder.start_utt()
            self._in_utt = True
            self._utt_start = self._processed
            self._seen.clear()
        self._decoder.process_raw(chunk, False, False)
        if self._verifier is not None or self._refs is not None or self._spot_refs is not None:
            self._audio.extend(chunk)
            keep = int(_AUDIO_KEEP_S * RATE) * 2
            if len(self._audio) > 2 * keep:
                self._audio_base += (len(self._audio) - keep) // 2
                del self._audio[: len(self._audio) - keep]
        self._processed += len(chunk) // 2
        self._track_silence(chunk)
        self._collect()
        if self._refs is not None:
            # check each two-word reading as soon as its window's audio is in hand, while its
            # hold runs: the piece that ends the hold then returns the call without the ~20 ms
            self._embed_check(list(self._pending), self._processed // 160, final=False)
        out = self._decide(final=False)
        if self._spot_refs is not None:
            out.extend(self._spot_ends(final=False))
        self._maybe_restart()
        return out

    def _collect(self) -> None:
        if self._decoder.hyp() is None:
            return
        base = self._utt_start // 160
        for seg in self._decoder.seg():
            word = seg.word.strip()
            key = (word, seg.end_frame)
            if key in self._seen:
                continue
            self._seen.add(key)
            phrase = self._by_text.get(word)
            if phrase is None:
                continue
            score = kws_score(seg.prob) if seg.prob > 0 else math.log(phrase.threshold)
            cand = _Candidate(phrase, base + seg.start_frame, base + seg.end_frame, score, self._processed // 160)
            (self._decoys if phrase.is_decoy else self._pending).append(cand)

    def _decide(self, final: bool) -> list[VoiceCall]:
        """Emit candidates whose hold (counted from when the decoder reported them) is over;
        of overlapping candidates the credible one with the most words, then the best
        score, wins."""
        now = self._processed // 160
        out: list[VoiceCall] = []
        self._pending.sort(key=lambda c: c.end)
        while self._pending:
            first = self._pending[0]
            if not final and now < first.seen + self._hold_of(first):
                break
            group = [c for c in self._pending if _overlap(c, first)]
            if self._refs is not None and self._embed_check(group, now, final):
                continue  # a two-word reading fell below its threshold: decide again without it
            credible = [c for c in group if _credible(c, group) and self._extra_words_voiced(c, group)] or [first]
            ok = sorted((c for c in credible if _verified(c, self._decoys) and self._paused(c, c.phrase.detect_pause_db)
                         and not self._late_and_outlasted(c, credible)), key=_rank, reverse=True)
            best = ok[0] if ok else None
            if not final and any(self._pause_may_come(c, now) and c not in ok and (best is None or _rank(c) > _rank(best))
                                 for c in credible if _verified(c, self._decoys)):
                break  # a better reading without its pause yet may still show one a little later (pause_late_ms)
            if (not final and best is not None and self._late_by(best) > 0
                    and now < best.seen + best.phrase.pause_late_frames + PAUSE_WINDOW[1] + self._hold):
                # its pause came late, so the speaker went on past the reading: a reading of the
                # same audio ending as late as the last pause window ("contre kem's" around a
                # "kem's") is reported up to that much after this one was
                break
            if best is None:  # every reading of this audio is a decoy's better: nothing said
                if not final and any(now < c.seen + self._hold_of(c) for c in group):
                    break  # a member still in its hold may yet be verified
                self._pending = [c for c in self._pending if c not in group]
                continue
            if not final and best is not first and now < best.seen + self._hold_of(best):
                break  # a longer rival reported later is still in its hold: wait for it
            self._pending = [c for c in self._pending if c not in group]
            if any(_overlap(best, e) for e in self._emitted):
                continue
            demote = False
            if self._verifier is not None:
                best, demote = self._lm_choice(ok)
                if best is None:
                    continue
            self._emitted.append(best)
            call = self._to_call(best, group if self._refs is not None else None)
            out.append(replace(call, provisional=True) if demote else call)
        # keep only recent emissions for de-duplication
        self._emitted = [e for e in self._emitted if now - e.end < 300]
        self._decoys = [d for d in self._decoys if now - d.end < 300]
        return out

    def _embed_check(self, group: list[_Candidate], now: int, final: bool) -> bool:
        """Move each two-word candidate's score by its embedding similarity, once its window's
        audio is in hand; drop (from the pending list) those that then miss their usual
        threshold. True when one was dropped."""
        ecfg, refs = self.config.embed_verify, self._refs
        assert refs is not None  # only called with the check on
        after = round(ecfg.after_s * RATE)
        dropped = False
        for c in group:
            if c.raw is not None or c.phrase.n_words < 2:
                continue
            end = (c.end + 1) * 160 + after
            if end > now * 160 and not final:
                continue  # still in its hold: checked in a later round
            key = (_spoken(c.phrase), end)
            if key not in self._sims:
                t = time.process_time()
                pcm, at = self._window(end)
                if len(self._sims) > 512:
                    self._sims.clear()
                self._sims[key] = refs.similarity(key[0], pcm, at)
                self.embed_checks += 1
                self.embed_log.append((c.start, c.end, self._sims[key], time.process_time() - t))
            c.raw = c.score
            c.score += ecfg.weight * (self._sims[key] - ecfg.center)
            if c.score < self._usual_lt[c.phrase.template]:
                self._pending.remove(c)
                dropped = True
        return dropped

    def _spot_ends(self, final: bool) -> list[VoiceCall]:
        """embed_spot: ask the embedding about each speech end whose window is in hand and
        that no reading of the spotter is near; report what it hears there as a prompt."""
        scfg, refs = self.config.embed_spot, self._spot_refs
        assert refs is not None  # only called with embed_spot on
        now = self._processed // 160
        afters = [round(scfg.after_s * RATE)] + ([round(scfg.second_after_s * RATE)] if scfg.second_after_s is not None else [])
        out: list[VoiceCall] = []
        while self._end_queue:
            f = self._end_queue[0]
            end = (f + 1) * 160 + max(afters)  # the last window's audio must be in hand
            lo_f, hi_f = f + SPOT_SPAN[0], f + SPOT_SPAN[1]
            near_pending = any(c.start <= hi_f and lo_f <= c.end for c in self._pending)
            reported = now >= hi_f + self._kws_delay  # the spotter has reported every reading ending in the span
            if not final and (end > self._processed or not reported or (near_pending and now < f + SPOT_WAIT)):
                break  # its audio, or the spotter's verdict on the readings near it, is still to come
            self._end_queue.popleft()
            if near_pending or any(e.start <= hi_f and lo_f <= e.end for e in self._emitted):
                continue  # the spotter heard something there
            t = time.process_time()
            windows = [self._window((f + 1) * 160 + a) for a in afters]
            got = spot(refs, list(self._spot_phrases), self._spot_calls, windows, scfg, self._cohort, self._cohort_words,
                       self._spot_one_word)
            self.embed_checks += 1
            self.embed_log.append((f, f, got.similarity if got else float("nan"), time.process_time() - t))
            if got is None:
                continue
            p = self._spot_phrases[got.phrase]
            if any((e.phrase.template, e.phrase.target) == (p.template, p.target) and f - SPOT_SAME_CALL <= e.end for e in self._emitted):
                continue  # the call reported just before, heard again as the utterance runs on
            # a stand-in reading, so a late reading of the same audio by the spotter is the same call
            self._emitted.append(_Candidate(p, f + SPOT_SPAN[0], f, math.log(p.threshold), now))
            # a one-word find exists only with one_word_similarity set: its own floor
            one = got.phrase in self._spot_one_word and scfg.one_word_similarity is not None
            lead = got.similarity - (scfg.one_word_similarity if one else scfg.similarity)
            out.append(VoiceCall(t=self._t_base + (f + 1) * FRAME_S, call=p.call, target=p.target,
                                 confidence=lead / (lead + SPOT_CONF_HALF), provisional=True, phrase=got.phrase))
        return out

    def _window(self, end: int) -> tuple[np.ndarray, int]:
        """The kept audio of the embedding window ending at sample `end` (int16) and where
        `end` falls in it."""
        lo = max(self._audio_base, end - WINDOW)
        hi = min(end, self._audio_base + len(self._audio) // 2)
        pcm = np.frombuffer(bytes(self._audio[2 * (lo - self._audio_base) : 2 * max(0, hi - self._audio_base)]), dtype="<i2")
        return pcm, end - lo

    def _lm_choice(self, ok: list[_Candidate]) -> tuple[_Candidate | None, bool]:
        """The reading to report among `ok` (best first) with the LM check: the first
        two-word reading whose words the LM hears, else a rejected one scoring at or above
        its usual threshold when `on_reject` keeps (or demotes, second value True) it,
        else the best one-word reading; (None, False): nothing is reported."""
        mode = self.config.lm_verify.on_reject
        two = [c for c in ok if c.phrase.n_words >= 2]
        if two and mode == "prompt" and two[0] is ok[0] and two[0].score >= self._usual_lt[two[0].phrase.template] \
                and self._to_call(two[0]).provisional:
            return two[0], False  # a one-tap prompt anyway: nothing for the LM to decide (no decode)
        if two:
            hyp = self.lm_hypothesis(min(c.start for c in two), max(c.end for c in two))
            for c in two:
                if heard(c.phrase.text, hyp):
                    return c, False
            usual = [c for c in two if c.score >= self._usual_lt[c.phrase.template]]
            if usual and mode != "drop":
                return usual[0], mode == "prompt"
        one = [c for c in ok if c.phrase.n_words < 2]
        return (one[0], False) if one else (None, False)

    def lm_hypothesis(self, start: int, end: int) -> list[str]:
        """Words the general LM hears from `before_s` before frame `start` to `after_s`
        after frame `end` (cached per span: a rival reading of the same audio asks again)."""
        if (start, end) in self._hyps:
            return self._hyps[(start, end)]
        vc = self.config.lm_verify
        a = max(self._audio_base, (start - round(vc.before_s / FRAME_S)) * 160)
        b = (end + 1 + round(vc.after_s / FRAME_S)) * 160
        pcm = bytes(self._audio[2 * (a - self._audio_base) : 2 * max(0, b - self._audio_base)])
        t = time.process_time()
        hyp = self._verifier.hypothesis(pcm) if pcm and self._verifier is not None else []
        self.verify_log.append((start, end, hyp, time.process_time() - t))
        self.lm_decodes += 1
        if len(self._hyps) > 32:
            self._hyps.clear()
        self._hyps[(start, end)] = hyp
        return hyp

    def _hold_of(self, c: _Candidate) -> int:
        """Frames a candidate is held after the decoder reported it. With the embedding check,
        a two-word reading spotted under its usual threshold is often the first, clipped
        reading of a call ("cut ea-") whose full reading the decoder reports a little later:
        it waits `hold_below_ms` more for it."""
        if self._refs is not None and c.phrase.n_words >= 2 and _raw(c) < self._usual_lt[c.phrase.template]:
            return self._hold + self._hold_below
        return self._hold

    def _to_call(self, c: _Candidate, group: list[_Candidate] | None = None) -> VoiceCall:
        p = c.phrase
        # 0 at the (usual) threshold, 0.5 at CONF_HALF nats per phone above it, towards 1 beyond
        margin = max(0.0, c.score - self._usual_lt.get(p.template, math.log(p.threshold))) / p.n_phones
        conf = margin / (margin + CONF_HALF)
        return VoiceCall(
            t=self._t_base + (c.end + 1) * FRAME_S,
            call=p.call,
            target=p.target,
            confidence=conf,
            provisional=(self.config.one_word_provisional and p.n_words == 1)
            or (p.direct_threshold is not None and _direct_score(c, group) < math.log(p.direct_threshold))
            or not self._paused(c, p.direct_pause_db, relative=self.config.pause_floor_direct, late=False)
            or not self._lead_paused(c, p.direct_lead_pause_db),
            phrase=_spoken(p),
            t_start=self._t_base + c.start * FRAME_S,
        )

    def _track_silence(self, chunk: bytes) -> None:
        self._vad_buf.extend(chunk)
        n = self._vad_bytes
        while len(self._vad_buf) >= n:
            frame = bytes(self._vad_buf[:n])
            del self._vad_buf[:n]
            self._silent_s = 0.0 if self._vad.is_speech(frame) else self._silent_s + FRAME_S
            self._level.append(float(frame_levels_db(np.frombuffer(frame, dtype="<i2"))[0]))
            if self._ends is not None:
                end = self._ends.push(self._level[-1])
                if end is not None:
                    self._end_queue.append(end)
        if len(self._level) > 2 * _LEVEL_KEEP:
            self._level_base += len(self._level) - _LEVEL_KEEP
            del self._level[:-_LEVEL_KEEP]

    def _span_level(self, start: int, end: int) -> float | None:
        """Level of frames `start`..`end` (absolute, end excluded): the 80th percentile of
        their dB, so a loud word counts and a short dip does not (None: not known)."""
        lv, base = self._level, self._level_base
        a, b = start - base, end - base
        if a < 0 or b > len(lv) or b <= a:
            return None
        inside = sorted(lv[a:b])
        return inside[min(len(inside) - 1, int(0.8 * len(inside)))]

    def _phrase_level(self, c: _Candidate) -> float | None:
        """The phrase's own level (`_span_level` of its frames)."""
        return self._span_level(c.start, c.end + 1)

    def pause_drop(self, c: _Candidate, late: bool = True) -> float | None:
        """dB from the phrase's level (80th percentile of its frames) down to the mean level
        50-200 ms after its end; None when those frames are not (or no longer) known. With
        `pause_late_ms` for the phrase (and `late`), the largest drop of that window moved up
        to so many frames later (each later window only once all its frames are in hand)."""
        drops = self._pause_drops(c)
        return (max(drops) if late else drops[0]) if drops else None

    def _pause_drops(self, c: _Candidate) -> list[float]:
        """The drop of the usual pause window, then of each later one (`pause_late_ms`) in hand."""
        lv, base = self._level, self._level_base
        pa, pb = c.end + PAUSE_WINDOW[0] - base, min(len(lv), c.end + PAUSE_WINDOW[1] - base)
        peak = self._phrase_level(c)
        if peak is None or pb <= pa:
            return []
        span = PAUSE_WINDOW[1] - PAUSE_WINDOW[0]
        drops = [peak - sum(lv[pa:pb]) / (pb - pa)]
        for a in range(pa + 1, min(pa + c.phrase.pause_late_frames, len(lv) - span) + 1):
            drops.append(peak - sum(lv[a : a + span]) / span)
        return drops

    def _late_by(self, c: _Candidate) -> int:
        """Frames after the usual window where `c`'s detection pause was found (0: in it)."""
        if not c.phrase.pause_late_frames:
            return 0
        need = self.pause_needed(c, c.phrase.detect_pause_db)
        drops = self._pause_drops(c)
        return next((i for i, d in enumerate(drops) if need is None or d >= need), 0)

    def _late_and_outlasted(self, c: _Candidate, credible: list[_Candidate]) -> bool:
        """`c`'s pause came only in a late window while another credible reading of the same
        audio ends after it (or, with more words, with it): the speaker went on past `c`, and
        that reading covers more of what was said ("contre kem's" around a "kem's", a "counter"
        whose start was read as "kemps")."""
        if self._late_by(c) <= 0:
            return False
        return any(
            o is not c and _overlap(o, c) and (o.end > c.end + 2 or (o.phrase.n_words > c.phrase.n_words and o.end >= c.end - 2))
            for o in credible
        )

    def _pause_may_come(self, c: _Candidate, now: int) -> bool:
        """A later pause window of `c` (`pause_late_ms`) is not in hand yet at frame `now`."""
        return now < c.end + PAUSE_WINDOW[1] + c.phrase.pause_late_frames and c.phrase.pause_late_frames > 0

    def lead_drop(self, c: _Candidate) -> float | None:
        """`lead_drop_db` of `c` in the level history (None: frames not, or no longer, known)."""
        return lead_drop_db(self._level, c.start - self._level_base, c.end + 1 - self._level_base)

    def _lead_paused(self, c: _Candidate, need_db: float | None) -> bool:
        """True when no pause before `c` is required, or the level before it is `need_db`
        under the phrase's (unknown, at the start of a stream: counted as a pause)."""
        if need_db is None:
            return True
        drop = self.lead_drop(c)
        return drop is None or drop >= need_db

    def background_level(self, c: _Candidate) -> float | None:
        """The room's level before the phrase: `floor_percentile` of the frame levels in the
        `floor_window_s` before it starts (None: under half a second of it is known)."""
        lv, base = self._level, self._level_base
        b = min(len(lv), c.start - base)
        a = max(0, b - self._floor_frames)
        if b - a < _FLOOR_MIN_FRAMES:
            return None
        w = sorted(lv[a:b])
        return w[int(self.config.floor_percentile / 100.0 * (len(w) - 1))]

    def pause_needed(self, c: _Candidate, need_db: float | None) -> float | None:
        """The drop (dB) `c` must show: `need_db`, or with `pause_fraction` set and a noisy
        room, min(need_db, fraction × (phrase level − background)), at least `pause_min_db`:
        in noise at 10 dB SNR the level after a call cannot fall 12 dB, only to the noise."""
        frac = self.config.pause_fraction
        if need_db is None or frac is None:
            return need_db
        peak, floor = self._phrase_level(c), self.background_level(c)
        if peak is None or floor is None:
            return need_db
        return min(need_db, max(self.config.pause_min_db, frac * (peak - floor)))

    def _extra_words_voiced(self, c: _Candidate, group: list[_Candidate]) -> bool:
        """A longer phrase's extra words must be speech as loud as the rest: "double kem's"
        fitted over background babble and a lone "kem's" puts "double" on the babble, which
        is `extra_words_db` or more below the "kem's" (None: no check)."""
        need = self.config.extra_words_db
        if need is None:
            return True
        for s in group:
            if s.phrase.n_words < c.phrase.n_words and s.start > c.start:
                extra, short = self._span_level(c.start, s.start), self._phrase_level(s)
                if extra is not None and short is not None and extra < short - need:
                    return False
        return True

    def _paused(self, c: _Candidate, need_db: float | None, relative: bool = True, late: bool = True) -> bool:
        """True when no pause is required, or the level drops enough right after `c`
        (`pause_needed`, or exactly `need_db` when not `relative`; unknown at the very end
        of a stream: counted as a pause). `late`: later windows count (`pause_late_ms`; the
        detection pause), else only the usual one (the direct pause)."""
        need = self.pause_needed(c, need_db) if relative else need_db
        if need is None:
            return True
        drop = self.pause_drop(c, late)
        return drop is None or drop >= need

    def _maybe_restart(self) -> None:
        """Restart the utterance in silence once it is long (keeps per-frame cost flat)."""
        length = (self._processed - self._utt_start) / RATE
        limit = self.config.restart_after_s
        quiet = self._silent_s >= _SILENCE_FOR_RESTART_S
        if self._pending or length < limit or not (quiet or length > 3 * limit):
            return
        self._decoder.end_utt()
        self._collect()
        self._decoder.start_utt()
        self._utt_start = self._processed
        self._seen.clear()


def lead_drop_db(levels: Sequence[float], start: int, end: int) -> float | None:
    """dB from the level of frames `start`..`end` (end excluded; their 80th percentile, as
    `_span_level`) down to the mean level 50-250 ms before `start` (`LEAD_WINDOW`); None when
    any of those frames is outside `levels` (the stream's first 250 ms). Shared with
    benchmarks/voice_lead_pause.py, which runs it on a whole stream's levels."""
    a, b = start - LEAD_WINDOW[1], start - LEAD_WINDOW[0]
    if a < 0 or end > len(levels) or end <= start:
        return None
    inside = sorted(levels[start:end])
    peak = inside[min(len(inside) - 1, int(0.8 * len(inside)))]
    return float(peak - sum(levels[a:b]) / (b - a))


def _overlap(a: _Candidate, b: _Candidate) -> bool:
    return a.start <= b.end and b.start <= a.end


DECOY_MIN_SHARED = 0.5  # a decoy competes when it shares half of its audio and half of the call's


def rival_margin(c: _Candidate, decoys: list[_Candidate]) -> float:
    """Per-phone score of the call minus that of the best decoy spanning (mostly) the
    same audio; +inf when no decoy competes. Both spans must mostly coincide: a short
    decoy inside a two-word call ("kemp" in "stop kemps") is no rival (measured: letting
    it compete drops most true two-word calls)."""
    best = -math.inf
    for d in decoys:
        shared = min(c.end, d.end) - max(c.start, d.start) + 1
        if shared >= DECOY_MIN_SHARED * max(d.end - d.start + 1, c.end - c.start + 1):
            best = max(best, d.per_phone)
    return c.per_phone - best


def _verified(c: _Candidate, decoys: list[_Candidate]) -> bool:
    m = c.phrase.verify_margin
    return m is None or rival_margin(c, decoys) >= m


def _raw(c: _Candidate) -> float:
    """The spotter's own score (before the embedding check moved it)."""
    return c.raw if c.raw is not None else c.score


def _direct_score(c: _Candidate, group: list[_Candidate] | None) -> float:
    """Score compared with the direct threshold: the embedding check may take a call off the
    direct path (the lower of the spotter's and the moved score), never put it there; any
    reading of the same call in the group counts (the reported one may be a clipped one)."""
    same = [g for g in group or () if g.phrase.call == c.phrase.call and g.phrase.target == c.phrase.target]
    return max(min(g.score, _raw(g)) for g in [c, *same])


def _rank(c: _Candidate) -> tuple[int, float]:
    return (c.phrase.n_words, c.score)


MIN_FRAMES_PER_PHONE = 5  # 50 ms: faster than any real speech, slower than the HMM minimum (3)


def _credible(c: _Candidate, group: list[_Candidate]) -> bool:
    """A longer phrase must leave its extra words real time: "stop kemps" fitted over a
    lone "kemps" squeezes "stop" into the HMM minimum duration before it."""
    for s in group:
        if s.phrase.n_words < c.phrase.n_words and s.start > c.start:
            extra_phones = max(1, _extra_phones(c.phrase, s.phrase))
            if s.start - c.start < MIN_FRAMES_PER_PHONE * extra_phones:
                return False
    return True


def _extra_phones(long: Phrase, short: Phrase) -> int:
    """Phones of the words `long` has before the ones it shares with `short` ("stop" of
    "stop kemps" over "kemps"); counted per word, so a variant of the shorter phrase with
    fewer phones ("kemps_b", K EH M S) does not ask "stop" for an extra phone's time."""
    n = len(long.word_phones) - len(short.word_phones)
    if n > 0 and short.word_phones:
        return sum(long.word_phones[:n])
    return long.n_phones - short.n_phones


def _spoken(p: Phrase) -> str:
    """Human form of a phrase: variant words (`kems_b`) shown as their base word."""
    words = [base_word(w) for w in p.text.split()]
    if p.template in ("kem's", "double kem's", "contre kem's"):
        words = ["kem's" if w == "kems" else w for w in words]
    return " ".join(words)


def _call_words(grammar: Grammar) -> dict[str, tuple[str, ...]]:
    """Base word → pronunciations of every word of the grammar's calls (names included),
    for the LM verifier's dictionary."""
    out: dict[str, list[str]] = {}
    for p in grammar.phrases:
        if p.is_decoy:
            continue
        for w in p.text.split():
            out.setdefault(base_word(w), [])
            if grammar.dictionary[w] not in out[base_word(w)]:
                out[base_word(w)].append(grammar.dictionary[w])
    return {w: tuple(v) for w, v in out.items()}


def _make_decoder(grammar: Grammar, options: dict[str, float] | None = None) -> Any:
    from pocketsphinx import Decoder, get_model_path

    with tempfile.TemporaryDirectory(prefix="referee-kws-") as tmp:
        dict_path = Path(tmp) / "calls.dict"
        kws_path = Path(tmp) / "calls.kws"
        dict_path.write_text("\n".join(grammar.dict_lines()) + "\n")
        kws_path.write_text("\n".join(grammar.kws_lines()) + "\n")
        return Decoder(
            hmm=str(Path(get_model_path()) / "en-us" / "en-us"),
            dict=str(dict_path),
            kws=str(kws_path),
            lm=None,
            loglevel="FATAL",
            **(options or {}),
        )
