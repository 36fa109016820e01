"""French as a French club reads it, everywhere: the catalog's typography, every refusal, every page.

(a) every French string of the catalog has French typography: a no-break space before ``: ; ! ?``, « guillemets »
with no-break spaces inside, no curly quotes, one apostrophe (``scripts/french_typography.py`` fixes them);
(b) every refusal the API can answer (each template of the core, the store, the audit and the API, and each code's
title), written out in French, is all French and obeys the same typography;
(c) every page of the site, in French, signed out and signed in (the server's HTML and the sentences handed to its
script), is all French.
"""

from __future__ import annotations

import ast
import html
import importlib.util
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from babel.messages.pofile import read_po
from flask import Flask, url_for

from api.catalog import PROJECT, TEMPLATE_SOURCES, _callee, _files, placeholders, templates
from api.i18n import TRANSLATIONS, translate
from api.page_text import MESSAGES
from api.problems import INPUT_TITLE, RULES_TITLE, TITLES
from nj_ledger.cards import parse_card
from nj_ledger.messages import Listed, Player

from .conftest import Table

FRENCH = TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po"
NBSP = "\u00a0"
_spec = importlib.util.spec_from_file_location("french_typography", PROJECT / "scripts" / "french_typography.py")
assert _spec is not None and _spec.loader is not None
typography = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(typography)

# Words that are English and never French: a sentence holding one was left in English, or half-translated.
ENGLISH = frozenset((
    "the", "and", "of", "is", "are", "was", "were", "not", "cannot", "must", "this", "that", "these", "those", "with",
    "has", "have", "been", "would", "should", "which", "there", "their", "your", "you", "it", "its", "game", "games",
    "deal", "deals", "player", "players", "seat", "seats", "hand", "hands", "chips", "undo", "keep", "shown", "any",
    "every", "yet", "already", "only", "after", "before", "back", "try", "again", "please", "tap", "click", "here",
    "below", "above", "than", "then",
))
# What is code or a name in a French sentence, not words: placeholders, quoted code, commands, addresses, field
# names and NJN tags ("seat:0", "rules.max_deals", "[Players]"), the ledger's own name.
CODE = re.compile(r"""\{[^{}]*\}|%\([a-z_]+\)[sd]|"[^"\n]*"|`[^`\n]*`|'[^'\s]*'|\b[a-z]+://\S+|"""
                  r"""\S*[:_./=\[\]<>\\]\S*|Nain Jaune Ledger(, local network)?|nj-ledger( [a-z-]+)*|"""
                  r"""\b(Deal|Hand|Play|Pass|Reveal|Undo|Adjust|End|Players|Round)\b|"""  # NJN's keywords
                  r"""^[a-z]\w*(?= )""")  # a sentence opening in lower case opens with a field's name ("players")
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def english_words(text: str) -> set[str]:
    """The English-only words of ``text``, outside code and names."""
    return {word.lower() for word in WORD.findall(CODE.sub(" ", text)) if word.lower() in ENGLISH}


def typography_faults(text: str) -> list[str]:
    """What in ``text`` is not French typography (code spans aside)."""
    plain = typography.PROTECTED.sub("\ue000", text)
    faults = []
    if re.search(r"[“”’]", plain):
        faults.append("curly quote or apostrophe")
    if re.search(r"(?<=[^\s\u00a0\u202f])[:;!?](?=\s|$)|(?<= )[:;!?]", plain):
        faults.append("no no-break space before : ; ! ?")
    if re.search(r"\u202f:", plain):
        faults.append("a narrow space before a colon")
    if re.search(r"«(?!\u00a0)|(?<!\u00a0)»", plain):
        faults.append("« » without no-break spaces inside")
    if typography.fix(text) != text:
        faults.append("scripts/french_typography.py would change it")
    return faults


def french_catalog() -> list[tuple[str, str]]:
    """(msgid, msgstr) of the French catalog, each plural form apart."""
    with FRENCH.open("rb") as source:
        catalog = read_po(source, locale="fr")
    pairs = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        pairs += [(str(ids[0]), str(text)) for text in strings if text]
    return pairs


# --- (a) the catalog -------------------------------------------------------------------------------------------
def test_the_typography_fix_is_idempotent_and_leaves_code_alone() -> None:
    fix = typography.fix
    cases = {
        "Donne {deal} : {name} distribue.": f"Donne {{deal}}{NBSP}: {{name}} distribue.",
        "Touchez “Installer” ?": f"Touchez «{NBSP}Installer{NBSP}»{NBSP}?",
        "« {input} » ne": f"«{NBSP}{{input}}{NBSP}» ne",
        "l’a vue": "l'a vue",
        "fin\u202f?": "fin\u202f?",  # a narrow no-break space is right before ? ; !
        "Fin:": f"Fin{NBSP}:",
    }
    for text, fixed in cases.items():
        assert fix(text) == fixed and fix(fixed) == fixed
    for code in ("seat:0 à 12:30", "https://club.example/signin?next=/", '{"10D": 1}', '"0: 5H 6H"', "{value!r}",
                 "`nj-ledger serve --lan`", "Content-Type: application/json"):
        assert fix(code) == code


def test_every_french_string_of_the_catalog_has_french_typography() -> None:
    faults = {msgstr: typography_faults(msgstr) for _, msgstr in french_catalog()}
    assert {text: found for text, found in faults.items() if found} == {}


def test_the_fix_script_finds_nothing_to_fix_in_the_catalog() -> None:
    _, changed = typography.fix_catalog(FRENCH.read_text(encoding="utf-8"))
    assert changed == []


# --- (b) every refusal ------------------------------------------------------------------------------------------
def sample(name: str) -> Any:
    """A value for a placeholder of a refusal, of the kind the code gives it."""
    if "card" in name:
        return parse_card("QS") if name != "cards" else Listed((parse_card("QS"), parse_card("10D")))
    if name in ("player", "turn_player", "dealer", "named", "winner"):
        return Player(1, "Élise")
    if name in ("honours", "announceable"):
        return Listed((parse_card("10D"), parse_card("JC")))
    return 2


def refusal_codes() -> Iterator[str]:
    """Every ``code`` a refusal of the core, the store or the API is raised with (a literal one)."""
    for pattern, keywords in TEMPLATE_SOURCES:
        for path in _files(pattern, PROJECT):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or _callee(node) not in keywords:
                    continue
                at = 1 if _callee(node) == "Problem" else 0
                argument = node.args[at] if len(node.args) > at else None
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str) and re.fullmatch(
                        r"[a-z]+(-[a-z]+)+|[a-z]+", argument.value) and keywords[_callee(node) or ""] >= 1:
                    yield argument.value


def test_every_refusal_in_french_is_french(app: Flask) -> None:
    refusals = sorted({text for text, _, _ in templates()})
    codes = sorted(set(refusal_codes()) | set(TITLES))
    assert len(refusals) > 300 and len(codes) > 60  # the whole registry, not a part of it
    faults: dict[str, Any] = {}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        for template in refusals:
            params = {name: sample(name) for name in placeholders(template) if name.isidentifier()}
            said = translate(template, params)
            found = sorted(english_words(said)) + typography_faults(said)
            if found:
                faults[said] = found
        for code in codes:
            title = translate(TITLES.get(code, RULES_TITLE))
            if english_words(title) or typography_faults(title):
                faults[f"{code}: {title}"] = "title"
        for title in (RULES_TITLE, INPUT_TITLE):
            assert english_words(translate(title)) == set()
    assert faults == {}


def test_a_card_in_a_french_refusal_is_printed_as_a_french_deck_prints_it(app: Flask) -> None:
    template = "{card} has already been played in this deal."
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate(template, {"card": parse_card("QS")}) == "La carte D♠ a déjà été jouée dans cette donne."
        assert translate("{card} does not follow: the run wants a {expected}.",
                         {"card": parse_card("KH"), "expected": "JC"}) == (
            f"La carte R♥ ne suit pas{NBSP}: la suite attend un V♣.")
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert translate(template, {"card": parse_card("QS")}) == "QS has already been played in this deal."


@pytest.mark.parametrize(("left", "french", "english"), [
    (0, "Il ne reste que 0 carte à Ana (place 0), pas 3.", "Ana (seat 0) has only 0 cards left, not 3."),
    (1, "Il ne reste que 1 carte à Ana (place 0), pas 3.", "Ana (seat 0) has only 1 card left, not 3."),
    (2, "Il ne reste que 2 cartes à Ana (place 0), pas 3.", "Ana (seat 0) has only 2 cards left, not 3."),
])
def test_a_count_of_0_or_1_is_singular_in_french(app: Flask, left: int, french: str, english: str) -> None:
    template = "{player} has only {left} cards left, not {count}."
    params = {"player": Player(0, "Ana"), "left": left, "count": 3}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert translate(template, params) == french
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert translate(template, params) == english


# --- (c) every page ----------------------------------------------------------------------------------------------
def page_urls(app: Flask, table: Table) -> list[str]:
    """Every page of the site (the GET routes that answer HTML), with the table's club and game in its address."""
    values = {"game": table.game, "club": table.club, "evening": "e1", "code": "ABCD2345"}
    urls = set()
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if rule.endpoint.split(".")[0] not in ("pages", "lan") or "GET" not in (rule.methods or ()):
                continue
            if not re.search(r"\.(js|json|crt|webmanifest)$", rule.rule):
                urls.add(url_for(rule.endpoint, **{name: values[name] for name in rule.arguments}))
    return sorted(urls)


def page_text(body: str) -> tuple[str, dict[str, str]]:
    """A page's text as read (scripts, styles and tags out, attributes a reader hears kept) and its messages."""
    found = re.search(r'<script type="application/json" id="nj-messages">(.*?)</script>', body, re.DOTALL)
    messages = json.loads(html.unescape(found.group(1))) if found else {}
    heard = " ".join(re.findall(r'(?:aria-label|title|placeholder|alt)="([^"]*)"', body))
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(f"{text} {heard}"), messages


def test_every_page_in_french_is_french_signed_out_and_signed_in(app: Flask, table: Table) -> None:
    urls = page_urls(app, table)
    assert {"/", "/signin", f"/games/{table.game}/record", f"/clubs/{table.club}/scoreboard"} <= set(urls)
    faults: dict[str, Any] = {}
    for signed_in in (False, True):
        headers = {"Accept-Language": "fr", **(table.headers if signed_in else {})}
        for url in urls:
            response = table.client.get(url, headers=headers)
            assert response.status_code == 200, url
            assert response.headers["Content-Language"] == "fr", url
            text, messages = page_text(response.get_data(as_text=True))
            assert messages, url
            if english_words(text):
                faults[f"{url} (signed in: {signed_in})"] = sorted(english_words(text))
            for key, sentence in messages.items():
                if english_words(sentence) or typography_faults(sentence):
                    faults[f"message {key}"] = (sentence, sorted(english_words(sentence)), typography_faults(sentence))
    assert faults == {}


def test_every_counted_page_sentence_has_its_singular_in_french(app: Flask) -> None:
    """A page sentence with a count that French says in the singular for 0 and 1 has its `_one` form, and that
    form says the count (French picks it for 0 as well as 1)."""
    from flask_babel import force_locale

    with app.test_request_context(headers={"Accept-Language": "fr"}), force_locale("fr"):
        french = {key: str(text) for key, text in MESSAGES.items()}
    for key, text in french.items():
        if key.endswith("_one"):
            assert not re.match(r"1\b", text), (key, text)  # "1 partie" would be said for 0 too
    assert "(s)" not in " ".join(french.values())  # "reçu(s)": said with the count instead
