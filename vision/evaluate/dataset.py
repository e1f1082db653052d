"""Recordings and datasets on disk: discovery, loading and validation.

A recording is a folder with a video, `truth.jsonl` (header line, then events with "t")
and `meta.json`; optionally `cards.jsonl` (visible cards on some frames, for card-read
metrics). A dataset is a folder of recordings, with or without `manifest.json`.
The format is documented in `datasets/README.md`. Every problem raises `DatasetError`
with one line that names the offending file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RECORDING_FORMAT = "kemps-referee-recording/1"
DATASET_FORMAT = "kemps-referee-dataset/1"
GAMES = ("kemps", "kems", "khmer")
META_REQUIRED = ("game", "players", "fps", "size", "video")


class DatasetError(ValueError):
    """A broken dataset: the message is one line naming the file."""


@dataclass(frozen=True, slots=True)
class CardTruth:
    """One card readable on a truth frame: its identity and image box (x1, y1, x2, y2)."""

    card: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class FrameTruth:
    """The readable cards of one frame (an index corner visible)."""

    frame: int
    cards: tuple[CardTruth, ...]


@dataclass(slots=True)
class Recording:
    """One recording, loaded and validated (the video itself is opened lazily)."""

    name: str
    root: Path
    meta: dict[str, Any]
    header: dict[str, Any]
    events: list[dict[str, Any]]
    frames: list[FrameTruth] = field(default_factory=list)

    @property
    def video_path(self) -> Path:
        return self.root / str(self.meta["video"])

    @property
    def game(self) -> str:
        return str(self.header["game"])

    @property
    def fps(self) -> float:
        return float(self.meta["fps"])


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from None


def _read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """(line number, value) for each non-blank line."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # tolerate a BOM (a Windows editor)
    except FileNotFoundError:
        raise DatasetError(f"{path}: missing") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc})") from None
    rows: list[tuple[int, Any]] = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((no, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{no}: not valid JSON ({exc.msg})") from None
    return rows


def load_truth(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the timed events of a truth file, validated line by line."""
    rows = _read_jsonl(path)
    if not rows:
        raise DatasetError(f"{path}: empty (expected a header line, then events)")
    no, header = rows[0]
    if not isinstance(header, dict) or header.get("game") not in GAMES or "type" in header:
        raise DatasetError(f"{path}:{no}: first line must be a header with game one of {', '.join(GAMES)}")
    if not isinstance(header.get("players"), list) or not header["players"]:
        raise DatasetError(f"{path}:{no}: header needs a non-empty 'players' list")
    events: list[dict[str, Any]] = []
    last_t = 0.0
    for no, ev in rows[1:]:
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise DatasetError(f"{path}:{no}: an event must be an object with a 'type'")
        t = ev.get("t")
        if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0:
            raise DatasetError(f"{path}:{no}: event needs a time 't' (seconds, ≥ 0)")
        if t < last_t:
            raise DatasetError(f"{path}:{no}: events out of time order (t={t} after t={last_t})")
        last_t = float(t)
        events.append(ev)
    return header, events


def load_frames(path: Path) -> list[FrameTruth]:
    """Optional per-frame card truth (`cards.jsonl`)."""
    frames: list[FrameTruth] = []
    for no, row in _read_jsonl(path):
        try:
            cards = tuple(
                CardTruth(str(c["card"]), tuple(float(v) for v in c["box"]))  # type: ignore[arg-type]
                for c in row["cards"]
            )
            if any(len(c.box) != 4 for c in cards):
                raise ValueError("box needs 4 numbers")
            frames.append(FrameTruth(int(row["frame"]), cards))
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"{path}:{no}: bad frame line ({exc!s})") from None
    return frames


def load_recording(root: Path) -> Recording:
    """Load and validate one recording folder (the video is checked when it is opened)."""
    root = Path(root)
    meta_path = root / "meta.json"
    meta = _read_json(meta_path)
    if not isinstance(meta, dict):
        raise DatasetError(f"{meta_path}: must be a JSON object")
    missing = [k for k in META_REQUIRED if k not in meta]
    if missing:
        raise DatasetError(f"{meta_path}: missing key(s) {', '.join(missing)}")
    if not isinstance(meta["fps"], (int, float)) or meta["fps"] <= 0:
        raise DatasetError(f"{meta_path}: 'fps' must be a positive number")
    header, events = load_truth(root / str(meta.get("truth", "truth.jsonl")))
    if meta["game"] != header["game"]:
        raise DatasetError(f"{meta_path}: game {meta['game']!r} differs from the truth header's {header['game']!r}")
    if not (root / str(meta["video"])).is_file():
        raise DatasetError(f"{root / str(meta['video'])}: video file missing")
    cards_path = root / str(meta.get("cards", "cards.jsonl"))
    frames = load_frames(cards_path) if cards_path.is_file() else []
    return Recording(name=root.name, root=root, meta=meta, header=header, events=events, frames=frames)


def is_recording(path: Path) -> bool:
    return (path / "meta.json").is_file()


def discover(path: Path) -> list[Path]:
    """Recording folders of DATASET: a dataset with a manifest, a folder of recordings, or one recording."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file or folder")
    if not path.is_dir():
        raise DatasetError(f"{path}: expected a dataset or recording folder")
    if is_recording(path):
        return [path]
    manifest = path / "manifest.json"
    if manifest.is_file():
        data = _read_json(manifest)
        entries = data.get("recordings") if isinstance(data, dict) else None
        if not isinstance(entries, list) or not entries:
            raise DatasetError(f"{manifest}: needs a non-empty 'recordings' list")
        roots: list[Path] = []
        for i, entry in enumerate(entries):
            rel = entry.get("path") if isinstance(entry, dict) else entry
            if not isinstance(rel, str):
                raise DatasetError(f"{manifest}: recordings[{i}] needs a 'path'")
            if not is_recording(path / rel):
                raise DatasetError(f"{manifest}: recordings[{i}] {rel!r} is not a recording folder (no meta.json)")
            roots.append(path / rel)
        return roots
    roots = sorted(p for p in path.iterdir() if p.is_dir() and is_recording(p))
    if not roots:
        raise DatasetError(f"{path}: no recordings found (no manifest.json, no sub-folder with meta.json)")
    return roots


def write_manifest(path: Path, name: str | None = None) -> Path:
    """(Re)write `manifest.json` listing every recording folder under `path`."""
    path = Path(path)
    entries = []
    for root in sorted(p for p in path.iterdir() if p.is_dir() and is_recording(p)):
        meta = _read_json(root / "meta.json")
        entries.append(
            {"path": root.name, "game": meta.get("game"), "duration_s": meta.get("duration_s"), "source": meta.get("source")}
        )
    out = path / "manifest.json"
    out.write_text(
        json.dumps({"format": DATASET_FORMAT, "name": name or path.name, "recordings": entries}, indent=2) + "\n",
        encoding="utf-8",
    )
    return out
