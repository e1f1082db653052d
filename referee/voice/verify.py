"""Second pass over a candidate two-word call: decode its audio with pocketsphinx's general
English language model and keep the call only if the words come out.

The keyword spotter compares a phrase with a free phone loop; it has no idea of words, so
"cut the" or "summer camps by" can fit "cut east" / "stop kemps" well enough. A large-
vocabulary decode of the same audio (the trigram `en-us.lm.bin` and the CMU dictionary
shipped in the pocketsphinx wheel, the call words added) asks a different question: what
English words is this most likely to be? The call is accepted when the hypothesis holds
the call's words in order ("cut east"), rejected when it hears something else. Standard
keyword spotting + LVCSR verification; measured in docs/voice.md ("LM verification").

Only candidates are decoded: the audio from `before_s` before the phrase to `after_s`
after it, which the listener keeps anyway (a few seconds of it). Words the LM does not
know ("kemps", "kems", "contre") are added with unigram weight `word_weight` (× the
uniform probability); words it knows keep their own probabilities. One decoder per set of
call words is shared by every listener of the process (loading takes ~0.5 s); a lock
makes its use safe from several threads.
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

# pocketsphinx search options that may be set under `lm_verify.decoder:`
VERIFY_DECODER_KEYS = {"beam", "wbeam", "pbeam", "maxhmmpf", "wip", "pip", "fwdflat", "bestpath", "topn"}


@dataclass(frozen=True)
class VerifyConfig:
    """configs/voice.yaml `lm_verify:`."""

    enabled: bool = False
    before_s: float = 0.3  # audio decoded before the phrase's start
    after_s: float = 0.15  # and after its end
    lw: float = 6.5  # language weight (pocketsphinx default 6.5)
    # every call word is also its own LM word `<word>_k` with unigram weight `word_weight`
    # (× the uniform probability) next to the LM's own ("cut" keeps its English
    # probabilities; `boost: false` adds only the words the LM lacks: kemps, kems, contre)
    word_weight: float = 3e5
    boost: bool = True
    vocab: int | None = 5000  # decode with only the likeliest words of the LM (2.5x faster than all 134k, same words heard on tune voices)
    # detection thresholds of two-word phrases while verification is on (usually lower than
    # `thresholds`: the check stands in for part of the score); missing: the usual threshold
    thresholds: dict[str, float] = field(default_factory=dict)
    # a rejected call that scores at or above its usual threshold: "drop" it, make it a
    # one-tap "prompt", or "keep" it as without verification (below the usual threshold a
    # rejected call is always dropped: it would not have been reported at all)
    on_reject: str = "prompt"
    decoder: tuple[tuple[str, Any], ...] = (("fwdflat", False), ("bestpath", False))


def base_word(word: str) -> str:
    """A listener dictionary word without its variant suffix (`kemps_b` -> `kemps`)."""
    return word.rsplit("_", 1)[0] if word[-2:-1] == "_" else word


def heard(phrase_text: str, hypothesis: list[str]) -> bool:
    """True when the phrase's words (variants as their base word) appear in order, next to
    each other, in the LM hypothesis."""
    want = [base_word(w) for w in phrase_text.split()]
    hyp = [base_word(w.split("(")[0]) for w in hypothesis]  # `cut_k` (boosted twin) is "cut"
    n = len(want)
    return any(hyp[i : i + n] == want for i in range(len(hyp) - n + 1))


class LmVerifier:
    """`LmVerifier(words, cfg).hypothesis(pcm16_bytes) -> ["cut", "east"]`.

    `words`: base word → pronunciations (CMU phones) of every call word and name."""

    def __init__(self, words: dict[str, tuple[str, ...]], cfg: VerifyConfig) -> None:
        self.cfg = cfg
        key = (tuple(sorted((w, tuple(p)) for w, p in words.items())), cfg.lw, cfg.word_weight, cfg.decoder,
               cfg.boost, cfg.vocab)
        self._dec, self._lock = _shared_decoder(key)

    def hypothesis(self, pcm16_mono_16k: bytes) -> list[str]:
        with self._lock:
            self._dec.start_utt()
            self._dec.process_raw(pcm16_mono_16k, False, True)
            self._dec.end_utt()
            hyp = self._dec.hyp()
        return hyp.hypstr.split() if hyp is not None and hyp.hypstr else []


@lru_cache(maxsize=4)
def _shared_decoder(key: tuple) -> tuple[Any, threading.Lock]:
    words_items, lw, weight, options, boost, vocab = key
    return _make_lm_decoder(dict(words_items), lw, weight, dict(options), boost, vocab), threading.Lock()


def _make_lm_decoder(words: dict[str, tuple[str, ...]], lw: float, weight: float, options: dict[str, Any],
                     boost: bool = False, vocab: int | None = None) -> Any:
    from pocketsphinx import Decoder, NGramModel, get_model_path

    model = Path(get_model_path()) / "en-us"
    cmu: dict[str, list[str]] = {}
    lines: list[str] = []
    with open(model / "cmudict-en-us.dict", encoding="utf-8") as f:
        for line in f:
            w, _, ph = line.strip().partition(" ")
            b = w.split("(")[0]
            if b in words:
                cmu.setdefault(b, []).append(ph.strip())
            elif w:
                lines.append(line.rstrip("\n"))
    for b, prons in sorted(words.items()):
        every = list(dict.fromkeys([*cmu.get(b, []), *prons]))  # the CMU ones first, then ours
        lines += [f"{b if i == 0 else f'{b}({i + 1})'} {ph}" for i, ph in enumerate(every)]
        if boost:  # the call word again as its own LM word, with the weight `word_weight`
            lines += [f"{b}_k{'' if i == 0 else f'({i + 1})'} {ph}" for i, ph in enumerate(every)]
    if vocab:  # only the `vocab` likeliest words of the LM (unigram) and the call words: faster
        from pocketsphinx import Config, LogMath

        uni = NGramModel(Config(), LogMath(), str(model / "en-us.lm.bin"))
        heads = {ln.partition(" ")[0].split("(")[0] for ln in lines}
        keep = set(sorted(heads, key=lambda w: -uni.prob([w]))[:vocab])
        lines = [ln for ln in lines if (w := ln.partition(" ")[0].split("(")[0]) in keep or base_word(w) in words]
    with tempfile.TemporaryDirectory(prefix="referee-lmv-") as tmp:
        dict_path = Path(tmp) / "verify.dict"
        dict_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        dec = Decoder(hmm=str(model / "en-us"), dict=str(dict_path), lm=None, loglevel="FATAL", lw=lw, **options)
    lm = NGramModel(dec.config, dec.logmath, str(model / "en-us.lm.bin"))
    for b in sorted(words):
        # boost: every call word as its own LM word `<word>_k` of weight `word_weight`, next
        # to the LM's own (adding both a new plain word and its `_k` twin crashed
        # pocketsphinx 5.1.1); else a word the LM lacks is added, one it knows keeps its
        # probability (add_word is then a no-op)
        lm.add_word(f"{b}_k" if boost else b, weight)
    dec.add_lm("verify", lm)
    dec.activate_search("verify")
    return dec
