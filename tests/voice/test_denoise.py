"""The optional noise reducer in front of the keyword spotter (referee/voice/denoise.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.voice.denoise import DELAY_S, DenoiseConfig, Denoiser
from referee.voice.grammar import VoiceConfigError, load_config

RATE = 16000
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "voice"


def _run(pcm: bytes, pieces: list[int] | None = None, config: DenoiseConfig | None = None) -> bytes:
    den = Denoiser(config or DenoiseConfig(enabled=True))
    if pieces is None:
        return den.process(pcm) + den.flush()
    out, i, k = [], 0, 0
    while i < len(pcm):
        n = 2 * pieces[k % len(pieces)]
        out.append(den.process(pcm[i : i + n]))
        i, k = i + n, k + 1
    return b"".join(out) + den.flush()


def _tone_and_noise(seconds: float = 4.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    noise = rng.standard_normal(n) * 600.0
    tone = np.where((t >= 2.5) & (t < 3.5), 4000.0 * np.sin(2 * np.pi * 1000.0 * t), 0.0)
    return tone + noise, tone, noise


def _pcm(x: np.ndarray) -> bytes:
    return np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()


def test_chunked_input_gives_exactly_the_output_of_one_block() -> None:
    x, _, _ = _tone_and_noise(2.0)
    pcm = _pcm(x)
    whole = _run(pcm)
    assert len(whole) == len(pcm)  # after flush: every input sample, once
    for pieces in ([320], [1], [7, 160, 333, 1000], [4096]):
        assert _run(pcm, pieces) == whole


def test_process_lags_at_most_the_frame_overlap_and_keeps_the_clock() -> None:
    assert DELAY_S <= 0.02
    den = Denoiser(DenoiseConfig(enabled=True))
    got = 0
    for _ in range(50):  # 20 ms pieces, as the browser sends them
        got += len(den.process(b"\x00\x00" * 320)) // 2
        assert 50 * 320 >= got >= (_ + 1) * 320 - int(DELAY_S * RATE)
    # an impulse comes out where it went in (output aligned with the input)
    x = np.zeros(RATE)
    x[8000] = 20000.0
    y = np.frombuffer(_run(_pcm(x)), dtype="<i2").astype(float)
    assert int(np.argmax(np.abs(y))) == 8000


def test_stationary_noise_is_lowered_and_the_tone_kept() -> None:
    x, tone, noise = _tone_and_noise()
    y = np.frombuffer(_run(_pcm(x)), dtype="<i2").astype(float)
    quiet = slice(int(1.5 * RATE), int(2.4 * RATE))  # noise only, after the estimate settled
    loud = slice(int(2.6 * RATE), int(3.4 * RATE))

    def db(v: np.ndarray) -> float:
        return 10 * np.log10(np.mean(v * v))

    assert db(y[quiet]) < db(x[quiet]) - 8.0  # gain floor -12 dB
    # the tone's own frequency keeps (almost) its power: compare the 1 kHz FFT bin
    spec_in = np.abs(np.fft.rfft(tone[loud]))
    spec_out = np.abs(np.fft.rfft(y[loud]))
    k = int(np.argmax(spec_in))
    assert 20 * np.log10(spec_out[k] / spec_in[k]) > -2.0
    # signal-to-noise ratio over the tone segment improves by several dB
    residual = y[loud] - tone[loud]
    assert db(tone[loud]) - db(residual) > db(tone[loud]) - db(noise[loud]) + 4.0


def test_config_block_is_validated() -> None:
    assert load_config().denoise.enabled in (True, False)
    cfg = load_config(overrides={"denoise": {"enabled": True, "floor_db": -6}})
    assert cfg.denoise.enabled and cfg.denoise.floor_db == -6.0
    with pytest.raises(VoiceConfigError, match="unknown denoise key"):
        load_config(overrides={"denoise": {"enabled": True, "strength": 3}})
    with pytest.raises(VoiceConfigError, match="out of range"):
        load_config(overrides={"denoise": {"floor_db": 6}})


@pytest.mark.parametrize(
    ("name", "rules"), [("kemps_calls", "kemps"), ("kems_calls", "kems"), ("kemps_pink20", "kemps")]
)
def test_committed_fixtures_still_detect_with_the_denoiser_on(name: str, rules: str) -> None:
    pytest.importorskip("pocketsphinx")
    from referee.voice.listener import CallListener
    from referee.voice.sources import read_wav

    want = json.loads((FIX / "expected.json").read_text())[name]["calls"]
    pcm = read_wav(FIX / f"{name}.wav")
    config = load_config(overrides={"denoise": {**_block(), "enabled": True}})
    got_by_piece = []
    for piece in (640, 1234):  # 20 ms pieces and uneven ones: the same calls
        lis = CallListener(rules, ["north", "east", "south", "west"], config)
        got = []
        for i in range(0, len(pcm), piece):
            got += lis.feed(pcm[i : i + piece])
        got += lis.flush()
        got_by_piece.append(got)
        assert [(c.call, c.target) for c in got] == [(w["call"], w["target"]) for w in want]
        for c, w in zip(got, want):
            assert abs(c.t - w["end"]) < 0.25
    a, b = got_by_piece
    assert [(c.t, c.phrase, c.provisional) for c in a] == [(c.t, c.phrase, c.provisional) for c in b]


def _block() -> dict:
    """The `denoise:` settings of configs/voice.yaml (so the test follows the shipped ones)."""
    import yaml

    from referee.voice.grammar import DEFAULT_CONFIG

    return dict(yaml.safe_load(DEFAULT_CONFIG.read_text()).get("denoise") or {})
