"""The FastAPI app: `create_app(settings)`; the lifespan owns the session and the camera.

Start order: open (or restore) the event-sourced session, then the camera thread. Stop
order is the reverse, so no camera event is ever appended to a closed session. Routers
are one per resource (game, table, phones, video, live sockets); the static dashboard is
served from `referee/web/` (no build step, no CDN).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from referee import __version__
from referee.server.access import LOOPBACK, PUBLIC_PATHS, code_matches, on_local_network
from referee.server.connections import ConnectionManager
from referee.server.errors import error_response, install_error_handlers
from referee.server.feed import FrameFeed, PipelineLike, SourceFactory
from referee.server.limits import BodyLimit
from referee.server.live import LiveReferee, calibration_path
from referee.server.routers import game, phones, table, video, ws
from referee.server.service import GameService
from referee.server.settings import ServerSettings

log = logging.getLogger("referee.server")

PipelineFactory = Callable[[ServerSettings, Any, float], PipelineLike | None]

DESCRIPTION = """\
The live referee for Kemps, Kem's and Khmer. Every decision is an event in the
event-sourced session (SQLite): restart the server and the game is where it was.

* **Calls** from the dashboard, phones and voice share one arrival sequence (see `docs/server.md`).
* **Errors** are always JSON: `{"error": code, "message": "one clear sentence"}`.
* **Live**: `/ws` (dashboard state), `/ws/video` (frames + overlays), `/ws/phone`, `/ws/mic`.
"""


def default_layout(settings: ServerSettings) -> Any:
    """--layout, else the saved calibration, else the bundled layout for this table size."""
    from vision.tracker.layout import load_layout, ring_layout, stock_layout_name

    if settings.layout_path is not None:
        return load_layout(settings.layout_path)
    saved = calibration_path(settings)
    if saved.exists():
        return load_layout(saved)
    players = settings.players or ["N", "E", "S", "W"]
    name = stock_layout_name(len(players), khmer=settings.game == "khmer")
    return load_layout(name) if name else ring_layout(players, khmer=settings.game == "khmer")


def live_pipeline(settings: ServerSettings, layout: Any, fps: float) -> PipelineLike | None:
    """The real table pipeline: the exported card reader + the tracker."""
    from vision.reader.reader import CardReader
    from vision.tracker.pipeline import TablePipeline

    reader = CardReader.load(settings.model_dir, precision=settings.precision)
    return TablePipeline(layout, reader, settings.header, fps)


def video_source(settings: ServerSettings) -> SourceFactory | None:
    spec = settings.source.spec
    if spec is None:
        return None

    def open_() -> Any:
        from vision.capture import open_source

        return open_source(spec)

    return open_


def create_app(settings: ServerSettings, *, pipeline_factory: PipelineFactory | None = live_pipeline,
               source_factory: SourceFactory | None = None) -> FastAPI:
    """`pipeline_factory=None` runs the camera view without card reads (said on screen);
    tests pass their own factory or source to drive the same code from a recording."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager = ConnectionManager()
        service = GameService(settings.db_path, settings.header)
        await service.start()
        live = LiveReferee(settings, service, manager, asyncio.get_running_loop())
        app.state.live = live
        opener = source_factory or video_source(settings)
        if opener is not None:
            live.feed = make_feed(settings, live, opener, pipeline_factory)
            live.feed.start()
        live.resume()
        try:
            yield
        finally:
            if live.feed is not None:
                await asyncio.to_thread(live.feed.stop)
            await live.arbiter.drain()
            await service.close()

    # Swagger UI and ReDoc load from a CDN: replaced by a local page over /openapi.json.
    app = FastAPI(title="Kemps Referee", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    app.state.settings = settings
    install_error_handlers(app)
    install_lan_guard(app, settings)
    app.add_middleware(BodyLimit)
    for module in (game, table, phones, video, ws):
        app.include_router(module.router)
    mount_web(app, settings)
    return app


def make_feed(settings: ServerSettings, live: LiveReferee, opener: SourceFactory,
              pipeline_factory: PipelineFactory | None) -> FrameFeed:
    try:
        live.layout = default_layout(settings)
    except Exception as exc:  # a bad layout file must not stop the game: say so on screen
        log.warning("no table layout: %s", exc)

    def make_pipeline(fps: float) -> PipelineLike | None:
        if pipeline_factory is None or live.layout is None:
            return None
        # The current game's header: Settings may have started a new game since launch.
        return pipeline_factory(replace(settings, header=live.service.header()), live.layout, fps)

    src = settings.source
    return FrameFeed(
        open_source=opener,
        pipeline_factory=make_pipeline,
        on_events=live.on_vision_events,
        on_frame=live.on_frame,
        on_table=live.on_table,
        on_notices=live.on_notices,
        on_loop=live.on_loop,
        on_status=live.on_feed_status,
        script=[(t, dict(call)) for t, call in src.calls],
        on_script=live.on_recorded_call,
        source_name=(src.path.name if src.path is not None else str(src.spec)) if src.spec is not None else "test source",
        loop=src.loop,
        live=src.camera is not None,
        realtime=src.realtime and src.camera is None,
        jpeg_quality=settings.jpeg_quality,
        max_stream_fps=settings.max_stream_fps,
    )


def install_lan_guard(app: FastAPI, settings: ServerSettings) -> None:
    """With --lan, pages from other machines need the join code (API routes check it too)."""

    @app.middleware("http")
    async def lan_guard(request: Request, call_next: Any) -> Any:
        host = request.client.host if request.client else ""
        path = request.url.path
        if settings.lan and not on_local_network(host):
            return error_response(403, "not_local_network", "This referee only serves the local network.")
        if (settings.lan and host not in LOOPBACK and not path.startswith(("/api/", "/ws"))
                and not path.startswith(PUBLIC_PATHS)):
            code = request.headers.get("x-join-code") or request.query_params.get("code") or request.cookies.get("kr_code")
            if not code_matches(code, settings.join_code):
                return error_response(403, "join_code_required",
                                      "This referee is only reachable with the table's join code.")
        return await call_next(request)


def mount_web(app: FastAPI, settings: ServerSettings) -> None:
    web = settings.web_dir
    app.mount("/static", StaticFiles(directory=web), name="static")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(web / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/phone", include_in_schema=False)
    async def phone() -> FileResponse:
        return FileResponse(web / "phone.html", headers={"Cache-Control": "no-cache"})

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> FileResponse:
        return FileResponse(web / "api.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> RedirectResponse:
        return RedirectResponse("/static/favicon.svg")
