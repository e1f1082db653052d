"""scripts/swap_networks.py: a candidate reader folder with one network swapped in."""

from __future__ import annotations

from collections.abc import Callable
import json
from pathlib import Path
from types import ModuleType

import pytest

from vision.reader.reader import DEFAULT_MODEL_DIR, CardReader

pytestmark = pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "reader.json").is_file(), reason="no shipped model")


def test_classifier_swap_gives_a_loadable_reader(tmp_path: Path, load_script: Callable[[str], ModuleType]) -> None:
    out = tmp_path / "candidate"
    assert load_script("scripts/swap_networks.py").main([str(DEFAULT_MODEL_DIR), str(out), "--classifier", str(DEFAULT_MODEL_DIR / "index_classifier.onnx"), "--int8-scenes", "2"]) == 0
    meta = json.loads((out / "reader.json").read_text())
    assert meta == json.loads((DEFAULT_MODEL_DIR / "reader.json").read_text())  # names unchanged: a drop-in folder
    assert (out / meta["classifier_file"]).is_file() and (out / meta["detector_file"]).is_file()
    assert (out / meta["classifier_file"]).read_bytes() != b""
    CardReader.load(out)


def test_second_view_swap_replaces_only_the_second_view(tmp_path: Path, load_script: Callable[[str], ModuleType]) -> None:
    out = tmp_path / "candidate"
    meta = json.loads((DEFAULT_MODEL_DIR / "reader.json").read_text())
    new_view = tmp_path / "view2.onnx"  # the shipped second view stands in for a newly trained one (same input size)
    new_view.write_bytes((DEFAULT_MODEL_DIR / "index_classifier2.onnx").read_bytes())
    assert load_script("scripts/swap_networks.py").main([str(DEFAULT_MODEL_DIR), str(out), "--classifier2", str(new_view), "--int8-scenes", "2"]) == 0
    assert (out / "index_classifier2.onnx").read_bytes() == new_view.read_bytes()
    assert (out / meta["classifier_file"]).read_bytes() == (DEFAULT_MODEL_DIR / meta["classifier_file"]).read_bytes()
    assert (out / meta["classifier2_file"]).is_file()
    CardReader.load(out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "nothing to swap"),
        (["--classifier2", "missing.onnx"], "not found"),
        (["--classifier", "missing.onnx"], "not found"),
    ],
)
def test_bad_arguments_are_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str, load_script: Callable[[str], ModuleType]
) -> None:
    with pytest.raises(SystemExit):
        load_script("scripts/swap_networks.py").main([str(DEFAULT_MODEL_DIR), str(tmp_path / "out"), *args])
    assert message in capsys.readouterr().err


def test_out_dir_must_differ_from_model_dir(capsys: pytest.CaptureFixture[str], load_script: Callable[[str], ModuleType]) -> None:
    with pytest.raises(SystemExit):
        load_script("scripts/swap_networks.py").main([str(DEFAULT_MODEL_DIR), str(DEFAULT_MODEL_DIR), "--classifier", str(DEFAULT_MODEL_DIR / "index_classifier.onnx")])
    assert "must differ" in capsys.readouterr().err
