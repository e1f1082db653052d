"""Phones as buzzers: join a seat with the table's code, then call. Rate-limited, validated."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response

from referee.server.access import LOOPBACK, Phone, code_matches
from referee.server.deps import LiveDep, TableAccess, client_host
from referee.server.errors import ERROR_RESPONSES, ApiError
from referee.server.models import CallOut, JoinIn, JoinOut, PhoneCallIn
from referee.server.qr import qr_svg
from referee.server.routers.game import call_out, check_seat

router = APIRouter(prefix="/api/phones", tags=["phones"], responses=ERROR_RESPONSES)


def join_url(request: Request, code: str) -> str:
    base = request.app.state.settings.public_url or str(request.base_url).rstrip("/")
    return f"{base.rstrip('/')}/phone?code={code}"


def phone_for(live: Any, token: str | None) -> Phone:
    phone = live.phones.get(token)
    if phone is None:
        raise ApiError(401, "not_joined", "Join the table first (the code is on the dashboard).")
    return phone


TokenHeader = Annotated[str | None, Header(alias="X-Phone-Token", description="Token from /join")]


@router.post("/join", summary="Join a seat with the table's code")
async def join(body: JoinIn, request: Request, response: Response, live: LiveDep) -> JoinOut:
    host = client_host(request)
    allowed, wait = (True, 0.0) if host in LOOPBACK else live.join_limits.allow(host)
    if not allowed:  # this laptop itself is trusted; other machines cannot walk the code space
        raise ApiError(429, "too_many_joins", f"Too many join attempts; wait {wait:.0f} s.")
    if not code_matches(body.code, live.settings.join_code):
        raise ApiError(403, "wrong_code", "That is not this table's join code.")
    check_seat(live, body.seat, "Seat")
    phone = live.phones.join(body.seat, body.name)
    response.set_cookie("kr_code", body.code.strip(), httponly=True, samesite="strict")
    live.push_state()
    return JoinOut(token=phone.token, id=phone.id, seat=phone.seat, name=phone.name)


@router.post("/call", summary="Call from a phone (the caller is the phone's seat)",
             description="Every call gets its arrival number at once; see docs/server.md for the order.")
async def phone_call(body: PhoneCallIn, live: LiveDep, x_phone_token: TokenHeader = None) -> CallOut:
    phone = phone_for(live, x_phone_token)
    allowed, wait = live.phone_limits.allow(phone.token)
    if not allowed:
        raise ApiError(429, "too_many_calls", f"Slow down: next call in {wait:.1f} s.")
    check_seat(live, body.target, "Target")
    if body.call == "cut" and not body.target:
        raise ApiError(400, "target_required", "A Cut must name the player it accuses.")
    return call_out(await live.call(body.call, phone.seat, body.target, f"phone:{phone.id}"))


@router.get("/me", summary="This phone's seat and the table's players")
async def me(live: LiveDep, x_phone_token: TokenHeader = None) -> dict[str, Any]:
    phone = phone_for(live, x_phone_token)
    header = live.service.snapshot.get("header", {})
    return {"id": phone.id, "seat": phone.seat, "name": phone.name, "players": header.get("players", []),
            "teams": header.get("teams", []), "game": header.get("game")}


@router.get("/seats", summary="The seats a phone may join")
async def seats(live: LiveDep) -> dict[str, Any]:
    header = live.service.snapshot.get("header", {})
    return {"players": header.get("players", []), "game": header.get("game")}


@router.get("", summary="Joined phones", dependencies=[TableAccess])
async def list_phones(live: LiveDep) -> list[dict[str, Any]]:
    return [{"id": p.id, "seat": p.seat, "name": p.name} for p in live.phones.list()]


@router.get("/invite", summary="The join code, the phone URL and its QR code (SVG)", dependencies=[TableAccess])
async def invite(request: Request, live: LiveDep) -> dict[str, Any]:
    url = join_url(request, live.settings.join_code)
    return {"code": live.settings.join_code, "url": url, "lan": live.settings.lan, "qr_svg": qr_svg(url)}
