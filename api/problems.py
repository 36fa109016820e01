"""Every error as RFC 9457 problem+json: ``{type, title, status, detail, code}``.

Refusals of the core and the store, HTTP errors raised by Flask, Werkzeug or
webargs, and anything unexpected all leave through :func:`problem_response`;
no stack trace ever reaches a client.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from nj_ledger.errors import LedgerError, RuleViolation
from nj_ledger.store import StoreError

from .i18n import translate_error

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("nj_ledger.api")

TITLES = {
    "invalid-request": "The request is not valid",
    "invalid-json": "The body is not valid JSON",
    "invalid-header": "A header is not valid",
    "unauthorized": "A valid token is needed",
    "forbidden": "Not allowed with this token",
    "not-found": "Not found",
    "method-not-allowed": "Method not allowed",
    "request-too-large": "The request is too large",
    "unsupported-media-type": "The body must be JSON",
    "unsupported-format": "Format not supported",
    "version-conflict": "The game has moved on",
    "idempotency-mismatch": "Idempotency key reused for another request",
    "player-exists": "The player exists",
    "busy": "Busy, try again",
    "internal-error": "Internal error",
}

# Codes for HTTP errors that carry no code of their own.
HTTP_CODES = {
    400: "invalid-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    413: "request-too-large",
    415: "unsupported-media-type",
    422: "invalid-request",
}


class Problem(Exception):
    """Raised anywhere in a view to answer with a problem: ``raise Problem(403, "forbidden", "…")``."""

    def __init__(self, status: int, code: str, detail: str, *, headers: Mapping[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra


def problem_body(status: int, code: str, detail: str, title: str | None = None, **extra: Any) -> dict[str, Any]:
    """The JSON of a problem.

    >>> problem_body(404, "not-found", "There is no game 'x'.")["title"]
    'Not found'
    """
    title = title or TITLES.get(code) or HTTPStatus(status).phrase
    return {"type": f"urn:nj-ledger:problem:{code}", "title": title, "status": status, "detail": detail,
            "code": code, **extra}


def json_response(body: Any, status: int, headers: Mapping[str, str] | None = None,
                  mimetype: str = "application/json") -> Response:
    response = current_app.response_class(
        current_app.json.dumps(body) + "\n", status=status, mimetype=mimetype
    )
    response.headers.update(headers or {})
    return response


def problem_response(status: int, code: str, detail: str, headers: Mapping[str, str] | None = None,
                     **extra: Any) -> Response:
    return json_response(problem_body(status, code, detail, **extra), status, headers, PROBLEM_JSON)


def refusal_body(refusal: LedgerError) -> dict[str, Any]:
    """A refusal of the core as a 422 problem; a batch's refusal names the failing action's ``index``."""
    extra = {name: refusal.params[name] for name in ("index", "field") if refusal.params.get(name) is not None}
    title = "Refused by the rules" if isinstance(refusal, RuleViolation) else "Invalid input"
    return problem_body(422, refusal.code, translate_error(refusal), title, **extra)


def _validation_detail(messages: Any, path: str = "") -> str:
    """The first message of a (nested) marshmallow error dict, with where it applies."""
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            where = path if key in ("json", "query", "querystring", "headers", "_schema") else (
                f"{path}.{key}" if path else str(key))
            return _validation_detail(value, where)
    if isinstance(messages, list) and messages:
        return _validation_detail(messages[0], path)
    text = str(messages)
    return f"{path}: {text}" if path else text


def _http_problem(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    code = HTTP_CODES.get(status, "invalid-request" if status < 500 else "internal-error")
    extra: dict[str, Any] = {}
    if status == 400 and messages and "json" in messages and messages["json"] == ["Invalid JSON body."]:
        code, detail = "invalid-json", "The body could not be read as JSON."
    elif messages:
        if len(messages) == 1:
            messages = next(iter(messages.values()))
        extra["errors"] = messages
        detail = _validation_detail(messages)
    elif status == 404:
        detail = "Nothing here: check the path."
    elif status == 405:
        detail = f"{request.method} is not allowed on {request.path}."
    elif status == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        detail = f"The body is larger than the {limit} bytes this server accepts." if limit else "The body is too large."
    elif status >= 500:
        detail = "Something went wrong on our side; the error was logged."
    else:
        detail = error.description or HTTPStatus(status).phrase
    headers = dict(data.get("headers") or {})
    if status == 405 and error.get_response().headers.get("Allow"):
        headers["Allow"] = error.get_response().headers["Allow"]
    return problem_response(status, code, detail, headers, **extra)


def register_error_handlers(app: Flask) -> None:
    """Route every exception a request can raise to a problem response."""

    @app.errorhandler(Problem)
    def _problem(error: Problem) -> Response:
        return problem_response(error.status, error.code, error.detail, error.headers, **error.extra)

    @app.errorhandler(LedgerError)
    def _refusal(error: LedgerError) -> Response:
        return json_response(refusal_body(error), 422, mimetype=PROBLEM_JSON)

    @app.errorhandler(StoreError)
    def _store(error: StoreError) -> Response:
        status = {"not-found": 404, "version-conflict": 409, "player-exists": 409,
                  "idempotency-mismatch": 422, "busy": 503}.get(error.code, 500)
        extra: dict[str, Any] = {}
        headers: dict[str, str] = {}
        if error.code == "version-conflict":
            extra["current_version"] = error.params["current"]
            headers["ETag"] = f'"{error.params["current"]}"'
        if error.code == "busy":
            headers["Retry-After"] = "1"
        return problem_response(status, error.code, error.message, headers, **extra)

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        return _http_problem(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        log.exception("Unexpected error on %s %s", request.method, request.path)
        return problem_response(500, "internal-error", "Something went wrong on our side; the error was logged.")
