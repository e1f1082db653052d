"""The camera view: JPEG frames over a WebSocket (with overlay JSON), MJPEG, a still."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter, Response, WebSocket
from fastapi.responses import StreamingResponse

from referee.server.deps import LiveDep, TableAccess, ws_allowed
from referee.server.errors import ERROR_RESPONSES, ApiError

router = APIRouter(tags=["video"], responses=ERROR_RESPONSES)


@router.get("/api/video/still.jpg", summary="The latest camera frame (for calibration)",
            dependencies=[TableAccess], response_class=Response,
            responses={200: {"content": {"image/jpeg": {}}}})
async def still(live: LiveDep) -> Response:
    jpeg = live.feed.last_jpeg if live.feed else None
    if jpeg is None:
        raise ApiError(404, "no_frame", "No camera frame yet (no video source, or it has not started).")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get("/video.mjpeg", summary="The camera view as MJPEG (no overlays)", dependencies=[TableAccess],
            response_class=StreamingResponse)
async def mjpeg(live: LiveDep) -> StreamingResponse:
    async def frames() -> AsyncIterator[bytes]:
        last: bytes | None = None
        period = 1.0 / max(1.0, live.settings.max_stream_fps)
        while live.feed is not None:
            jpeg = live.feed.last_jpeg
            if jpeg is not None and jpeg is not last:
                last = jpeg
                yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n"
            await asyncio.sleep(period)

    return StreamingResponse(frames(), media_type="multipart/x-mixed-replace; boundary=frame")


@router.websocket("/ws/video")
async def ws_video(ws: WebSocket) -> None:
    """One binary message per frame: 4-byte big-endian length, that many bytes of overlay
    JSON (`{t, size, scale, cards: [{card, confidence, box}]}`), then the JPEG."""
    if not ws_allowed(ws):
        await ws.close(code=4403, reason="join code required")
        return
    live = ws.app.state.live
    first = [live.feed.last_packet] if live.feed is not None and live.feed.last_packet else []
    # A queue of 2 keeps at most two frames of lag on a slow phone.
    await live.manager.serve(ws, "video", first=first, queue_size=2)
