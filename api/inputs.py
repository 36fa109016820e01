"""Input no view should ever see is refused at the door, before any view runs.

- A JSON body is read strictly once here: not JSON (``NaN``, a number of
  thousands of digits, bytes that are not text) is 400 ``invalid-json``, and so
  is a body nested deeper than :data:`MAX_DEPTH` (a game document nests six deep).
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

from flask import request

from .problems import Problem

MAX_DEPTH = 32
UNSTORABLE = "text may not contain NUL characters or unpaired surrogates"
TOO_DEEP = f"the body may not nest more than {MAX_DEPTH} levels deep"


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


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def reject_unreadable_input() -> None:
    """A ``before_request`` hook: the checks above, on the path, the query string and a JSON body."""
    if any(isinstance(value, str) and unstorable(value) for value in (request.view_args or {}).values()):
        raise Problem(404, "not-found", "Nothing here: check the path.")
    for name, value in request.args.items(multi=True):
        if unstorable(name) or unstorable(value):
            raise Problem(422, "invalid-request", f"{name!r}: {UNSTORABLE}.", errors={name: [UNSTORABLE]})
    if not request.is_json:
        return
    raw = request.get_data(cache=True)
    if not raw.strip():
        return
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise Problem(400, "invalid-json", f"The body could not be read as JSON: {TOO_DEEP}.") from None
    except ValueError:
        raise Problem(400, "invalid-json", "The body could not be read as JSON.") from None
    found = first_problem(body)
    if found is not None:
        where, reason = found
        raise Problem(422, "invalid-request", f"{where}: {reason}.", errors={where: [reason]})
