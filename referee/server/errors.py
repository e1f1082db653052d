"""Errors as JSON: `{"error": code, "message": one clear sentence}` for every failure.

Handlers raise `ApiError`; FastAPI's own validation and HTTP errors are rewritten to the
same shape so a browser or phone client only ever parses one error format.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: str
    message: str
    detail: Any | None = None


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, detail: Any | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.detail = detail


def error_response(status: int, code: str, message: str, detail: Any | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=code, message=message, detail=detail).model_dump(exclude_none=True)
    return JSONResponse(body, status_code=status, headers=headers)


# OpenAPI: the error shape every route may answer with.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Bad request"},
    403: {"model": ErrorBody, "description": "Join code missing or wrong"},
    409: {"model": ErrorBody, "description": "The referee rejected the event"},
    422: {"model": ErrorBody, "description": "Invalid request body"},
    429: {"model": ErrorBody, "description": "Too many requests"},
}


def _validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return f"{where}: {first.get('msg', 'invalid value')}" if where else str(first.get("msg"))


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.detail)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()]
        return error_response(422, "invalid_request", _validation_message(exc), detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None))
