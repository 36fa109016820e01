"""Shares: a read-only link to one game or to the club's scoreboard, revocable, stored as a digest, never more.

The route checks walk the app's URL map: a route added later is closed to a share until it is named in
``api.auth.SHARED_ROUTES``.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from werkzeug.serving import make_server

from api.auth import SHARED_ROUTES
from nj_ledger.store import Store
from nj_ledger.store.models import Base
from support.http import PLAYERS, Calls, Club, HttpClient

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
OPEN = {"health.Health", "health.Ready", "clubs.Clubs", "keys.Keys", "phones.SignIn", "tables.Join",
        "api-docs.openapi_json", "docs.page", "docs.asset"}
BODIES = {"/api/v1/games/<game>/actions": {"actions": [{"type": "end"}]},
          "/api/v1/games/<game>/audit": {"receipts": []},
          "/api/v1/clubs/<club>/shares": {"game": "x"}}


@dataclass
class Shared:
    club: Club
    game: str  # the shared game: one deal played
    other: str  # another game of the same club
    secret: str  # the game's share
    board: str  # the scoreboard's share
    neighbour: Club
    neighbours_game: str

    def auth(self, secret: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {secret or self.secret}"}


def share(calls: Calls, club: Club, body: dict[str, Any]) -> dict[str, Any]:
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/shares", json=body, headers=club.auth)
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    return dict(answer.json)


@pytest.fixture
def shared(calls: Calls, club: Club) -> Shared:
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    other = calls.game(club, ["Ana", "Ben"])["id"]
    assert calls.act(club, other, {"type": "deal"}).status_code == 201
    neighbour = calls.club("Les Voisins")
    neighbours_game = calls.game(neighbour)["id"]
    return Shared(club, game, other, share(calls, club, {"game": game})["secret"],
                  share(calls, club, {"scoreboard": True})["secret"], neighbour, neighbours_game)


@dataclass
class Route:
    endpoint: str
    method: str
    rule: str
    path: str
    reads_only: bool

    @property
    def writes(self) -> bool:
        return self.method in WRITE_METHODS and not self.reads_only

    def __str__(self) -> str:
        return f"{self.method} {self.rule}"


def routes(app: Flask, club: str, game: str) -> Iterator[Route]:
    """Every closed route under ``/api/v1``, its path filled in for ``club`` and ``game``."""
    values = {"club": club, "game": game, "number": "1", "player": PLAYERS[0], "token": "1", "share": "1",
              "table": "1", "phone": "1"}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1/") or rule.endpoint in OPEN:
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: values.get(m.group(1), "x"), rule.rule)
        reads_only = getattr(getattr(app.view_functions[rule.endpoint], "view_class", None), "reads_only", ())
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield Route(rule.endpoint, method, rule.rule, path, method in reads_only)


def body_of(route: Route) -> Any:
    """What a route is sent: a body of the right shape for a write, nothing for a read."""
    return BODIES.get(route.rule, {}) if route.method in WRITE_METHODS else None


# --- making, listing, storing ---------------------------------------------------------------------


def test_a_scorer_shares_a_game_and_the_link_holds_the_secret_in_its_fragment(calls, club) -> None:
    game = calls.game(club)["id"]
    made = share(calls, club, {"game": game, "label": "pour la famille"})
    assert set(made) == {"id", "resource", "game", "evening", "label", "created_at", "secret", "url", "screen"}
    assert made["screen"] is False
    assert (made["resource"], made["game"], made["label"]) == ("game", game, "pour la famille")
    page, _, fragment = made["url"].partition("#")
    assert page == f"/games/{game}/replay" and fragment == f"share={made['secret']}"
    assert len(made["secret"]) >= 40
    board = share(calls, club, {"scoreboard": True})
    assert (board["resource"], board["game"]) == ("scoreboard", None)
    assert board["url"] == f"/clubs/{club.id}/scoreboard#share={board['secret']}"


def test_a_share_is_stored_as_the_digest_of_its_secret_only(calls, store: Store, shared: Shared) -> None:
    with store.db.reading() as session:
        stored = [str(row) for table in Base.metadata.sorted_tables for row in session.execute(select(table)).all()]
        digests = set(session.execute(select(Base.metadata.tables["shares"].c.digest)).scalars())
    for secret in (shared.secret, shared.board):
        assert all(secret not in row for row in stored)
        assert hashlib.sha256(secret.encode()).hexdigest() in digests


def test_the_club_lists_its_shares_without_their_secrets(client, calls, shared: Shared) -> None:
    club = shared.club
    listed = client.get(f"/api/v1/clubs/{club.id}/shares", headers=club.auth)
    assert listed.status_code == 200
    assert [(s["resource"], s["game"]) for s in listed.json["shares"]] == [("game", shared.game),
                                                                           ("scoreboard", None)]
    assert all(set(s) == {"id", "resource", "game", "evening", "label", "created_at", "last_used_at", "revoked_at",
                          "screen"}
               for s in listed.json["shares"])
    text = listed.get_data(as_text=True)
    assert shared.secret not in text and shared.board not in text
    of_game = client.get(f"/api/v1/clubs/{club.id}/shares?game={shared.game}", headers=club.auth).json["shares"]
    assert [s["game"] for s in of_game] == [shared.game]
    boards = client.get(f"/api/v1/clubs/{club.id}/shares?resource=scoreboard", headers=club.auth).json["shares"]
    assert [s["resource"] for s in boards] == ["scoreboard"]
    viewer = calls.token(club, "viewer")
    assert client.get(f"/api/v1/clubs/{club.id}/shares", headers=viewer.auth).status_code == 200
    paged = client.get(f"/api/v1/clubs/{club.id}/shares?limit=1", headers=club.auth).json
    assert len(paged["shares"]) == 1 and paged["next"]


def test_opening_a_share_notes_when_it_was_last_used(client, shared: Shared) -> None:
    assert client.get(f"/api/v1/games/{shared.game}", headers=shared.auth()).status_code == 200
    listed = client.get(f"/api/v1/clubs/{shared.club.id}/shares?resource=game", headers=shared.club.auth).json
    assert listed["shares"][0]["last_used_at"] is not None


def test_making_a_share_is_refused_when_the_body_does_not_name_one_thing(client, calls, club, problem) -> None:
    game = calls.game(club)["id"]
    for body in ({}, {"game": game, "scoreboard": True}, {"scoreboard": False}, {"label": "x"},
                 {"game": game, "label": "x" * 121}, {"game": game, "club": club.id}):
        problem(client.post(f"/api/v1/clubs/{club.id}/shares", json=body, headers=club.auth), 422, "invalid-request")
    french = client.post(f"/api/v1/clubs/{club.id}/shares", json={}, headers={**club.auth, "Accept-Language": "fr"})
    assert "partager" in problem(french, 422, "invalid-request")["detail"]
    assert client.get(f"/api/v1/clubs/{club.id}/shares", headers=club.auth).json["shares"] == []


def test_only_a_scorer_of_the_games_club_shares_it(client, calls, shared: Shared, problem) -> None:
    club, viewer = shared.club, calls.token(shared.club, "viewer")
    problem(client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": shared.game}, headers=viewer.auth),
            403, "forbidden")
    for game in (shared.neighbours_game, "no-such-game"):
        problem(client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": game}, headers=club.auth),
                404, "not-found")
    problem(client.post(f"/api/v1/clubs/{club.id}/shares", json={"game": shared.game},
                        headers=shared.neighbour.auth), 404, "not-found")
    problem(client.post(f"/api/v1/clubs/{club.id}/shares", json={"scoreboard": True}), 401, "unauthorized")


# --- what a game share reaches ---------------------------------------------------------------------


def test_a_game_share_reads_its_game_state_events_replay_audit_and_export(client, calls, shared: Shared) -> None:
    auth = shared.auth()
    game = client.get(f"/api/v1/games/{shared.game}", headers=auth)
    assert game.status_code == 200 and game.json == client.get(f"/api/v1/games/{shared.game}",
                                                                headers=shared.club.auth).json | {
        "receipt": game.json["receipt"]}
    events = client.get(f"/api/v1/games/{shared.game}/events", headers=auth)
    assert events.status_code == 200 and len(events.json["events"]) == 17
    replay = client.get(f"/api/v1/games/{shared.game}/deals/1/replay", headers=auth)
    assert replay.status_code == 200 and len(replay.json["steps"]) == 17
    assert client.get(f"/api/v1/games/{shared.game}/deals/1/replay?at=2", headers=auth).status_code == 200
    audit = client.get(f"/api/v1/games/{shared.game}/audit", headers=auth)
    assert audit.status_code == 200 and audit.json["ok"] is True
    checked = client.post(f"/api/v1/games/{shared.game}/audit", json={"receipts": [game.json["receipt"]]},
                          headers=auth)
    assert checked.status_code == 200 and checked.json["receipts"]["checked"] == 1
    exported = client.get(f"/api/v1/games/{shared.game}/export", headers=auth)
    assert exported.status_code == 200 and exported.json["players"] == PLAYERS
    njn = client.get(f"/api/v1/games/{shared.game}/export?format=njn", headers=auth)
    assert njn.status_code == 200 and njn.mimetype == "text/x-njn"
    assert client.head(f"/api/v1/games/{shared.game}", headers=auth).status_code == 200


def test_a_game_share_finds_nothing_else_and_writes_nothing(app, client, calls, shared: Shared, problem) -> None:
    log = calls.events(shared.club, shared.game)
    reached = set()
    for route in routes(app, shared.club.id, shared.game):
        answer = calls.send(route.method, route.path, body_of(route), headers=shared.auth())
        if route.writes:
            assert problem(answer, 403, "forbidden")["detail"] == "A share link may read what it shares, never write."
        elif route.endpoint in SHARED_ROUTES["game"]:
            # the analysis of the shared game's deal, not settled: reached, and refused as for the club
            reached_as = (200, 202, 409) if route.endpoint == "replay.Analysis" else (200,)
            assert answer.status_code in reached_as, (str(route), answer.get_json())
            reached.add(route.endpoint)
        else:
            problem(answer, 404, "not-found")
        # the same route for another game of the club, and a game of another club: as if it did not exist
        for game in (shared.other, shared.neighbours_game):
            if "<game>" in route.rule:
                again = calls.send(route.method, route.path.replace(shared.game, game), body_of(route),
                                   headers=shared.auth())
                problem(again, 403 if route.writes else 404)
    assert reached == SHARED_ROUTES["game"]
    assert calls.events(shared.club, shared.game) == log


def test_a_game_shares_404_names_the_other_game_or_the_club_and_nothing_more(client, shared: Shared,
                                                                            problem) -> None:
    other = problem(client.get(f"/api/v1/games/{shared.other}/deals/1/replay", headers=shared.auth()), 404)
    assert shared.other in other["detail"] and shared.game not in str(other)
    club = problem(client.get(f"/api/v1/clubs/{shared.club.id}/players", headers=shared.auth()), 404)
    assert club["detail"] == f"There is no club '{shared.club.id}'."
    # what a token of another club is told: the same answers
    neighbour = problem(client.get(f"/api/v1/games/{shared.other}/deals/1/replay", headers=shared.neighbour.auth),
                        404)
    assert neighbour["detail"] == other["detail"]


# --- what a scoreboard share reaches ---------------------------------------------------------------


def test_a_scoreboard_share_reads_the_scoreboard_and_its_csv_only(app, client, calls, shared: Shared,
                                                                 problem) -> None:
    auth = shared.auth(shared.board)
    board = client.get(f"/api/v1/clubs/{shared.club.id}/scoreboard?min_games=0", headers=auth)
    assert board.status_code == 200 and board.json["club"] == shared.club.id
    csv = client.get(f"/api/v1/clubs/{shared.club.id}/scoreboard?format=csv", headers=auth)
    assert csv.status_code == 200 and csv.mimetype == "text/csv" and csv.get_data(as_text=True).startswith('"rank"')
    problem(client.get(f"/api/v1/clubs/{shared.neighbour.id}/scoreboard", headers=auth), 404, "not-found")
    reached = set()
    for route in routes(app, shared.club.id, shared.game):
        answer = calls.send(route.method, route.path, body_of(route), headers=auth)
        if route.writes:
            problem(answer, 403, "forbidden")
        elif route.endpoint in SHARED_ROUTES["scoreboard"]:
            assert answer.status_code == 200, str(route)
            reached.add(route.endpoint)
        else:
            problem(answer, 404, "not-found")
    assert reached == SHARED_ROUTES["scoreboard"]


# --- revoking ---------------------------------------------------------------------------------------


def test_a_revoked_share_is_refused_at_once_everywhere(app, client, calls, shared: Shared, problem) -> None:
    club = shared.club
    shares = client.get(f"/api/v1/clubs/{club.id}/shares?resource=game", headers=club.auth).json["shares"]
    number = shares[0]["id"]
    viewer = calls.token(club, "viewer")
    problem(client.delete(f"/api/v1/clubs/{club.id}/shares/{number}", headers=viewer.auth), 403, "forbidden")
    problem(client.delete(f"/api/v1/clubs/{club.id}/shares/{number}", headers=shared.auth()), 403, "forbidden")
    problem(client.delete(f"/api/v1/clubs/{shared.neighbour.id}/shares/{number}", headers=shared.neighbour.auth),
            404, "not-found")
    assert client.get(f"/api/v1/games/{shared.game}", headers=shared.auth()).status_code == 200

    assert client.delete(f"/api/v1/clubs/{club.id}/shares/{number}", headers=club.auth).status_code == 204
    for route in routes(app, club.id, shared.game):
        answer = calls.send(route.method, route.path, body_of(route), headers=shared.auth())
        problem(answer, 401, "unauthorized")
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    listed = client.get(f"/api/v1/clubs/{club.id}/shares?game={shared.game}", headers=club.auth).json["shares"]
    assert listed[0]["revoked_at"] is not None
    in_use = client.get(f"/api/v1/clubs/{club.id}/shares?in_use=true", headers=club.auth).json["shares"]
    assert [s["resource"] for s in in_use] == ["scoreboard"]
    revoked = client.get(f"/api/v1/clubs/{club.id}/shares?in_use=false", headers=club.auth).json["shares"]
    assert [s["id"] for s in revoked] == [number]
    # revoking again changes nothing; an unknown share is 404; the scoreboard's share still works
    assert client.delete(f"/api/v1/clubs/{club.id}/shares/{number}", headers=club.auth).status_code == 204
    assert client.get(f"/api/v1/clubs/{club.id}/shares?game={shared.game}",
                      headers=club.auth).json["shares"] == listed
    problem(client.delete(f"/api/v1/clubs/{club.id}/shares/999999", headers=club.auth), 404, "not-found")
    assert client.get(f"/api/v1/clubs/{club.id}/scoreboard", headers=shared.auth(shared.board)).status_code == 200


def test_a_share_is_not_a_token_of_the_club(client, shared: Shared) -> None:
    tokens = client.get(f"/api/v1/clubs/{shared.club.id}/tokens", headers=shared.club.auth).json["tokens"]
    assert [token["role"] for token in tokens] == ["scorer"]
    answer = client.get(f"/api/v1/clubs/{shared.club.id}/tokens", headers=shared.auth())
    assert answer.status_code == 404


def test_a_share_is_read_from_the_authorization_header_only(client, shared: Shared, problem) -> None:
    for path in (f"/api/v1/games/{shared.game}?share={shared.secret}",
                 f"/api/v1/games/{shared.game}?access_token={shared.secret}"):
        problem(client.get(path), 401, "unauthorized")


# --- logs -------------------------------------------------------------------------------------------


def test_a_shares_secret_never_reaches_the_logs(app, client, calls, shared: Shared, caplog, monkeypatch) -> None:
    """Every request of a share, those refused and one that fails inside too, through the app's logging and an
    HTTP server's access log (werkzeug's, which writes each request line): the secret is in no line."""
    caplog.set_level(logging.DEBUG)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served = Calls(HttpClient(server.server_port, fresh=True, timeout=10))
    try:
        made = share(calls, shared.club, {"game": shared.game})
        for path in (made["url"].partition("#")[0], f"/api/v1/games/{shared.game}",
                     f"/api/v1/games/{shared.game}/deals/1/replay", f"/api/v1/games/{shared.game}/audit",
                     f"/api/v1/games/{shared.other}", f"/api/v1/clubs/{shared.club.id}/players"):
            answer = served.get(path, headers=shared.auth(made["secret"]))
            if not 200 <= answer.status_code < 300:
                assert answer.status_code == 404

        def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("the database went away")

        monkeypatch.setattr(app.extensions["nj_ledger.store"].games, "game_state", broken)
        assert client.get(f"/api/v1/games/{shared.game}", headers=shared.auth(made["secret"])).status_code == 500
    finally:
        server.shutdown()
        thread.join(timeout=10)
    access = [record.getMessage() for record in caplog.records if record.name == "werkzeug"]
    assert any(f"GET /games/{shared.game}/replay HTTP/1.1" in line for line in access), access  # logged
    assert any(f"GET /api/v1/games/{shared.game}/audit" in line for line in access), access
    assert "Unexpected error" in caplog.text
    for secret in (made["secret"], shared.secret):
        assert secret not in caplog.text
        assert all(secret not in line for line in access)
