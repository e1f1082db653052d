"""Word-embedding spotting where speech ends in a pause (referee/voice/segment_ends.py,
embed_spot.py, `embed_spot:`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.voice.embed_spot import EmbedSpotConfig, best_phrase, spot
from referee.voice.grammar import VoiceConfigError, load_config
from referee.voice.segment_ends import SegmentEndConfig, SegmentEnds, frame_levels_db

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "voice"
NAMES = ["north", "east", "south", "west"]


def _ends(levels: list[float], config: SegmentEndConfig | None = None) -> list[tuple[int, int]]:
    """(end frame, frame at which it was reported) for a level track."""
    se = SegmentEnds(config)
    out = []
    for k, v in enumerate(levels):
        e = se.push(v)
        if e is not None:
            out.append((e, k))
    return out


def _track(*parts: tuple[float, float]) -> list[float]:
    """Levels from (seconds, dB) pieces, with a little deterministic wobble."""
    rng = np.random.default_rng(0)
    out: list[float] = []
    for sec, db in parts:
        out += list(db + rng.uniform(-1.0, 1.0, round(sec / 0.01)))
    return out


def test_frame_levels_are_db_of_each_whole_10_ms_frame() -> None:
    import math

    pcm = np.random.default_rng(3).integers(-32768, 32767, 160 * 5 + 70).astype(np.int16)
    got = frame_levels_db(pcm)
    assert got.shape == (5,)  # the 70 samples left over are no frame
    for k in range(5):
        x = [int(v) for v in pcm[160 * k : 160 * (k + 1)]]
        mean = sum(x) / 160
        assert got[k] == pytest.approx(10.0 * math.log10(sum((v - mean) ** 2 for v in x) / 160 + 1.0), rel=1e-12)
    assert frame_levels_db(np.zeros(160, dtype=np.int16))[0] == 0.0
    # a microphone's DC offset is no sound (an audit of 7 Dec: +1000 of it hid every pause)
    assert frame_levels_db(np.full(160, 1000, dtype=np.int16))[0] == 0.0
    shifted = (pcm.astype(np.int32) // 4 + 3000).astype(np.int16)
    assert np.allclose(frame_levels_db(shifted), frame_levels_db((pcm.astype(np.int32) // 4).astype(np.int16)))


def test_a_shout_then_silence_is_one_end_reported_once_its_pause_is_known() -> None:
    lv = _track((2.0, 30), (0.6, 60), (1.0, 30))
    ends = _ends(lv, SegmentEndConfig(pause_s=0.3))
    assert len(ends) == 1
    end, at = ends[0]
    assert 255 <= end <= 259  # the shout's last frames (200..259)
    assert end + 20 <= at <= end + 5 + 30  # once most of the 50 ms + 300 ms pause asked is known


def test_short_dips_inside_speech_are_no_end() -> None:
    lv = _track((2.0, 30), *[(0.4, 60), (0.1, 40)] * 6, (0.4, 60), (1.0, 30))
    ends = [e for e, _ in _ends(lv, SegmentEndConfig(pause_s=0.3))]
    assert len(ends) == 1 and ends[0] >= 530  # only after the last word (frames 500..539)


def test_long_speech_is_skipped_with_max_speech() -> None:
    lv = _track((2.0, 30), (3.0, 60), (1.0, 30))
    assert len(_ends(lv, SegmentEndConfig(pause_s=0.3))) == 1
    assert _ends(lv, SegmentEndConfig(pause_s=0.3, max_speech_s=1.5)) == []
    short = _track((2.0, 30), (1.0, 60), (1.0, 30))
    assert len(_ends(short, SegmentEndConfig(pause_s=0.3, max_speech_s=1.5))) == 1


def test_in_noise_the_pause_asked_is_relative_to_the_background() -> None:
    lv = _track((3.0, 52), (0.6, 60), (1.0, 52))  # a call 8 dB over the room: no 12 dB drop possible
    assert len(_ends(lv, SegmentEndConfig(pause_s=0.3))) == 1
    assert _ends(lv, SegmentEndConfig(pause_s=0.3, fraction=1.0, min_db=12.0)) == []


def test_best_phrase_lets_variants_of_one_call_not_compete() -> None:
    calls = {"stop kemps": ("cut", None), "stop kemps_b": ("cut", None), "cut east": ("cut", "east")}
    got = best_phrase({"stop kemps": 0.5, "stop kemps_b": 0.49, "cut east": 0.3}, calls)
    assert got is not None and got.phrase == "stop kemps" and got.margin == pytest.approx(0.2)
    assert best_phrase({}, calls) is None


class _FakeRefs:
    """Similarities by window: the "embedding" of a window is its end sample."""

    def __init__(self, *by_window: dict[str, float]) -> None:
        self.by_window = by_window

    def embed(self, pcm: np.ndarray, end: int) -> np.ndarray:
        return np.array([end])

    def similarities_of(self, v: np.ndarray, phrases: list[str]) -> dict[str, float]:
        sims = self.by_window[int(v[0]) // 100 - 1]
        return {p: sims[p] for p in phrases}


_PCM = np.zeros(200, dtype=np.int16)
_CALLS = {"cut east": ("cut", "east"), "cut west": ("cut", "west")}


def _spot(refs: _FakeRefs, cfg: EmbedSpotConfig, windows: int = 1, cohort: _FakeRefs | None = None):  # noqa: ANN202
    wins = [(_PCM, 100 * (k + 1)) for k in range(windows)]
    return spot(refs, list(_CALLS), _CALLS, wins, cfg, cohort, ["cut it", "camps"] if cohort else None)  # type: ignore[arg-type]


def test_spot_needs_both_the_similarity_and_the_lead() -> None:
    cfg = EmbedSpotConfig(enabled=True, similarity=0.35, margin=0.1, second_after_s=None, cohort_margin=None)
    got = _spot(_FakeRefs({"cut east": 0.45, "cut west": 0.30}), cfg)
    assert got is not None and got.phrase == "cut east"
    assert _spot(_FakeRefs({"cut east": 0.34, "cut west": 0.1}), cfg) is None
    assert _spot(_FakeRefs({"cut east": 0.45, "cut west": 0.40}), cfg) is None


def test_spot_keeps_each_phrase_best_window() -> None:
    cfg = EmbedSpotConfig(enabled=True, similarity=0.35, second_after_s=0.25)
    first, second = {"cut east": 0.2, "cut west": 0.3}, {"cut east": 0.45, "cut west": 0.1}
    got = _spot(_FakeRefs(first, second), cfg, windows=2)
    assert got is not None and got.phrase == "cut east" and got.similarity == 0.45
    assert got.margin == pytest.approx(0.15)  # against cut west's better window (0.3)
    assert _spot(_FakeRefs(first, second), cfg, windows=1) is None  # the first window alone is not enough


def test_spot_cohort_check_uses_the_first_window() -> None:
    cfg = EmbedSpotConfig(enabled=True, similarity=0.3, cohort_margin=0.1)
    refs = _FakeRefs({"cut east": 0.45, "cut west": 0.1}, {"cut east": 0.5, "cut west": 0.1})
    close = _FakeRefs({"cut it": 0.45, "camps": 0.0}, {"cut it": 0.0, "camps": 0.0})
    far = _FakeRefs({"cut it": 0.3, "camps": 0.2}, {"cut it": 0.9, "camps": 0.9})
    assert _spot(refs, cfg, windows=2, cohort=close) is None  # 0.5 (best window) - 0.45 ("cut it") < 0.1
    got = _spot(refs, cfg, windows=2, cohort=far)  # the decoys' second window is never asked
    assert got is not None and got.phrase == "cut east"
    no_check = EmbedSpotConfig(enabled=True, similarity=0.3, cohort_margin=None)
    assert _spot(refs, no_check, windows=2, cohort=close) is not None


_CALLS1 = {"kemps": ("kemps", None), "stop kemps": ("cut", None), "cut east": ("cut", "east")}


def _spot1(sims: dict[str, float], cfg: EmbedSpotConfig, cohort: dict[str, float] | None = None):  # noqa: ANN202
    words = list(cohort) if cohort else None
    return spot(_FakeRefs(sims), list(_CALLS1), _CALLS1, [(_PCM, 100)], cfg,  # type: ignore[arg-type]
                _FakeRefs(cohort) if cohort else None, words, frozenset({"kemps"}))  # type: ignore[arg-type]


def test_one_word_calls_are_heard_only_with_their_own_threshold_set() -> None:
    off = EmbedSpotConfig(enabled=True, similarity=0.3, second_after_s=None, cohort_margin=None)
    on = EmbedSpotConfig(enabled=True, similarity=0.3, second_after_s=None, cohort_margin=None, one_word_similarity=0.4)
    shout = {"kemps": 0.45, "stop kemps": 0.2, "cut east": 0.1}
    assert _spot1(shout, off) is None  # no one-word threshold: two-word calls only, as before
    got = _spot1(shout, on)
    assert got is not None and got.phrase == "kemps" and got.similarity == 0.45
    assert _spot1({"kemps": 0.38, "stop kemps": 0.2, "cut east": 0.1}, on) is None  # under its own threshold


def test_a_one_word_call_never_takes_a_two_word_call_s_place() -> None:
    on = EmbedSpotConfig(enabled=True, similarity=0.3, second_after_s=None, cohort_margin=None, one_word_similarity=0.2)
    # the two-word decision is made among the two-word phrases alone, exactly as without the stage
    got = _spot1({"kemps": 0.5, "stop kemps": 0.35, "cut east": 0.1}, on)
    assert got is not None and got.phrase == "stop kemps"
    # where no two-word call is heard, a one-word call must still be the most similar phrase of all
    assert _spot1({"kemps": 0.25, "stop kemps": 0.28, "cut east": 0.1}, on) is None


def test_one_word_calls_have_their_own_cohort_margin() -> None:
    cfg = EmbedSpotConfig(enabled=True, similarity=0.3, second_after_s=None, cohort_margin=0.3,
                          one_word_similarity=0.3, one_word_cohort=0.05)
    camps = {"camps": 0.42, "cut it": 0.0}
    assert _spot1({"kemps": 0.45, "stop kemps": 0.1, "cut east": 0.1}, cfg, {"camps": 0.42, "cut it": 0.0}) is None
    got = _spot1({"kemps": 0.5, "stop kemps": 0.1, "cut east": 0.1}, cfg, camps)
    assert got is not None and got.phrase == "kemps" and got.decoy == 0.42
    free = EmbedSpotConfig(enabled=True, similarity=0.3, second_after_s=None, cohort_margin=0.3, one_word_similarity=0.3)
    assert _spot1({"kemps": 0.45, "stop kemps": 0.1, "cut east": 0.1}, free, camps) is not None  # no one-word cohort


def test_embed_spot_block_is_validated() -> None:
    cfg = load_config(overrides={"embed_spot": {"enabled": True, "similarity": 0.4, "pause_s": 0.2}})
    assert cfg.embed_spot.enabled and cfg.embed_spot.similarity == 0.4 and cfg.embed_spot.ends.pause_s == 0.2
    with pytest.raises(VoiceConfigError, match="unknown embed_spot key"):
        load_config(overrides={"embed_spot": {"enabled": True, "treshold": 0.4}})
    with pytest.raises(VoiceConfigError, match="embed_spot.pause_s"):
        load_config(overrides={"embed_spot": {"pause_s": 5}})
    off = load_config(overrides={"embed_spot": {"enabled": True, "second_after_s": None, "cohort_margin": None}})
    assert off.embed_spot.second_after_s is None and off.embed_spot.cohort_margin is None
    on = load_config(overrides={"embed_spot": {"enabled": True, "second_after_s": 0.25, "cohort_margin": -0.05}})
    assert on.embed_spot.second_after_s == 0.25 and on.embed_spot.cohort_margin == -0.05
    with pytest.raises(VoiceConfigError, match="embed_spot.second_after_s"):
        load_config(overrides={"embed_spot": {"second_after_s": 2.0}})
    one = load_config(overrides={"embed_spot": {"enabled": True, "one_word_similarity": 0.35, "one_word_cohort": 0.1}})
    assert one.embed_spot.one_word_similarity == 0.35 and one.embed_spot.one_word_cohort == 0.1
    assert load_config(overrides={"embed_spot": {"enabled": True}}).embed_spot.one_word_similarity is None
    with pytest.raises(VoiceConfigError, match="embed_spot.one_word_similarity"):
        load_config(overrides={"embed_spot": {"one_word_similarity": 3.0}})


# -- with the model (installed by scripts/install.sh) --------------------------------------

def _model_installed() -> bool:
    from referee.voice.embedding import model_path

    return model_path().is_file()


needs_model = pytest.mark.skipif(not _model_installed(), reason="word-embedding model not installed (scripts/install.sh)")


def _run(rules: str, wav: str, overrides: dict) -> tuple[object, list]:
    pytest.importorskip("pocketsphinx")
    from referee.voice.sources import read_wav

    from .test_embedding import _run as run_pcm  # the same feeding loop as the embedding check's tests

    return run_pcm(rules, read_wav(FIX / f"{wav}.wav"), overrides)


@needs_model
@pytest.mark.parametrize("name,rules", [("kemps_calls", "kemps"), ("kemps_pink20", "kemps"), ("kems_calls", "kems")])
def test_calls_the_spotter_hears_are_not_doubled_or_demoted(name: str, rules: str) -> None:
    want = json.loads((FIX / "expected.json").read_text())[name]["calls"]
    _lis, on = _run(rules, name, {"embed_spot": {"enabled": True}})
    _lis, off = _run(rules, name, {"embed_spot": {"enabled": False}})
    assert [(c.call, c.target, c.provisional) for c in on] == [(c.call, c.target, c.provisional) for c in off]
    assert [(c.call, c.target) for c in on] == [(w["call"], w["target"]) for w in want]


@needs_model
def test_a_call_the_spotter_cannot_hear_comes_as_a_prompt() -> None:
    """With Cut's spotting threshold out of reach, "cut east" (rms voice) is still heard,
    by the embedding alone, as a one-tap prompt; switched off, it is not heard at all."""
    th = dict(load_config().thresholds, **{"cut {name}": 1e99})
    _lis, on = _run("kemps", "kemps_calls", {"thresholds": th, "embed_spot": {"enabled": True}})
    _lis, off = _run("kemps", "kemps_calls", {"thresholds": th, "embed_spot": {"enabled": False}})
    assert ("cut", "east") not in [(c.call, c.target) for c in off]
    cut = [c for c in on if (c.call, c.target) == ("cut", "east")]
    assert len(cut) == 1 and cut[0].provisional and cut[0].phrase == "cut east"
    assert 1.0 <= cut[0].t <= 1.5 and 0.0 <= cut[0].confidence <= 1.0  # the call ends at 1.155 s


@needs_model
def test_chatter_fixture_gives_no_two_word_prompt_with_spotting() -> None:
    for rules in ("kemps", "kems"):
        lis, calls = _run(rules, "chatter", {"embed_spot": {"enabled": True}})
        assert not [c for c in calls if len(c.phrase.split()) > 1], calls


@needs_model
def test_a_one_word_call_the_spotter_cannot_hear_comes_as_a_prompt_from_the_embedding() -> None:
    """With the one-word thresholds out of reach, the fixture's last call, "kemps" (rms voice,
    ends at 3.707 s), is heard by the embedding's one-word stage as a one-tap prompt; without
    that stage it is not heard; the two two-word calls before it are heard as before. (With
    "kemps" alone out of reach the spotter hears that call as "counter".)"""
    th = dict(load_config().thresholds, kemps=1e99, counter=1e99)
    spot = dict(enabled=True, one_word_similarity=0.2, one_word_cohort=None)
    _lis, on = _run("kemps", "kemps_calls", {"thresholds": th, "embed_spot": spot})
    _lis, off = _run("kemps", "kemps_calls", {"thresholds": th, "embed_spot": {"enabled": True}})
    assert "kemps" not in [c.call for c in off]
    heard = [c for c in on if c.call == "kemps"]
    assert len(heard) == 1 and heard[0].provisional and heard[0].phrase == "kemps"
    assert 3.6 <= heard[0].t <= 4.0 and 0.0 < heard[0].confidence <= 1.0
    assert [(c.call, c.target) for c in on if c.call != "kemps"] == [(c.call, c.target) for c in off]


@needs_model
def test_chatter_fixture_gives_no_one_word_prompt_from_the_embedding() -> None:
    spot = dict(enabled=True, one_word_similarity=0.2, one_word_cohort=None)
    for rules in ("kemps", "kems"):
        _lis, on = _run(rules, "chatter", {"embed_spot": spot})
        _lis, off = _run(rules, "chatter", {"embed_spot": {"enabled": True}})
        assert [(c.call, c.t) for c in on] == [(c.call, c.t) for c in off]


@needs_model
def test_the_embedding_s_one_word_find_stays_a_prompt_when_one_word_calls_go_direct() -> None:
    th = dict(load_config().thresholds, kemps=1e99, counter=1e99)
    spot = dict(enabled=True, one_word_similarity=0.2, one_word_cohort=None)
    _lis, on = _run("kemps", "kemps_calls", {"thresholds": th, "embed_spot": spot, "one_word_provisional": False})
    heard = [c for c in on if c.call == "kemps"]
    assert len(heard) == 1 and heard[0].provisional  # one model's opinion: never straight to the referee
