"""Dependencies: routers get the live referee and settings from `app.state`, never globals."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, WebSocket
from starlette.requests import HTTPConnection

from referee.server.access import LOOPBACK, code_matches, on_local_network
from referee.server.errors import ApiError
from referee.server.live import LiveReferee
from referee.server.settings import ServerSettings


def get_live(conn: HTTPConnection) -> LiveReferee:
    return conn.app.state.live


def get_settings(conn: HTTPConnection) -> ServerSettings:
    return conn.app.state.settings


LiveDep = Annotated[LiveReferee, Depends(get_live)]
SettingsDep = Annotated[ServerSettings, Depends(get_settings)]


def client_host(conn: HTTPConnection) -> str:
    return conn.client.host if conn.client else "unknown"


def is_local(conn: HTTPConnection) -> bool:
    return client_host(conn) in LOOPBACK


def presented_code(conn: HTTPConnection) -> str | None:
    return (conn.headers.get("x-join-code") or conn.query_params.get("code")
            or conn.cookies.get("kr_code"))


def require_table_access(conn: HTTPConnection) -> None:
    """Dashboard routes: free on this laptop; from the LAN only with the join code."""
    settings: ServerSettings = conn.app.state.settings
    if settings.lan and not is_local(conn) and not code_matches(presented_code(conn), settings.join_code):
        raise ApiError(403, "join_code_required", "This referee is only reachable with the table's join code.")


def ws_allowed(ws: WebSocket) -> bool:
    settings: ServerSettings = ws.app.state.settings
    if settings.lan and not on_local_network(client_host(ws)):
        return False
    return not settings.lan or is_local(ws) or code_matches(presented_code(ws), settings.join_code)


TableAccess = Depends(require_table_access)
__all__ = ["LiveDep", "SettingsDep", "TableAccess", "Request", "client_host", "ws_allowed"]
