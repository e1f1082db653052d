"""Second ear for calls: the word embedding asked where speech ends in a pause.

The keyword spotter scores some noisy two-word calls 70-100 nats under their threshold
("cut east" by one voice in pink noise): no check of its candidates can bring those back
(docs/voice.md). The word embedding of referee/voice/embedding.py still finds many of them
similar to flite renderings of the phrase. Running it on every frame would cost ~2 cores,
so it runs only where a stretch of speech ends in a pause (referee/voice/segment_ends.py)
and the spotter has reported nothing there. The phrase most similar to that audio is
reported when its similarity reaches `similarity` and beats every other call of the game
(another name, another call) by `margin`: always as a one-tap prompt, never straight to
the referee (one model's opinion without the spotter's agreement). With
`one_word_similarity` set, a one-word call ("kemps!") is asked about too where no two-word
call is heard (docs/voice.md, "One-word calls heard by the embedding").

Two refinements chosen with benchmarks/voice_spot_variants.py on the tune voices: a second
window ending `second_after_s` after the end (each phrase's similarity is the better of
the two: the end found can fall a little before a weak last syllable, "cut w|est"), and a
cohort check (the phrase must also beat the game's decoy words, `grammar.DECOYS`
("camps", "cut it", "contract") rendered the same way, by `cohort_margin`, in the first
window: chatter that sounds like a call-like word more than like a call is not asked about).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from referee.voice.phrase_refs import PhraseReferences
from referee.voice.segment_ends import SegmentEndConfig


@dataclass(frozen=True)
class EmbedSpotConfig:
    """configs/voice.yaml `embed_spot:` (the references are `embed_verify`'s voices and styles)."""

    enabled: bool = False
    # defaults = configs/voice.yaml (chosen with benchmarks/voice_spot.py on the tune voices)
    similarity: float = 0.275  # mean of the top_k best cosine similarities with the phrase's renderings
    margin: float = 0.0  # over the most similar other call of the game
    after_s: float = 0.15  # the embedded 1.5 s window ends this long after the speech end
    pause_s: float = 0.3  # the level must stay down this long (after the first 50 ms)
    drop_db: float = 12.0  # the pause: min(drop_db, max(min_db, fraction x (speech - background))) dB down
    min_db: float = 3.0
    fraction: float = 0.5
    max_speech_s: float = 1.2  # only speech this short since the pause before (a shout, not a sentence's end)
    second_after_s: float | None = 0.25  # a second window ending this long after the end (None: one window)
    cohort_margin: float | None = 0.1  # over the best decoy word of the game (None: no cohort check)
    # One-word calls ("kemps", "kem's", "counter") asked about too, at this similarity (None:
    # two-word calls only). A one-word call is reported only where no two-word call is, when
    # it is the most similar phrase of all and beats the decoy words by `one_word_cohort`.
    one_word_similarity: float | None = None
    one_word_cohort: float | None = None

    @property
    def ends(self) -> SegmentEndConfig:
        return SegmentEndConfig(drop_db=self.drop_db, min_db=self.min_db, fraction=self.fraction, pause_s=self.pause_s,
                                max_speech_s=self.max_speech_s)


@dataclass(frozen=True)
class SpotResult:
    phrase: str  # as spoken, e.g. "cut east"
    similarity: float
    margin: float  # over the runner-up call
    decoy: float | None = None  # similarity of the most similar decoy word (None: no cohort asked)


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
         windows: list[tuple[np.ndarray, int]], config: EmbedSpotConfig,
         cohort: PhraseReferences | None = None, cohort_words: list[str] | None = None,
         one_word: frozenset[str] = frozenset()) -> SpotResult | None:
    """The phrase heard at a speech end, or None when no phrase is similar enough, clearly
    ahead of the others and (with `cohort`) ahead of every decoy word by `cohort_margin`.
    `windows`: (int16 pcm, end sample) of each window, the first one `after_s` after the end;
    one embedding per window, whatever the number of phrases. `one_word`: the phrases of
    `phrases` that are one-word calls (asked about only with `one_word_similarity` set): the
    two-word decision is made first among the two-word phrases alone, exactly as without
    them, and a one-word call is heard only where it finds nothing."""
    sims: dict[str, float] = {}
    first = None
    for pcm, end in windows:
        v = refs.embed(pcm, end)
        first = v if first is None else first
        for p, x in refs.similarities_of(v, phrases).items():
            sims[p] = max(x, sims.get(p, -1.0))
    decoy = None
    if cohort is not None and cohort_words and first is not None:
        decoy = max(cohort.similarities_of(first, cohort_words).values())
    two = _decide(best_phrase({p: x for p, x in sims.items() if p not in one_word}, calls),
                  config.similarity, config.margin, decoy, config.cohort_margin)
    if two is not None or not one_word or config.one_word_similarity is None:
        return two
    best = best_phrase(sims, calls)  # over every phrase: a one-word call must beat the two-word ones too
    if best is None or best.phrase not in one_word:
        return None
    return _decide(best, config.one_word_similarity, config.margin, decoy, config.one_word_cohort)


def _decide(best: SpotResult | None, similarity: float, margin: float, decoy: float | None,
            cohort_margin: float | None) -> SpotResult | None:
    """`best` when it is similar enough, ahead of the other calls by `margin` and (when both
    are given) of the best decoy word by `cohort_margin`."""
    if best is None or best.similarity < similarity or best.margin < margin:
        return None
    if decoy is not None and cohort_margin is not None and best.similarity - decoy < cohort_margin:
        return None
    return replace(best, decoy=decoy)
