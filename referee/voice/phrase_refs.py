"""Word-embedding check of two-word calls: does the audio sound like "cut east" at all?

For each two-word phrase of the active grammar ("cut <name>" for every player, "stop
kemps", "double kem's", "contre kem's") the phrase is spoken by Debian's flite voices
(`voices`, at three speeds and pitches) and each rendering embedded the way the listener
will embed a candidate: the 1.5 s of audio ending `after_s` after the phrase's end
(referee/voice/embedding.py). A candidate's similarity is the mean of its `top_k` best
cosine similarities with its phrase's renderings; the spotter's score then moves by
`weight` nats per unit of similarity above or below `center`. Player names are read by
flite from their spelling, so any name works; the renderings are cached on disk
(~/.cache/kemps-referee/voice/refs), so a listener starts in ~0.1 s after the first time.

The reference voices default to awb and slt, the benchmark's tuning voices: kal16 and rms
are its test voices and must not be references there (docs/voice.md, "Word-embedding check").
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.voice.embedding import MODEL_SHA256, RATE, EmbeddingUnavailable, WordEmbedder, model_path, window_before


@dataclass(frozen=True)
class EmbedVerifyConfig:
    """configs/voice.yaml `embed_verify:`."""

    enabled: bool = False
    voices: tuple[str, ...] = ("awb", "slt")
    styles: tuple[tuple[float, int], ...] = ((1.0, 0), (0.85, -150), (1.2, 150))  # flite stretch, sox pitch cents
    after_s: float = 0.15  # the window ends this long after the phrase (audio in hand when the hold ends)
    top_k: int = 3
    weight: float = 200.0  # nats of spotter score per unit of similarity
    center: float = 0.25  # similarity that neither raises nor lowers the score
    spot_below: float = 25.0  # two-word phrases are spotted this many nats below their threshold
    hold_below_ms: float = 200.0  # a reading spotted under its usual threshold waits this much longer for a fuller one
    # one-word phrases are not checked: a one-syllable window holds too little of the call


def flite_text(spoken: str) -> str:
    """What flite is asked to say for a phrase: "double kem's" -> "double kems"."""
    return spoken.replace("'", "")


class PhraseReferences:
    """Similarity of candidate audio to the flite renderings of each phrase."""

    def __init__(self, phrases: list[str], config: EmbedVerifyConfig, embedder: WordEmbedder,
                 cache: Path | None = None) -> None:
        if shutil.which("flite") is None or shutil.which("sox") is None:
            raise EmbeddingUnavailable("the word-embedding check renders its references with flite and sox: "
                                       "install them (bash scripts/install.sh) or switch `embed_verify` off")
        self.config = config
        self._embedder = embedder
        self._cache = cache or model_path().parent / "refs"
        self._refs = {p: self._render(p) for p in dict.fromkeys(phrases)}

    def similarity(self, phrase: str, pcm: np.ndarray, end: int) -> float:
        """Mean of the `top_k` best cosine similarities between the window of int16 `pcm`
        ending at sample `end` and the renderings of `phrase`."""
        return self.similarities([phrase], pcm, end)[phrase]

    def similarities(self, phrases: list[str], pcm: np.ndarray, end: int) -> dict[str, float]:
        """`similarity` of one window to each of `phrases` (one embedding for all of them)."""
        return self.similarities_of(self.embed(pcm, end), phrases)

    def embed(self, pcm: np.ndarray, end: int) -> np.ndarray:
        """The embedding of the window of int16 `pcm` ending at sample `end`."""
        return self._embedder.embed(window_before(pcm, end))

    def similarities_of(self, v: np.ndarray, phrases: list[str]) -> dict[str, float]:
        """`similarity` of an embedding `v` (from `embed`, of this or another reference set)."""
        k = self.config.top_k
        return {p: float(np.sort(self._refs[p] @ v)[::-1][:k].mean()) for p in phrases}

    def renderings(self, phrase: str) -> np.ndarray:
        """(voices x styles, 2048) embeddings of `phrase`'s renderings, voice by voice in
        `config.voices` order, styles in `config.styles` order within each."""
        return self._refs[phrase]

    def _render(self, phrase: str) -> np.ndarray:
        from referee.voice import testaudio as ta

        out = []
        after = round(self.config.after_s * RATE)
        for voice in self.config.voices:
            for stretch, cents in self.config.styles:
                key = hashlib.sha1(repr((flite_text(phrase), voice, stretch, cents, after, MODEL_SHA256)).encode()).hexdigest()[:16]
                path = self._cache / f"{key}.npy"
                if path.is_file():
                    out.append(np.load(path))
                    continue
                sp = ta.say(flite_text(phrase), voice, stretch=stretch, pitch_cents=cents)
                v = self._embedder.embed(window_before(sp.pcm, round(sp.speech_end * RATE) + after))
                try:  # a cache we cannot write (read-only home) only costs the rendering next time
                    path.parent.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_suffix(".tmp.npy")
                    np.save(tmp, v)
                    tmp.replace(path)
                except OSError:
                    pass
                out.append(v)
        return np.stack(out)
