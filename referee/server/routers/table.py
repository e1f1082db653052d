"""The table: what the camera reads, the layout zones, calibration by drawing on a still."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field, FiniteFloat

from referee.server.deps import LiveDep, TableAccess
from referee.server.errors import ERROR_RESPONSES, ApiError

router = APIRouter(prefix="/api/table", tags=["table"], dependencies=[TableAccess], responses=ERROR_RESPONSES)


class ZoneIn(BaseModel):
    """A zone outline in layout pixels (the layout's `size`), at least 3 points."""

    # Finite: a NaN corner was stored in the layout file and stopped the camera feed.
    polygon: list[tuple[FiniteFloat, FiniteFloat]] = Field(min_length=3, max_length=32)


@router.get("", summary="The stable table reading and the camera status")
async def table(live: LiveDep) -> dict[str, Any]:
    feed = live.feed.status.to_json() if live.feed else {"running": False, "reader": "no video source"}
    return {"table": live.table, "feed": feed}


@router.get("/layout", summary="The layout: zones as polygons in layout pixels")
async def get_layout(live: LiveDep) -> dict[str, Any]:
    return live.layout_json()


@router.put("/layout/zones/{zone}", summary="Calibrate: replace one zone (market, reveal:N, row:P, pile:P, discard:P)")
async def put_zone(zone: str, body: ZoneIn, live: LiveDep) -> dict[str, Any]:
    if live.layout is None:
        raise ApiError(409, "no_layout", "No table layout is loaded (the camera view is off).")
    try:
        live.set_layout(live.layout.set_zone(zone, [list(p) for p in body.polygon]))
    except ValueError as exc:  # vision.tracker.layout.LayoutError
        raise ApiError(400, "bad_zone", str(exc)) from exc
    return live.layout_json()
