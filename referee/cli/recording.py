"""A recording folder as the commands that take one read it (`serve --video`, `watch`):
its meta.json and its video (datasets/README.md, "A recording")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.cli.main import CliError

VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".webm")


def videos_in(folder: Path) -> list[Path]:
    """The video files directly in `folder`, sorted."""
    return sorted(p for p in folder.glob("*") if p.suffix.lower() in VIDEO_SUFFIXES)


def folder_meta(folder: Path) -> dict[str, Any]:
    """A recording folder's meta.json, or {} when it has none (a byte-order mark is allowed:
    a file saved by Notepad)."""
    meta = folder / "meta.json"
    if not meta.exists():
        return {}
    try:
        data = json.loads(meta.read_text(encoding="utf-8-sig"))
    except ValueError as exc:
        raise CliError(f"{meta}: not valid JSON ({exc})") from None
    return data if isinstance(data, dict) else {}


def folder_video(folder: Path) -> Path:
    """A recording folder's video: the one meta.json names, else the folder's only video."""
    meta = folder_meta(folder)
    if "video" in meta:
        video = folder / str(meta["video"])
        if not video.is_file():
            raise CliError(f"{folder}/meta.json names the video {meta['video']!r}, which is not there")
        return video
    videos = videos_in(folder)
    if len(videos) != 1:
        raise CliError(f"{folder} is a folder with {len(videos)} videos and no meta.json naming one: give the video file")
    return videos[0]
