"""Rule sets: YAML files in ``configs/rules/`` (defaults + named variants) plus overrides.

``load_rules("kemps", {"variant": "cut", "hand_size": 5})`` returns a frozen ``Rules``
mapping. An unknown option, variant or bad value raises ``ValueError`` naming it. Reading
the YAML is the only I/O in ``referee.rules`` and happens once per game set-up.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

GAMES: tuple[str, ...] = ("kemps", "kems", "khmer")


def rules_dir() -> Path:
    """``$REFEREE_RULES_DIR`` or the repository's ``configs/rules``."""
    env = os.environ.get("REFEREE_RULES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "configs" / "rules"


@lru_cache(maxsize=None)
def rule_file(game: str) -> dict[str, Any]:
    """The parsed YAML of one game (cached; treat as read-only)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (one of {', '.join(GAMES)})")
    path = rules_dir() / f"{game}.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"rule set file missing: {path}") from None
    if not isinstance(data, dict) or "options" not in data:
        raise ValueError(f"{path}: expected 'options' and 'variants'")
    return data


@dataclass(frozen=True)
class Rules(Mapping[str, Any]):
    """Resolved options of one game; read as ``rules["word"]`` or ``rules.word``."""

    game: str
    values: tuple[tuple[str, Any], ...]
    variants: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> Any:
        for k, v in self.values:
            if k == key:
                return v
        raise KeyError(key)

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_") or key in ("game", "values", "variants"):
            raise AttributeError(key)  # keeps copy/pickle from recursing
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.values)

    def __len__(self) -> int:
        return len(self.values)

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.values}


def _check(game: str, key: str, value: Any, spec: dict[str, Any]) -> Any:
    where = f"{game} rules: {key}"
    if "choices" in spec:
        if value not in spec["choices"]:
            raise ValueError(f"{where} = {value!r}, expected one of {spec['choices']}")
        return value
    kind = spec.get("type", "str")
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{where} = {value!r}, expected true or false")
        return value
    if kind in ("int", "int_or_null"):
        if value is None and kind == "int_or_null":
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where} = {value!r}, expected an integer")
        if "min" in spec and value < spec["min"] or "max" in spec and value > spec["max"]:
            raise ValueError(f"{where} = {value} out of range [{spec.get('min')}, {spec.get('max')}]")
        return value
    if kind == "list":
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
        ):
            raise ValueError(f"{where} = {value!r}, expected a list of positive integers")
        return tuple(value)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where} = {value!r}, expected a non-empty string")
    if key == "word":
        value = value.upper()
        if not value.isalpha():
            raise ValueError(f"{where} = {value!r}, expected letters only")
    return value


def load_rules(game: str, overrides: Mapping[str, Any] | None = None) -> Rules:
    """Defaults, then the named variant(s) in ``overrides["variant"]``, then the other keys."""
    data = rule_file(game)
    options: dict[str, dict[str, Any]] = data["options"]
    variants: dict[str, dict[str, Any]] = data.get("variants") or {}
    overrides = dict(overrides or {})
    chosen = overrides.pop("variant", None) or overrides.pop("variants", None) or []
    if isinstance(chosen, str):
        chosen = [chosen]
    if not isinstance(chosen, (list, tuple)) or not all(isinstance(v, str) for v in chosen):
        raise ValueError(f"{game} rules: variant must be a name or a list of names, got {chosen!r}")
    values = {k: spec.get("default") for k, spec in options.items()}
    for name in chosen:
        if name not in variants:
            raise ValueError(
                f"{game} rules: unknown variant {name!r} (one of {', '.join(sorted(variants))})"
            )
        values.update(variants[name])
    for key, value in overrides.items():
        if key not in options:
            raise ValueError(
                f"{game} rules: unknown option {key!r} (known: {', '.join(sorted(options))})"
            )
        values[key] = value
    checked = tuple((k, _check(game, k, values[k], options[k])) for k in options)
    return Rules(game=game, values=checked, variants=tuple(chosen))
