"""NJN over HTTP: `GET …/export?format=njn`, and `POST …/imports` with an NJN body, on both databases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.http import Calls, Club

from nj_ledger.cli import main
from nj_ledger.notation import NotationError, parse_njn, write_njn
from nj_ledger.store.documents import export_document

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NJN_TYPE = "text/x-njn; charset=utf-8"
CLUB_NAME = "Cercle du Nain Jaune"
LOG_FIELDS = ("seq", "deal", "type", "data")

# The game of docs/NJN.md, written by hand as a scorer might at the table: case, suit symbols, commas,
# names for seats, comments, Windows line ends and a byte-order mark.
BY_HAND = (
    "\ufeff; Ana and Ben, Sunday\r\n"
    '[players "Ana;Ben"] [starting_chips 100]\r\n'
    '[PLAYERCOUNTS "[2]"] [deal-table {"2": [4, 44]}]\r\n'
    "\r\n"
    "deal dealer Ben\r\n"
    "hand 0 : 5♥ 6h 7♦ 9s\r\n"
    "HAND 1:  8c, q♠, ♥K, 2C\r\n"
    "ana: 5h 6H 7d! {Nain Jaune qui prend !}  1: 8♣\r\n"
    'undo "tapped the wrong card"   1 : PASS\r\n'
    "0:9s\r\n"
    'adjust 1 from 1 to seat:0 "a chip dropped under the table"\r\n'
    "DEAL\r\n"
    "Ben: kc ac 2c 3c\r\n"
    "reveal 0: 4d 5d 6d td\r\n"
    'end "time to go home"\r\n'
)

# Four problems of form at once: an unknown card, an unclosed string, a tag after the deals, an unknown tag.
BROKEN = (
    '[Players "Ana; Ben; Chloé"]\n'
    '[StartingChips "60"]\n'
    "\n"
    "Deal 1 dealer 2\n"
    "0: 5H 6X 7C\n"
    '1: 8D "9D\n'
    '[Titel "Lundi"]\n'
)
BROKEN_PLACES = [(5, 7), (6, 7), (7, 1), (7, 1)]


def log_of(calls: Calls, club: Club, game: str) -> list[dict[str, Any]]:
    return [{name: record[name] for name in LOG_FIELDS} for record in calls.events(club, game)]


def export_njn(client: Any, club: Club, game: str) -> Any:
    answer = client.get(f"/api/v1/games/{game}/export?format=njn", headers=club.auth)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.headers["Content-Type"] == NJN_TYPE
    return answer


def import_njn(client: Any, club: Club, text: str | bytes, content_type: str = "text/x-njn") -> Any:
    body = text.encode("utf-8") if isinstance(text, str) else text
    return client.post(f"/api/v1/clubs/{club.id}/imports", data=body, content_type=content_type,
                       headers=club.auth)


def stored_games(client: Any, club: Club) -> list[dict[str, Any]]:
    answer = client.get(f"/api/v1/clubs/{club.id}/games", headers=club.auth)
    assert answer.status_code == 200
    return list(answer.json["games"])


def members(client: Any, club: Club) -> list[Any]:
    answer = client.get(f"/api/v1/clubs/{club.id}/players", headers=club.auth)
    assert answer.status_code == 200
    return list(answer.json["players"])


@pytest.fixture
def game(client, calls: Calls, club: Club) -> str:
    """A game of the club with a deal in progress."""
    created = calls.game(club)["id"]
    answer = calls.act(club, created, {"type": "deal"}, {"type": "play", "seat": 0, "cards": ["3C", "4D"]})
    assert answer.status_code == 201, answer.json
    return created


# --- the round trip over HTTP ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda path: path.stem)
def test_every_example_goes_out_and_back_in_as_njn(client, calls, store, database_url, path) -> None:
    home, away = calls.club(CLUB_NAME), calls.club(CLUB_NAME)
    created = client.post(f"/api/v1/clubs/{home.id}/imports", headers=home.auth,
                          json=json.loads(path.read_text(encoding="utf-8")))
    assert created.status_code == 201, created.json
    original = created.json["id"]

    exported = export_njn(client, home, original)
    text = exported.get_data(as_text=True)
    assert exported.headers["ETag"] == f'"{created.json["version"]}"'
    # The core's writer, the command line and the example's own twin give the very same text.
    assert text == write_njn(export_document(store, home.id, original), {"club": CLUB_NAME})
    cli = CliRunner().invoke(main, ["export", original, "--format", "njn"],
                             env={"NJ_LEDGER_DATABASE_URL": database_url}, catch_exceptions=False)
    assert cli.exit_code == 0, cli.output
    assert cli.output == text
    assert text == f'[Club "{CLUB_NAME}"]\n' + path.with_suffix(".njn").read_text(encoding="utf-8")

    imported = import_njn(client, away, text)
    assert imported.status_code == 201, imported.json
    copy = imported.json["id"]
    assert copy != original and imported.json["club"] == away.id
    assert imported.headers["Location"].endswith(f"/api/v1/games/{copy}")
    assert imported.headers["ETag"] == f'"{imported.json["version"]}"'
    assert log_of(calls, away, copy) == log_of(calls, home, original)
    state = client.get(f"/api/v1/games/{original}", headers=home.auth).json
    assert imported.json == {**state, "id": copy, "club": away.id}
    assert client.get(f"/api/v1/games/{copy}", headers=away.auth).json == imported.json
    assert export_njn(client, away, copy).get_data(as_text=True) == text


def test_an_njn_export_carries_the_version_and_answers_304_when_unchanged(client, calls, club, game) -> None:
    first = export_njn(client, club, game)
    version = client.get(f"/api/v1/games/{game}", headers=club.auth).json["version"]
    assert first.headers["ETag"] == f'"{version}"'
    unless_changed = {**club.auth, "If-None-Match": f'"{version}"'}
    same = client.get(f"/api/v1/games/{game}/export?format=njn", headers=unless_changed)
    assert same.status_code == 304 and same.headers["ETag"] == f'"{version}"' and not same.get_data()
    played = calls.act(club, game, {"type": "play", "seat": 1, "cards": ["5D"]})
    assert played.status_code == 201
    moved = client.get(f"/api/v1/games/{game}/export?format=njn", headers=unless_changed)
    assert moved.status_code == 200 and moved.headers["ETag"] == played.headers["ETag"] != f'"{version}"'
    assert moved.get_data(as_text=True).startswith(first.get_data(as_text=True).removesuffix("\n"))
    assert "1: 5D" in moved.get_data(as_text=True) and "1: 5D" not in first.get_data(as_text=True)
    json_export = client.get(f"/api/v1/games/{game}/export", headers=club.auth)
    assert json_export.status_code == 200 and json_export.mimetype == "application/json"
    assert json_export.headers["ETag"] == moved.headers["ETag"]


def test_a_hand_written_record_is_read_as_text_plain(client, calls, club) -> None:
    answer = import_njn(client, club, BY_HAND, "text/plain; charset=UTF-8")
    assert answer.status_code == 201, answer.json
    game = answer.json["id"]
    assert answer.json["status"] == "ended" and answer.json["deals_played"] == 2
    canonical = import_njn(client, club, write_njn(parse_njn(BY_HAND)))
    assert canonical.status_code == 201, canonical.json
    assert log_of(calls, club, game) == log_of(calls, club, canonical.json["id"])
    assert [row["name"] for row in members(client, club)] == ["Ana", "Ben"]


# --- refusals -------------------------------------------------------------------------------------------
def test_a_record_with_several_errors_lists_each_at_its_place(client, club, problem) -> None:
    with pytest.raises(NotationError) as expected:
        parse_njn(BROKEN)
    body = problem(import_njn(client, club, BROKEN), 422, "invalid-notation")
    assert body["errors"] == expected.value.errors
    assert [(error["line"], error["column"]) for error in body["errors"]] == BROKEN_PLACES
    assert all(error["message"] and error["code"] == "invalid-notation" for error in body["errors"])
    assert "'6X' is not a card" in body["errors"][0]["message"]
    assert body["detail"].startswith("Line 5, column 7: '6X' is not a card")
    assert body["detail"].endswith("(and 3 more)")
    assert stored_games(client, club) == [] and members(client, club) == []


def test_an_action_the_rules_refuse_is_placed_at_its_card(client, club, problem) -> None:
    text = '[Players "Ana; Ben; Chloé"] [StartingChips "60"]\nDeal\n0: 5H 6H 7C\n1: 8D\n2: 8S 9S\n'
    body = problem(import_njn(client, club, text), 422, "out-of-sequence")
    assert body["errors"] == [{"line": 5, "column": 4, "message": "8S does not follow: the run wants a 9.",
                               "code": "out-of-sequence"}]
    assert stored_games(client, club) == []


def test_bytes_that_are_not_utf8_and_nul_are_errors_at_their_place(client, club, problem) -> None:
    text = '[Players "Ana; Ben; Chloé"]\n[StartingChips "60"]\nDeal\n0: 5H 6H 7C\n1: 8D '.encode()
    text += b"\xff\xfe 9D"
    body = problem(import_njn(client, club, text + b"\n2: 10Z\n"), 422, "invalid-notation")
    assert [(error["line"], error["column"]) for error in body["errors"]] == [(5, 7), (5, 7), (6, 4)]
    assert "not UTF-8" in body["errors"][0]["message"]
    assert "'10Z' is not a card" in body["errors"][2]["message"]
    latin1 = '[Players "Ana; Zoé"] [StartingChips "60"]\n'.encode("latin-1")
    body = problem(import_njn(client, club, latin1, "text/plain"), 422, "invalid-notation")
    assert [(error["line"], error["column"]) for error in body["errors"]] == [(1, 18)]
    nul = problem(import_njn(client, club, '[Players "Ana; B\x00en"] [StartingChips "60"]\n'),
                  422, "invalid-notation")["errors"]
    assert [(error["line"], error["column"]) for error in nul] == [(1, 17)] and "NUL" in nul[0]["message"]
    escaped = problem(import_njn(client, club, '[Players ["Ana", "B\\u0000en"]] [StartingChips "60"]\n'),
                      422, "invalid-request")
    assert "players.1" in escaped["errors"]
    too_deep = '[Players "Ana; Ben"] [StartingChips 60] [Rules ' + "[" * 50_000 + "]"
    deep = problem(import_njn(client, club, too_deep), 422, "invalid-notation")
    assert "nests too deep" in deep["detail"]
    assert stored_games(client, club) == []


def test_an_njn_body_is_refused_where_no_text_is_taken(client, club, game, problem) -> None:
    for content_type in ("text/csv", "application/xml", "application/octet-stream", "text/njn"):
        problem(import_njn(client, club, BY_HAND, content_type), 415, "unsupported-media-type")
    body = problem(import_njn(client, club, BY_HAND, "text/x-njn; charset=latin-1"),
                   415, "unsupported-media-type")
    assert "UTF-8" in body["detail"]
    for path in (f"/api/v1/clubs/{club.id}/games", f"/api/v1/games/{game}/actions",
                 f"/api/v1/clubs/{club.id}/players"):
        answer = client.post(path, data=BY_HAND.encode(), content_type="text/x-njn", headers=club.auth)
        problem(answer, 415, "unsupported-media-type")
    assert [row["id"] for row in stored_games(client, club)] == [game]


def test_an_njn_body_past_the_size_limit_is_413(app, client, club, problem) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    problem(import_njn(client, club, "{" + "x" * limit + "}"), 413, "request-too-large")
    assert stored_games(client, club) == []


def test_an_unknown_format_stays_an_invalid_request(client, club, game, problem) -> None:
    for value in ("xml", "NJN", "pgn", ""):
        answer = client.get(f"/api/v1/games/{game}/export?format={value}", headers=club.auth)
        problem(answer, 422, "invalid-request")


# --- who may ----------------------------------------------------------------------------------------------
def test_a_viewer_exports_but_may_not_import(client, calls, club, game, problem) -> None:
    viewer = calls.token(club, "viewer")
    text = export_njn(client, viewer, game).get_data(as_text=True)
    problem(import_njn(client, viewer, text), 403, "forbidden")
    for headers in ({}, {"Authorization": "Bearer not-a-token"}):
        problem(client.get(f"/api/v1/games/{game}/export?format=njn", headers=headers), 401, "unauthorized")
        problem(client.post(f"/api/v1/clubs/{club.id}/imports", data=text.encode(), content_type="text/x-njn",
                            headers=headers), 401, "unauthorized")
    assert [row["id"] for row in stored_games(client, club)] == [game]


def test_another_club_neither_exports_nor_imports_here(client, calls, club, game, problem) -> None:
    text = export_njn(client, club, game).get_data(as_text=True)
    other = calls.club("Le Nain du Vendredi")
    problem(client.get(f"/api/v1/games/{game}/export?format=njn", headers=other.auth), 404, "not-found")
    problem(client.post(f"/api/v1/clubs/{club.id}/imports", data=text.encode(), content_type="text/x-njn",
                        headers=other.auth), 404, "not-found")
    assert [row["id"] for row in stored_games(client, club)] == [game] and stored_games(client, other) == []


# --- the OpenAPI document ---------------------------------------------------------------------------------
def test_the_openapi_document_lists_the_njn_contents(client) -> None:
    paths = client.get("/api/v1/openapi.json").json["paths"]
    export = paths["/api/v1/games/{game}/export"]["get"]["responses"]["200"]
    assert set(export["content"]) == {"application/json", "text/x-njn"} and "ETag" in export["headers"]
    body = paths["/api/v1/clubs/{club}/imports"]["post"]["requestBody"]
    assert set(body["content"]) == {"application/json", "text/x-njn", "text/plain"}
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/GameDocument"}
    assert body["content"]["text/x-njn"]["schema"] == {"type": "string"}
