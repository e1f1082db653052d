"""End-to-end helpers: a real `referee serve` process and Debian's headless Chromium.

Chromium comes from Debian (`scripts/install.sh --dev` installs `chromium`); Playwright
drives it through `executable_path`, so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
CODE = "135790"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class Server:
    """`referee serve` in a subprocess on a free port; `kill()` is SIGKILL (a crash)."""

    def __init__(self, db: Path, args: list[str], log: Path) -> None:
        self.db, self.args, self.log_path = db, args, log
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Server:
        voice = "+voice" in self.args  # test marker: keep the microphone endpoint on
        args = [a for a in self.args if a != "+voice"]
        cmd = [sys.executable, "-m", "referee", "serve", "--db", str(self.db), "--port", str(self.port),
               "--join-code", CODE, *([] if voice else ["--no-voice"]), *args]
        self.log = self.log_path.open("ab")
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if http("GET", self.base + "/api/state")[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.log.close()

    def get(self, path: str) -> Any:
        status, body = http("GET", self.base + path)
        assert status == 200, body
        return body

    def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        return http("POST", self.base + path, body if body is not None else {})


@pytest.fixture(scope="session")
def playwright() -> Iterator[Any]:
    """One Playwright driver per test run (the sync API allows only one at a time)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium not installed (bash scripts/install.sh --dev)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Any]:
    started: list[Server] = []

    def make(args: list[str] | None = None, db: Path | None = None) -> Server:
        server = Server(db or tmp_path / "game.sqlite", args or [], tmp_path / "server.log")
        started.append(server)
        return server.start()

    yield make
    for s in started:
        s.kill()


def shot(page: Any, name: str) -> Path:
    """Save a screenshot under test-artifacts/ (and docs/screenshots/ with KR_DOCS_SCREENSHOTS=1)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    if os.environ.get("KR_DOCS_SCREENSHOTS") == "1":
        from PIL import Image

        docs = REPO / "docs" / "screenshots"
        docs.mkdir(parents=True, exist_ok=True)
        img = Image.open(path).convert("RGB")
        img.thumbnail((1000, 1000))
        img.quantize(colors=128).save(docs / f"{name}.png", optimize=True)
    return path
