"""Refusals in French and English, and a French catalog that covers every refusal template of the core."""

from __future__ import annotations

import shutil
from pathlib import Path

from babel.messages.pofile import read_po
from flask import Flask

from api.catalog import current_template, error_templates, placeholders
from api.i18n import TRANSLATIONS, compile_catalogs, translate_error
from nj_ledger.errors import InvalidInput, RuleViolation

from .conftest import Table

FRENCH = TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po"


def french_catalog() -> dict[str, str]:
    with FRENCH.open("rb") as source:
        return {str(m.id): str(m.string) for m in read_po(source, locale="fr") if m.id}


def refusal(code: str, message: str, template: str | None = None, **params: object) -> RuleViolation:
    error = RuleViolation(code, message, **params)
    if template is not None:
        error.template = template  # type: ignore[attr-defined]
    return error


def test_a_template_is_translated_and_filled_in(app: Flask) -> None:
    template = "Nothing has been played in this deal yet: there is nothing to undo."
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate_error(refusal("nothing-to-undo", template, template)) == (
            "Rien n'a encore été joué dans cette donne : il n'y a rien à annuler.")
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert translate_error(refusal("nothing-to-undo", template, template)) == template


def test_params_fill_the_french_sentence_and_known_phrases_are_translated(app: Flask, monkeypatch) -> None:
    sentence = "Rule option {option!r} cannot be {value!r}: expected {expected}."
    french = "L'option {option!r} ne peut pas valoir {value!r} : il faut {expected}."
    monkeypatch.setattr("api.i18n.gettext", lambda text: {sentence: french, "five different cards":
                                                          "cinq cartes différentes"}.get(text, text))
    error = InvalidInput("invalid-rules", "Rule option 'board' cannot be 'JC': expected five different cards.",
                         option="board", value="JC", expected="five different cards")
    error.template = sentence  # type: ignore[attr-defined]
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate_error(error) == "L'option 'board' ne peut pas valoir 'JC' : il faut cinq cartes différentes."


def test_without_a_translation_or_a_parameter_the_english_sentence_stays(app: Flask) -> None:
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate_error(refusal("x", "Something new happened.")) == "Something new happened."
        missing_param = refusal("not-your-turn", "It is Ana's turn.", "It is {turn}'s turn.")
        assert translate_error(missing_param) == "It is Ana's turn."


def test_a_refusal_of_the_api_speaks_the_callers_language(table: Table) -> None:
    url = f"/api/v1/games/{table.game}/actions"
    body = {"actions": [{"type": "undo"}]}
    french = table.client.post(url, json=body, headers={**table.headers, "Accept-Language": "fr-FR,fr;q=0.9"})
    assert french.status_code == 422 and french.mimetype == "application/problem+json"
    assert french.get_json()["code"] == "nothing-to-undo"
    assert french.get_json()["detail"] == "Rien n'a encore été joué dans cette donne : il n'y a rien à annuler."
    assert french.headers["Content-Language"] == "fr"
    english = table.client.post(url, json=body, headers={**table.headers, "Accept-Language": "en"})
    assert english.get_json()["detail"] == "Nothing has been played in this deal yet: there is nothing to undo."
    assert english.headers["Content-Language"] == "en"
    state = table.client.get(f"/api/v1/games/{table.game}", headers=table.headers)
    assert "Content-Language" not in state.headers  # data, not sentences


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
