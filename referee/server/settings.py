"""Everything the server needs to start, as one frozen value built by `referee serve`.

Tests build their own `ServerSettings` and hand it to `create_app`; nothing is read from
the environment or module globals, so two apps in one process never share state.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WEB_DIR = Path(__file__).resolve().parents[1] / "web"


def new_join_code() -> str:
    """Six digits: easy to type on a phone; joins are rate-limited per client so the
    10^6 space cannot be walked in a game night."""
    return f"{secrets.randbelow(10**6):06d}"


@dataclass(frozen=True, slots=True)
class VideoSource:
    """Where frames come from: a webcam index, a file path, or nothing (no camera view)."""

    camera: int | None = None
    path: Path | None = None
    loop: bool = False  # --demo replays the sample recording forever
    # --demo: the calls the recorded players made (from the sample's truth log), replayed at
    # their time as "recording" calls so a new user sees the whole flow; never card reads.
    calls: tuple[tuple[float, tuple[tuple[str, Any], ...]], ...] = ()
    realtime: bool = True  # files are paced to their fps so the dashboard sees the game live

    @property
    def spec(self) -> int | str | None:
        if self.camera is not None:
            return self.camera
        return str(self.path) if self.path is not None else None


@dataclass(frozen=True, slots=True)
class ServerSettings:
    db_path: Path
    header: dict[str, Any]  # the game-log header: game, rules, players, teams
    source: VideoSource = field(default_factory=VideoSource)
    layout_path: Path | None = None
    model_dir: Path | None = None
    precision: str = "auto"  # the card reader's detector precision (`CardReader.load`)
    host: str = "127.0.0.1"
    port: int = 8000
    lan: bool = False
    join_code: str = field(default_factory=new_join_code)
    public_url: str | None = None  # what phones open (the LAN address with --lan)
    # Calls arriving within this window of the first are ordered by their own time (voice
    # calls carry the audio clock), then judged in that order. See docs/server.md.
    call_window_s: float = 0.15
    phone_calls_per_s: float = 2.0  # steady rate per phone
    phone_call_burst: int = 3
    joins_per_minute: int = 10  # per client address: the join code cannot be brute-forced
    voice: bool = True  # accept /ws/mic audio if the listener can be imported
    voice_confirm_one_word: bool = True  # one-word voice calls wait for a tap ("heard: KEMPS?")
    jpeg_quality: int = 70
    max_stream_fps: float = 12.0  # JPEG frames pushed to browsers, independent of camera fps
    web_dir: Path = WEB_DIR

    @property
    def game(self) -> str:
        return str(self.header.get("game", "kemps"))

    @property
    def players(self) -> list[str]:
        return [str(p) for p in self.header.get("players", [])]
