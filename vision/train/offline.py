"""Offline environment for ultralytics: call `setup_offline()` before importing it.

Every network touch ultralytics makes on this machine kind (see
`shared/notes/ultralytics-offline.md`) is closed here, in one place:
connectivity check (YOLO_OFFLINE), auto-install of export packages
(YOLO_AUTOINSTALL), the settings file and the Arial font check (YOLO_CONFIG_DIR with
DejaVuSans copied under both Arial names) and matplotlib's cache in $HOME.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".cache"
_FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")


def _dejavu_font() -> Path | None:
    """matplotlib ships DejaVuSans; fall back to the Debian font package."""
    try:
        import matplotlib

        path = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        if path.is_file():
            return path
    except ImportError:
        pass
    debian = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    return debian if debian.is_file() else None


def setup_offline(config_dir: Path | None = None) -> Path:
    """Set the ultralytics environment; returns the YOLO_CONFIG_DIR used. Idempotent."""
    cfg = Path(config_dir or CACHE_DIR / "ultralytics")
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    os.environ.setdefault("MPLCONFIGDIR", str(CACHE_DIR / "matplotlib"))
    os.environ.setdefault("YOLO_VERBOSE", "True")
    fonts = cfg / "Ultralytics"
    fonts.mkdir(parents=True, exist_ok=True)
    Path(os.environ["MPLCONFIGDIR"]).mkdir(parents=True, exist_ok=True)
    src = _dejavu_font()
    for name in _FONT_NAMES:
        dst = fonts / name
        if not dst.exists() and src is not None:
            shutil.copyfile(src, dst)
    return cfg
