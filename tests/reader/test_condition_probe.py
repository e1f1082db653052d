"""benchmarks/condition_probe.py: every fault names real condition fields, and each one
really changes the rendered image (a probe row equal to "clean camera" by accident would
report a robustness that was never tested)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.synth.conditions import SceneConditions
from vision.synth.layouts import random_layout
from vision.synth.procedural import make_procedural_deck
from vision.synth.scene import compose_table


def test_faults_are_condition_fields(load_script) -> None:  # noqa: ANN001
    probe = load_script("benchmarks/condition_probe.py")
    assert "as drawn" in probe.FAULTS and "clean camera" in probe.FAULTS
    base = SceneConditions()
    for name, fields in probe.FAULTS.items():
        if fields is not None:
            replace(base, **fields)  # TypeError on a field SceneConditions lacks
            assert name


def test_each_fault_changes_the_image(load_script) -> None:  # noqa: ANN001
    probe = load_script("benchmarks/condition_probe.py")
    deck = make_procedural_deck(1_000_000)  # no deck art needed
    rng = np.random.default_rng(3)
    size = (320, 240)
    placements, occluders = random_layout(rng, size, deck)
    drawn = SceneConditions.random(rng)

    def render(fields: dict) -> np.ndarray:
        return compose_table(placements, deck, size, replace(drawn, **fields), np.random.default_rng(7), occluders).image

    clean = render(probe.FAULTS["clean camera"])
    for name, fields in probe.FAULTS.items():
        if fields is None or name == "clean camera":
            continue
        assert np.abs(render(fields).astype(int) - clean.astype(int)).mean() > 0.5, name
