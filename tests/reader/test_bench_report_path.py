"""benchmarks/bench_reader.py: a speed-only run must not overwrite the accuracy report."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_reader.py"


def _bench():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("bench_reader", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_speed_only_runs_report_to_their_own_file() -> None:
    bench = _bench()
    accuracy, speed = bench.default_report(False), bench.default_report(True)
    assert accuracy.name == "reader.json" and speed.name == "reader_speed.json"
    assert accuracy.parent == speed.parent == SCRIPT.parent / "results"
