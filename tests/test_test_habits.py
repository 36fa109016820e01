"""The tests' own habits: one way to make an app, one way to talk HTTP.

An app is made by ``support.apps.new_app`` (the ``app`` fixture's factory), never by calling ``create_app``
in a test module; a request goes through ``support.http.Calls`` (over Flask's test client or an
``HttpClient`` to a served port), never through a helper of a module's own: a function named as a request
(``get``, ``post``, ``send``, ``call``, ``api``…) that opens the connection itself, or ``urlopen``.
A module that tests the protocol itself (a body sent chunk by chunk, a stream read off its socket) still
opens a connection where it must; what it may not do is wrap one as a helper of its own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SUPPORT = TESTS / "support"
REQUEST_NAMES = re.compile(r"_?(get|post|put|patch|delete|head|send|call|request|fetch|api|open|json|raw_\w+)")
OPENERS = {"urlopen", "Request", "HTTPConnection", "HTTPSConnection"}  # urllib's and http.client's
CLIENT_METHODS = {"open", "get", "post", "put", "patch", "delete", "head", "request"}


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(TESTS.rglob("*.py")):
        name = path.relative_to(TESTS).as_posix()
        if SUPPORT in path.parents or "__pycache__" in path.parts:
            continue
        yield name, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def called(call: ast.Call) -> tuple[str | None, str | None]:
    """What a call calls, and on what (``client.post``: ``post`` on ``client``)."""
    function = call.func
    if isinstance(function, ast.Name):
        return function.id, None
    if isinstance(function, ast.Attribute):
        receiver = function.value
        owner = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", None)
        return function.attr, owner
    return None, None


def opens_a_request(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``function`` makes a request itself: through urllib or http.client, or a client's own methods."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            name, owner = called(node)
            if name in OPENERS:
                return True
            if name in CLIENT_METHODS and owner and ("client" in owner.lower() or "connection" in owner.lower()):
                return True
    return False


def test_no_test_module_makes_an_app_but_through_the_one_factory() -> None:
    found = [f"{name}:{node.lineno}" for name, tree in modules() for node in ast.walk(tree)
             if (isinstance(node, ast.Call) and called(node)[0] == "create_app")
             or (isinstance(node, ast.ImportFrom) and any(alias.name == "create_app" for alias in node.names))]
    assert found == [], f"make the app with support.apps.new_app, not create_app: {found}"


def test_no_test_module_has_an_http_helper_of_its_own() -> None:
    found = [f"{name}:{node.lineno} {node.name}" for name, tree in modules() for node in ast.walk(tree)
             if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
             and REQUEST_NAMES.fullmatch(node.name) and opens_a_request(node)]
    assert found == [], f"send requests through support.http.Calls, not a helper of the module's: {found}"


def test_no_test_module_reaches_a_server_through_urlopen() -> None:
    found = [f"{name}:{node.lineno}" for name, tree in modules() for node in ast.walk(tree)
             if isinstance(node, ast.Call) and called(node)[0] == "urlopen"]
    assert found == [], f"reach a served port with support.http.HttpClient (through Calls): {found}"


def test_the_habits_see_the_shapes_they_refuse() -> None:
    """The checks above find what they look for: a helper of each shape, written here as text."""
    made = ast.parse("from api import create_app\napp = create_app({})\n")
    assert [node for node in ast.walk(made) if isinstance(node, ast.Call) and called(node)[0] == "create_app"]
    for helper in ("def post(client, path):\n    return client.post(path)\n",
                   "def call(port, path):\n    return urllib.request.urlopen(f'http://127.0.0.1:{port}{path}')\n",
                   "def _json(connection, path):\n    connection.request('GET', path)\n"):
        [function] = [node for node in ast.walk(ast.parse(helper)) if isinstance(node, ast.FunctionDef)]
        assert REQUEST_NAMES.fullmatch(function.name) and opens_a_request(function), helper
    through_calls = ast.parse("def post(calls, path):\n    return calls.post(path)\n").body[0]
    assert isinstance(through_calls, ast.FunctionDef) and not opens_a_request(through_calls)
