"""A club's director: a token role above the scorer's. What a scorer may do, and the decisions only the director
takes; a director's token is made, revoked and rotated by a director (or by the server's operator), never by a
scorer, who could otherwise make themselves the club's director."""

from __future__ import annotations

import re

from click.testing import CliRunner

from cli.commands import main
from nj_ledger.store import Store
from support.http import Calls, Club


def director_of(store: Store, club: Club) -> Club:
    """The club's director's token, made by the server's operator (as `nj-ledger tokens create` makes it)."""
    return Club(club.id, store.tokens.create_token(club.id, "director", "Jeanne").secret)


def roles(calls: Calls, club: Club) -> list[tuple[str, bool]]:
    listed = calls.read("GET", f"/api/v1/clubs/{club.id}/tokens", club=club)["tokens"]
    return [(token["role"], token["revoked_at"] is None) for token in listed]


def test_a_scorer_never_makes_revokes_nor_rotates_a_directors_token(calls: Calls, club: Club, store: Store,
                                                                     problem) -> None:
    director = director_of(store, club)
    before = roles(calls, club)
    refused = problem(calls.post(f"/api/v1/clubs/{club.id}/tokens", {"role": "director"}, club=club), 403, "forbidden")
    assert "director" in refused["detail"]
    french = problem(calls.post(f"/api/v1/clubs/{club.id}/tokens", {"role": "director"}, club=club,
                                headers={"Accept-Language": "fr"}), 403, "forbidden")
    assert "directeur" in french["detail"]
    directors = [t["id"] for t in calls.read("GET", f"/api/v1/clubs/{club.id}/tokens", club=club)["tokens"]
                 if t["role"] == "director"]
    problem(calls.delete(f"/api/v1/clubs/{club.id}/tokens/{directors[0]}", club=club), 403, "forbidden")
    problem(calls.post(f"/api/v1/clubs/{club.id}/tokens/{directors[0]}/rotate", club=club), 403, "forbidden")
    problem(calls.post(f"/api/v1/clubs/{club.id}/phones", {"role": "director"}, club=director), 422)
    assert roles(calls, club) == before
    assert calls.read("GET", f"/api/v1/clubs/{club.id}", club=director)["id"] == club.id


def test_a_director_does_what_a_scorer_does_and_keeps_the_directors_tokens(calls: Calls, club: Club,
                                                                          store: Store, problem) -> None:
    director = director_of(store, club)
    game = calls.game(director, ["Ana", "Ben", "Chloé"])["id"]
    assert calls.act(director, game, {"type": "deal"}).status_code == 201
    second = calls.read("POST", f"/api/v1/clubs/{club.id}/tokens", {"role": "director", "label": "Marcel"},
                        club=director, status=201)
    assert second["role"] == "director"
    rotated = calls.read("POST", f"/api/v1/clubs/{club.id}/tokens/{second['id']}/rotate", club=director, status=201)
    assert rotated["role"] == "director" and rotated["label"] == "Marcel"
    calls.read("DELETE", f"/api/v1/clubs/{club.id}/tokens/{rotated['id']}", club=director, status=204)
    calls.read("GET", f"/api/v1/clubs/{club.id}/members/Ana/data", club=director, status=200)


def test_the_last_token_that_may_write_is_kept_a_directors_counts(calls: Calls, club: Club, store: Store,
                                                                  problem) -> None:
    director = director_of(store, club)
    listed = calls.read("GET", f"/api/v1/clubs/{club.id}/tokens", club=club)["tokens"]
    scorer = next(t["id"] for t in listed if t["role"] == "scorer")
    mine = next(t["id"] for t in listed if t["role"] == "director")
    calls.read("DELETE", f"/api/v1/clubs/{club.id}/tokens/{scorer}", club=director, status=204)  # the director stays
    problem(calls.delete(f"/api/v1/clubs/{club.id}/tokens/{mine}", club=director), 409, "last-scorer-token")
    assert calls.act(director, calls.game(director)["id"], {"type": "deal"}).status_code == 201


def test_the_servers_operator_makes_a_directors_token(database_url: str, calls: Calls, club: Club) -> None:
    said = CliRunner().invoke(main, ["tokens", "create", club.id, "--role", "director", "--label", "Jeanne"],
                              env={"NJ_LEDGER_DATABASE_URL": database_url, "LANG": "C"})
    assert said.exit_code == 0, said.output
    assert re.match(r"Token \d+ made\.\n  token: \S+  \(director; shown once, keep it\)\n$", said.output)
    secret = said.output.split("token: ")[1].split()[0]
    assert calls.read("GET", f"/api/v1/clubs/{club.id}", token=secret)["id"] == club.id
    french = CliRunner().invoke(main, ["tokens", "create", club.id, "--role", "viewer"],
                                env={"NJ_LEDGER_DATABASE_URL": database_url, "LANG": "fr_FR.UTF-8"})
    assert french.output.startswith("Jeton ") and "créé." in french.output
