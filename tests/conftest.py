"""Shared pytest configuration.

Slow tests (`@pytest.mark.slow`) are skipped in the default run; `pytest -m slow` runs them.
"""

from __future__ import annotations

import os
from pathlib import Path

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
