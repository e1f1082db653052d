"""Server test helpers: an app on a temporary game database, driven by TestClient."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

HEADER: dict[str, Any] = {"game": "kemps", "rules": {}, "players": ["N", "E", "S", "W"],
                          "teams": [["N", "S"], ["E", "W"]]}
MARKET = ["7C", "KD", "3S", "4H"]
CODE = "246810"


@pytest.fixture
def make_client(tmp_path: Path) -> Callable[..., Any]:
    """`with make_client(**settings) as client:` — a running app (lifespan included)."""
    from fastapi.testclient import TestClient

    from referee.server.app import create_app
    from referee.server.settings import ServerSettings

    @contextmanager
    def make(db: Path | None = None, app_kwargs: dict[str, Any] | None = None, **overrides: Any) -> Iterator[Any]:
        values: dict[str, Any] = {"db_path": db or tmp_path / "game.sqlite", "header": HEADER, "join_code": CODE,
                                  "call_window_s": 0.05}
        values.update(overrides)
        app = create_app(ServerSettings(**values), **({"pipeline_factory": None} | (app_kwargs or {})))
        with TestClient(app) as client:
            yield client

    return make


def deal(client: Any, market: list[str] | None = None) -> None:
    r = client.post("/api/events", json={"type": "deal", "market": market or MARKET})
    assert r.status_code == 200, r.text
