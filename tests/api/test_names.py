"""Names a person types: one form for one name, nothing in it that shows nothing, look-alikes asked about.

"Chloé" typed with its é as one character or as an e and an accent is one
player; a name holding a character that shows nothing (a zero-width space, a
joiner, a mark that reorders text, NUL…) is refused with 422, its field named,
in English and in French, on every route that takes a name and in an imported
document; a name that looks like a member's ("Аna", its А Cyrillic, and
"Ana") is allowed and flagged by ``POST /clubs/{club}/players/look-alikes``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from flask.testing import FlaskClient

from nj_ledger.names import hidden_character
from support.http import Calls, Club, assert_problem

NFD_CHLOE = unicodedata.normalize("NFD", "Chloé")
FR = {"Accept-Language": "fr-FR,fr;q=0.9"}
# Each with what it is: every one makes a name that looks like "Ana" or "Ben" and is not.
HIDDEN = {
    "\u200b": "zero-width space", "\u200c": "zero-width non-joiner", "\u200d": "zero-width joiner",
    "\u2060": "word joiner", "\ufeff": "byte-order mark", "\u202e": "right-to-left override",
    "\u2066": "left-to-right isolate", "\u200f": "right-to-left mark", "\u00ad": "soft hyphen",
    "\x00": "NUL", "\t": "tab", "\u2028": "line separator", "\ufe0f": "variation selector",
    "\u3164": "Hangul filler", "\U000e0041": "tag letter A",
}


def members(client: FlaskClient, club: Club) -> list[str]:
    answer = client.get(f"/api/v1/clubs/{club.id}/players", headers=club.auth)
    assert answer.status_code == 200, answer.get_json()
    return [player["name"] for player in answer.json["players"]]


def test_a_name_typed_decomposed_is_the_composed_name(calls: Calls, club: Club) -> None:
    assert NFD_CHLOE != "Chloé" and len(NFD_CHLOE) == 6
    first = calls.game(club, ["Ana", "Ben", NFD_CHLOE])
    assert [seat["name"] for seat in first["players"]] == ["Ana", "Ben", "Chloé"]  # kept composed in the log
    calls.game(club, ["Chloé", "Ana", "Ben"])
    assert sorted(members(calls.client, club)) == ["Ana", "Ben", "Chloé"]  # one member, not two
    again = calls.client.post(f"/api/v1/clubs/{club.id}/players", json={"name": NFD_CHLOE.upper()},
                              headers=club.auth)
    assert_problem(again, 409, "player-exists")
    both = calls.client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth, json={
        "players": ["Chloé", NFD_CHLOE, "Ana"], "starting_chips": 60})
    assert assert_problem(both, 422, "invalid-players")["detail"] == "Two seats have the same player name."
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/games", query_string={"player": NFD_CHLOE},
                              headers=club.auth)
    assert len(listed.json["games"]) == 2


@pytest.mark.parametrize("char", list(HIDDEN), ids=list(HIDDEN.values()))
def test_a_name_holding_a_character_that_shows_nothing_is_refused(calls: Calls, club: Club, char: str) -> None:
    assert hidden_character(f"A{char}na") == char
    sent = calls.client.post(f"/api/v1/clubs/{club.id}/games", headers=club.auth, json={
        "players": ["Ana", f"Be{char}n", "Chloé"], "starting_chips": 60})
    body = assert_problem(sent, 422, "invalid-request")
    if char == "\x00":  # refused before the schema reads the body, by the rule every text keeps (api.inputs)
        assert list(body["errors"]) == ["players.1"], body
    else:
        assert list(body["errors"]) == ["players"] and list(body["errors"]["players"]) == ["1"], body
        code = f"U+{ord(char):04X}"
        assert body["detail"] == (f"players.1: Holds a character that shows nothing ({code}): type it again "
                                  "without it.")
        french = assert_problem(calls.client.post(f"/api/v1/clubs/{club.id}/games", headers={**club.auth, **FR},
                                                  json={"players": ["Ana", f"Be{char}n", "Chloé"],
                                                        "starting_chips": 60}), 422, "invalid-request")
        assert french["detail"] == (f"players.1\u00a0: Contient un caractère invisible ({code})\u00a0: saisissez-le de "
                                    "nouveau sans lui."), french
    assert members(calls.client, club) == []  # nothing stored


ROUTES: list[tuple[str, str, dict[str, Any], str]] = [
    ("POST", "/api/v1/clubs/{club}/players", {"name": "Ana\u200b"}, "name"),
    ("POST", "/api/v1/clubs/{club}/games", {"players": ["Ana", "Ben"], "title": "Jeudi\u202e", "starting_chips": 60},
     "title"),
    ("POST", "/api/v1/clubs/{club}/evenings", {"name": "Jeudi", "players": ["Ana", "Ben", "Chlo\u2060é"],
                                               "rounds": 1, "starting_chips": 60}, "players"),
    ("POST", "/api/v1/clubs/{club}/evenings", {"name": "Jeu\ufeffdi", "players": ["Ana", "Ben", "Chloé"],
                                               "rounds": 1, "starting_chips": 60}, "name"),
    ("POST", "/api/v1/clubs/{club}/seasons", {"name": "Hiver\u200d", "from": "2026-01-01", "to": "2026-03-31"},
     "name"),
    ("POST", "/api/v1/clubs/{club}/players/look-alikes", {"players": ["Ana", "\u200bBen"]}, "players"),
]


@pytest.mark.parametrize(("method", "path", "body", "field"), ROUTES, ids=[f"{r[1]} {r[3]}" for r in ROUTES])
def test_every_route_that_takes_a_name_refuses_one_that_hides_a_character(
        calls: Calls, club: Club, method: str, path: str, body: dict[str, Any], field: str) -> None:
    answer = calls.client.open(path.format(club=club.id), method=method, json=body, headers=club.auth)
    problem = assert_problem(answer, 422, "invalid-request")
    assert field in problem["errors"] and "shows nothing" in problem["detail"], problem


def test_an_imported_game_is_held_to_the_same_names(calls: Calls, club: Club) -> None:
    document = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "B\u200ben", "Chloé"],
                "rules": "classic", "starting_chips": 60, "actions": []}
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/imports", json=document, headers=club.auth)
    problem = assert_problem(answer, 422, "invalid-document")
    assert problem["field"] == "players.1" and "U+200B" in problem["detail"], problem
    document["players"] = ["Ana", "Ben", NFD_CHLOE]
    imported = calls.client.post(f"/api/v1/clubs/{club.id}/imports", json=document, headers=club.auth)
    assert imported.status_code == 201, imported.get_json()
    assert "Chloé" in members(calls.client, club)


def test_names_that_look_like_a_members_are_flagged_not_refused(calls: Calls, club: Club) -> None:
    calls.game(club, ["Ana", "Ben", "Chloé", "Ilona"])
    viewer = calls.token(club, "viewer")
    asked = ["\u0410na", "ben", "B\u0435n", NFD_CHLOE, "llona", "Denis", "D\u0435nis"]  # А, е: Cyrillic
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/players/look-alikes", json={"players": asked},
                               headers=viewer.auth)  # asking writes nothing: a viewer may
    assert answer.status_code == 200, answer.get_json()
    assert answer.json["look_alikes"] == [
        {"name": "\u0410na", "looks_like": "Ana"}, {"name": "B\u0435n", "looks_like": "Ben"},
        {"name": "llona", "looks_like": "Ilona"}, {"name": "D\u0435nis", "looks_like": "Denis"}]
    # the same person whatever the case or the composition is not a look-alike; a look-alike may still play
    started = calls.game(club, ["\u0410na", "Ben", "Chloé"])
    assert [seat["name"] for seat in started["players"]] == ["\u0410na", "Ben", "Chloé"]
    assert sorted(members(calls.client, club)) == sorted(["Ana", "Ben", "Chloé", "Ilona", "\u0410na"])


def test_the_openapi_document_says_which_names_and_bodies_the_server_takes(client: FlaskClient) -> None:
    import re

    document = client.get("/api/v1/openapi.json").json
    schemas = document["components"]["schemas"]
    name = re.compile(schemas["NewPlayer"]["properties"]["name"]["pattern"])
    players = re.compile(schemas["NewGame"]["properties"]["players"]["items"]["pattern"])
    title = re.compile(schemas["NewGame"]["properties"]["title"]["pattern"])
    for pattern in (name, players):
        assert pattern.search("Chloé 🃏") and pattern.search("Аna") and not pattern.search("   ")
        assert not any(pattern.search(f"A{char}na") for char in HIDDEN)
    assert title.search("") and not title.search("Jeudi\x00")
    operations = document["paths"]
    for path, method in (("/api/v1/clubs/{club}/tokens", "post"), ("/api/v1/clubs/{club}/evenings/{evening}/close",
                                                                    "post"),
                         ("/api/v1/clubs/{club}/seasons/{season}", "patch")):
        assert operations[path][method]["requestBody"]["required"] is False, (path, method)
    assert operations["/api/v1/clubs/{club}/games"]["post"]["requestBody"]["required"] is True
