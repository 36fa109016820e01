"""A stream's guards through Flask's test client (the WSGI generator), on SQLite and PostgreSQL: its credential
revoked ends it, and a client address or a credential holds only so many streams open in a worker (429
``too-many-streams``). The event loop's streams are tested in tests/api/test_streams_asgi.py, real servers in
tests/reliability/test_streams_served.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from api import create_app
from nj_ledger.store import Store
from support.http import ADMIN_TOKEN, Calls, Club, assert_problem

QUIET_HEARTBEAT = 60.0  # no heartbeat within a test: only a revocation can end its streams
REVOKED_WITHIN = 1.0
PER_ADDRESS, PER_CREDENTIAL = 3, 4
FR = {"Accept-Language": "fr"}


@pytest.fixture(scope="module")
def guarded_app(store: Store) -> Flask:
    return create_app({"DATABASE_URL": store.db.url, "STORE": store, "ADMIN_TOKEN": ADMIN_TOKEN,
                       "STREAM_HEARTBEAT": QUIET_HEARTBEAT, "STREAMS_PER_ADDRESS": PER_ADDRESS,
                       "STREAMS_PER_CREDENTIAL": PER_CREDENTIAL})


@pytest.fixture(scope="module")
def proxied_app(store: Store) -> Flask:
    return create_app({"DATABASE_URL": store.db.url, "STORE": store, "ADMIN_TOKEN": ADMIN_TOKEN,
                       "STREAM_HEARTBEAT": QUIET_HEARTBEAT, "STREAMS_PER_ADDRESS": 1, "PROXIES": "127.0.0.1"})


def share_of(calls: Calls, club: Club, game: str) -> tuple[int, Club]:
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": game}, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    return int(answer.json["id"]), Club(club.id, answer.json["secret"])


class Opened:
    """A stream that runs: its opening read, then left waiting until it is closed (which ends its generator)."""

    def __init__(self, answer: Any) -> None:
        assert answer.status_code == 200, answer.get_data()
        self.answer = answer
        self.chunks: Iterator[bytes] = iter(answer.response)
        self.body = next(self.chunks)

    def close(self) -> None:
        self.answer.close()


class Drained(Opened):
    """A stream read to its end on a thread of its own (the WSGI generator holds the thread that reads it)."""

    def __init__(self, answer: Any) -> None:
        super().__init__(answer)
        self.ended_at: float | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for chunk in self.chunks:
            self.body += chunk
        self.ended_at = time.monotonic()


def open_stream(calls: Calls, credential: Club, game: str, address: str = "127.0.0.1",
                **headers: str) -> Any:
    return calls.client.get(f"/api/v1/games/{game}/stream", headers={**credential.auth, **headers},
                            environ_base={"REMOTE_ADDR": address}, buffered=False)


def refused(answer: Any) -> dict[str, Any]:
    """The 429 of a stream past a limit (its status looked at first: a stream let in would be read forever)."""
    assert answer.status_code == 429
    return assert_problem(answer, 429, "too-many-streams")


def test_a_revoked_share_or_token_ends_its_wsgi_streams_within_a_second(guarded_app: Flask) -> None:
    calls = Calls(guarded_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    share_id, share = share_of(calls, club, game)
    made = calls.client.post(f"/api/v1/clubs/{club.id}/tokens", json={"role": "viewer"}, headers=club.auth).json
    viewer = Club(club.id, made["token"])
    streams = {"share": Drained(open_stream(calls, share, game)),
               "viewer": Drained(open_stream(calls, viewer, game, address="192.0.2.9"))}
    for name, path in (("share", f"/api/v1/clubs/{club.id}/shares/{share_id}"),
                       ("viewer", f"/api/v1/clubs/{club.id}/tokens/{made['id']}")):
        assert calls.client.delete(path, headers=club.auth).status_code == 204
        revoked_at = time.monotonic()
        streams[name].thread.join(10)
        ended_at = streams[name].ended_at
        assert ended_at is not None and ended_at - revoked_at < REVOKED_WITHIN, name
        assert streams[name].body.endswith(b": revoked\n\n")
        if name == "share":
            assert streams["viewer"].ended_at is None  # the other credential's stream goes on
    assert calls.client.get(f"/api/v1/games/{game}/stream", headers=share.auth).status_code == 401


def test_an_address_holds_so_many_streams_and_a_credential_so_many_from_anywhere(guarded_app: Flask) -> None:
    calls = Calls(guarded_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    _, share = share_of(calls, club, game)
    held = [Opened(open_stream(calls, share, game, "192.0.2.1")) for _ in range(PER_ADDRESS)]
    try:
        answer = open_stream(calls, share, game, "192.0.2.1")
        body = refused(answer)
        assert answer.headers["Retry-After"] == "10"
        assert body["detail"] == (f"This address has {PER_ADDRESS} streams open on this server already, the most "
                                  "it may: close one, or try again in 10 seconds.")
        french = refused(open_stream(calls, share, game, "192.0.2.1", **FR))
        assert french["detail"].startswith(f"Cette adresse a déjà {PER_ADDRESS} flux ouverts")
        head = calls.client.head(f"/api/v1/games/{game}/stream", headers=share.auth,
                                 environ_base={"REMOTE_ADDR": "192.0.2.1"})
        assert head.status_code == 200  # the stream's head only: it takes no place
        refused(open_stream(calls, club, game, "192.0.2.1"))  # whichever token

        held.append(Opened(open_stream(calls, share, game, "192.0.2.2")))  # the share's fourth, from elsewhere
        body = refused(open_stream(calls, share, game, "192.0.2.3"))
        assert body["detail"].startswith(f"This token or share link has {PER_CREDENTIAL} streams open")
        held.append(Opened(open_stream(calls, club, game, "192.0.2.3")))  # another credential: a place

        held.pop(0).close()  # a stream of 192.0.2.1 ends: its places are given back
        held.append(Opened(open_stream(calls, share, game, "192.0.2.1")))
    finally:
        for stream in held:
            stream.close()


def test_an_ipv6_client_is_counted_by_its_network_and_a_proxied_one_as_itself(guarded_app: Flask,
                                                                             proxied_app: Flask) -> None:
    calls = Calls(guarded_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    held: list[Opened] = [Opened(open_stream(calls, club, game, f"2001:db8:1:2::{number}"))
                          for number in range(PER_ADDRESS)]
    try:  # a host takes any address of its /64: one client
        refused(open_stream(calls, club, game, "2001:db8:1:2::ff"))
        held.append(Opened(open_stream(calls, club, game, "2001:db8:1:3::1")))
    finally:
        for stream in held:
            stream.close()
    calls = Calls(proxied_app.test_client())
    club = calls.club()
    game = calls.game(club)["id"]
    held = []
    try:  # behind the trusted proxy, each client its own count (one place each here)
        for client in ("198.51.100.1", "198.51.100.2"):
            held.append(Opened(open_stream(calls, club, game, **{"X-Forwarded-For": client})))
        refused(open_stream(calls, club, game, **{"X-Forwarded-For": "198.51.100.1"}))
    finally:
        for stream in held:
            stream.close()
