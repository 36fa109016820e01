"""Refusals in French and English, and a French catalog that covers every refusal template of the core."""

from __future__ import annotations

import shutil
from pathlib import Path

from babel.messages.pofile import read_po
from flask import Flask

from api.catalog import current_template, error_templates, placeholders
from api.i18n import TRANSLATIONS, compile_catalogs, translate_error
from nj_ledger.errors import InvalidInput, RuleViolation
from nj_ledger.messages import Player, phrase
from support.http import Calls
from support.sentences import said

from .conftest import Table

FRENCH = TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po"


def french_catalog() -> dict[str, str]:
    with FRENCH.open("rb") as source:
        return {str(m.id): str(m.string) for m in read_po(source, locale="fr") if m.id}


def test_a_template_is_translated_and_filled_in(app: Flask) -> None:
    error = RuleViolation("not-your-turn", "It is {turn_player}'s turn, not {player}'s.",
                          turn_player=Player(0, "Ana"), player=Player(2, "Chloé"))
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate_error(error) == "C'est à Ana (place 0) de jouer, pas à Chloé (place 2)."
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert translate_error(error) == "It is Ana (seat 0)'s turn, not Chloé (seat 2)'s."


def test_a_phrase_given_as_a_parameter_is_translated_too(app: Flask) -> None:
    error = InvalidInput("invalid-rules", "Rule option {option!r} cannot be {value!r}: expected {expected}.",
                         option="board", value="JC", expected=phrase("five different cards"))
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate_error(error) == (
            "L'option de règle 'board' ne peut pas valoir 'JC'\u00a0: il faut cinq cartes différentes.")
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert translate_error(error) == said(error) == (
            "Rule option 'board' cannot be 'JC': expected five different cards.")


def test_without_a_translation_or_a_parameter_the_english_sentence_stays(app: Flask) -> None:
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate_error(RuleViolation("x", "Something new happened.")) == "Something new happened."
        assert translate_error(RuleViolation("x", "Something new: {what}.", what="a")) == "Something new: a."
        missing = RuleViolation("not-your-turn", "It is {turn_player}'s turn, not {player}'s.", turn_player="Ana")
        assert translate_error(missing) == said(missing)  # the French needs {player}, which is not given


def test_a_refusal_of_the_api_speaks_the_callers_language(table: Table) -> None:
    url = f"/api/v1/games/{table.game}/actions"
    body = {"actions": [{"type": "undo"}]}
    french = table.client.post(url, json=body, headers={**table.headers, "Accept-Language": "fr-FR,fr;q=0.9"})
    assert french.status_code == 422 and french.mimetype == "application/problem+json"
    assert french.get_json()["code"] == "nothing-to-undo"
    assert french.get_json()["detail"] == "Rien n'a encore été joué dans cette donne\u00a0: il n'y a rien à annuler."
    assert french.headers["Content-Language"] == "fr"
    english = table.client.post(url, json=body, headers={**table.headers, "Accept-Language": "en"})
    assert english.get_json()["detail"] == "Nothing has been played in this deal yet: there is nothing to undo."
    assert english.headers["Content-Language"] == "en"
    state = table.client.get(f"/api/v1/games/{table.game}", headers=table.headers)
    assert "Content-Language" not in state.headers  # data, not sentences


def french_detail(table: Table, method: str, url: str, body: object) -> str:
    answer = Calls(table.client).send(method, url, body, headers={**table.headers, "Accept-Language": "fr"})
    assert answer.status_code == 422, answer.get_json()
    return str(answer.get_json()["detail"])


def test_refusals_with_parameters_in_french(table: Table) -> None:
    actions = f"/api/v1/games/{table.game}/actions"
    assert french_detail(table, "POST", actions, {"actions": [{"type": "pass", "seat": 2}]}) == (
        "C'est à Ana (place 0) de jouer, pas à Chloé (place 2).")
    assert french_detail(table, "POST", actions, {"actions": [{"type": "play", "seat": 0, "cards": ["ZZ"]}]}) == (
        "'ZZ' n'est pas une carte\u00a0: écrivez la valeur et la couleur, comme 10D, JC, QS, KH ou 7D.")
    games = f"/api/v1/clubs/{table.club}/games"
    assert french_detail(table, "POST", games, {"players": ["Ana", "Ben"], "starting_chips": 60,
                                                "rules": {"profile": "classic", "may_stop": "yes"}}) == (
        "L'option de règle 'may_stop' ne peut pas valoir 'yes'\u00a0: il faut true ou false.")
    document = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben"], "rules": "classic",
                "starting_chips": 60, "actions": [], "date": "18/01/2026"}
    assert french_detail(table, "POST", f"/api/v1/clubs/{table.club}/imports", document) == (
        "date\u00a0: doit être un jour écrit AAAA-MM-JJ, comme 2026-03-01, pas '18/01/2026'.")


def test_every_refusal_template_of_the_core_has_its_french() -> None:
    catalog = french_catalog()
    templates = {text for text, _, _ in error_templates()}
    assert len(templates) > 30
    missing = sorted(t for t in templates if not catalog.get(t))
    assert missing == [], "run `make translations` and write the French of these in " + str(FRENCH)
    wrong = [t for t in templates if placeholders(catalog[t]) != placeholders(t)]
    assert wrong == [], "the French must use the same {placeholders} as the English"


def test_the_catalog_is_up_to_date_and_fully_translated() -> None:
    catalog = french_catalog()
    wanted = {str(m.id) for m in current_template() if m.id}
    assert sorted(wanted - set(catalog)) == [], "run `make translations` to bring the catalog up to date"
    assert sorted(i for i in wanted if not catalog[i]) == []
    assert sorted(i for i in wanted if placeholders(catalog[i]) != placeholders(i)) == []


def test_catalogs_compile_when_the_po_is_newer(tmp_path: Path) -> None:
    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    shutil.copy(FRENCH, folder / "messages.po")
    assert compile_catalogs(tmp_path) == [folder / "messages.mo"]
    assert (folder / "messages.mo").stat().st_size > 1000
    assert compile_catalogs(tmp_path) == []  # up to date: nothing to do
