"""Input no view should ever see is refused at the door, before any view runs.

- A body is JSON (415 ``unsupported-media-type`` otherwise), except on a route
  whose view class names the text types it also takes (``text_types``, the NJN
  import's ``text/x-njn`` and ``text/plain``), sent as UTF-8.
- A JSON body is decoded once, here, strictly: not JSON (``NaN``, a number of
  thousands of digits, bytes that are not text) is 400 ``invalid-json``, and so
  is a body nested deeper than :data:`MAX_DEPTH` (a game document nests six deep).
  The views' arguments are read from the value decoded here (:class:`BodyParser`,
  the parser of every :class:`Blueprint` of the API), never from the bytes again;
  a body in other bytes than plain UTF-8 (a byte-order mark, UTF-16) is read for
  these checks, but no view's arguments are read from it (400 ``invalid-json``).
- Text no database can keep: PostgreSQL's text refuses NUL, and neither
  database, nor the UTF-8 the hash chain is computed over, can hold half of a
  surrogate pair, which JSON can carry as ``"\\ud800"``. In the path it answers
  404 (no id holds one), in the query string or the body 422 ``invalid-request``.

    >>> first_problem({"players": ["Ana", "B\\x00n"]})
    ('players.1', 'text may not contain NUL characters or unpaired surrogates')
    >>> first_problem({"name": "Chloé 🃏 \\u200f"}) is None
    True
"""

from __future__ import annotations

import json
from typing import Any

import flask_smorest
from flask import current_app, g, request
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from .i18n import N_, validation_templates
from .problems import Problem

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
DECODED = "nj_ledger_body"  # where in ``flask.g`` the decoded JSON body is kept for the request
UTF_8 = frozenset({"utf-8", "utf8"})
MAX_DEPTH = 32
UNSTORABLE = N_("text may not contain NUL characters or unpaired surrogates")
TOO_DEEP_TEMPLATE = N_("the body may not nest more than {depth} levels deep")
TOO_DEEP = TOO_DEEP_TEMPLATE.format(depth=MAX_DEPTH)
validation_templates(TOO_DEEP_TEMPLATE)  # as a field's message, it is translated like marshmallow's
# The detail of a refused body, by what :func:`first_problem` found.
REFUSED = {
    UNSTORABLE: N_("{field}: text may not contain NUL characters or unpaired surrogates."),
    TOO_DEEP: N_("{field}: the body may not nest more than {depth} levels deep."),
}
# The detail of a body that is not JSON, by whether the route also takes text and whether the body had a type.
NOT_JSON = {
    (False, True): N_("Send the body as JSON (Content-Type: application/json), not {mimetype}."),
    (False, False): N_("Send the body as JSON, with the header Content-Type: application/json."),
    (True, True): N_("Send the body as JSON (Content-Type: application/json) or as text ({types}), not {mimetype}."),
    (True, False): N_("Send the body as JSON (Content-Type: application/json) or as text ({types}), "
                      "with its Content-Type."),
}


def unstorable(text: str) -> bool:
    """Whether ``text`` holds a NUL character or a lone surrogate."""
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def first_problem(value: Any) -> tuple[str, str] | None:
    """Where in a JSON value the first problem is (``"actions.0.reason"``) and what it is, or None.

    The walk keeps its own stack, so no depth can exhaust Python's.
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if unstorable(item):
                return path or "body", UNSTORABLE
            continue
        if not isinstance(item, dict | list):
            continue
        if depth >= MAX_DEPTH:
            return path or "body", TOO_DEEP
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, inner in reversed(list(pairs)):
            if isinstance(key, str) and unstorable(key):
                return path or "body", UNSTORABLE
            stack.append((inner, f"{path}.{key}" if path else str(key), depth + 1))
    return None


def text_types() -> tuple[str, ...]:
    """The text media types the requested route takes besides JSON: its view class's ``text_types``."""
    view = current_app.view_functions.get(request.endpoint or "")
    return tuple(getattr(getattr(view, "view_class", None), "text_types", ()))


def require_json_body() -> None:
    """A ``before_request`` hook: a body sent to the API is JSON, or UTF-8 text where the route takes it (415)."""
    has_body = bool(request.content_length or request.headers.get("Transfer-Encoding"))
    if request.method not in BODY_METHODS or not has_body or request.is_json:
        return
    accepted = text_types()
    if request.mimetype in accepted:
        charset = request.mimetype_params.get("charset", "utf-8")
        if charset.lower() in UTF_8:
            return
        raise Problem(415, "unsupported-media-type",
                      "Send the text as UTF-8 ({mimetype}; charset=utf-8), not {charset}.",
                      params={"mimetype": request.mimetype, "charset": charset})
    raise Problem(415, "unsupported-media-type", NOT_JSON[bool(accepted), bool(request.mimetype)],
                  params={"types": ", ".join(accepted), "mimetype": request.mimetype})


def refuse_unstorable(value: Any) -> None:
    """422 ``invalid-request`` when :func:`first_problem` finds one in ``value``."""
    found = first_problem(value)
    if found is not None:
        where, reason = found
        raise Problem(422, "invalid-request", REFUSED[reason], params={"field": where, "depth": MAX_DEPTH},
                      errors={where: [reason]})


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def reject_unreadable_input() -> None:
    """A ``before_request`` hook: the checks above, on the path, the query string and a JSON body."""
    if any(isinstance(value, str) and unstorable(value) for value in (request.view_args or {}).values()):
        raise Problem(404, "not-found", "Nothing here: check the path.")
    for name, value in request.args.items(multi=True):
        if unstorable(name) or unstorable(value):
            raise Problem(422, "invalid-request", "{field!r}: text may not contain NUL characters or unpaired "
                          "surrogates.", params={"field": name}, errors={name: [UNSTORABLE]})
    if not request.is_json:
        return
    raw = request.get_data(cache=True)
    if not raw.strip():
        return  # no body: the arguments' parser says it is missing, or not JSON if blank
    try:
        body = json.loads(raw, parse_constant=_not_json)  # bytes: UTF-8, UTF-16 or UTF-32, a byte-order mark or none
    except RecursionError:
        raise Problem(400, "invalid-json", "The body could not be read as JSON: the body may not nest more than "
                                           "{depth} levels deep.", params={"depth": MAX_DEPTH}) from None
    except ValueError:
        raise Problem(400, "invalid-json", "The body could not be read as JSON.") from None
    refuse_unstorable(body)
    if json.detect_encoding(raw) == "utf-8":  # as json.loads read it: plain UTF-8, no byte-order mark
        setattr(g, DECODED, body)  # what the arguments are read from; other bytes are no JSON argument (BodyParser)


class BodyParser(FlaskParser):
    """webargs' parser for Flask, reading a JSON body as :func:`reject_unreadable_input` decoded it."""

    def _raw_load_json(self, req: Any) -> Any:
        """The request's JSON body as decoded before the view; missing without one, or for a body of another
        type; a blank body is not JSON."""
        if not is_json_request(req):
            return core.missing
        if hasattr(g, DECODED):
            return getattr(g, DECODED)
        raw = req.get_data(cache=True)
        if not raw:
            return core.missing
        # a blank body, or JSON in bytes other than plain UTF-8 (a byte-order mark, UTF-16): readable by the check
        # above, but no body the views' arguments are read from
        raise json.JSONDecodeError("not a UTF-8 JSON text", raw.decode("utf-8", "replace"), 0)


class Blueprint(flask_smorest.Blueprint):
    """The API's blueprints: flask-smorest's, whose arguments are read by :class:`BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()
