"""NJN over HTTP: `GET …/export?format=njn`, and `POST …/imports` with an NJN body, on both databases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.commands import main
from nj_ledger.notation import NotationError, parse_njn, write_njn
from nj_ledger.notation.syntax import MAX_ERRORS
from nj_ledger.store.documents import export_document
from support.http import Calls, Club, without_receipt
from support.sentences import said

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
FR = {"Accept-Language": "fr-FR,fr;q=0.9"}
HEADER = '[Players "Ana; Ben; Chloé"] [StartingChips "60"]\n'
# Ana and Ben with four cards each: Ana lays a card she was not dealt.
NOT_DEALT = ('[Players "Ana; Ben"] [StartingChips "100"] [PlayerCounts [2]] [DealTable {"2": [4, 44]}]\n'
             "Deal\nHand 0: 5H 6H 7D 9S\nHand 1: 8C QS KH 2C\n0: 5H 6H 7D QS\n")


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
    assert text == write_njn(export_document(store.games, home.id, original), {"club": CLUB_NAME})
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
    assert without_receipt(imported.json) == {**without_receipt(state), "id": copy, "club": away.id}
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
    body = problem(import_njn(client, club, BROKEN), 422, "invalid-notation")
    assert body["errors"] == parse_errors(BROKEN)
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
                      422, "invalid-notation")  # a NUL written as a JSON escape: refused where it is written
    assert [(error["line"], error["column"]) for error in escaped["errors"]] == [(1, 20)]
    assert escaped["errors"][0]["message"] == "\\u0000 writes a NUL character, which a record may not hold."
    half = problem(import_njn(client, club, HEADER + 'Deal\nUndo "oops \\udc00"\n'), 422, "invalid-notation")
    assert [(error["line"], error["column"]) for error in half["errors"]] == [(3, 12)]
    assert "half of a surrogate pair" in half["errors"][0]["message"]
    too_deep = '[Players "Ana; Ben"] [StartingChips 60] [Rules ' + "[" * 50_000 + "]"
    deep = problem(import_njn(client, club, too_deep), 422, "invalid-notation")
    assert deep["errors"] == [{"line": 1, "column": 48, "code": "invalid-notation",
                               "message": "This tag's value nests more than 32 levels deep."}]
    assert stored_games(client, club) == []


def test_a_record_with_thousands_of_errors_lists_the_first_thousand_and_a_note(client, club, problem) -> None:
    text = HEADER + "Deal\n" + "0: 6X 9Z\n" * 3000
    body = problem(import_njn(client, club, text), 422, "invalid-notation")
    errors = body["errors"]
    assert len(errors) == MAX_ERRORS + 1 == 1001
    assert [(error["line"], error["column"]) for error in errors[:4]] == [(3, 4), (3, 7), (4, 4), (4, 7)]
    assert all("is not a card" in error["message"] for error in errors[:-1])
    assert errors[-1] == {"line": 502, "column": 7, "code": "invalid-notation",
                          "message": "… and more errors: reading stopped after the first 1000."}
    assert body["detail"].startswith("Line 3, column 4: '6X' is not a card")
    assert body["detail"].endswith("(and over 999 more)")
    assert stored_games(client, club) == []


# --- refusals in French -----------------------------------------------------------------------------------
def in_both(client: Any, club: Club, text: str | bytes, code: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same refused record imported in French and with no language named (English)."""
    french = import_njn_in(client, club, text, FR)
    english = import_njn_in(client, club, text, {})
    french_body, english_body = (assert_refused(french, code), assert_refused(english, code))
    assert french.headers["Content-Language"] == "fr" and english.headers["Content-Language"] == "en"
    assert french_body["title"] == "Saisie non valable" and english_body["title"] == "Invalid input"
    where = [[(error["line"], error["column"], error["code"]) for error in body["errors"]]
             for body in (french_body, english_body)]
    assert where[0] == where[1]  # only the sentences change language
    assert all(set(error) == {"line", "column", "message", "code"} for error in french_body["errors"])
    return french_body, english_body


def import_njn_in(client: Any, club: Club, text: str | bytes, language: dict[str, str]) -> Any:
    body = text.encode("utf-8") if isinstance(text, str) else text
    return client.post(f"/api/v1/clubs/{club.id}/imports", data=body, content_type="text/x-njn",
                       headers={**club.auth, **language})


def assert_refused(answer: Any, code: str) -> dict[str, Any]:
    assert answer.status_code == 422, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["code"] == code and body["status"] == 422
    return dict(body)


def test_a_refused_record_answers_in_french_with_its_places_unchanged(client, club) -> None:
    french, english = in_both(client, club, BROKEN, "invalid-notation")
    assert [error["message"] for error in french["errors"]] == [
        "'6X' n'est pas une carte\u00a0: écrivez la valeur et la couleur, comme 10D, JC, QS, KH ou 7D.",
        'Ce texte entre guillemets n\'a pas de " fermant sur sa ligne (ou contient un mauvais échappement \\).',
        "Les balises viennent d'abord, avant les donnes\u00a0: remontez cette balise.",
        "Balise inconnue [Titel]. Vouliez-vous dire [Title]\u00a0?",
    ]
    assert [error["message"] for error in english["errors"]] == [error["message"] for error in parse_errors(BROKEN)]
    assert french["detail"] == ("Ligne 5, colonne 7\u00a0: '6X' n'est pas une carte\u00a0: écrivez la valeur et la "
                                "couleur, "
                                "comme 10D, JC, QS, KH ou 7D. (et 3 autres)")
    assert english["detail"] == ("Line 5, column 7: '6X' is not a card: write rank and suit, "
                                 "like 10D, JC, QS, KH or 7D. (and 3 more)")
    assert stored_games(client, club) == []


def test_the_engines_refusals_in_a_record_answer_in_french_too(client, club) -> None:
    french, english = in_both(client, club, HEADER + "Deal\n0: 5H 6H 7C\n1: 8D\n2: 8S 9S\n", "out-of-sequence")
    assert french["errors"] == [{"line": 5, "column": 4, "code": "out-of-sequence",
                                 "message": "La carte 8♠ ne suit pas\u00a0: la suite attend un 9."}]
    assert french["detail"] == "Ligne 5, colonne 4\u00a0: La carte 8♠ ne suit pas\u00a0: la suite attend un 9."
    assert english["detail"] == "Line 5, column 4: 8S does not follow: the run wants a 9."
    french, _ = in_both(client, club, NOT_DEALT, "card-not-in-hand")
    assert french["errors"][0]["message"] == "Ana (place 0) n'a pas reçu la carte D♠."  # the seat named in French too
    french, english = in_both(client, club, '[Players "Ana"]\n[StartingChips "60"]\n', "invalid-players")
    assert french["errors"][0]["message"] == (
        "[Players]\u00a0: Ces règles se jouent à 2, 3, 4, 5, 6, 7, 8 joueurs, pas à 1.")
    assert english["errors"][0]["message"] == "[Players]: These rules are played by 2, 3, 4, 5, 6, 7, 8 players, not 1."
    french, _ = in_both(client, club, '[Players "Ana; Ben"]\n[StartingChips "3"]\n', "starting-chips-too-low")
    assert french["detail"] == ("Ligne 2, colonne 16\u00a0: [StartingChips]\u00a0: Chaque joueur doit avoir au moins "
                                "15 jetons "
                                "pour garnir le tableau.")


def test_what_a_record_quotes_is_never_translated(client, club) -> None:
    """A name the scorer wrote is quoted as written, even when it reads like a sentence of the catalog."""
    french, english = in_both(client, club, HEADER + "[Dealer \"Not found\"]\n", "invalid-notation")
    assert french["errors"][0]["message"] == ("'Not found' n'est pas une place\u00a0; les places sont numérotées "
                                              "à partir de 0\u00a0: 0 Ana, 1 Ben, 2 Chloé.")
    assert french["detail"] == "Ligne 2, colonne 9\u00a0: " + french["errors"][0]["message"]
    assert english["errors"][0]["message"] == ("'Not found' is not a seat; the seats are numbered from 0: "
                                               "0 Ana, 1 Ben, 2 Chloé.")


def test_bytes_nul_escapes_and_depth_are_refused_in_french(client, club) -> None:
    text = (HEADER + '[Title "B\\u0000en"]\n[Notes "\\ud800"]\n[MaxDeals ' + "[" * 40 + "]" * 40 + "]\n"
            "Deal\n0: 5H ").encode() + b"\xff\x00"
    french, english = in_both(client, club, text, "invalid-notation")
    assert [(error["line"], error["column"]) for error in french["errors"]] == [
        (2, 10), (3, 9), (4, 11), (6, 7), (6, 7), (6, 8)]
    assert [error["message"] for error in french["errors"]] == [
        "\\u0000 écrit un caractère NUL, qu'une feuille de partie ne peut pas contenir.",
        "\\ud800 n'est que la moitié d'une paire de substitution\u00a0: écrivez le caractère lui-même.",
        "La valeur de cette balise s'imbrique sur plus de 32 niveaux.",
        "Ces octets ne sont pas de l'UTF-8\u00a0: envoyez la feuille de partie en texte UTF-8.",
        "'\ufffd\ufffd' n'est pas une carte\u00a0: écrivez la valeur et la couleur, comme 10D, JC, QS, KH ou 7D.",
        "Une feuille de partie ne peut pas contenir de caractère NUL.",
    ]
    assert english["errors"][2]["message"] == "This tag's value nests more than 32 levels deep."
    assert french["detail"].startswith("Ligne 2, colonne 10\u00a0: \\u0000 écrit un caractère NUL") and french[
        "detail"].endswith("(et 5 autres)")


def test_a_thousand_errors_and_the_note_in_french(client, club) -> None:
    french, english = in_both(client, club, HEADER + "Deal\n" + "} " * 1500, "invalid-notation")
    assert len(french["errors"]) == MAX_ERRORS + 1
    assert {error["message"] for error in french["errors"][:-1]} == {"Ce } ne ferme rien."}
    assert french["errors"][-1]["message"] == (
        "… et d'autres erreurs encore\u00a0: la lecture s'est arrêtée après les 1000 premières.")
    assert french["detail"] == "Ligne 3, colonne 1\u00a0: Ce } ne ferme rien. (et plus de 999 autres)"
    assert english["detail"] == "Line 3, column 1: This } closes nothing. (and over 999 more)"


def parse_errors(text: str) -> list[dict[str, Any]]:
    """The problems the reader finds in ``text``, as an English answer lists them: ``{line, column, message, code}``."""
    with pytest.raises(NotationError) as refused:
        parse_njn(text)
    return [{"line": found.line, "column": found.column, "message": said(found), "code": found.code}
            for found in refused.value.problems]


def test_the_command_line_prints_a_records_errors_never_a_traceback(database_url, tmp_path: Path) -> None:
    records = {
        "deep.njn": (HEADER + "[Rules " + "[" * 50_000 + "]" * 50_000 + "]\n",
                     "Line 2, column 8: This tag's value nests more than 32 levels deep."),
        "nul.njn": (HEADER + 'Deal\nUndo "a\\u0000b"\n', "Line 3, column 8: \\u0000 writes a NUL character"),
        "many.njn": (HEADER + "Deal\n0: " + "6X " * 5000, "(and over 999 more)"),
    }
    for name, (text, sentence) in records.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(main, ["import", str(path)], env={"NJ_LEDGER_DATABASE_URL": database_url},
                                    catch_exceptions=False)
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: invalid-notation: Line ") and sentence in result.output
        assert "Traceback" not in result.output


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
