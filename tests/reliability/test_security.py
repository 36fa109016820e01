"""Intruders: tokens, roles on every route, size limits, CORS, security headers and secrets in the repository.

The route checks walk the app's own URL map, so a route added later is
covered without anyone remembering to add it here; only the open routes (the
service's health and readiness, its documentation, creating a club with the admin token) are
listed, and a new open route fails the test until it is listed on purpose.
"""

from __future__ import annotations

import ast
import hashlib
import http.client
import inspect
import logging
import re
import subprocess
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

import api.auth
import nj_ledger.store.checkpoints
import nj_ledger.store.games
import nj_ledger.store.tokens
from nj_ledger.store import Store
from nj_ledger.store.models import Base
from support.http import ADMIN_TOKEN, PLAYERS, Calls, Club, assert_problem

from .helpers import ROOT, start_server

OPEN_ROUTES = {
    ("GET", "/api/v1/health"), ("GET", "/api/v1/ready"), ("GET", "/api/v1/openapi.json"), ("POST", "/api/v1/clubs"),
    ("GET", "/api/v1/keys"), ("POST", "/api/v1/signin"),  # a phone's one-time code is its own proof (api/lan.py)
    ("POST", "/api/v1/tables/<code>/join"),  # a table's code gives a token of that table only (api/table_join.py)
    ("GET", "/api/v1/docs"), ("GET", "/api/v1/docs/"), ("GET", "/api/v1/docs/assets/<name>"),
}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
DOCUMENT = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben"], "rules": "classic",
            "starting_chips": 40, "actions": []}
# Valid bodies for the POST routes whose path names no club (ownership is decided after the body is read).
GAME_WRITES = {"/api/v1/games/<game>/actions": {"actions": [{"type": "end"}]},
               "/api/v1/games/<game>/audit": {"receipts": []},
               "/api/v1/tables/<code>/confirmations": {"game": "x", "player": "Ana"},
               "/api/v1/clubs/<club>/players/look-alikes": {"players": ["Ana"]}}


@dataclass
class Route:
    method: str
    rule: str
    path: str
    reads_only: bool = False  # a POST that writes nothing (the audit holding the log to receipts)
    for_scorers: bool = False  # a read of a member's personal data: a scorer's token only

    @property
    def writes(self) -> bool:
        """Whether the route needs a scorer's token: it writes, or reads a member's personal data."""
        return (self.method in WRITE_METHODS and not self.reads_only) or self.for_scorers

    def __str__(self) -> str:
        return f"{self.method} {self.rule}"


@dataclass
class Place:
    club: Club
    viewer: Club
    neighbour: Club
    game: str
    evening: str = ""
    code: str = ""
    phone: str = ""  # a sign-in code's id (api/lan.py)


@pytest.fixture
def place(calls: Calls) -> Place:
    club = calls.club()
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    evening = calls.client.post(f"/api/v1/clubs/{club.id}/evenings", headers=club.auth, json={
        "name": "Jeudi", "players": ["Ana", "Ben", "Chloé"], "rounds": 1, "starting_chips": 60,
        "seating": [[["Ana", "Ben", "Chloé"]]]})
    assert evening.status_code == 201, evening.get_json()
    season = calls.client.post(f"/api/v1/clubs/{club.id}/seasons", headers=club.auth,
                               json={"name": "x", "from": "2026-01-01", "to": "2026-12-31"})
    assert season.status_code == 201, season.get_json()
    phone = calls.client.post(f"/api/v1/clubs/{club.id}/phones", headers=club.auth, json={},
                              base_url="https://club.example.org")  # an address phones reach: a code is made
    assert phone.status_code == 201, phone.get_json()
    return Place(club, calls.token(club, "viewer"), calls.club("Les Voisins"), game, evening.json["id"],
                 evening.json["tables"][0]["code"], str(phone.json["id"]))


def api_routes(app: Flask, place: Place) -> Iterator[Route]:
    """Every method of every rule under ``/api/v1``, with its path filled in for ``place``."""
    values = {"club": place.club.id, "game": place.game, "number": "1", "player": PLAYERS[0], "name": "x",
              "token": "1", "share": "1", "table": "1", "phone": place.phone, "evening": place.evening,
              "code": place.code, "season": "x"}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1/"):
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: values.get(m.group(1), "x"), rule.rule)
        view = getattr(app.view_functions[rule.endpoint], "view_class", None)
        reads_only, for_scorers = getattr(view, "reads_only", ()), getattr(view, "for_scorers", ())
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield Route(method, rule.rule, path, method in reads_only, method in for_scorers)


def closed_routes(app: Flask, place: Place) -> list[Route]:
    routes = [route for route in api_routes(app, place) if (route.method, route.rule) not in OPEN_ROUTES]
    assert len(routes) >= 18 and any(route.writes for route in routes)
    return routes


def test_the_open_routes_are_the_listed_ones(app, place) -> None:
    opened = {(route.method, route.rule) for route in api_routes(app, place)
              if (route.method, route.rule) in OPEN_ROUTES}
    assert opened == OPEN_ROUTES
    client = app.test_client()
    for method, rule in OPEN_ROUTES - {("POST", "/api/v1/clubs"), ("POST", "/api/v1/signin"),
                                       ("POST", "/api/v1/tables/<code>/join")}:
        assert client.open(rule.replace("<name>", "swagger-ui.css"), method=method).status_code == 200, rule
    assert_problem(client.post("/api/v1/signin", json={"code": place.club.token}), 404, "sign-in-code-unknown")
    assert client.post(f"/api/v1/tables/{place.code}/join").status_code == 201


def test_every_route_refuses_a_missing_or_wrong_token_with_401(app, client, place) -> None:
    for route in closed_routes(app, place):
        for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic YTpi"},
                        {"Authorization": "Bearer"}, {"Authorization": f"Bearer {ADMIN_TOKEN}"},
                        {"Authorization": f"bearer {place.club.token}x"}):
            answer = client.open(route.path, method=route.method, json={}, headers=headers)
            assert_problem(answer, 401, "unauthorized")
            assert answer.headers["WWW-Authenticate"].startswith("Bearer"), route
    answer = client.get(f"/api/v1/clubs/{place.club.id}?access_token={place.club.token}")
    assert_problem(answer, 401, "unauthorized")  # a token is read from the header only, never from a URL


def test_every_write_route_refuses_a_viewer_with_403(app, client, calls, place) -> None:
    log = calls.events(place.club, place.game)
    writes = [route for route in closed_routes(app, place) if route.writes]
    for route in writes:
        body = GAME_WRITES.get(route.rule, {})
        assert_problem(client.open(route.path, method=route.method, json=body, headers=place.viewer.auth),
                       403, "forbidden")
    assert calls.events(place.club, place.game) == log
    for route in closed_routes(app, place):
        if not route.writes:
            body = GAME_WRITES.get(route.rule) if route.reads_only else None
            answer = client.open(route.path, method=route.method, json=body, headers=place.viewer.auth)
            if route.rule.endswith("/analysis"):  # let in: the seeded game's deal is not settled yet
                assert_problem(answer, 409, "deal-not-settled")
                continue
            assert answer.status_code == 200, (str(route), answer.get_json())


def test_another_clubs_token_finds_nothing_on_any_route(app, client, calls, place) -> None:
    log = calls.events(place.club, place.game)
    for route in closed_routes(app, place):
        if route.method in WRITE_METHODS and "<club>" not in route.rule:
            assert route.rule in GAME_WRITES, f"add a valid body for {route} to GAME_WRITES"
        body = GAME_WRITES.get(route.rule, {}) if route.method in WRITE_METHODS else None
        answer = client.open(route.path, method=route.method, json=body, headers=place.neighbour.auth)
        assert_problem(answer, 404, "not-found")
        assert place.club.id not in answer.get_data(as_text=True) or "<club>" in route.rule, route
    assert calls.events(place.club, place.game) == log


def test_tokens_are_stored_as_digests_only(calls, store: Store, place) -> None:
    secrets = [place.club.token, place.viewer.token, place.neighbour.token]
    with store.db.reading() as session:
        stored = [str(row) for table in Base.metadata.sorted_tables
                  for row in session.execute(select(table)).all()]
        digests = set(session.execute(select(Base.metadata.tables["tokens"].c.digest)).scalars())
    assert all(secret not in row for secret in secrets for row in stored)
    assert {hashlib.sha256(secret.encode()).hexdigest() for secret in secrets} <= digests


def test_tokens_never_reach_the_logs(app, client, calls, store, place, caplog, monkeypatch) -> None:
    caplog.set_level(logging.DEBUG)
    logging.getLogger("sqlalchemy.engine").setLevel(logging.INFO)  # every statement and its parameters
    try:
        calls.game(place.club)
        calls.token(place.club, "viewer")
        client.get(f"/api/v1/games/{place.game}", headers=place.viewer.auth)
        client.get(f"/api/v1/games/{place.game}", headers={"Authorization": f"Bearer {place.club.token}-wrong"})
        client.post("/api/v1/clubs", json={"name": "Logged"}, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})

        def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("the database went away")

        monkeypatch.setattr(store.games, "game_state", broken)
        assert client.get(f"/api/v1/games/{place.game}", headers=place.club.auth).status_code == 500
    finally:
        logging.getLogger("sqlalchemy.engine").setLevel(logging.WARNING)
    assert "Unexpected error" in caplog.text and "SELECT" in caplog.text  # the logs were captured
    for secret in (place.club.token, place.viewer.token, ADMIN_TOKEN):
        assert secret not in caplog.text


def test_the_real_server_limits_chunked_bodies_and_prints_no_token(database_url: str, tmp_path: Path, place) -> None:
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server, port = start_server(database_url, tmp_path, log)
    try:
        for path in (f"/api/v1/games/{place.game}", "/api/v1/nothing", f"/api/v1/games/{place.game}/audit"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", path, headers=place.club.auth)
            assert connection.getresponse().status in (200, 404)
            connection.close()
        assert send_chunked(port, f"/api/v1/clubs/{place.club.id}/players", place.club.auth, 3 * 1024 * 1024) == (
            413, "application/problem+json")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert place.club.token not in log_path.read_text(errors="replace")


def send_chunked(port: int, path: str, headers: dict[str, str], size: int) -> tuple[int, str | None]:
    """POST a JSON body of about ``size`` bytes in chunks, with no Content-Length; the status and content type."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("POST", path)
        for name, value in {**headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked"}.items():
            connection.putheader(name, value)
        connection.endheaders()
        opening, chunk = b'{"name": "', b"x" * 65536
        connection.send(b"%x\r\n%s\r\n" % (len(opening), opening))
        for _ in range(size // len(chunk)):
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b'2\r\n"}\r\n0\r\n\r\n')
        answer = connection.getresponse()
        return answer.status, answer.getheader("Content-Type")
    finally:
        connection.close()


def test_secrets_are_compared_in_constant_time() -> None:
    comparisons = {
        api.auth.require_admin: "the admin token", api.auth.own_club: "a club id",
        nj_ledger.store.tokens.Tokens.authenticate: "a token's digest",
        nj_ledger.store.games.Games.append: "an idempotency fingerprint",
        nj_ledger.store.checkpoints.holds: "a checkpoint's hash",
    }
    for function, what in comparisons.items():
        source = textwrap.dedent(inspect.getsource(function))
        assert "hmac.compare_digest" in source, f"{function.__qualname__} compares {what} without compare_digest"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
                if isinstance(node.left, ast.Attribute) and isinstance(node.left.value, ast.Name) and (
                        node.left.value.id[0].isupper()):
                    continue  # Model.column == value builds SQL (an index lookup), it compares nothing here
                text = ast.unparse(node).lower()
                assert not re.search(r"secret|digest|admin|signature|fingerprint|token", text), (
                    f"{function.__qualname__} compares with ==: {text}")


def test_request_bodies_are_limited(app, client, place) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    assert 0 < limit <= 4 * 1024 * 1024
    answer = client.post(f"/api/v1/clubs/{place.club.id}/players", headers=place.club.auth,
                         data=b'{"name": "' + b"x" * limit + b'"}', content_type="application/json")
    assert_problem(answer, 413, "request-too-large")


def test_cors_is_off(app, client, place) -> None:
    origin = {"Origin": "https://elsewhere.example"}
    for route in api_routes(app, place):
        preflight = client.options(route.path, headers={**origin, "Access-Control-Request-Method": route.method,
                                                        "Access-Control-Request-Headers": "authorization"})
        answer = client.open(route.path, method=route.method, headers={**origin, **place.club.auth})
        for response in (preflight, answer):
            assert not [k for k, _ in response.headers.items() if k.lower().startswith("access-control-")], route


def page_paths(app: Flask, place: Place) -> list[str]:
    values = {"club": place.club.id, "game": place.game, "filename": "pages/style.css", "name": "swagger-ui.css"}
    paths = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/") and not rule.rule.startswith("/api/v1/docs"):
            continue
        if "GET" in (rule.methods or set()):
            paths.append(re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: values.get(m.group(1), "x"), rule.rule))
    return paths


def test_pages_and_api_answers_carry_security_headers(app, client, place) -> None:
    pages = page_paths(app, place)
    assert "/" in pages and len(pages) >= 8
    answers = {path: client.get(path) for path in pages}
    answers |= {route.path: client.open(route.path, method=route.method, json={}, headers=place.club.auth)
                for route in api_routes(app, place)}
    answers["/api/v1/missing"] = client.get("/api/v1/missing")
    for path, answer in answers.items():
        headers = answer.headers
        assert headers.get("X-Content-Type-Options") == "nosniff", path
        assert headers.get("X-Frame-Options") == "DENY", path
        assert headers.get("Referrer-Policy") == "no-referrer", path
        assert "frame-ancestors 'none'" in headers.get("Content-Security-Policy", ""), path
        if answer.mimetype == "text/html":
            policy = headers["Content-Security-Policy"]
            assert "default-src 'none'" in policy and "unsafe-eval" not in policy, path
            scripts = policy.split("script-src")[1].split(";")[0]
            assert "script-src 'self'" in policy and "'unsafe-inline'" not in scripts
        answer.close()


# --- secrets in the repository ------------------------------------------------------------------------
SECRET_PATTERNS = {
    "private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----"),
    "AWS access key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "Slack token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    "Stripe or OpenAI-style key": re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}\b|\bsk-[A-Za-z0-9]{32,}\b"),
    "URL with a password": re.compile(r"\b[a-z+]+://[^/\s:@]+:[^/\s:@]{6,}@[^/\s]+"),
}
# A secret written into code or configuration: a long random-looking value given to a secret's name.
ASSIGNED = re.compile(r"(?i)(?:secret|token|password|passwd|api_?key|private_?key)"
                      r"[\"']?\s*[:=]\s*[\"']([^\"'\s]{24,})[\"']")
FORBIDDEN_FILES = re.compile(r"(^|/)(\.env(\..*)?|.*\.(pem|key|p12|pfx)|id_(rsa|ed25519|ecdsa)|instance/.*)$")


def random_looking(value: str) -> bool:
    return bool(re.search(r"[a-z]", value) and re.search(r"[A-Z]", value) and re.search(r"\d", value))


def leaks(text: str) -> list[str]:
    found = [name for name, pattern in SECRET_PATTERNS.items() if pattern.search(text)]
    found += [f"assigned secret {m.group(1)[:6]}…" for m in ASSIGNED.finditer(text) if random_looking(m.group(1))]
    return found


def repository_files() -> list[str]:
    """The files a commit would hold: tracked ones and new ones not ignored."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode()
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def test_the_secret_scanner_finds_what_it_looks_for() -> None:
    planted = {
        "private key": "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIE",
        "AWS": "AKIA" + "ABCDEFGHIJKLMNOP",
        "GitHub": "ghp_" + "a1B2" * 9,
        "assigned": "NJ_LEDGER_ADMIN_TOKEN=" + repr("q8Zr" * 8),
        "URL": "postgresql://nj:" + "hunter22" + "@db.example/nj",
    }
    for what, text in planted.items():
        assert leaks(text), what
    for harmless in ('ADMIN_TOKEN = "admin-token-for-the-tests"', "Authorization: Bearer <token>",
                     "postgresql+psycopg://postgres@127.0.0.1:5432/test", 'token = secrets.token_urlsafe(32)'):
        assert not leaks(harmless), harmless


def test_no_secret_is_in_the_repository() -> None:
    try:
        files = repository_files()
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.fail(f"git cannot list the repository's files: {error}")
    assert len(files) > 50
    assert not [name for name in files if FORBIDDEN_FILES.search(name)]
    problems = {}
    for name in files:
        data = (ROOT / name).read_bytes()
        if b"\0" in data[:8192]:
            continue  # a binary file (an image): nothing written by hand
        found = leaks(data.decode("utf-8", errors="replace"))
        if found:
            problems[name] = found
    assert not problems, problems
