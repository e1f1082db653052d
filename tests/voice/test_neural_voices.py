"""Neural benchmark voices (referee/voice/neural_voices.py): Kokoro-82M reading English."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.voice import neural_voices as nv
from referee.voice import testaudio as ta
from referee.voice.listener import CallListener

needs_kokoro = pytest.mark.skipif(
    bool(nv.missing()), reason="neural voices not installed (bash scripts/install.sh --voices, also in --dev)"
)


def test_espeak_ipa_becomes_kokoros_letters() -> None:
    # diphthongs as one letter, no length marks, espeak's near-open schwa as a schwa
    assert nv.to_kokoro("kˈaʊntɚ") == "kˈWntɚ"
    assert nv.to_kokoro("ˈiːst") == "ˈist"
    assert nv.to_kokoro("hˈoʊm ɐbˌaʊt dʒˈeɪk") == "hˈOm əbˌWt ʤˈAk"


def test_flite_phone_strings_get_one_stress_on_the_first_full_vowel() -> None:
    assert nv.flite_phones_to_kokoro("k eh m s") == "kˈɛms"
    assert nv.flite_phones_to_kokoro("d uw b l ax k eh m s") == "dˈubləkɛms"
    assert nv.phonemes("k ao n t r ax k eh m s", phones=True) == "kˈɔntɹəkɛms!"


def test_speech_bounds_are_read_from_the_level() -> None:
    rate = 16000
    x = np.zeros(rate, np.float32)
    x[4000:12000] = np.sin(np.arange(8000) * 0.3)
    start, end = nv.speech_bounds(x, rate)
    assert start == pytest.approx(0.25, abs=0.011) and end == pytest.approx(0.75, abs=0.011)


def test_a_neural_voice_without_its_files_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KEMPS_KOKORO_DIR", str(tmp_path))
    ta.require_tools(("kal16",))  # flite voices only: nothing neural needed
    with pytest.raises(RuntimeError, match="install_neural_voices"):
        ta.require_tools(("kokoro_kumo",))


@needs_kokoro
def test_a_neural_voice_speaks_at_16k_with_its_bounds_speed_and_pitch() -> None:
    plain = ta.say("cut east", "kokoro_kumo")
    slow = ta.say("cut east", "kokoro_kumo", stretch=1.25, pitch_cents=100)
    for sp in (plain, slow):
        assert sp.pcm.dtype.name == "int16" and len(sp.pcm) > 0.3 * ta.RATE
        assert 0.0 <= sp.speech_start < sp.speech_end <= len(sp.pcm) / ta.RATE + 1e-3
        assert ta.rms(sp.pcm[int(sp.speech_start * ta.RATE) : int(sp.speech_end * ta.RATE)]) > 300
    assert (slow.speech_end - slow.speech_start) > 1.1 * (plain.speech_end - plain.speech_start)
    again = ta.say("cut east", "kokoro_kumo")
    assert np.array_equal(plain.pcm, again.pcm)  # the benchmark's corpus is reproducible


@needs_kokoro
def test_the_listener_hears_a_neural_speaker() -> None:
    """A neural voice's two-word calls are recognisable at all (what the benchmark measures
    on these voices is in docs/voice.md)."""
    parts = [ta.silence(0.5)]
    for text in ("It is your turn to shuffle the cards.", "Cut east!", "Stop kemps!"):
        parts += [ta.normalise(ta.say(text, "kokoro_kumo").pcm), ta.silence(0.8)]
    lis = CallListener("kemps", ["north", "east", "south", "west"])
    calls = list(lis.feed(np.concatenate(parts).tobytes(), t0=0.0)) + list(lis.flush())
    assert [(c.call, c.target) for c in calls if len(c.phrase.split()) > 1] == [("cut", "east"), ("cut", None)]


@needs_kokoro
def test_a_drawn_out_call_is_one_call_not_a_call_and_a_prompt() -> None:
    """This voice's "cut west" runs on ~0.5 s past the phrase the spotter matched; the speech
    end after it was asked about again and became a second prompt for the same call
    (`SPOT_SAME_CALL`)."""
    parts = [ta.silence(0.5), ta.normalise(ta.say("It is your turn to shuffle the cards.", "kal16").pcm), ta.silence(0.6)]
    parts += [ta.normalise(ta.say("Cut west!", "kokoro_alpha").pcm), ta.silence(1.0)]
    lis = CallListener("kemps", ["north", "east", "south", "west"])
    calls = list(lis.feed(np.concatenate(parts).tobytes(), t0=0.0)) + list(lis.flush())
    assert [(c.call, c.target) for c in calls] == [("cut", "west")]
