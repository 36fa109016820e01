"""Request ids and the access log: one JSON line per request, the same id in the answer's ``X-Request-Id``.

Every answer carries an ``X-Request-Id`` (a problem, a 404, a stream's head
too): a club that reports "it said *internal error*" gives the id, and the
operator finds the request's line, and the error's traceback, which names it,
in the log. An id that comes from a trusted proxy (``NJ_LEDGER_PROXIES``,
:mod:`api.proxies`; Caddy's ``{http.request.uuid}``) is kept when it is short
and plain (``[A-Za-z0-9._-]``, 64 characters at most), so that the proxy's log
and ours tell of the same request; a client's own, or any other, is replaced,
never echoed.

The access log (``ACCESS_LOG``: ``json`` or ``off``; ``nj-ledger serve`` writes
it to its standard error by default) has, per request: the time it was
answered, the id, the method, the route (the app's endpoint, such as
``games.Actions``), the path, the status, the milliseconds it took (from its
arrival at the worker, its body read, to its answer built), the bytes of the
body and the client's address (behind trusted proxies, the one they name). A
stream's line is written when its head is sent: its duration is the time to
start it, its bytes none.

What it never holds. Headers (the tokens are there), bodies, and query strings
(filters name players: ``?player=Ana``). A share's secret never reaches the
server at all (it is in the URL's fragment). A path names clubs, games and
evenings by their ids, which open nothing without a token; a player's name in a
path (``…/players/Ana/stats``) is written ``<player>``: the log never keeps a
member's name, an erased member's neither. Each line is written with one
``write`` of at most 4,096 bytes (a long path is cut to fit), so that the lines
of the several workers sharing one standard error never interleave. The id and the line cost
an append 20 to 25 µs of CPU (of about 800 µs), measured in one process.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

import orjson
from flask import Flask, Response, request
from werkzeug.routing import Rule

from .proxies import PROXIED

REQUEST_ID_HEADER = "X-Request-Id"
RECEIVED = "nj_ledger.received"  # environ: time.perf_counter() when the request reached the worker (api.asgi)
_REQUEST_ID = "nj_ledger.request_id"  # environ: this request's id
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
MODES = ("off", "json")
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
PERSONAL = frozenset({"player", "member"})  # path arguments that name a person: never written out
_ARGUMENT = re.compile(r"<(?:[^:<>]+:)?(\w+)>")
MAX_PATH = 1024  # characters of a path written
LINE = 4096  # bytes of a line at most: one write of a pipe's buffer (PIPE_BUF) is never interleaved with another
SHORT_PATH = 256  # characters of the path of a line that was longer (6 bytes each at worst, escaped)
EXTENSION = "nj_ledger.access_log"
EVENT_STREAM = "text/event-stream"  # a stream's answer: its bytes are not known when its line is written


class RequestIds:
    """New request ids: a random prefix of the process's and a count, 16 hexadecimal characters. Distinct within
    a server's run (each worker draws its prefix when it makes its app) at the cost of a counter, where drawing 64
    random bits for each request would cost a system call."""

    def __init__(self) -> None:
        self.prefix = secrets.token_hex(4)
        self.count = itertools.count(1)

    def __call__(self) -> str:
        return f"{self.prefix}{next(self.count) & 0xFFFFFFFF:08x}"


new_id = RequestIds()


def received() -> None:
    """Before any other step of a request: when it arrived (unless the ASGI layer said), and its id."""
    environ = request.environ
    if RECEIVED not in environ:
        environ[RECEIVED] = time.perf_counter()
    # a proxy's id is kept (its log and ours then name the same request); a client's own never is: anyone could
    # give the id of another's request and blur what the log tells
    incoming = environ.get("HTTP_X_REQUEST_ID") if environ.get(PROXIED) else None
    environ[_REQUEST_ID] = incoming if incoming and _SAFE_ID.fullmatch(incoming) else new_id()


def request_id() -> str:
    """This request's id (a new one if the request never reached :func:`received`)."""
    return str(request.environ.setdefault(_REQUEST_ID, new_id()))


def method(verb: str) -> str:
    """``verb``, a request's method, or ``OTHER`` for a method no route of the app takes (kept out of the labels
    and the log).

    >>> method("POST"), method("BREW")
    ('POST', 'OTHER')
    """
    return verb if verb in METHODS else "OTHER"


def logged_path(path: str, rule: Rule | None) -> str:
    """``path`` as the log writes it: a person's name in it (:data:`PERSONAL`) replaced by the argument's name.

    >>> from werkzeug.routing import Map
    >>> stats, game = Rule("/api/v1/clubs/<club>/players/<player>/stats"), Rule("/api/v1/games/<game>")
    >>> routes = Map([stats, game])
    >>> logged_path("/api/v1/clubs/Ab12/players/Ana/stats", stats)
    '/api/v1/clubs/Ab12/players/<player>/stats'
    >>> logged_path("/api/v1/games/Ab12", game)
    '/api/v1/games/Ab12'
    """
    if rule is None or PERSONAL.isdisjoint(rule.arguments):
        return path[:MAX_PATH]
    parts, pattern = path.split("/"), rule.rule.split("/")
    if len(parts) != len(pattern):
        return rule.rule[:MAX_PATH]
    written = []
    for part, place in zip(parts, pattern, strict=True):
        argument = _ARGUMENT.fullmatch(place)
        written.append(f"<{argument.group(1)}>" if argument and argument.group(1) in PERSONAL else part)
    return "/".join(written)[:MAX_PATH]


_second: tuple[int, str] = (-1, "")  # the last whole second written and its text, shared by that second's lines


def _utc(moment: float) -> str:
    """``moment`` (seconds since the epoch) as ISO-8601 UTC with milliseconds.

    >>> _utc(1795000000.5)
    '2026-11-18T11:06:40.500Z'
    """
    global _second
    second, text = _second  # one read: another thread may move it on meanwhile
    if second != int(moment):
        second, text = _second = int(moment), time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(moment)))
    return f"{text}.{int(moment % 1 * 1000):03d}Z"


def _writer(stream: Any) -> Callable[[bytes], Any]:
    """Where the lines go: ``stream`` (a text stream, for tests), else file descriptor 2 directly (one system
    call a line, no buffer shared between threads)."""
    if stream is None:
        return lambda line: os.write(2, line)
    return lambda line: stream.write(line.decode())


def init_app(app: Flask) -> None:
    """Give every answer its request id, and write its line when ``ACCESS_LOG`` is ``json``."""
    mode = str(app.config.get("ACCESS_LOG") or "off").lower()
    if mode not in MODES:
        raise ValueError(f"ACCESS_LOG (NJ_LEDGER_ACCESS_LOG) is {mode!r}: it must be one of {', '.join(MODES)}.")
    write = _writer(app.config.get("ACCESS_LOG_STREAM")) if mode == "json" else None
    global new_id
    new_id = RequestIds()  # drawn again in each worker: the server's process forked them all with its prefix

    def answered(response: Response) -> Response:
        asked = request._get_current_object()  # type: ignore[attr-defined]  # one look-up, not one per field
        environ = asked.environ
        identifier = environ.get(_REQUEST_ID) or request_id()
        response.headers[REQUEST_ID_HEADER] = identifier
        if write is not None:
            now = time.perf_counter()
            entry = {
                "time": _utc(time.time()), "request_id": identifier, "method": method(asked.method),
                "route": asked.endpoint or "unmatched", "path": logged_path(asked.path, asked.url_rule),
                "status": response.status_code, "duration_ms": round((now - environ.get(RECEIVED, now)) * 1000, 2),
                "bytes": None if response.mimetype == EVENT_STREAM else response.content_length,
                "client": asked.remote_addr,
            }
            line = orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE)
            if len(line) > LINE:  # a path of many characters JSON escapes
                entry["path"] = entry["path"][:SHORT_PATH]
                line = orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE)
            try:
                write(line)
            except (OSError, ValueError):  # standard error closed: the answer matters more than its line
                pass
        return response

    # First of the steps before a request, last of those after it: every answer has its id, whatever refused it.
    app.before_request_funcs.setdefault(None, []).insert(0, received)
    app.after_request_funcs.setdefault(None, []).insert(0, answered)
    app.extensions[EXTENSION] = mode
