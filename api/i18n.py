"""French and English: pages and the sentences of refusals, through Flask-Babel.

The language of a request is the ``lang`` cookie (set by the switch on the
pages) when it names a known language, otherwise the best match of the
browser's ``Accept-Language``, otherwise English. The game's own calls ("sans 10",
"Roi et je recommence", "J'arrête") are French in both languages.

The catalogs are kept as ``translations/<lang>/LC_MESSAGES/messages.po`` and
compiled to ``.mo`` when the app starts (and by ``make install``), whenever a
``.po`` is newer than its ``.mo``.

Refusals of the core carry ``template`` (the English sentence with
``{placeholders}``) and ``params``; :func:`translate_error` looks the template
up in the catalog and fills it in. The catalog is brought up to date by
``make translations`` (:mod:`api.catalog`)::

    >>> from nj_ledger.errors import RuleViolation
    >>> translate_error(RuleViolation("nothing-to-undo", "Nothing to undo."))  # no request: the English sentence
    'Nothing to undo.'
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, Response, g, has_request_context, request
from flask_babel import Babel, get_locale, gettext

from nj_ledger.errors import LedgerError

LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"
FIELD_PREFIX = "{field}: "
TRANSLATIONS = Path(__file__).resolve().parent / "translations"

log = logging.getLogger("nj_ledger.api")


def select_locale() -> str:
    """The cookie's language, else the best match of ``Accept-Language``, else English."""
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or DEFAULT_LANGUAGE


def current_language() -> str:
    """The language of this request ("en" or "fr"); English outside a request."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    locale = get_locale()
    return locale.language if locale is not None and locale.language in LANGUAGES else DEFAULT_LANGUAGE


def translate_error(error: LedgerError) -> str:
    """The refusal's sentence in the language of the request.

    The English ``template`` is looked up in the catalog and filled in with
    ``params`` (an error without a template is looked up by its ``message``; a
    document's refusal, ``"{field}: " + sentence``, by its sentence). Parameters
    that are phrases of the catalog, and the seats named "Ana (seat 0)", are
    translated too. Without a translation, or when a placeholder is missing, the
    error's own English ``message`` is the answer.
    """
    language = current_language()
    if has_request_context():
        g.content_language = language
    if language == DEFAULT_LANGUAGE:
        return error.message
    template = getattr(error, "template", None)
    if not isinstance(template, str) or not template:
        return gettext(error.message)  # a sentence without placeholders is its own template
    prefix = ""
    if template.startswith(FIELD_PREFIX):  # a document's refusal: "{field}: " + the sentence
        prefix, template = gettext("{field}: "), template[len(FIELD_PREFIX):]
    translated = gettext(template)
    if translated == template:
        return error.message
    translated = prefix + translated
    if not error.params:
        return translated  # written out as it stands, like the core's own sentence
    params = {name: _fragment(value) for name, value in error.params.items()}
    try:
        return translated.format_map(params)
    except (KeyError, IndexError, ValueError, AttributeError):
        log.warning("The French sentence of %r does not fit its parameters", error.code)
        return error.message


SEAT = re.compile(r"\(seat (\d+)\)")  # how the core names a seat: "Ana (seat 0)"


def _fragment(value: Any) -> Any:
    """A parameter that is one of the catalog's phrases ("five different cards") is translated too,
    and so are the seats named in it."""
    if not isinstance(value, str) or " " not in value:
        return value
    translated = gettext(value)
    if translated != value:
        return translated
    return SEAT.sub(lambda seat: gettext("(seat {seat})").format(seat=seat.group(1)), value)


def compile_catalogs(directory: Path = TRANSLATIONS) -> list[Path]:
    """Compile every ``messages.po`` newer than its ``messages.mo``; returns the files written."""
    written = []
    for po in sorted(directory.glob("*/LC_MESSAGES/messages.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parts[-3])
        try:
            with mo.open("wb") as target:
                write_mo(target, catalog, use_fuzzy=False)
        except OSError as failure:  # a read-only install: the catalog shipped compiled must do
            log.warning("Cannot write %s: %s", mo, failure)
            continue
        written.append(mo)
    return written


def _content_language(response: Response) -> Response:
    language = g.get("content_language")
    if language is not None:
        response.headers["Content-Language"] = language
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
    return response


def init_app(app: Flask) -> None:
    """Set up Flask-Babel (``_`` in templates), compile the catalogs, add ``Content-Language``."""
    compile_catalogs()
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT_LANGUAGE)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    Babel(app, locale_selector=select_locale)
    app.after_request(_content_language)
