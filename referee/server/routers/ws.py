"""Live pushes: dashboard state (/ws), phones (/ws/phone), browser microphone (/ws/mic)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, WebSocket

from referee.server.connections import Client
from referee.server.deps import ws_allowed
from referee.server.voice_link import MicStream, voice_unavailable_reason

router = APIRouter(tags=["live"])


@router.websocket("/ws")
async def ws_dashboard(ws: WebSocket) -> None:
    """Messages: `state` (full snapshot after every change), `table` (camera reading),
    `announce` (sentences to speak, with en/fr/es text), `heard` (voice call to confirm),
    `layout` (after calibration). Send `{"type": "ping"}` to get a `pong`."""
    if not ws_allowed(ws):
        await ws.close(code=4403, reason="join code required")
        return
    live = ws.app.state.live

    async def on_text(client: Client, data: dict[str, Any]) -> None:
        if data.get("type") == "ping":
            client.queue.put_nowait({"type": "pong", "t": time.time()})

    await live.manager.serve(ws, "dashboard", first=[live.state_message()], on_text=on_text)


@router.websocket("/ws/phone")
async def ws_phone(ws: WebSocket, token: str = "") -> None:
    """A joined phone's live view: standings, what the referee awaits, last calls."""
    live = ws.app.state.live
    phone = live.phones.get(token)
    if phone is None:
        await ws.close(code=4401, reason="join the table first")
        return
    await live.manager.serve(ws, "phone", info={"phone": phone.id, "seat": phone.seat},
                             first=[live.phone_message()])


@router.websocket("/ws/mic")
async def ws_mic(ws: WebSocket, seat: str = "", token: str = "") -> None:
    """Binary messages of 16 kHz mono int16 little-endian PCM from the browser's AudioWorklet.

    `seat` (or a phone `token`) says who is speaking: their two-word calls go straight to
    the referee; without a speaker, or for one-word calls, the dashboard asks for a tap.
    Replies: `{"type": "voice", "status": ...}` and `{"type": "call", ...}` per call heard.
    """
    live = ws.app.state.live
    phone = live.phones.get(token) if token else None
    if phone is None and not ws_allowed(ws):
        await ws.close(code=4403, reason="join code required")
        return
    reason = voice_unavailable_reason(live.settings)
    if reason is not None:
        await ws.accept()
        await ws.send_json({"type": "voice", "status": "unavailable", "message": reason})
        await ws.close(code=1000)
        live.voice_status = f"unavailable: {reason}"
        live.push_state()
        return
    speaker = phone.seat if phone is not None else (seat or None)
    players = live.service.snapshot.get("header", {}).get("players") or live.settings.players
    if speaker is not None and speaker not in players:
        speaker = None
    stream = MicStream(live, speaker)
    try:
        await stream.start()
    except Exception as exc:  # pocketsphinx model or grammar problem: say so, keep serving
        await ws.accept()
        await ws.send_json({"type": "voice", "status": "unavailable", "message": f"voice listener failed: {exc}"})
        await ws.close(code=1000)
        return
    try:
        await live.manager.serve(ws, "mic", info={"seat": speaker},
                                 first=[{"type": "voice", "status": "listening", "seat": speaker}],
                                 on_bytes=stream.feed)
    finally:
        await stream.stop()
