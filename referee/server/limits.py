"""Limits on what a client may send: the body size of a request.

Every legitimate body is a game event, a call, a zone or a new game's header, at most a few
kilobytes. Without a cap a 20 MB "event" was refused by the referee but kept in the
session's recent log, so every later state message to every dashboard carried it (found by
a server audit, 7 Dec). Nesting depth is capped where free-form JSON enters (models.EventIn).
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY_BYTES = 256 * 1024


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """Pure ASGI middleware: answer 413 (the API's JSON error shape) to a request whose body
    is over `max_bytes`, by its Content-Length or, when it has none, as it streams in."""

    def __init__(self, app: Any, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._refuse(send)
            return
        seen = 0
        over = False  # the body ran over the cap while streaming in
        answered = False

        async def counted() -> dict[str, Any]:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True
                    raise BodyTooLarge
            return message

        async def guarded_send(message: dict[str, Any]) -> None:
            nonlocal answered
            if over:  # the app's own answer to the cut-off body (FastAPI: 400) becomes the 413
                if message["type"] == "http.response.start" and not answered:
                    answered = True
                    await self._refuse(send)
                return
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, guarded_send)
        except BodyTooLarge:
            if not answered:
                await self._refuse(send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"error": "body_too_large",
                           "message": f"The request body is over {self.max_bytes // 1024} KiB."}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def depth(value: Any) -> int:
    """How deeply lists and dicts nest in `value` (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0
