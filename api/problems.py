"""Every error as RFC 9457 problem+json: ``{type, title, status, detail, code}``.

Refusals of the core and the store, HTTP errors raised by Flask, Werkzeug or
webargs, and anything unexpected all leave through :func:`problem_body`;
no stack trace ever reaches a client.

The ``title`` and the ``detail`` (and the messages of a validation error's
``errors``) are in the language of the request (:mod:`api.i18n`); the ``code``
and the field names never change. A problem's ``detail`` is written as an
English template with named ``{placeholders}`` and its ``params``, like the
core's refusals, so that the catalog can hold its French::

    raise Problem(404, "not-found", "There is no club {club!r}.", params={"club": club_id})
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import orjson
from flask import Flask, Response, current_app, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from nj_ledger.errors import LedgerError, RuleViolation
from nj_ledger.store import StoreError

from .accesslog import request_id
from .i18n import N_, english, fill, sentence_of, translate, translate_messages

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("nj_ledger.api")

TITLES = {
    "invalid-request": N_("The request is not valid"),
    "invalid-json": N_("The body is not valid JSON"),
    "invalid-header": N_("A header is not valid"),
    "unauthorized": N_("A valid token is needed"),
    "forbidden": N_("Not allowed with this token"),
    "not-found": N_("Not found"),
    "method-not-allowed": N_("Method not allowed"),
    "request-too-large": N_("The request is too large"),
    "unsupported-media-type": N_("The body must be JSON"),
    "version-conflict": N_("The game has moved on"),
    "idempotency-mismatch": N_("Idempotency key reused for another request"),
    "player-exists": N_("The player exists"),
    "already-erased": N_("The member was erased already"),
    "erasure-refused": N_("The erasure would change a game"),
    "name-erased": N_("The name is an erased member's pseudonym"),
    "member-ambiguous": N_("The member is named ambiguously"),
    "season-exists": N_("The season exists"),
    "invalid-period": N_("The period is not valid"),
    "unknown-season": N_("No such season"),
    "busy": N_("Busy, try again"),
    "too-many-requests": N_("Too many wrong tokens"),
    "too-many-streams": N_("Too many streams open"),
    "too-many-in-flight": N_("Too many requests at once"),
    "request-timeout": N_("The request was too slow"),
    "log-damaged": N_("The game's log was changed outside the ledger"),
    "last-scorer-token": N_("The club's last scorer token"),
    "evening-closed": N_("The evening is closed"),
    "table-unknown": N_("No such open table"),
    "too-many-joins": N_("Too many tries to join a table"),
    "table-tokens-exhausted": N_("The table's code makes no more tokens"),
    "no-phone-address": N_("No address phones reach"),
    "sign-in-code-unknown": N_("Unknown sign-in code"),
    "sign-in-code-used": N_("Sign-in code already used"),
    "sign-in-code-expired": N_("Sign-in code expired"),
    "signing-key": N_("The server cannot sign receipts"),
    "setting": N_("The server cannot sign receipts"),
    "too-many-receipts": N_("Too many receipts"),
    "unavailable": N_("Service unavailable"),
    "internal-error": N_("Internal error"),
}
RULES_TITLE = N_("Refused by the rules")  # a RuleViolation of the core
INPUT_TITLE = N_("Invalid input")  # any other refusal of the core

# The details of HTTP errors raised by Flask, Werkzeug or webargs.
INVALID_JSON = N_("The body could not be read as JSON.")
NO_ROUTE = N_("Nothing here: check the path.")
NOT_ALLOWED = N_("{method} is not allowed on {path}.")
TOO_LARGE = N_("The body is larger than the {limit} bytes this server accepts.")
TOO_LARGE_NO_LIMIT = N_("The body is too large.")
INTERNAL = N_("Something went wrong on our side; the error was logged.")
FIELD_DETAIL = "{field}: "  # a validation message, where it applies: "players.0: Longer than maximum length 80."

# The status of each refusal of the store.
STORE_STATUS = {"not-found": 404, "version-conflict": 409, "player-exists": 409, "season-exists": 409,
                "idempotency-mismatch": 422, "busy": 503, "log-damaged": 409, "last-scorer-token": 409,
                "sign-in-code-unknown": 404, "sign-in-code-used": 410, "sign-in-code-expired": 410, "forbidden": 403,
                "already-erased": 409, "erasure-refused": 409, "name-erased": 409,
                "member-ambiguous": 409}
# Refusals caused by how the server was set up (its signing key, a setting): the client is told that much only.
SERVER_SETTINGS = frozenset({"signing-key", "setting"})
SETTINGS_DETAIL = N_("The server is not set up to sign receipts right now: its operator will find why in its log.")

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
    429: "too-many-requests",
}


class Problem(Exception):
    """Raised anywhere in a view to answer with a problem: ``raise Problem(403, "forbidden", "…")``.

    ``detail`` is an English template filled in with ``params`` (its French is
    looked up in the catalog when the answer is written); ``extra`` are more
    fields of the problem (``errors``…).

    >>> Problem(404, "not-found", "There is no club {club!r}.", params={"club": "x"}).detail
    "There is no club 'x'."
    """

    def __init__(self, status: int, code: str, detail: str, *, params: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None, **extra: Any) -> None:
        self.template = detail
        self.params = dict(params or {})
        self.detail = fill(detail, self.params)
        super().__init__(self.detail)
        self.status = status
        self.code = code
        self.headers = dict(headers or {})
        self.extra = extra


def problem_body(status: int, code: str, detail: str, title: str | None = None, *, template: str | None = None,
                 params: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """The JSON of a problem, its sentences in the language of the request.

    ``detail`` is the English sentence; ``template`` and ``params`` (by default
    the sentence itself) are what the catalog translates. ``errors``, a
    validation error's messages by field, are translated too.

    >>> problem_body(404, "not-found", "There is no game 'x'.")["title"]
    'Not found'
    """
    title = translate(title or TITLES.get(code) or HTTPStatus(status).phrase)
    if isinstance(extra.get("errors"), Mapping):
        extra["errors"] = translate_messages(extra["errors"])
    return {"type": f"urn:nj-ledger:problem:{code}", "title": title, "status": status,
            "detail": translate(template or detail, params, detail), "code": code, **extra}


_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE


def dump_json(body: Any) -> bytes:
    """``body`` as JSON with sorted keys, written by orjson (a replay answer is a hundred states: it is
    written five times faster than by the json module); what orjson refuses (integers past 64 bits) is
    written by the app's JSON provider."""
    try:
        return orjson.dumps(body, default=current_app.json.default, option=_ORJSON_OPTIONS)  # type: ignore[attr-defined]
    except TypeError:
        return (current_app.json.dumps(body) + "\n").encode()


class LedgerJSONProvider(DefaultJSONProvider):
    """The app's JSON provider: ``jsonify``, and so every answer flask-smorest dumps through a response
    schema, is written as :func:`dump_json` writes (orjson, sorted keys, UTF-8)."""

    def response(self, *args: Any, **kwargs: Any) -> Response:
        body = self._prepare_response_obj(args, kwargs)
        return current_app.response_class(dump_json(body), mimetype=self.mimetype)


def json_response(body: Any, status: int, headers: Mapping[str, str] | None = None,
                  mimetype: str = "application/json") -> Response:
    response = current_app.response_class(dump_json(body), status=status, mimetype=mimetype)
    response.headers.update(headers or {})
    return response


def problem_response(status: int, code: str, detail: str, headers: Mapping[str, str] | None = None,
                     **extra: Any) -> Response:
    """A problem answer; ``extra`` as for :func:`problem_body` (``template``, ``params``, more fields)."""
    return json_response(problem_body(status, code, detail, **extra), status, headers, PROBLEM_JSON)


def refusal_body(refusal: LedgerError) -> dict[str, Any]:
    """A refusal of the core as a 422 problem; a batch's refusal names the failing action's ``index``."""
    extra = {name: refusal.params[name] for name in ("index", "field") if refusal.params.get(name) is not None}
    if "index" in extra and "field" in extra and not str(extra["field"]).startswith("actions."):
        extra["field"] = f"actions.{extra['index']}.{extra['field']}"  # where the field stands in the body
    title = RULES_TITLE if isinstance(refusal, RuleViolation) else INPUT_TITLE
    return problem_body(422, refusal.code, english(refusal.said), title, template=refusal.template,
                        params=refusal.params, **extra)


def _first_message(messages: Any, path: str = "") -> tuple[str, str]:
    """The first message of a (nested) marshmallow error dict, and where it applies."""
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            where = path if key in ("json", "query", "querystring", "headers", "_schema") else (
                f"{path}.{key}" if path else str(key))
            return _first_message(value, where)
    if isinstance(messages, list) and messages:
        return _first_message(messages[0], path)
    return path, str(messages)


def _validation_detail(messages: Any) -> dict[str, Any]:
    """The detail of a validation error: its first message, with where it applies, ready to translate."""
    path, text = _first_message(messages)
    sentence = sentence_of(text)
    if not path:
        return {"detail": text, "template": sentence["template"], "params": sentence["params"]}
    return {"detail": f"{path}: {text}", "template": FIELD_DETAIL + sentence["template"],
            "params": {**sentence["params"], "field": path}}


def _http_problem(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    code = HTTP_CODES.get(status, "invalid-request" if status < 500 else "internal-error")
    extra: dict[str, Any] = {}
    detail: str
    if status == 400 and messages and "json" in messages and messages["json"] == ["Invalid JSON body."]:
        code, detail = "invalid-json", INVALID_JSON
    elif messages:
        if len(messages) == 1:
            messages = next(iter(messages.values()))
        extra["errors"] = messages
        extra.update(_validation_detail(messages))
        detail = extra.pop("detail")
    elif status == 404:
        detail = NO_ROUTE
    elif status == 405:
        extra.update(template=NOT_ALLOWED, params={"method": request.method, "path": request.path})
        detail = fill(NOT_ALLOWED, extra["params"])
    elif status == 413 and current_app.config.get("MAX_CONTENT_LENGTH"):
        extra.update(template=TOO_LARGE, params={"limit": current_app.config["MAX_CONTENT_LENGTH"]})
        detail = fill(TOO_LARGE, extra["params"])
    elif status == 413:
        detail = TOO_LARGE_NO_LIMIT
    elif status >= 500:
        detail = INTERNAL
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
        return problem_response(error.status, error.code, error.detail, error.headers, template=error.template,
                                params=error.params, **error.extra)

    @app.errorhandler(LedgerError)
    def _refusal(error: LedgerError) -> Response:
        return json_response(refusal_body(error), 422, mimetype=PROBLEM_JSON)

    @app.errorhandler(StoreError)
    def _store(error: StoreError) -> Response:
        if error.code in SERVER_SETTINGS:  # the operator's business: the details (paths, key ids) go to the log
            log.error("Refused for the server's settings on %s %s: %s", request.method, request.path,
                      english(error.said))
            return problem_response(503, error.code, SETTINGS_DETAIL, {"Retry-After": "60"})
        status = STORE_STATUS.get(error.code, 500)
        extra: dict[str, Any] = {}
        headers: dict[str, str] = {}
        if error.code == "version-conflict":
            extra["current_version"] = error.params["current"]
            headers["ETag"] = f'"{error.params["current"]}"'
        if error.code == "busy":
            headers["Retry-After"] = "1"
        return problem_response(status, error.code, english(error.said), headers, template=error.template,
                                params=error.params, **extra)

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        return _http_problem(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        log.exception("Unexpected error on %s %s (request %s)", request.method, request.path, request_id())
        return problem_response(500, "internal-error", INTERNAL)
