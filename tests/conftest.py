"""Shared pytest configuration.

Slow tests (`@pytest.mark.slow`) are skipped in the default run; `pytest -m slow` runs them.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]

# Ultralytics and matplotlib must never reach the network or write into $HOME in tests.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "False")
os.environ.setdefault("MPLCONFIGDIR", str(REPO / ".cache" / "matplotlib"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    markexpr = config.getoption("-m") or ""
    if "slow" in markexpr:
        return
    skip = pytest.mark.skip(reason="slow: run with `pytest -m slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def load_script() -> Callable[[str], ModuleType]:
    """Import a script of the repo (benchmarks/, scripts/: not packages) by its path from the
    repo root, e.g. `load_script("benchmarks/bench_reader.py").main`."""

    def load(rel: str) -> ModuleType:
        path = REPO / rel
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None, path
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load
