"""Smoke training: tiny data, one epoch of both stages, export, then read with the result.

Proves the whole pipeline end to end (synth -> data -> classifier -> ultralytics detector
from the model yaml, offline -> OpenVINO/ONNX export -> INT8 quantization -> CardReader);
not the model quality.
About 20-40 s on 2 shared cores.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]


def test_smoke_training_end_to_end(tmp_path: Path) -> None:
    out, model = tmp_path / "run", tmp_path / "model"
    r = subprocess.run(
        [sys.executable, "-m", "referee", "train", "--config", str(REPO / "configs/train/smoke.yaml"),
         "--out", str(out), "--export-dir", str(model)],
        capture_output=True, text=True, timeout=240, cwd=REPO,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(report) == {"data", "classifier", "detector", "export", "body"}
    assert report["data"]["tiles"]["train"] > 0 and report["data"]["crops"]["train"]["indices"] > 0
    for name in ("reader.json", "index_detector.xml", "index_detector.bin", "index_detector.onnx", "index_classifier.onnx",
                 "index_detector_int8.xml", "index_detector_int8.bin", "index_classifier_int8.xml"):  # fmt: skip
        assert (model / name).is_file(), name
    meta = json.loads((model / "reader.json").read_text())
    assert meta["detector_file"] == "index_detector_int8.xml" and meta["classifier_file"] == "index_classifier_int8.xml"
    assert meta["detector_bf16_file"] == "index_detector.xml"  # the float file, for CPUs computing bf16
    assert meta["min_card_p"] == 0.4 and meta["geometry"]["reassign_below"] == 0.9  # the config's runtime block
    assert (out / "detector" / "weights" / "last.pt").is_file()
    # the whole-card network joined the exported model
    assert (model / "card_body.onnx").is_file() and (model / "card_body_int8.bin").is_file()
    assert meta["body_file"] == "card_body_int8.xml" and meta["body_add_p"] == 0.6  # INT8, as the config asks
    assert report["body"]["patches"]["train"] > 0

    from vision.reader.reader import CardReader

    reader = CardReader.load(model)
    assert reader.body is not None
    img = cv2.imread(str(next((out / "det" / "images" / "train").glob("*.jpg"))))
    det = reader.read(np.ascontiguousarray(img))
    assert det.xyxy.shape[1] == 4 and len(det.cards) == len(det.confidence)

    # a second view (an earlier round's classifier; here the same one) is quantized, named
    # in reader.json and loaded as a TwoViewClassifier
    import dataclasses

    from vision.reader.classifier import TwoViewClassifier
    from vision.reader.reader import META_FILE, ReaderMeta
    from vision.train.config import SecondViewConfig, load_config
    from vision.train.pipeline import export_second_view

    cfg = load_config(REPO / "configs/train/smoke.yaml")
    sv = SecondViewConfig(classifier_from=str(out / "index_classifier.onnx"), size=cfg.classifier.size, pad=1.25, below=0.9)
    two = export_second_view(dataclasses.replace(cfg, second_view=sv), model, ReaderMeta.from_json(meta), {})
    assert two.classifier2_file == "index_classifier2_int8.xml" and (model / "index_classifier2_int8.bin").is_file()
    (model / META_FILE).write_text(json.dumps(two.to_json()))
    reader = CardReader.load(model)
    assert reader.body is not None
    assert isinstance(reader.classifier, TwoViewClassifier) and reader.classifier.below == 0.9
    det = reader.read(np.ascontiguousarray(img))
    assert len(det.cards) == len(det.confidence)


def test_unknown_config_key_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("detector: {epoch: 3}\n")
    r = subprocess.run([sys.executable, "-m", "referee", "train", "--config", str(bad)], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and "unknown key(s) epoch" in r.stderr and r.stderr.count("\n") == 1


def test_classifier_init_keeps_the_trunk_at_a_new_input_size(tmp_path: Path) -> None:
    import torch

    from vision.train.classifier_model import IndexNet
    from vision.train.train_classifier import load_matching

    old = IndexNet(width=4, size=40)
    ckpt = tmp_path / "c.pt"
    torch.save({"model": old.state_dict()}, ckpt)
    new = IndexNet(width=4, size=48)
    fresh = load_matching(new, ckpt)
    # the flattening neck depends on the input size; everything else carries over
    assert fresh == ["neck.2.weight"]
    for k, v in old.state_dict().items():
        if k != "neck.2.weight":
            assert torch.equal(new.state_dict()[k], v), k


def test_classifier_only_round_reuses_a_detector(tmp_path: Path) -> None:
    from vision.train.config import load_config
    from vision.train.pipeline import stage_detector

    weights = tmp_path / "det.pt"
    weights.write_bytes(b"weights")
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text(f"data: {{detector_tiles: false}}\ndetector: {{weights_from: {weights}}}\n")
    cfg = load_config(cfg_file)
    assert cfg.data.detector_tiles is False
    report = stage_detector(cfg, tmp_path)
    assert report["trained"] is False and (tmp_path / "index_detector.pt").read_bytes() == b"weights"
    missing = tmp_path / "m.yaml"
    missing.write_text(f"detector: {{weights_from: {tmp_path / 'nope.pt'}}}\n")
    try:
        stage_detector(load_config(missing), tmp_path)
    except FileNotFoundError as exc:
        assert "weights_from" in str(exc)
    else:
        raise AssertionError("a missing detector.weights_from must be an error")


def _patch_file(path: Path, n: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    np.savez(
        path, patches=rng.integers(0, 255, (n, 64, 44, 3), dtype=np.uint8), rank=rng.integers(-1, 13, n),
        suit=rng.integers(0, 4, n), family=np.array(["f"] * n),
    )  # fmt: skip
    return path


def test_a_body_round_continues_from_a_checkpoint_on_joined_patches(tmp_path: Path) -> None:
    import torch

    from vision.train.train_body import BodyTrainConfig, load_patches, train_body

    joined = load_patches(_patch_file(tmp_path / "a.npz", 40, 1), _patch_file(tmp_path / "b.npz", 24, 2))
    assert len(joined["rank"]) == 64 and joined["patches"].shape[1:] == (64, 44, 3)
    train_body(joined, None, BodyTrainConfig(epochs=1, batch=32, width=8, threads=1), tmp_path / "r1")
    ckpt = tmp_path / "r1" / "body_last.pt"
    again = train_body(joined, None, BodyTrainConfig(epochs=0, width=8, threads=1, init=str(ckpt)), tmp_path / "r2")
    saved = torch.load(ckpt, weights_only=True)["model"]
    assert all(torch.equal(v, saved[k]) for k, v in again.state_dict().items())


def test_a_body_round_continues_from_an_exported_onnx_with_ink_tint(tmp_path: Path) -> None:
    """A shipped reader folder keeps only card_body.onnx: a round starts from it (same
    function before training) and trains with the ink tint on."""
    import onnxruntime as ort

    from vision.train.train_body import BodyTrainConfig, export_body_onnx, load_patches, predict, to_tensor, train_body

    data = load_patches(_patch_file(tmp_path / "a.npz", 48, 3))
    first = train_body(data, None, BodyTrainConfig(epochs=1, batch=16, width=8, threads=1), tmp_path / "r1")
    onnx_path = export_body_onnx(first, tmp_path / "card_body.onnx")
    start = train_body(data, None, BodyTrainConfig(epochs=0, width=8, threads=1, init=str(onnx_path)), tmp_path / "r2")
    want = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"cards": to_tensor(data["patches"][:6]).numpy()})[0]
    assert np.allclose(predict(start, data["patches"][:6]), want, atol=1e-3)
    tinted = train_body(data, None, BodyTrainConfig(epochs=1, batch=16, width=8, threads=1, init=str(onnx_path), ink_tint=0.5, distill=0.5), tmp_path / "r3")
    assert not np.allclose(predict(tinted, data["patches"][:6]), want, atol=1e-3)  # it did train


def test_a_continued_body_round_without_its_earlier_round_is_one_clear_error(tmp_path: Path) -> None:
    cfg = tmp_path / "b.yaml"
    cfg.write_text(f"out: {tmp_path / 'run'}\nbody: {{init_from: {tmp_path / 'nope.pt'}}}\n")
    r = subprocess.run([sys.executable, "-m", "referee", "train", "--config", str(cfg), "--stages", "body"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode != 0 and "nope.pt" in r.stderr and "train that round first" in r.stderr
    assert not (tmp_path / "run" / "body").exists()  # nothing rendered before the check


def test_body_data_stage_renders_patches_only(tmp_path: Path) -> None:
    """`--stages body-data` makes a patch set for another round's `body.extra_train`:
    patches rendered, nothing trained or exported."""
    out = tmp_path / "run"
    r = subprocess.run(
        [sys.executable, "-m", "referee", "train", "--config", str(REPO / "configs/train/smoke.yaml"), "--out", str(out),
         "--export-dir", str(tmp_path / "model"), "--stages", "body-data"],
        capture_output=True, text=True, timeout=240, cwd=REPO,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(report) == {"body_data"} and report["body_data"]["patches"]["train"] > 0
    from vision.train.train_body import load_patches

    assert len(load_patches(out / "body" / "train.npz")["rank"]) == report["body_data"]["patches"]["train"]
    assert not (out / "body_last.pt").exists() and not (tmp_path / "model").exists()


def test_a_final_fit_draws_training_scenes_from_the_val_families_too(monkeypatch) -> None:  # noqa: ANN001
    import pytest

    from vision.train import pipeline
    from vision.train.config import DataConfig
    from vision.train.dataset import DeckSpec

    pools = {"train": [DeckSpec("a", "fam-a")], "val": [DeckSpec("v", "fam-v")], "test": [DeckSpec("t", "fam-t")]}
    monkeypatch.setattr(pipeline, "real_deck_pools", lambda: {k: list(v) for k, v in pools.items()})
    _, real = pipeline.deck_pools(DataConfig(procedural={}))
    assert [d.name for d in real["train"]] == ["a"]  # by default the held-out families stay out
    _, real = pipeline.deck_pools(DataConfig(procedural={}, train_real_splits=("train", "val")))
    assert [d.name for d in real["train"]] == ["a", "v"]
    assert [d.name for d in real["test"]] == ["t"]
    for bad in (("train", "test"), ("val",)):  # never the test families; never without the training ones
        with pytest.raises(ValueError, match="train_real_splits"):
            DataConfig(train_real_splits=bad)


def test_a_config_training_on_test_families_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("data: {train_real_splits: [train, test]}\n")
    r = subprocess.run([sys.executable, "-m", "referee", "train", "--config", str(bad)], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and "train_real_splits" in r.stderr and r.stderr.count("\n") == 1
