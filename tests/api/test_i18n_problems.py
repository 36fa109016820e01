"""The API's own refusals and the audit's findings in French and English.

The language is chosen as for the pages: the ``lang`` cookie, then
``Accept-Language``, English by default. Only ``title``, ``detail``, the
messages of ``errors`` and the findings' ``message`` change language; codes and
field names never do. Every template (problems, the store's refusals, the
audit's findings, problem titles, validation messages) has its French in the
catalog, with the same placeholders.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Message
from babel.messages.pofile import read_po
from core.test_audit import rechain, recorded_game
from flask import Flask
from marshmallow import Schema, fields, validate
from sqlalchemy import select, text, update

from api.catalog import marked, placeholders, templates, written_out
from api.i18n import (
    TRANSLATIONS,
    VALIDATION_MESSAGES,
    sentence_of,
    translate,
    translate_audit,
    translate_messages,
    validation_messages,
)
from api.problems import TITLES, Problem
from benchmarks.scratch import migrated_database
from nj_ledger.audit import audit
from nj_ledger.messages import Listed
from nj_ledger.messages import Message as Said
from nj_ledger.notation import NotationError, parse_njn
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.models import EventRecord
from support.apps import new_app
from support.http import Calls, Club, assert_problem
from support.sentences import said

FRENCH = TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po"
FR = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-GB,en;q=0.9"}


def french_messages() -> dict[str, Message]:
    with FRENCH.open("rb") as source:
        return {str(message.id): message for message in read_po(source, locale="fr") if message.id}


def in_both(client: Any, method: str, url: str, status: int, code: str, headers: dict[str, str] | None = None,
            **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same request in French and with no language named (English): the same status and code."""
    calls, body = Calls(client), options.pop("json", None)
    french = calls.send(method, url, body, headers={**(headers or {}), **FR}, **options)
    english = calls.send(method, url, body, headers=headers or {}, **options)
    french_body, english_body = assert_problem(french, status, code), assert_problem(english, status, code)
    assert french.headers["Content-Language"] == "fr" and english.headers["Content-Language"] == "en"
    assert set(french_body) == set(english_body)  # the same fields, only sentences differ
    return french_body, english_body


# --- the catalog ---------------------------------------------------------------------------------
def test_every_problem_store_audit_and_notation_template_has_its_french() -> None:
    catalog = french_messages()
    found = list(templates())
    by_place = {place: {text for text, path, _ in found if path.startswith(place)}
                for place in ("api/", "nj_ledger/store/", "nj_ledger/audit.py", "nj_ledger/notation/")}
    assert len(by_place["api/"]) >= 15 and len(by_place["nj_ledger/store/"]) >= 7
    assert len(by_place["nj_ledger/audit.py"]) >= 18 and len(by_place["nj_ledger/notation/"]) >= 45
    assert "There is no game {game!r} in this club." in by_place["nj_ledger/store/"]
    assert "The record was altered after it was written: event {seq} was edited, deleted or moved." in by_place[
        "nj_ledger/audit.py"]
    assert "Line {line}, column {column}: {error} (and {more} more)" in by_place["nj_ledger/notation/"]
    assert "… and more errors: reading stopped after the first {count}." in by_place["nj_ledger/notation/"]
    exchange = {text for text, path, _ in found if path == "api/exchange.py"}
    assert "A tag's value nests too deep to be read." in exchange  # a refusal of the core raised by the API
    sentences = {text for text, _, _ in marked()}
    assert {"A record may not hold NUL characters.", "These bytes are not UTF-8: send the record as UTF-8 text."} <= {
        text for text, path, _ in marked() if path == "api/exchange.py"}
    assert set(TITLES.values()) <= sentences and set(VALIDATION_MESSAGES) <= sentences
    wanted = {text for texts in by_place.values() for text in texts} | sentences
    missing = sorted(t for t in wanted if t not in catalog or not catalog[t].string)
    assert missing == [], "run `make translations` and write the French of these in " + str(FRENCH)
    assert sorted(t for t in wanted if catalog[t].fuzzy) == []
    assert sorted(t for t in wanted if placeholders(str(catalog[t].string)) != placeholders(t)) == [], (
        "the French must use the same {placeholders} as the English")


BROKEN_RECORDS = [  # every kind of problem an NJN record can have, and the engine's refusals of its game
    ('[Players "Ana; Ben; Chloé"]\n[StartingChips "sixty"]\n[Paymant "cards"]\n[Date "2026.13.40"]\n[Title 4]\n'
     '[Title "x"]\n[Rules "bridge"]\n[Dealer 9]\n[Foo 1]\n[ 1]\n\nDeal 2 dealer 5\n0: 5H 6X 7C!\n1: pass 8D\n'
     'Ben: QS! 9Z\nUndo "oops\nFred: 5C\nHand 0: 5C\nTalon: 5C\nReveal\nEnd "x" y\nUndo "a" b\nAdjust x\n'
     'Adjust 2 to\nAdjust 2 from box:XX to 1 z\n[Table 4]\n] }\n"B\\u0000en": 5H\n"\\udc00": 5H\n{ never closed\n'),
    ('[Players "Ana; Ben"] [StartingChips "60"] [Dealer "Zoé"] [Title "x' + "y" * 300 + '"]\n'
     '[Rules {"profile": [' + "[" * 40 + "]" * 40 + ']}] [MaxDeals "' + "[" * 40 + "]" * 40 + '"]\n'
     'Deal\nHand 0: 5H\nHand 0: 6H\nTalon: 7H\nTalon: 8H\nDeal\n0:\n: 5H\n[Notes "\x00"]\n'),
    '[Players "Ana; Ben"]\n[StartingChips "60"]\n[Players "Chloé"]\n[Wild "\\"\\\\u0000\\""]\n[Dealer x]\n',
    '[Players 5] [Title [1]] [Dealer x] [!x] [Notes {]\n[Table "a\n[Club x\nDeal 1 dealer 0 x\nHand 0: 5H!\n\udc80',
    '[Players "Ana; Ben"]\nDeal\n0: 6X\n',
    '[Players "Ana; Ben; Chloé"] [StartingChips "60"]\nDeal\n0\u00a0: 5H 6H 7C\n1\u00a0: 8D\n2\u00a0: 8S 9S\n',
    '[Players "Ana"]\n[StartingChips "60"]\n',
    '[Players "Ana; Ben"] [StartingChips "60"] [Payment "chips"]\n',
    '[Players "Ana; Ben"]\n[StartingChips "3"]\n',
    ('[Players "Ana; Ben"] [StartingChips "100"] [PlayerCounts [2]] [DealTable {"2": [4, 44]}]\n'
     "Deal\nHand 0: 5H 6H 7D 9S\nHand 1: 8C QS KH 2C\n0: 5H 6H 7D QS\n"),
    '[Players "Ana; Ben; Chloé"] [StartingChips "60"]\n' + "} " * 1500,
]


def sentences_of(sentence: Said) -> list[str]:
    """A sentence's template, and those of the sentences among its parameters (listed ones too)."""
    values = [*sentence.params.values(),
              *(item for value in sentence.params.values() if isinstance(value, Listed) for item in value.items)]
    nested = [value for value in values if isinstance(value, Said)]
    return [sentence.template, *(text for inner in nested for text in sentences_of(inner))]


def test_every_problem_an_njn_record_can_have_is_in_the_catalog(app: Flask) -> None:
    catalog = french_messages()
    seen: set[str] = set()
    for record in BROKEN_RECORDS:
        with pytest.raises(NotationError) as refused:
            parse_njn(record)
        error = refused.value
        for template in [error.template, *(said_ for found in error.problems for said_ in sentences_of(found.said))]:
            seen.add(template)
            assert template in catalog and catalog[template].string, f"{template!r}: run `make translations`"
        with app.test_request_context(headers=FR):
            french = [translate(found.said.template, found.said.params, said(found)) for found in error.problems]
        assert all(text != said(found) for text, found in zip(french, error.problems, strict=True))
    notation = {text for text, path, _ in templates() if path.startswith("nj_ledger/notation/")}
    assert len(seen & notation) >= 51  # all the reader can say is met above (the writer's refusals aside)


def test_no_template_is_written_out_with_an_f_string() -> None:
    assert written_out() == [], "write these as a template with params: a finished sentence cannot be translated"


def schema_classes() -> list[type[Schema]]:
    """The schemas of every module of the API (all imported by :func:`api.create_app`'s module)."""
    modules = [module for name, module in list(sys.modules.items()) if name.startswith("api.")]
    found = {value for module in modules for value in vars(module).values()
             if isinstance(value, type) and issubclass(value, Schema) and value.__module__.startswith("api.")}
    return sorted(found, key=lambda schema: schema.__qualname__)


def field_messages(field: fields.Field) -> set[str]:
    """Every message a field (its validators and inner fields too) can give."""
    never = set() if isinstance(field, fields.AwareDateTime | fields.NaiveDateTime) else {"invalid_awareness"}
    messages = {str(message) for key, message in field.error_messages.items() if key not in never}
    for validator in field.validators:
        if isinstance(validator, validate.Length | validate.Range):
            low, high = validator.min, validator.max
            if isinstance(validator, validate.Length) and validator.equal is not None:
                messages.add(validator.error or validator.message_equal)
                continue
            messages.add(validator.error or (validator.message_all if low is not None and high is not None else
                                             validator.message_min if low is not None else validator.message_max))
        elif isinstance(validator, validate.OneOf | validate.Regexp | validate.Equal | validate.NoneOf):
            messages.add(validator.error)
        elif isinstance(getattr(validator, "messages", None), tuple):  # the app's own (api.schemas.Visible)
            messages |= set(validator.messages)
        else:
            raise AssertionError(f"{field!r}: say which messages {validator!r} gives")
    for name in ("inner", "value_field", "key_field"):  # a List's items, a Dict's keys and values
        inner = getattr(field, name, None)
        if isinstance(inner, fields.Field):
            messages |= field_messages(inner)
    if isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        messages |= schema_messages(type(field.schema))
    return messages


def schema_messages(schema: type[Schema]) -> set[str]:
    messages = set(Schema._default_error_messages.values())  # "Unknown field.", "Invalid input type."
    for field in schema().fields.values():
        messages |= field_messages(field)
    return messages


def test_every_message_a_field_of_the_api_can_give_is_translated() -> None:
    schemas = schema_classes()
    assert len(schemas) > 20
    catalog = french_messages()
    known = set(validation_messages())
    for schema in schemas:
        unknown = schema_messages(schema) - known
        assert unknown == set(), f"{schema.__qualname__}: add these to api.i18n.VALIDATION_MESSAGES"
    assert sorted(m for m in known if not catalog.get(m) or not catalog[m].string) == []


def test_a_filled_in_field_message_is_recognised_by_its_template() -> None:
    assert sentence_of("Must be greater than or equal to 0 and less than or equal to 9.") == {
        "template": "Must be greater than or equal to {min} and less than or equal to {max}.",
        "params": {"min": "0", "max": "9"},
        "message": "Must be greater than or equal to 0 and less than or equal to 9."}
    assert sentence_of("Must be greater than or equal to 1.")["params"] == {"min": "1"}
    assert sentence_of("Something else entirely.") == {
        "template": "Something else entirely.", "params": {}, "message": "Something else entirely."}


def test_translation_outside_and_inside_a_request(app: Flask) -> None:
    missing = Problem(404, "not-found", "There is no club {club!r}.", params={"club": "x"})
    assert missing.detail == "There is no club 'x'."
    assert translate(missing.template, missing.params) == "There is no club 'x'."  # no request: English
    with app.test_request_context(headers=FR):
        assert translate(missing.template, missing.params) == "Le club 'x' n'existe pas."
        messages = {"players": {"1": ["Longer than maximum length 80."]}, "x": ["Unknown field."]}
        assert translate_messages(messages) == {"players": {"1": ["Trop long (au plus 80)."]}, "x": ["Champ inconnu."]}
        # a sentence the catalog does not know, or whose French needs a parameter not given, stays English
        assert translate("Something new: {what}.", {"what": "a"}) == "Something new: a."
        assert translate("Game {game!r} has no deal {number}.", {"game": "g"}, "English.") == "English."
    with app.test_request_context(headers={"Accept-Language": "de"}):
        assert translate(missing.template, missing.params) == "There is no club 'x'."


# --- refusals over HTTP --------------------------------------------------------------------------
@pytest.fixture
def game(calls: Calls, club: Club) -> str:
    return str(calls.game(club)["id"])


def test_401_without_a_token_or_with_a_wrong_one(client, club) -> None:
    url = f"/api/v1/clubs/{club.id}"
    french, english = in_both(client, "GET", url, 401, "unauthorized")
    assert (french["title"], french["detail"]) == (
        "Il faut un jeton valide", "Il faut un jeton\u00a0: envoyez Authorization: Bearer <jeton>.")
    assert (english["title"], english["detail"]) == (
        "A valid token is needed", "Send a token: Authorization: Bearer <token>.")
    french, english = in_both(client, "GET", url, 401, "unauthorized", {"Authorization": "Bearer not-a-token"})
    assert (french["detail"], english["detail"]) == ("Ce jeton n'est pas valable.", "This token is not valid.")


def test_403_a_viewer_writes_and_a_club_made_without_the_admin_token(client, calls, club, game) -> None:
    viewer = calls.token(club, "viewer")
    french, english = in_both(client, "POST", f"/api/v1/games/{game}/actions", 403, "forbidden", viewer.auth,
                              json={"actions": [{"type": "deal"}]})
    assert french["title"] == "Pas permis avec ce jeton"
    assert french["detail"] == ("Ce jeton permet de consulter, pas de marquer\u00a0: "
                                "demandez à votre club un jeton de marqueur.")
    assert english["detail"] == "This token may read but not write: ask your club for a scorer token."
    french, english = in_both(client, "POST", "/api/v1/clubs", 403, "forbidden", club.auth, json={"name": "Autre"})
    assert french["detail"] == "Il faut le jeton d'administration pour créer un club."


def test_404_a_game_a_club_a_deal_and_a_path(client, calls, club, game) -> None:
    french, english = in_both(client, "GET", "/api/v1/games/no-such-game", 404, "not-found", club.auth)
    assert french["title"] == "Introuvable"
    assert french["detail"] == "La partie 'no-such-game' n'existe pas dans ce club."
    assert (english["title"], english["detail"]) == ("Not found", "There is no game 'no-such-game' in this club.")
    other = calls.club("Le Nain du Vendredi")
    french, english = in_both(client, "GET", f"/api/v1/clubs/{other.id}", 404, "not-found", club.auth)
    assert french["detail"] == f"Le club '{other.id}' n'existe pas."
    assert english["detail"] == f"There is no club '{other.id}'."
    french, _ = in_both(client, "GET", f"/api/v1/games/{game}/deals/3/replay", 404, "not-found", club.auth)
    assert french["detail"] == f"La partie '{game}' n'a pas de donne 3."
    french, english = in_both(client, "GET", "/api/v1/nothing-here", 404, "not-found")
    assert (french["detail"], english["detail"]) == (
        "Il n'y a rien ici\u00a0: vérifiez le chemin.", "Nothing here: check the path.")


def test_405_names_the_method(client, club, game) -> None:
    french, english = in_both(client, "DELETE", f"/api/v1/games/{game}", 405, "method-not-allowed", club.auth)
    assert french["detail"] == f"DELETE n'est pas permis sur /api/v1/games/{game}."
    assert english["detail"] == f"DELETE is not allowed on /api/v1/games/{game}."


def test_409_version_conflict(client, calls, club, game) -> None:
    url = f"/api/v1/games/{game}/actions"
    body = {"actions": [{"type": "deal"}]}
    french = client.post(url, json=body, headers={**club.auth, **FR, "If-Match": '"7"'})
    body_fr = assert_problem(french, 409, "version-conflict")
    assert body_fr["title"] == "La partie a avancé"
    assert body_fr["detail"] == "La partie a avancé (version 1, pas 7)\u00a0: rechargez-la avant de rejouer le coup."
    assert body_fr["current_version"] == 1 and french.headers["ETag"] == '"1"'
    english = assert_problem(client.post(url, json=body, headers={**club.auth, "If-Match": '"7"'}), 409,
                             "version-conflict")
    assert english["detail"] == "The game is at version 1, not 7: reload it and try again."
    assert english["title"] == "The game has moved on"
    assert len(calls.events(club, game)) == 1  # nothing stored


def test_422_invalid_request_names_each_field_in_the_callers_language(client, club) -> None:
    url = f"/api/v1/clubs/{club.id}/games"
    french, english = in_both(client, "POST", url, 422, "invalid-request", club.auth,
                              json={"players": ["Ana", "B" * 81], "starting_chips": "sixty", "colour": "red"})
    assert french["title"] == "La requête n'est pas valable" and english["title"] == "The request is not valid"
    assert set(french["errors"]) == set(english["errors"]) == {"players", "starting_chips", "colour"}
    assert french["errors"] == {"players": {"1": ["Trop long (au plus 80)."]},
                                "starting_chips": ["Ce n'est pas un nombre entier."], "colour": ["Champ inconnu."]}
    assert english["errors"] == {"players": {"1": ["Longer than maximum length 80."]},
                                 "starting_chips": ["Not a valid integer."], "colour": ["Unknown field."]}
    assert (french["detail"], english["detail"]) in [
        ("players.1\u00a0: Trop long (au plus 80).", "players.1: Longer than maximum length 80."),
        ("starting_chips\u00a0: Ce n'est pas un nombre entier.", "starting_chips: Not a valid integer."),
        ("colour : Champ inconnu.", "colour: Unknown field.")]
    french, english = in_both(client, "POST", url, 422, "invalid-request", club.auth, json={"starting_chips": 60})
    assert french["errors"] == {"players": ["Ce champ est obligatoire."]}
    assert french["detail"] == "players\u00a0: Ce champ est obligatoire."
    assert english["detail"] == "players: Missing data for required field."
    french, _ = in_both(client, "POST", f"/api/v1/clubs/{club.id}/players", 422, "invalid-request", club.auth,
                        json={"name": "   "})
    assert french["errors"] == {"name": ["Ne doit pas être vide."]}


def test_422_text_no_database_can_keep(client, club, game) -> None:
    french, english = in_both(client, "POST", f"/api/v1/games/{game}/actions", 422, "invalid-request", club.auth,
                              json={"actions": [{"type": "undo", "reason": "a\u0000b"}]})
    assert french["detail"] == ("actions.0.reason\u00a0: le texte ne peut contenir ni caractère NUL "
                                "ni moitié de paire de substitution.")
    assert english["detail"] == "actions.0.reason: text may not contain NUL characters or unpaired surrogates."
    assert french["errors"] == {"actions.0.reason": [
        "le texte ne peut contenir ni caractère NUL ni moitié de paire de substitution"]}


def test_400_invalid_json_and_invalid_headers(client, club, game) -> None:
    url = f"/api/v1/games/{game}/actions"
    french, english = in_both(client, "POST", url, 400, "invalid-json", club.auth, data='{"actions": [',
                              content_type="application/json")
    assert french["title"] == "Le corps n'est pas du JSON valable"
    assert french["detail"] == "Le corps de la requête n'a pas pu être lu comme du JSON."
    french, english = in_both(client, "POST", url, 400, "invalid-header", {**club.auth, "If-Match": "twelve"},
                              json={"actions": [{"type": "deal"}]})
    assert french["detail"] == ("If-Match doit être une version de la partie entre guillemets, comme \"12\", "
                                "pas 'twelve'.")
    assert english["detail"] == "If-Match must be a game version in quotes, like \"12\", not 'twelve'."


def test_422_idempotency_mismatch(client, calls, club, game) -> None:
    adjust = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2}
    assert calls.act(club, game, adjust, Idempotency_Key="jeton-1").status_code == 201
    url = f"/api/v1/games/{game}/actions"
    retry = {"actions": [{**adjust, "amount": 3}]}  # the same key, another body
    french, english = in_both(client, "POST", url, 422, "idempotency-mismatch",
                              {**club.auth, "Idempotency-Key": "jeton-1"}, json=retry)
    assert french["title"] == "Clé d'idempotence déjà utilisée pour une autre requête"
    assert french["detail"] == ("La clé Idempotency-Key 'jeton-1' a déjà servi pour une autre requête\u00a0: "
                                "prenez-en une nouvelle.")
    assert english["detail"] == ("The Idempotency-Key 'jeton-1' was already used for a different request: "
                                 "use a new key.")
    assert len(calls.events(club, game)) == 2 + 1  # the first adjust (and its transfer) only


def test_scoreboard_parameters(client, club) -> None:
    url = f"/api/v1/clubs/{club.id}/scoreboard"
    french, english = in_both(client, "GET", f"{url}?sort=luck&min_games=-1", 422, "invalid-request", club.auth)
    assert french["errors"]["min_games"] == ["Doit être compris entre 0 et 1000000000."]
    assert english["errors"]["min_games"] == [
        "Must be greater than or equal to 0 and less than or equal to 1000000000."]
    assert french["errors"]["sort"][0].startswith("Doit être l'une de ces valeurs\u00a0: rank, -rank, name, -name,")
    assert english["errors"]["sort"][0].startswith("Must be one of: rank, -rank, name, -name,")
    french, english = in_both(client, "GET", f"{url}?from=2026-03-01&to=2026-02-01", 422, "invalid-period", club.auth)
    assert (french["title"], french["detail"]) == (
        "La période n'est pas valable",
        "La période est à l'envers\u00a0: from (2026-03-01) tombe après to (2026-02-01).")
    assert english["detail"] == "from (2026-03-01) is after to (2026-02-01)."
    french, english = in_both(client, "GET", f"{url}?season=Hiver", 422, "unknown-season", club.auth)
    assert french["detail"] == "Le club n'a pas de saison nommée 'Hiver'."
    french, _ = in_both(client, "GET", f"{url}?season=Hash chain broken", 422, "unknown-season", club.auth)
    assert french["detail"] == "Le club n'a pas de saison nommée 'Hash chain broken'."  # a name is never translated
    french, english = in_both(client, "GET", f"{url}?from=01/03/2026", 422, "invalid-request", club.auth)
    assert french["errors"] == {"from": ["Ce n'est pas une date\u00a0: écrivez-la AAAA-MM-JJ, comme 2026-03-01."]}
    assert english["errors"] == {"from": ["Not a valid date."]}


def test_409_a_season_or_a_member_that_exists(client, club) -> None:
    season = {"name": "Hiver", "from": "2026-01-01", "to": "2026-03-31"}
    assert client.post(f"/api/v1/clubs/{club.id}/seasons", json=season, headers=club.auth).status_code == 201
    french, english = in_both(client, "POST", f"/api/v1/clubs/{club.id}/seasons", 409, "season-exists", club.auth,
                              json=season)
    assert french["title"] == "Cette saison existe déjà"
    assert french["detail"] == "Le club a déjà une saison nommée 'Hiver'."
    assert english["detail"] == "The club already has a season called 'Hiver'."
    assert client.post(f"/api/v1/clubs/{club.id}/players", json={"name": "Zoé"}, headers=club.auth).status_code == 201
    french, _ = in_both(client, "POST", f"/api/v1/clubs/{club.id}/players", 409, "player-exists", club.auth,
                        json={"name": "Zoé"})
    assert french["detail"] == "Le club a déjà un membre nommé 'Zoé'."


def test_413_and_415(store, club, client, game) -> None:
    small = new_app(store, MAX_CONTENT_LENGTH=1000)
    french, english = in_both(small.test_client(), "POST", f"/api/v1/clubs/{club.id}/players", 413,
                              "request-too-large", club.auth, json={"name": "x" * 2000})
    assert (french["title"], french["detail"]) == (
        "La requête est trop volumineuse", "Le corps de la requête dépasse les 1000 octets que ce serveur accepte.")
    assert english["detail"] == "The body is larger than the 1000 bytes this server accepts."
    french, english = in_both(client, "POST", f"/api/v1/games/{game}/actions", 415, "unsupported-media-type",
                              club.auth, data="actions=deal", content_type="application/x-www-form-urlencoded")
    assert french["title"] == "Le corps doit être en JSON"
    assert french["detail"] == ("Envoyez le corps en JSON (Content-Type: application/json), "
                                "pas en application/x-www-form-urlencoded.")
    assert english["detail"] == ("Send the body as JSON (Content-Type: application/json), "
                                 "not application/x-www-form-urlencoded.")


def test_the_cookie_chooses_before_accept_language_and_english_is_the_default(app, club) -> None:
    url = "/api/v1/games/no-such-game"
    client = app.test_client()
    client.set_cookie("lang", "fr")  # the switch on the pages
    by_cookie = client.get(url, headers=club.auth)
    assert assert_problem(by_cookie, 404, "not-found")["detail"] == (
        "La partie 'no-such-game' n'existe pas dans ce club.")
    client.set_cookie("lang", "en")
    cookie_wins = client.get(url, headers={**club.auth, **FR})
    assert assert_problem(cookie_wins, 404, "not-found")["detail"] == "There is no game 'no-such-game' in this club."
    assert cookie_wins.headers["Content-Language"] == "en"
    client.set_cookie("lang", "xx")  # not a language of the app: Accept-Language chooses
    assert assert_problem(client.get(url, headers={**club.auth, **FR}), 404, "not-found")["title"] == "Introuvable"
    for headers in ({}, {"Accept-Language": "de-DE,de;q=0.9"}, EN):
        answer = app.test_client().get(url, headers={**club.auth, **headers})
        assert assert_problem(answer, 404, "not-found")["title"] == "Not found"
        assert answer.headers["Content-Language"] == "en"


def test_a_refusal_of_the_rules_has_a_french_title_too(client, club, game) -> None:
    french, english = in_both(client, "POST", f"/api/v1/games/{game}/actions", 422, "no-deal-in-progress",
                              club.auth, json={"actions": [{"type": "play", "seat": 0, "cards": ["5H"]}]})
    assert (french["title"], english["title"]) == ("Refusé par les règles", "Refused by the rules")
    assert french["index"] == english["index"] == 0


# --- the audit -----------------------------------------------------------------------------------
def findings_in_both(client: Any, club: Club, game: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    french = client.get(f"/api/v1/games/{game}/audit", headers={**club.auth, **FR})
    english = client.get(f"/api/v1/games/{game}/audit", headers=club.auth)
    assert french.status_code == english.status_code == 200
    assert french.headers["Content-Language"] == "fr" and english.headers["Content-Language"] == "en"
    assert [(f["code"], f["severity"], f["seq"]) for f in french.json["findings"]] == [
        (f["code"], f["severity"], f["seq"]) for f in english.json["findings"]]
    assert all(set(f) == {"severity", "seq", "code", "message"} for f in french.json["findings"])
    return french.json["findings"], english.json["findings"]


def test_the_findings_of_a_recorded_game_follow_the_language(client, calls, club, game) -> None:
    assert calls.act(club, game, {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2}).status_code == 201
    assert calls.act(club, game, {"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5H"]}).status_code == 201
    assert calls.act(club, game, {"type": "undo", "reason": "mauvaise carte"}).status_code == 201
    french, english = findings_in_both(client, club, game)
    assert french[1]["seq"] == english[1]["seq"] == max(f["seq"] for f in english)  # the undo, the last event
    assert [f["message"] for f in french] == [
        "2 jetons passés d'un commun accord de Ana à Ben (sans motif).",
        "Repris : la pose de 5♥ par Ana — motif : mauvaise carte.",
    ]
    assert [f["message"] for f in english] == [
        "2 chips moved by agreement from Ana to Ben (no reason given).",
        "Taken back: Ana's play of 5H — reason: mauvaise carte.",
    ]


def test_shortfalls_and_forgotten_honours_in_french(client, store, club) -> None:
    played = simulate(seed=11, players=3, deals=4, starting_chips=30)  # shortfalls, undos, a forgotten honour
    created = store.games.create_game(club.id, played.events[0], played.actions)
    french, english = findings_in_both(client, club, created.game.id)
    codes = {f["code"] for f in french}
    assert {"shortfall", "undo", "not-announced"} <= codes
    for finding_fr, finding_en in zip(french, english, strict=True):
        assert finding_fr["message"] != finding_en["message"]
        if finding_fr["code"] == "shortfall":
            assert finding_fr["message"].startswith("Donne ") and " et n'a pu en payer que " in finding_fr["message"]
            reason = finding_en["message"].split("(")[1].split(")")[0]
            shown = {"payment": "paiement", "bete": "bête", "ante": "mise", "hoc": "hoc"}[reason]
            assert f"jetons ({shown})" in finding_fr["message"]
        if finding_fr["code"] == "not-announced":
            assert " a été jouée sans être annoncée\u00a0: " in finding_fr["message"]
    club_audit = client.get(f"/api/v1/clubs/{club.id}/audit", headers={**club.auth, **FR}).json
    line = next(line for line in club_audit["games"] if line["game"] == created.game.id)
    assert line["findings"] and all(set(f) == {"severity", "seq", "code", "message"} for f in line["findings"])
    assert all(f["message"] in [g["message"] for g in french] for f in line["findings"])


def test_a_tampered_log_is_reported_in_french(tmp_path: Path) -> None:
    """An intruder edits an amount straight in SQL (its guard dropped): the chain breaks, the chips don't add up."""
    played = simulate(seed=21, players=3, deals=2, starting_chips=200)
    with migrated_database("sqlite", tmp_path) as url:
        store = Store(url)
        try:
            app = new_app(store)
            info, token = store.clubs.create_club("Le Nain du Jeudi")
            game = store.games.create_game(info.id, played.events[0], played.actions).game.id
            with store.db.engine.begin() as connection:
                connection.execute(text("DROP TRIGGER IF EXISTS events_no_update"))
                seq, data = connection.execute(
                    select(EventRecord.seq, EventRecord.data).where(EventRecord.game_id == game,
                                                                    EventRecord.type == "transfer")
                    .order_by(EventRecord.seq)).first()
                connection.execute(update(EventRecord).where(EventRecord.game_id == game, EventRecord.seq == seq)
                                   .values(data={**data, "amount": data["amount"] + 10}))
            store.games.cache.clear()
            french, english = findings_in_both(app.test_client(), Club(info.id, token.secret), game)
        finally:
            store.close()
    by_code_fr = {f["code"]: f["message"] for f in french}
    by_code_en = {f["code"]: f["message"] for f in english}
    assert by_code_fr["chain-broken"] == (f"Le journal a été altéré après son écriture\u00a0: l'événement {seq} a "
                                          "été modifié, supprimé ou déplacé.")
    assert by_code_en["chain-broken"] == (f"The record was altered after it was written: event {seq} was edited, "
                                          "deleted or moved.")
    assert by_code_fr["recomputation-differs"].startswith(f"Événement {seq}\u00a0: le journal porte transfer ")
    assert " le moteur d'aujourd'hui donne transfer " in by_code_fr["recomputation-differs"]


def test_a_refusal_in_the_recomputation_is_translated_inside_its_finding(app: Flask) -> None:
    """A play rewritten (and the log re-chained) that today's engine refuses: the refusal is French too."""
    records = recorded_game()
    play = next(i for i, r in enumerate(records) if r["type"] == "play")
    forged = copy.deepcopy(records)
    forged[play]["data"]["cards"] = ["AC", "3C"]  # out of sequence, but folds
    report = audit(rechain(forged))
    english = said(report["recomputation"]["differences"][0])
    assert english.startswith(f"Today's engine refuses the table action at event {play + 1}: ")
    with app.test_request_context(headers=FR):
        french = translate_audit(report)
    difference = french["recomputation"]["differences"][0]
    assert set(difference) == {"seq", "message"}
    refusal = french["findings"][-1]["message"]
    assert difference["message"] == refusal
    assert refusal.startswith(f"Le moteur d'aujourd'hui refuse l'action de la table à l'événement {play + 1}\u00a0: ")
    inner = refusal.split("\u00a0: ", 1)[1]
    assert inner and inner != english.split(": ", 1)[1]  # the refusal itself is French, not left in English
    assert said(report["recomputation"]["differences"][0]) == english  # the core's report is left as it was
