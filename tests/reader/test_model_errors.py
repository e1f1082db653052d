"""A bad model path or a corrupt model file gives one clear error (API and CLI)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vision.reader.reader import DEFAULT_MODEL_DIR, CardReader, ReaderMeta, detector_choice
from vision.reader.runtime import ModelError

HAVE_MODEL = (DEFAULT_MODEL_DIR / "reader.json").is_file()


def _model_files() -> list[str]:
    """The network files the shipped reader.json makes the runtime load on this CPU (xml + its
    bin; the detector file depends on the CPU's float precision, `detector_choice`)."""
    if not HAVE_MODEL:
        return []
    meta = json.loads((DEFAULT_MODEL_DIR / "reader.json").read_text())
    detector = detector_choice(ReaderMeta.from_json(meta))[0]
    names = [detector, meta.get("classifier_file", "index_classifier.onnx")]
    names += [meta["body_file"]] if meta.get("body_file") else []  # the whole-card network
    return names + [n[:-4] + ".bin" for n in names if n.endswith(".xml")]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", "read", *args], capture_output=True, text=True, timeout=120)


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="model directory not found"):
        CardReader.load(tmp_path / "nope")


def test_directory_without_meta(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no reader.json"):
        CardReader.load(tmp_path)


def test_corrupt_meta(tmp_path: Path) -> None:
    (tmp_path / "reader.json").write_text("{not json")
    with pytest.raises(ModelError, match="corrupt"):
        CardReader.load(tmp_path)
    (tmp_path / "reader.json").write_text(json.dumps({"detector_fil": "x.xml"}))
    with pytest.raises(ModelError, match="unknown keys"):
        CardReader.load(tmp_path)


@pytest.mark.skipif(not HAVE_MODEL, reason="no shipped model in models/")
@pytest.mark.parametrize("victim", _model_files())
def test_corrupt_or_missing_model_file(tmp_path: Path, victim: str) -> None:
    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model)
    (model / victim).write_bytes(b"\x00garbage" * 10)
    with pytest.raises(ModelError) as err:
        CardReader.load(model)
    assert "\n" not in str(err.value) and "cannot load model" in str(err.value)
    (model / victim).unlink()
    with pytest.raises(ModelError, match="not found|missing"):
        CardReader.load(model)


def test_cli_bad_model_is_one_line(tmp_path: Path) -> None:
    r = _cli(str(tmp_path / "x.jpg"), "--model", str(tmp_path / "nope"))
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "model directory not found" in r.stderr


@pytest.mark.skipif(not HAVE_MODEL, reason="no shipped model in models/")
def test_cli_unreadable_image_does_not_stop_the_others(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_text("not an image")
    good = Path(__file__).resolve().parents[1] / "fixtures" / "reader"
    first = sorted(good.glob("*.jpg"))[0]
    r = _cli(str(bad), str(tmp_path / "missing.png"), str(first), "--json")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1
    assert [x["image"] for x in lines] == [str(bad), str(tmp_path / "missing.png"), str(first)]
    assert "error" in lines[0] and "error" in lines[1] and isinstance(lines[2]["cards"], list)


@pytest.mark.skipif(not HAVE_MODEL, reason="no shipped model in models/")
def test_read_deck_drops_cards_the_deck_does_not_hold() -> None:
    """A Khmer deck holds A-6 only: the queen close-up reads as no card; on the 3S + AD table
    (tests/fixtures/reader/truth.json) the A-6 reads stay, whatever else is read."""
    fix = Path(__file__).resolve().parents[1] / "fixtures" / "reader"
    imgs = [str(fix / "closeup_0_QC.jpg"), str(fix / "table_0.jpg")]
    plain = [json.loads(line) for line in _cli("--json", *imgs).stdout.splitlines()]
    khmer = [json.loads(line) for line in _cli("--json", "--deck", "khmer", *imgs).stdout.splitlines()]
    assert [c["card"] for c in plain[0]["cards"]] == ["QC"] and khmer[0]["cards"] == []
    assert sorted(c["card"] for c in khmer[1]["cards"]) == sorted(c["card"] for c in plain[1]["cards"] if c["card"][0] in "A23456")
    assert "AD" in {c["card"] for c in khmer[1]["cards"]}
    bad = _cli("--deck", "tarot", imgs[0])
    assert bad.returncode != 0 and "invalid choice" in bad.stderr


@pytest.mark.skipif(not HAVE_MODEL, reason="no shipped model in models/")
@pytest.mark.parametrize("multiscale", [False, True])
def test_an_image_too_small_for_a_card_reads_as_none(multiscale: bool) -> None:
    # a 1×1 image had crashed the outline search (OpenCV resize to an empty size)
    import numpy as np

    reader = CardReader.load()
    for shape in [(1, 1, 3), (10, 400, 3), (15, 15, 3)]:
        assert len(reader.read(np.zeros(shape, np.uint8), multiscale=multiscale)) == 0


@pytest.mark.skipif(not HAVE_MODEL, reason="no shipped model in models/")
def test_cli_an_image_the_reader_fails_on_is_reported_and_the_others_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2
    import numpy as np

    from referee.cli.main import main

    first = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "reader").glob("*.jpg"))[0]
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((64, 64, 3), np.uint8))
    real = CardReader.read

    def read(self: CardReader, image: np.ndarray, *a: object, **kw: object):  # noqa: ANN202
        if not image.any():  # stands for an image that trips an error inside the reader
            raise RuntimeError("boom")
        return real(self, image, *a, **kw)

    monkeypatch.setattr(CardReader, "read", read)
    assert main(["read", "--json", str(black), str(first)]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"image": str(black), "error": "reading failed (RuntimeError: boom)"}
    assert lines[1]["image"] == str(first) and lines[1]["cards"]


def test_a_heic_photo_gets_a_hint_not_a_generic_error(tmp_path: Path) -> None:
    from referee.cli.read import load_image

    heic = tmp_path / "IMG_0001.HEIC"  # an iPhone's default: ISO box header, brand "heic"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    image, why = load_image(str(heic))
    assert image is None and "HEIC" in why and "JPEG" in why
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(bytes(64))
    assert load_image(str(junk)) == (None, "not an image OpenCV can decode")


def test_detector_precision_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The float detector wherever the model ships one: bf16 where the CPU computes it
    natively, f32 elsewhere; INT8 only when asked (it reads small indices worse)."""
    import vision.reader.reader as reader_mod

    meta = ReaderMeta(detector_file="d_int8.xml", detector_bf16_file="d.xml")
    monkeypatch.setattr(reader_mod, "cpu_float_precision", lambda: "f32")
    assert detector_choice(meta) == ("d.xml", "f32")
    assert detector_choice(meta, "bf16") == ("d.xml", "bf16")
    assert detector_choice(meta, "int8") == ("d_int8.xml", None)
    monkeypatch.setattr(reader_mod, "cpu_float_precision", lambda: "bf16")
    assert detector_choice(meta) == ("d.xml", "bf16")
    assert detector_choice(meta, "f32") == ("d.xml", "f32")
    assert detector_choice(meta, "int8") == ("d_int8.xml", None)
    # a model folder without a float detector always loads its one file
    assert detector_choice(ReaderMeta(detector_file="d_int8.xml"), "bf16") == ("d_int8.xml", None)
    with pytest.raises(ValueError, match="precision must be one of"):
        detector_choice(meta, "fp16")


def test_a_phone_photo_turned_by_its_exif_tag_is_read_upright(tmp_path: Path) -> None:
    """Phones store a portrait photo's pixels sideways with an EXIF orientation tag; the
    image is read the way the phone shows it (OpenCV's imdecode applies the tag)."""
    import numpy as np
    from PIL import Image

    from referee.cli.read import load_image

    upright = np.zeros((40, 60, 3), np.uint8)
    upright[:10, :20] = 255  # a white patch top-left, as the photo is viewed
    stored = Image.fromarray(upright).transpose(Image.Transpose.ROTATE_270)  # pixels turned 90° clockwise
    exif = Image.Exif()
    exif[0x0112] = 8  # "rotate 90° counter-clockwise to view"
    path = tmp_path / "IMG_0002.jpg"
    stored.save(path, exif=exif.tobytes(), quality=100)
    image, why = load_image(str(path))
    assert not why and image is not None and image.shape[:2] == (40, 60)
    assert image[:10, :20].mean() > 200 and image[20:, 30:].mean() < 50
