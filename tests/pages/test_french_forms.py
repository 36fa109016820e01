"""The pages' French never assumes a player's gender, and the sign-in page reads as plain text."""

from __future__ import annotations

import re

from flask import Flask
from flask_babel import force_locale

from api.page_text import MESSAGES
from nj_ledger.rules import _CHOICES as CHOICES

from .conftest import Table

# Words whose French form agrees with a person's gender (a participle or a noun said of a player, "il" or "elle"
# standing for one), as they would appear in the pages' sentences about players.
GENDERED = re.compile(r"\b(sortie?|donneur|donneuse|gagnante?|perdante?|ruinée?|un joueur|une joueuse|qu'il|"
                      r"qu'elle|il doit|elle doit|il devait|elle devait|seule? à)\b", re.IGNORECASE)


def french_messages(app: Flask) -> dict[str, str]:
    with app.test_request_context(headers={"Accept-Language": "fr"}), force_locale("fr"):
        return {key: str(text) for key, text in MESSAGES.items()}


def test_no_page_sentence_assumes_a_gender(app: Flask) -> None:
    french = french_messages(app)
    assert {key: text for key, text in french.items() if GENDERED.search(text)} == {}
    # the phrases that did, and what they say now
    assert french["mark.winner"] == "plus de cartes"
    assert french["mark.dealer"] == "distribue"
    assert french["settle.winner"] == "{name} n'a plus de cartes et gagne la donne {deal}."
    assert french["reason.shortfall"] == "un paiement n'a pas pu être fait en entier"
    assert french["event.reveal_count"] == "{name} annonce ce qui reste en main\u00a0: {hand}."


def test_the_count_form_and_the_sheet_have_their_french(app: Flask) -> None:
    french = french_messages(app)
    english = {key: str(text) for key, text in MESSAGES.items()}
    for key in [k for k in MESSAGES if k.startswith(("sheet.", "import.", "export.", "hand.", "rules."))]:
        assert french[key], key
        assert set(re.findall(r"\{(\w+)\}", french[key])) == set(re.findall(r"\{(\w+)\}", english[key])), key
    assert french["hand.held"] == "{honours} en main"


def test_the_signin_page_shows_the_command_as_code_not_backticks(table: Table) -> None:
    for language, sentence in [("en", "prints a club's id and token."), ("fr", "affiche l'identifiant et le jeton")]:
        html = table.client.get("/signin", headers={"Accept-Language": language}).get_data(as_text=True)
        assert "`" not in html
        assert "<code>nj-ledger club create</code>" in html
        assert sentence.replace("'", "&#39;") in html or sentence in html


def test_the_sheet_names_every_value_of_the_options_it_shows() -> None:
    """The result sheet writes the payment, bête and shortfall options in words: one message per value."""
    for option in ("payment", "bete", "shortfall"):
        assert [value for value in CHOICES[option] if f"rules.{option}.{value}" not in MESSAGES] == []
    assert {"export.njn", "export.json", "export.label"} <= set(MESSAGES)
