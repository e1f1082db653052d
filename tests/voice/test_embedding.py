"""Word-embedding check of two-word calls (referee/voice/embedding.py, phrase_refs.py,
`embed_verify:`). The model is installed by scripts/install.sh (install_voice_model.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from referee.voice.embedding import (
    MODEL_SHA256,
    WINDOW,
    EmbeddingUnavailable,
    WordEmbedder,
    _mel_filters,
    log_fbank,
    mel_energies,
    model_path,
    window_before,
)
from referee.voice.grammar import VoiceConfigError, load_config

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "voice"
NAMES = ["north", "east", "south", "west"]


def test_log_fbank_frames_and_a_tone_lands_in_its_mel_band() -> None:
    t = np.arange(WINDOW) / 16000
    feats = log_fbank(0.5 * np.sin(2 * np.pi * 1000 * t))
    assert feats.shape == (149, 64)  # 25 ms frames every 10 ms over 1.5 s, as the model was trained
    band = int(np.argmax(feats[70]))
    # 64 bands evenly spaced on 0..2840 mel (0-8 kHz): centre of band j at (j + 1) x 43.7 mel;
    # 1 kHz is 1000 mel, so band 22 (0-based)
    assert 21 <= band <= 23
    assert np.all(np.isfinite(log_fbank(np.zeros(WINDOW))))  # silence: log of eps, not -inf


def test_mel_energies_are_the_filter_matrix_product() -> None:
    # band by band (no BLAS thread pool, docs/voice.md "CPU"), the same numbers as the product
    power = np.random.default_rng(3).random((149, 257)) ** 4
    assert np.allclose(mel_energies(power), power @ _mel_filters().T, rtol=1e-12, atol=0)


def test_window_before_pads_where_the_audio_does_not_reach() -> None:
    pcm = np.full(1000, 16384, dtype=np.int16)
    w = window_before(pcm, 1000)
    assert w.shape == (WINDOW,) and np.all(w[-1000:] == 0.5) and np.all(w[:-1000] == 0)
    w = window_before(pcm, 1200)  # 200 samples past the end: zeros there
    assert np.all(w[-200:] == 0) and np.all(w[-1200:-200] == 0.5)


def test_missing_or_wrong_model_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEMPS_VOICE_MODEL", str(tmp_path / "none.onnx"))
    with pytest.raises(EmbeddingUnavailable, match="install_voice_model.py"):
        WordEmbedder()
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(EmbeddingUnavailable, match="sha256"):
        WordEmbedder(bad)


def test_embed_verify_block_is_validated() -> None:
    cfg = load_config(overrides={"embed_verify": {"enabled": True, "weight": 150, "voices": ["slt"], "styles": [[1.0, 0]]}})
    assert cfg.embed_verify.enabled and cfg.embed_verify.weight == 150
    assert cfg.embed_verify.voices == ("slt",) and cfg.embed_verify.styles == ((1.0, 0),)
    for bad, msg in (({"nope": 1}, "unknown embed_verify key"),
                     ({"weight": -1}, "out of range"),
                     ({"voices": "slt"}, "list of flite voice names"),
                     ({"styles": [[3.0, 0]]}, "stretch 0.5..2"),
                     ({"styles": [1.0]}, "pairs"),
                     ({"top_k": 0}, "at least 1")):
        with pytest.raises(VoiceConfigError, match=msg):
            load_config(overrides={"embed_verify": bad})
    with pytest.raises(VoiceConfigError, match="cannot both"):
        load_config(overrides={"embed_verify": {"enabled": True}, "lm_verify": {"enabled": True}})


needs_model = pytest.mark.skipif(
    not model_path().is_file() or shutil.which("flite") is None,
    reason="voice model or flite not installed (bash scripts/install.sh installs both)")


@needs_model
def test_the_installed_model_is_the_checked_one() -> None:
    import hashlib

    assert hashlib.sha256(model_path().read_bytes()).hexdigest() == MODEL_SHA256


@needs_model
def test_a_spoken_call_is_closer_to_its_own_phrase_than_to_another(tmp_path: Path) -> None:
    from referee.voice.embedding import shared_embedder
    from referee.voice.phrase_refs import EmbedVerifyConfig, PhraseReferences
    from referee.voice.sources import read_wav

    want = json.loads((FIX / "expected.json").read_text())["kemps_calls"]["calls"]  # rms voice: not a reference voice
    pcm = np.frombuffer(read_wav(FIX / "kemps_calls.wav"), dtype="<i2")
    refs = PhraseReferences(["cut east", "cut west", "stop kemps", "double kems"], EmbedVerifyConfig(), shared_embedder(),
                            cache=tmp_path)
    assert len(list(tmp_path.glob("*.npy"))) == 4 * 6  # 2 voices x 3 styles per phrase, cached
    for call in want[:2]:  # "cut east", "stop kemps"
        end = round((call["end"] + 0.15) * 16000)
        own = refs.similarity(call["words"], pcm, end)
        others = [refs.similarity(p, pcm, end) for p in ("cut east", "cut west", "stop kemps", "double kems") if p != call["words"]]
        assert own > 0.3 and own > max(others) + 0.05, (call["words"], own, others)


@needs_model
def test_an_unwritable_reference_cache_is_not_an_error(tmp_path: Path) -> None:
    from referee.voice.embedding import shared_embedder
    from referee.voice.phrase_refs import EmbedVerifyConfig, PhraseReferences

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    refs = PhraseReferences(["cut east"], EmbedVerifyConfig(styles=((1.0, 0),)), shared_embedder(), cache=blocker / "refs")
    assert refs.similarity("cut east", np.zeros(100, dtype=np.int16), 100) < 0.5


def _run(rules: str, pcm: bytes, overrides: dict) -> tuple[object, list]:
    from referee.voice.listener import CallListener

    lis = CallListener(rules, NAMES, load_config(overrides=overrides))
    calls = []
    for i in range(0, len(pcm), 640):
        calls += lis.feed(pcm[i : i + 640])
    return lis, calls + lis.flush()


@needs_model
@pytest.mark.parametrize("name,rules", [("kemps_calls", "kemps"), ("kemps_pink20", "kemps"), ("kems_calls", "kems")])
def test_fixture_calls_pass_the_embedding_check(name: str, rules: str) -> None:
    from referee.voice.sources import read_wav

    want = json.loads((FIX / "expected.json").read_text())[name]["calls"]
    lis, calls = _run(rules, read_wav(FIX / f"{name}.wav"), {"embed_verify": {"enabled": True}})
    got = [(c.call, c.target) for c in calls]
    assert got == [(w["call"], w["target"]) for w in want]
    assert lis.embed_checks >= 1  # the two-word calls were checked, not waved through
    two_word = [c for c in calls if len(c.phrase.split()) > 1]
    assert two_word and all(not c.provisional for c in two_word)


@needs_model
def test_chatter_fixture_gives_no_two_word_call_with_the_check() -> None:
    from referee.voice.sources import read_wav

    for rules in ("kemps", "kems"):
        _lis, calls = _run(rules, read_wav(FIX / "chatter.wav"), {"embed_verify": {"enabled": True}})
        assert not [c for c in calls if len(c.phrase.split()) > 1], calls


def test_listener_without_the_model_warns_and_spots_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No model installed: one warning, and the spotter alone at the usual thresholds."""
    pytest.importorskip("pocketsphinx")
    from referee.voice.embedding import shared_embedder
    from referee.voice.listener import CallListener
    from referee.voice.sources import read_wav

    monkeypatch.setenv("KEMPS_VOICE_MODEL", str(tmp_path / "missing.onnx"))
    shared_embedder.cache_clear()
    try:
        lis = CallListener("kemps", NAMES, load_config(overrides={"embed_verify": {"enabled": True}}))
    finally:
        shared_embedder.cache_clear()
    assert any("embedding check off" in w and "install_voice_model.py" in w for w in lis.warnings)
    plain = CallListener("kemps", NAMES, load_config(overrides={"embed_verify": {"enabled": False}}))
    assert [p.threshold for p in lis.grammar.phrases] == [p.threshold for p in plain.grammar.phrases]
    want = json.loads((FIX / "expected.json").read_text())["kemps_calls"]["calls"]
    _lis, calls = _run("kemps", read_wav(FIX / "kemps_calls.wav"), {"embed_verify": {"enabled": False}})
    got = []
    pcm = read_wav(FIX / "kemps_calls.wav")
    for i in range(0, len(pcm), 640):
        got += lis.feed(pcm[i : i + 640])
    got += lis.flush()
    assert [(c.call, c.target) for c in got] == [(w["call"], w["target"]) for w in want] == [(c.call, c.target) for c in calls]


@needs_model
def test_a_low_similarity_drops_a_two_word_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check really decides: the same audio with the similarity forced to -1 (as if
    it sounded like nothing of the phrase) reports no two-word call."""
    from referee.voice.phrase_refs import PhraseReferences
    from referee.voice.sources import read_wav

    monkeypatch.setattr(PhraseReferences, "similarity", lambda self, phrase, pcm, end: -1.0)
    # embed_spot off: it would hear the dropped calls again by itself (tests/voice/test_embed_spot.py)
    _lis, calls = _run("kemps", read_wav(FIX / "kemps_calls.wav"), {"embed_verify": {"enabled": True}, "embed_spot": {"enabled": False}})
    assert [c.call for c in calls if len(c.phrase.split()) > 1] == []
