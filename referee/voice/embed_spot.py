"""Second ear for two-word calls: the word embedding asked where speech ends in a pause.

The keyword spotter scores some noisy two-word calls 70-100 nats under their threshold
("cut east" by one voice in pink noise): no check of its candidates can bring those back
(docs/voice.md). The word embedding of referee/voice/embedding.py still finds many of them
similar to flite renderings of the phrase. Running it on every frame would cost ~2 cores,
so it runs only where a stretch of speech ends in a pause (referee/voice/segment_ends.py)
and the spotter has reported nothing there. The phrase most similar to that audio is
reported when its similarity reaches `similarity` and beats every other call of the game
(another name, another call) by `margin`: always as a one-tap prompt, never straight to
the referee (one model's opinion without the spotter's agreement).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.voice.phrase_refs import PhraseReferences
from referee.voice.segment_ends import SegmentEndConfig


@dataclass(frozen=True)
class EmbedSpotConfig:
    """configs/voice.yaml `embed_spot:` (the references are `embed_verify`'s voices and styles)."""

    enabled: bool = False
    # defaults = configs/voice.yaml (chosen with benchmarks/voice_spot.py on the tune voices)
    similarity: float = 0.3  # mean of the top_k best cosine similarities with the phrase's renderings
    margin: float = 0.0  # over the most similar other call of the game
    after_s: float = 0.15  # the embedded 1.5 s window ends this long after the speech end
    pause_s: float = 0.3  # the level must stay down this long (after the first 50 ms)
    drop_db: float = 12.0  # the pause: min(drop_db, max(min_db, fraction x (speech - background))) dB down
    min_db: float = 3.0
    fraction: float = 0.5
    max_speech_s: float = 1.2  # only speech this short since the pause before (a shout, not a sentence's end)

    @property
    def ends(self) -> SegmentEndConfig:
        return SegmentEndConfig(drop_db=self.drop_db, min_db=self.min_db, fraction=self.fraction, pause_s=self.pause_s,
                                max_speech_s=self.max_speech_s)


@dataclass(frozen=True)
class SpotResult:
    phrase: str  # as spoken, e.g. "cut east"
    similarity: float
    margin: float  # over the runner-up call


def best_phrase(sims: dict[str, float], calls: dict[str, tuple[str, str | None]]) -> SpotResult | None:
    """The most similar phrase and its lead over the most similar phrase of another call
    (`calls`: phrase -> (call, target); variants of one call do not compete)."""
    if not sims:
        return None
    order = sorted(sims, key=sims.get, reverse=True)  # type: ignore[arg-type]
    top = order[0]
    rival = next((p for p in order[1:] if calls[p] != calls[top]), None)
    lead = sims[top] - sims[rival] if rival is not None else float("inf")
    return SpotResult(top, sims[top], lead)


def spot(refs: PhraseReferences, phrases: list[str], calls: dict[str, tuple[str, str | None]],
         pcm: np.ndarray, end: int, config: EmbedSpotConfig) -> SpotResult | None:
    """The phrase heard in the window of int16 `pcm` ending at sample `end`, or None when no
    phrase is similar enough or clearly ahead of the others. One embedding, whatever the
    number of phrases."""
    sims = refs.similarities(phrases, pcm, end)
    best = best_phrase(sims, calls)
    if best is None or best.similarity < config.similarity or best.margin < config.margin:
        return None
    return best
