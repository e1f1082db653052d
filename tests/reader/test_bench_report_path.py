"""benchmarks/bench_reader.py: a speed-only run must not overwrite the accuracy report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_reader.py"


def test_speed_only_runs_report_to_their_own_file(load_script: Callable[[str], ModuleType]) -> None:
    bench = load_script("benchmarks/bench_reader.py")
    accuracy, speed = bench.default_report(False), bench.default_report(True)
    assert accuracy.name == "reader.json" and speed.name == "reader_speed.json"
    assert accuracy.parent == speed.parent == SCRIPT.parent / "results"
