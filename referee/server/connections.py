"""WebSocket fan-out: one bounded queue per browser so a slow phone never stalls the game.

`broadcast` runs on the event loop (other threads go through `loop.call_soon_threadsafe`).
Each client has its own sender task; when its queue is full the oldest message is dropped:
every state message is a complete snapshot and every video message a complete frame, so
the newest one is always enough.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

Message = dict[str, Any] | bytes


@dataclass(eq=False)
class Client:
    ws: WebSocket
    channel: str
    info: dict[str, Any]
    queue: asyncio.Queue[Message]
    dropped: int = 0


@dataclass
class ConnectionManager:
    queue_size: int = 64
    clients: set[Client] = field(default_factory=set)

    def count(self, channel: str | None = None) -> int:
        return sum(1 for c in self.clients if channel is None or c.channel == channel)

    def broadcast(self, channel: str, message: Message, only: Callable[[Client], bool] | None = None) -> None:
        for client in list(self.clients):
            if client.channel != channel or (only is not None and not only(client)):
                continue
            if client.queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    client.queue.get_nowait()
                    client.dropped += 1
            client.queue.put_nowait(message)

    async def serve(self, ws: WebSocket, channel: str, info: dict[str, Any] | None = None,
                    first: list[Message] | None = None,
                    on_text: Callable[[Client, dict[str, Any]], Awaitable[None]] | None = None,
                    on_bytes: Callable[[Client, bytes], Awaitable[None]] | None = None,
                    queue_size: int | None = None) -> None:
        """Accept, send `first`, then pump queued messages out and incoming ones in."""
        await ws.accept()
        client = Client(ws, channel, info or {}, asyncio.Queue(maxsize=queue_size or self.queue_size))
        for message in first or []:
            client.queue.put_nowait(message)
        self.clients.add(client)
        sender = asyncio.create_task(self._send_loop(client))
        try:
            while True:
                incoming = await ws.receive()
                if incoming.get("type") == "websocket.disconnect":
                    break
                if incoming.get("bytes") is not None and on_bytes is not None:
                    await on_bytes(client, incoming["bytes"])
                elif incoming.get("text") is not None and on_text is not None:
                    try:
                        data = json.loads(incoming["text"])
                    except ValueError:
                        await ws.send_json({"type": "error", "message": "messages must be JSON"})
                        continue
                    if isinstance(data, dict):
                        await on_text(client, data)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.clients.discard(client)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    async def _send_loop(self, client: Client) -> None:
        try:
            while True:
                message = await client.queue.get()
                if isinstance(message, bytes):
                    await client.ws.send_bytes(message)
                else:
                    await client.ws.send_json(message)
        except (WebSocketDisconnect, RuntimeError, ConnectionError):
            return
