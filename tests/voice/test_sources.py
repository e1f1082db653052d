"""Audio sources: WAV resampling, no microphone → one clear message, browser PCM stream."""

from __future__ import annotations

import builtins
import struct
import sys
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.voice import sources
from referee.voice.sources import MicUnavailable, PcmStream, read_wav


def _write(path: Path, x: np.ndarray, rate: int, channels: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((x * 20000).astype("<i2").tobytes())


def test_stereo_44k1_wav_becomes_16k_mono_with_the_same_pitch(tmp_path: Path) -> None:
    t = np.arange(44100) / 44100
    tone = np.sin(2 * np.pi * 440 * t)
    _write(tmp_path / "a.wav", np.stack([tone, tone], axis=1).reshape(-1), 44100, 2)
    pcm = np.frombuffer(read_wav(tmp_path / "a.wav"), dtype="<i2").astype(float)
    assert abs(len(pcm) - 16000) <= 1
    spectrum = np.abs(np.fft.rfft(pcm))
    assert abs(np.argmax(spectrum) * 16000 / len(pcm) - 440) < 3


def test_downsampling_removes_what_16k_cannot_hold(tmp_path: Path) -> None:
    t = np.arange(48000) / 48000
    _write(tmp_path / "hi.wav", np.sin(2 * np.pi * 12000 * t), 48000, 1)  # would alias to 4 kHz
    pcm = np.frombuffer(read_wav(tmp_path / "hi.wav"), dtype="<i2").astype(float)
    assert np.sqrt(np.mean(pcm**2)) < 200  # vs ~14000 without the low-pass


def _riff(path: Path, tag: int, channels: int, rate: int, bits: int, data: bytes, extensible: bool = False) -> None:
    """A WAV file written chunk by chunk (Python's wave writes integer PCM only)."""
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", 0xFFFE if extensible else tag, channels, rate, rate * block, block, bits)
    if extensible:  # cbSize, valid bits, channel mask, then the subformat GUID opening with the tag
        fmt += struct.pack("<HHIH", 22, bits, 3 if channels == 2 else 4, tag) + bytes.fromhex("000000001000800000aa00389b71")
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)


@pytest.mark.parametrize("kind", ["float32", "float64", "extensible24"])
def test_float_and_extensible_wavs_are_read(tmp_path: Path, kind: str) -> None:
    # Audacity exports 32-bit float by default; field recorders write extensible 24-bit
    t = np.arange(48000) / 48000
    tone = 0.5 * np.sin(2 * np.pi * 440 * t)
    if kind.startswith("float"):
        bits = int(kind[5:])
        _riff(tmp_path / "a.wav", 3, 1, 48000, bits, tone.astype("<f4" if bits == 32 else "<f8").tobytes())
    else:
        v = (np.stack([tone, tone], 1).reshape(-1) * 8388607).astype("<i4").tobytes()
        _riff(tmp_path / "a.wav", 1, 2, 48000, 24, b"".join(v[i : i + 3] for i in range(0, len(v), 4)), extensible=True)
    pcm = np.frombuffer(read_wav(tmp_path / "a.wav"), dtype="<i2").astype(float)
    assert abs(len(pcm) - 16000) <= 1
    assert abs(np.argmax(np.abs(np.fft.rfft(pcm))) * 16000 / len(pcm) - 440) < 3
    assert 0.3 < np.max(np.abs(pcm)) / 32768 < 0.6


def test_a_wav_in_an_unsupported_encoding_is_a_clear_error(tmp_path: Path) -> None:
    _riff(tmp_path / "alaw.wav", 6, 1, 8000, 8, bytes(800))  # A-law telephony
    with pytest.raises(sources.AudioFileError, match="unsupported WAV encoding"):
        read_wav(tmp_path / "alaw.wav")
    (tmp_path / "junk.wav").write_bytes(b"RIFF1234WAVEjunk")
    with pytest.raises(sources.AudioFileError, match="not a PCM WAV file"):
        read_wav(tmp_path / "junk.wav")
    with pytest.raises(sources.AudioFileError, match="is a directory"):
        read_wav(tmp_path)


@pytest.mark.parametrize("width", [2, 3, 4])
def test_a_wav_cut_mid_sample_is_read_up_to_the_cut(tmp_path: Path, width: int) -> None:
    # an interrupted recording (a command-line audit, 7 Dec: "buffer size must be a multiple
    # of element size", a traceback)
    path = tmp_path / "cut.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(16000)
        w.writeframes(bytes(width * 1600))
    data = path.read_bytes()
    path.write_bytes(data[:-1])  # one byte short of the last sample
    assert len(read_wav(path)) == 2 * 1599


def test_a_wav_header_with_an_impossible_rate_is_a_clear_error(tmp_path: Path) -> None:
    _riff(tmp_path / "r1.wav", 1, 1, 1, 16, bytes(32000))  # 1 Hz: an 11.9 GiB resample before
    with pytest.raises(sources.AudioFileError, match="1 Hz"):
        read_wav(tmp_path / "r1.wav")


def test_missing_wav_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(sources.AudioFileError, match="no such file"):
        read_wav(tmp_path / "nope.wav")


def test_no_portaudio_gives_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def fake_import(name: str, *a: Any, **k: Any) -> Any:
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *a, **k)

    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(MicUnavailable) as err:
        sources.Microphone()
    assert "\n" not in str(err.value) and "no microphone" in str(err.value)
    ok, why = sources.microphone_status()
    assert not ok and why == str(err.value)


def test_no_input_device_gives_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeSd:
        @staticmethod
        def query_devices(device: Any = None, kind: str | None = None) -> Any:
            raise ValueError("No input device matching\n  kind")

    monkeypatch.setattr(sources, "_sounddevice", lambda: FakeSd)
    with pytest.raises(MicUnavailable, match=r"^no microphone: No input device matching kind$"):
        sources.check_microphone()


class FakeListener:
    def __init__(self) -> None:
        self.fed: list[tuple[int, float | None]] = []

    def feed(self, data: bytes, t0: float | None = None) -> list[Any]:
        self.fed.append((len(data), t0))
        return []

    def flush(self) -> list[Any]:
        return []


def test_pcm_stream_keeps_byte_alignment_and_server_clock() -> None:
    now = [1000.0]
    lis = FakeListener()
    st = PcmStream(lis, clock=lambda: now[0])
    st.push(b"\x00" * 641)  # 320 samples + a stray byte kept for later
    now[0] += 0.02
    st.push(b"\x00" * 639)
    assert lis.fed[0] == (640, pytest.approx(1000.0 - 0.02))
    assert lis.fed[1] == (640, None)  # on time: the sample count carries the clock
    now[0] += 5.0  # the tab was hidden: re-anchor on arrival
    st.push(b"\x00" * 640)
    assert lis.fed[2][1] == pytest.approx(now[0] - 0.02)
