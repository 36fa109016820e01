"""Tokens a club can list, revoke and rotate; wrong tokens rate-limited per address; an admin token worth the name.

A revoked token is refused at once by every worker (no process keeps a cache of
tokens); wrong tokens from one address are answered 429 past the limit, with
``Retry-After``; a server refuses to start with a short or regular admin token.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.auth import WeakAdminToken, check_admin_token
from api.config import Config
from cli.commands import main
from nj_ledger.store import Store
from support.apps import new_app
from support.http import ADMIN_TOKEN, Calls, Club, HttpClient, assert_problem
from support.scale import scaled, sized

from .helpers import environment, start_server


def listed(calls: Calls, club: Club) -> list[dict]:
    answer = calls.client.get(f"/api/v1/clubs/{club.id}/tokens", headers=club.auth)
    assert answer.status_code == 200, answer.get_json()
    return list(answer.json["tokens"])


def test_a_club_lists_revokes_and_rotates_its_tokens(calls: Calls, club: Club) -> None:
    viewer = calls.token(club, "viewer")
    tokens = listed(calls, club)
    assert [(t["role"], t["label"]) for t in tokens] == [("scorer", "first scorer"), ("viewer", "")]
    assert set(tokens[0]) == {"id", "role", "label", "created_at", "last_used_at", "revoked_at"}
    assert tokens[0]["last_used_at"] is not None and tokens[1]["last_used_at"] is None  # the viewer never called
    assert club.token not in json.dumps(tokens) and viewer.token not in json.dumps(tokens)

    rotated = calls.client.post(f"/api/v1/clubs/{club.id}/tokens/{tokens[1]['id']}/rotate", headers=club.auth)
    assert rotated.status_code == 201 and rotated.headers["Cache-Control"] == "no-store"
    assert (rotated.json["role"], rotated.json["label"]) == ("viewer", "")
    assert_problem(calls.client.get(f"/api/v1/clubs/{club.id}", headers=viewer.auth), 401, "unauthorized")
    fresh = Club(club.id, rotated.json["token"])
    assert calls.client.get(f"/api/v1/clubs/{club.id}", headers=fresh.auth).status_code == 200

    gone = calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/{rotated.json['id']}", headers=club.auth)
    assert gone.status_code == 204
    assert_problem(calls.client.get(f"/api/v1/clubs/{club.id}", headers=fresh.auth), 401, "unauthorized")
    again = calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/{rotated.json['id']}", headers=club.auth)
    assert again.status_code == 204  # revoking a revoked token changes nothing
    revoked = {t["id"]: t["revoked_at"] for t in listed(calls, club)}
    assert revoked[tokens[0]["id"]] is None and revoked[tokens[1]["id"]] and revoked[rotated.json["id"]]

    last = calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/{tokens[0]['id']}", headers=club.auth)
    assert_problem(last, 409, "last-scorer-token")  # or the club could never write again
    assert_problem(calls.client.post(f"/api/v1/clubs/{club.id}/tokens/{rotated.json['id']}/rotate",
                                     headers=club.auth), 404, "not-found")
    assert_problem(calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/{tokens[1]['id']}", headers=fresh.auth),
                   401, "unauthorized")
    assert_problem(calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/999999", headers=club.auth), 404,
                   "not-found")


def test_the_command_line_lists_revokes_and_rotates_tokens(store: Store, calls: Calls, club: Club) -> None:
    viewer = calls.token(club, "viewer")
    env = {"NJ_LEDGER_DATABASE_URL": store.db.url}
    runner = CliRunner()
    shown = runner.invoke(main, ["tokens", "list", club.id, "--json"], env=env)
    assert shown.exit_code == 0, shown.output
    ids = [t["id"] for t in json.loads(shown.output)["tokens"]]
    assert len(ids) == 2 and club.token not in shown.output
    rotated = runner.invoke(main, ["tokens", "rotate", club.id, str(ids[1])], env=env)
    assert rotated.exit_code == 0 and "token: " in rotated.output, rotated.output
    secret = rotated.output.split("token: ")[1].split()[0]
    assert store.authenticate(secret) is not None and store.authenticate(viewer.token) is None
    new_id = store.authenticate(secret).id
    assert runner.invoke(main, ["tokens", "revoke", club.id, str(new_id)], env=env).exit_code == 0
    assert store.authenticate(secret) is None
    refused = runner.invoke(main, ["tokens", "revoke", club.id, str(ids[0])], env=env)
    assert refused.exit_code != 0 and "last-scorer-token" in refused.output


def test_a_revoked_token_is_refused_at_once_by_every_worker(fresh_url: str, tmp_path: Path) -> None:
    with (tmp_path / "server.log").open("wb") as log:
        server, port = start_server(fresh_url, tmp_path, log, workers=2)
    try:
        calls = Calls(HttpClient(port, fresh=True, timeout=30))  # a new connection each:
        made = calls.read("POST", "/api/v1/clubs", {"name": "Club"}, token=ADMIN_TOKEN)  # the server hands them to
        viewer = calls.read("POST", f"/api/v1/clubs/{made['id']}/tokens", {"role": "viewer"},  # either worker
                            token=made["token"])
        club = f"/api/v1/clubs/{made['id']}"

        def status(token: str) -> int:
            return int(calls.get(club, token=token).status_code)

        assert [status(viewer["token"]) for _ in range(20)] == [200] * 20  # both workers know it
        assert calls.delete(f"{club}/tokens/{viewer['id']}", token=made["token"]).status_code == 204
        assert [status(viewer["token"]) for _ in range(20)] == [401] * 20
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_wrong_tokens_from_one_address_are_rate_limited(store: Store) -> None:
    app = new_app(store, AUTH_FAILURE_LIMIT=Config.AUTH_FAILURE_LIMIT)  # the default, not the suite's
    intruder = app.test_client()
    intruder.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    member = app.test_client()
    member.environ_base["REMOTE_ADDR"] = "192.0.2.8"
    club = Calls(member).club()
    limit = int(Config.AUTH_FAILURE_LIMIT.split("/")[0])
    statuses = [intruder.get(f"/api/v1/clubs/{club.id}", headers={"Authorization": f"Bearer guess-{n}"}).status_code
                for n in range(limit + 50)]
    assert statuses == [401] * limit + [429] * 50
    refused = intruder.get(f"/api/v1/clubs/{club.id}", headers=club.auth)  # even a right token, from there
    body = assert_problem(refused, 429, "too-many-requests")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60 and refused.headers["Retry-After"] in body["detail"]
    admin = intruder.post("/api/v1/clubs", json={"name": "x"}, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert_problem(admin, 429, "too-many-requests")
    assert member.get(f"/api/v1/clubs/{club.id}", headers=club.auth).status_code == 200  # another address
    assert intruder.get("/api/v1/health").status_code == 200  # no token, nothing counted


@pytest.mark.parametrize("weak", ["short", "admin", "q8Zr" * 8, "a" * 64, "abcdabcdabcdabcdabcdabcdabcdabcd",
                                  "0123456789" * 4, "abcdefghijklmnopqrstuvwxyz0123456789"])
def test_a_weak_admin_token_stops_the_server_from_starting(weak: str, fresh_url: str, tmp_path: Path) -> None:
    with pytest.raises(WeakAdminToken, match="nj-ledger admin-token"):
        new_app(url=fresh_url, ADMIN_TOKEN=weak)
    server = subprocess.run(
        [sys.executable, "-m", "cli", "serve", "--port", "1"], capture_output=True, text=True,
        env={**environment(fresh_url), "NJ_LEDGER_ADMIN_TOKEN": weak}, cwd=tmp_path, timeout=60)
    assert server.returncode != 0 and "nj-ledger admin-token" in server.stderr, server.stderr
    assert "Traceback" not in server.stderr


# Tokens people chose, each worth well over 128 bits by a plain count of its characters: a club's name with a
# year, a passphrase of common words, and UUIDs copied from documentation (RFC 4122's example, Wikipedia's).
CHOSEN = ["ClubDuNainJauneAngersAdminToken2026", "correct-horse-battery-staple-2024!",
          "123e4567-e89b-12d3-a456-426614174000", "550e8400-e29b-41d4-a716-446655440000",
          "ClubDuNainJauneAngersAdminToken2026-SecretServer", "correct-horse-battery-staple-2024!-the-club"]


@pytest.mark.parametrize("chosen", CHOSEN)
def test_an_admin_token_a_person_chose_is_refused(chosen: str) -> None:
    with pytest.raises(WeakAdminToken, match="nj-ledger admin-token"):
        check_admin_token(chosen)
    with pytest.raises(WeakAdminToken, match="zxcvbn"):
        new_app(url="sqlite://", ADMIN_TOKEN=chosen)


@scaled
def test_the_command_line_makes_admin_tokens_the_server_accepts() -> None:
    """What `nj-ledger admin-token` makes, and 32 random bytes as other tools write them (base64url, hex), pass:
    many draws, so that a draw that happens to spell words would show."""
    count = sized(25, 1000)
    made = {CliRunner().invoke(main, ["admin-token"]).output.strip() for _ in range(count)}
    assert len(made) == count and {len(token) for token in made} == {43}
    for token in made | {secrets.token_urlsafe(32) for _ in range(count)} | {secrets.token_hex(32) for _ in range(5)}:
        check_admin_token(token)


def test_wrong_tokens_are_counted_by_ipv6_network_and_by_the_address_trusted_proxies_name(store: Store) -> None:
    app = new_app(store, AUTH_FAILURE_LIMIT="3/minute", PROXIES=1)
    club = Calls(app.test_client()).club()

    def status(address: str, forwarded: str | None = None, token: str = "wrong") -> int:
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        headers = {"Authorization": f"Bearer {token}", **({"X-Forwarded-For": forwarded} if forwarded else {})}
        return client.get(f"/api/v1/clubs/{club.id}", headers=headers).status_code

    # one host, any address of its /64
    assert [status(f"2001:db8:1:2::{n}") for n in range(1, 5)] == [401, 401, 401, 429]
    assert status("2001:db8:1:3::1") == 401  # another network
    # IPv4 clients of a server listening on both count each as itself, not all as ::/64
    assert [status("::ffff:192.0.2.1") for _ in range(4)] == [401, 401, 401, 429]
    assert status("::ffff:192.0.2.2", token=club.token) == 200 and status("192.0.2.1", token=club.token) == 429
    # behind the trusted proxy, each client counts for itself, not the proxy for all
    assert [status("10.0.0.1", "198.51.100.7") for _ in range(4)] == [401, 401, 401, 429]
    assert status("10.0.0.1", "198.51.100.8", club.token) == 200


def test_an_audit_checks_a_bounded_number_of_one_games_receipts(calls: Calls, club: Club) -> None:
    game = calls.game(club)
    receipt = game["receipt"]
    many = [{**receipt, "signature": f"{n:x}"} for n in range(257)]
    answer = calls.client.post(f"/api/v1/games/{game['id']}/audit", json={"receipts": many}, headers=club.auth)
    body = assert_problem(answer, 422, "too-many-receipts")
    assert "256" in body["detail"] and "257" in body["detail"]
    again = [receipt] * 500 + [{**receipt, "game": f"other{n}"} for n in range(300)]  # the same one, and others
    answer = calls.client.post(f"/api/v1/games/{game['id']}/audit", json={"receipts": again}, headers=club.auth)
    assert answer.status_code == 200 and answer.json["receipts"]["checked"] == 1
    assert answer.json["receipts"]["skipped"] == 300 and answer.json["ok"]
