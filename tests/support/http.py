"""The one way tests talk to the API: :class:`Calls`, over Flask's test client or a real server's port.

``Calls(app.test_client())`` asks an app in this process; ``Calls(HttpClient(port))`` asks a server listening
on a loopback port (a process of its own), whose answers read as the test client's do (``status_code``,
``headers``, ``json``, ``get_json()``, ``get_data()``). Requests go through :meth:`Calls.send` (and
:meth:`~Calls.get`, :meth:`~Calls.post`, :meth:`~Calls.delete`, :meth:`~Calls.read`), with a club's token, a
token of any kind, or none; and the usual steps (a club, a token, a game, actions, a log) have a method each.
"""

from __future__ import annotations

import http.client
import json as jsonlib
import os
import secrets
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from werkzeug.datastructures import Headers

# Made for the run by tests/conftest.py (and here for a server started by hand: tests/browser/server.py).
ADMIN_TOKEN = os.environ.setdefault("NJ_LEDGER_TEST_ADMIN_TOKEN", secrets.token_urlsafe(32))
PLAYERS = ["Ana", "Ben", "Chloé"]


@dataclass
class Club:
    id: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class HttpAnswer:
    """A real server's answer, with the parts of a Flask test response the tests read."""

    def __init__(self, status: int, headers: Mapping[str, str] | list[tuple[str, str]], body: bytes) -> None:
        self.status_code = status
        # looked up whatever the case of their names, as a Flask response's
        self.headers = Headers(list(headers.items()) if isinstance(headers, Mapping) else headers)
        self.data = body

    @property
    def json(self) -> Any:
        return jsonlib.loads(self.data) if self.data else None

    @property
    def mimetype(self) -> str:
        return self.headers.get("Content-Type", "").partition(";")[0].strip()

    def get_json(self) -> Any:
        return self.json

    def get_data(self, as_text: bool = False) -> bytes | str:
        return self.data.decode() if as_text else self.data


class HttpClient:
    """A client of a server listening on ``port`` (of ``host``, loopback by default), asked as Flask's test
    client is (``open``, ``get``, ``post``…), each path after ``base`` (``/api/v1``, say): over plain HTTP, or
    HTTPS when given a ``tls`` context; over one kept-alive connection, or a new connection for each request when
    ``fresh`` (a server of several workers then hands each to either)."""

    def __init__(self, port: int, *, host: str = "127.0.0.1", base: str = "", tls: ssl.SSLContext | None = None,
                 fresh: bool = False, timeout: float = 60) -> None:
        self.port, self.host, self.base, self.tls = port, host, base.rstrip("/"), tls
        self.fresh, self.timeout = fresh, timeout
        self.connection = None if fresh else self.connect()

    @classmethod
    def at(cls, url: str, *, authority: Path | None = None, **options: Any) -> HttpClient:
        """A client of the server at ``url`` (its scheme, host, port and path, the base of every request's),
        trusting ``authority`` (a PEM file) alone over HTTPS."""
        parts = urlsplit(url)
        https = parts.scheme == "https"
        tls = ssl.create_default_context(cafile=str(authority) if authority else None) if https else None
        port = parts.port or (443 if https else 80)
        return cls(port, host=parts.hostname or "127.0.0.1", base=parts.path, tls=tls, **options)

    @classmethod
    def over(cls, connection: http.client.HTTPConnection) -> HttpClient:
        """A client whose every request goes over ``connection``, already open (to one worker of a server, say)."""
        client = cls(connection.port, host=connection.host, fresh=True)
        client.fresh, client.connection = False, connection
        return client

    def connect(self) -> http.client.HTTPConnection:
        if self.tls is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self.tls)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def open(self, path: str, method: str = "GET", json: Any = None, data: bytes | str | None = None,
             headers: Mapping[str, str] | None = None) -> HttpAnswer:
        body = jsonlib.dumps(json).encode() if json is not None else data
        sent = {**(headers or {}), **({"Content-Type": "application/json"} if json is not None else {})}
        connection = self.connection or self.connect()
        try:
            connection.request(method, self.base + path, body=body, headers=sent)
            answer = connection.getresponse()
            return HttpAnswer(answer.status, answer.getheaders(), answer.read())
        except BaseException:
            connection.close()  # a kept connection starts again from nothing at the next request
            raise
        finally:
            if self.fresh:
                connection.close()

    def get(self, path: str, **options: Any) -> HttpAnswer:
        return self.open(path, "GET", **options)

    def post(self, path: str, **options: Any) -> HttpAnswer:
        return self.open(path, "POST", **options)

    def delete(self, path: str, **options: Any) -> HttpAnswer:
        return self.open(path, "DELETE", **options)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()


def answers(port: int, path: str = "/api/v1/health", timeout: float = 2) -> bool:
    """Whether the server on loopback ``port`` answers ``path`` with a success (no server yet, or an error
    answer: not yet)."""
    try:
        return 200 <= HttpClient(port, fresh=True, timeout=timeout).get(path).status_code < 300
    except (OSError, http.client.HTTPException):
        return False


class HttpApp:
    """A server on a loopback ``port`` seen as an app: each ``test_client()`` is a connection of its own."""

    def __init__(self, port: int) -> None:
        self.port = port

    def test_client(self) -> HttpClient:
        return HttpClient(self.port)


class Calls:
    """Short ways to make the calls most tests need, over a Flask test client or an :class:`HttpClient`."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def send(self, method: str, path: str, body: Any = None, *, club: Club | None = None, token: str | None = None,
             headers: Mapping[str, str] | None = None, **options: Any) -> Any:
        """One request: ``body`` sent as JSON (none when ``None``), with ``club``'s token or ``token`` (a club's,
        a share's, the admin's…) and more ``headers``; ``options`` go to the client as they are (``data``,
        ``environ_base``, ``buffered``…)."""
        sent = {**(club.auth if club is not None else {}),
                **({"Authorization": f"Bearer {token}"} if token is not None else {}), **(headers or {})}
        return self.client.open(path, method=method, json=body, headers=sent, **options)

    def get(self, path: str, **named: Any) -> Any:
        return self.send("GET", path, **named)

    def post(self, path: str, body: Any = None, **named: Any) -> Any:
        return self.send("POST", path, body, **named)

    def delete(self, path: str, **named: Any) -> Any:
        return self.send("DELETE", path, **named)

    def read(self, method: str, path: str, body: Any = None, *, status: int | None = None, **named: Any) -> Any:
        """The JSON of an answer that must have ``status`` (a success, 2xx, when not given); ``None`` for an
        answer without a body (``204``)."""
        answer = self.send(method, path, body, **named)
        if status is None:
            assert 200 <= answer.status_code < 300, (answer.status_code, answer.get_data(as_text=True))
        else:
            assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True))
        return answer.get_json()

    def club(self, name: str = "Le Nain du Jeudi") -> Club:
        answer = self.client.post("/api/v1/clubs", json={"name": name},
                                  headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert answer.status_code == 201, answer.get_json()
        return Club(answer.json["id"], answer.json["token"])

    def token(self, club: Club, role: str) -> Club:
        answer = self.client.post(f"/api/v1/clubs/{club.id}/tokens", json={"role": role}, headers=club.auth)
        assert answer.status_code == 201, answer.get_json()
        return Club(club.id, answer.json["token"])

    def game(self, club: Club, players: list[str] | None = None, **options: Any) -> dict[str, Any]:
        body = {"players": players or PLAYERS, "rules": "classic", "starting_chips": 60, **options}
        answer = self.client.post(f"/api/v1/clubs/{club.id}/games", json=body, headers=club.auth)
        assert answer.status_code == 201, answer.get_json()
        return dict(answer.json)

    def act(self, club: Club, game: str, *actions: Any, headers: Mapping[str, str] | None = None,
            **named: str) -> Any:
        """Post ``actions``; headers given as a mapping or by name (``If_Match=...`` is ``If-Match``)."""
        extra = {name.replace("_", "-"): value for name, value in named.items()}
        return self.client.post(f"/api/v1/games/{game}/actions", json={"actions": list(actions)},
                                headers={**club.auth, **(headers or {}), **extra})

    def state(self, club: Club, game: str) -> dict[str, Any]:
        answer = self.client.get(f"/api/v1/games/{game}", headers=club.auth)
        assert answer.status_code == 200, answer.get_json()
        return dict(answer.json)

    def events(self, club: Club, game: str) -> list[dict[str, Any]]:
        """The whole log, page after page."""
        events: list[dict[str, Any]] = []
        while True:
            answer = self.client.get(f"/api/v1/games/{game}/events?limit=1000&after={len(events)}",
                                     headers=club.auth)
            assert answer.status_code == 200, answer.get_json()
            events += answer.json["events"]
            if answer.json["next"] is None:
                return events

    def audit(self, club: Club, game: str) -> dict[str, Any]:
        answer = self.client.get(f"/api/v1/games/{game}/audit", headers=club.auth)
        assert answer.status_code == 200, answer.get_json()
        return dict(answer.json)


PROBLEM_FIELDS = {"type", "title", "status", "detail", "code"}


def assert_problem(answer: Any, status: int | None = None, code: str | None = None) -> dict[str, Any]:
    """``answer`` is an RFC 9457 problem (with this status and code, when given), and never a server error
    unless that is the status asked for."""
    text = answer.get_data(as_text=True)
    assert answer.status_code < 500 or answer.status_code == status, text
    assert answer.mimetype == "application/problem+json", (answer.status_code, answer.mimetype, text)
    body = answer.get_json()
    assert set(body) >= PROBLEM_FIELDS, body
    assert body["status"] == answer.status_code and isinstance(body["code"], str) and body["code"], body
    assert body["detail"] and "Traceback" not in text
    if status is not None:
        assert answer.status_code == status, text
    if code is not None:
        assert body["code"] == code, body
    return dict(body)


def verified_receipt(client: Any, body: dict[str, Any], game: str, version: int) -> dict[str, Any]:
    """The receipt an answer carries: for ``game`` at ``version``, signed by a key that ``GET /keys`` lists."""
    from nj_ledger.receipts import from_b64url, verify

    receipt = body["receipt"]
    assert (receipt["game"], receipt["version"]) == (game, version), receipt
    keys = {key["id"]: from_b64url(key["public_key"]) for key in client.get("/api/v1/keys").json["keys"]}
    assert verify(receipt, keys), receipt
    return dict(receipt)


def without_receipt(body: dict[str, Any]) -> dict[str, Any]:
    """An answer's body without its receipt (signed at each write: two games never share one)."""
    return {name: value for name, value in body.items() if name != "receipt"}
