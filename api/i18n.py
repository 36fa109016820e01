"""French and English: pages and the sentences of refusals, through Flask-Babel.

The language of a request is the ``lang`` cookie (set by the switch on the
pages) when it names a known language, otherwise the best match of the
browser's ``Accept-Language``, otherwise English. The game's own calls ("sans 10",
"Roi et je recommence", "J'arrête") are French in both languages.

The catalogs are kept as ``translations/<lang>/LC_MESSAGES/messages.po`` and
compiled to ``.mo`` when the app starts (and by ``make install``), whenever a
``.po`` is newer than its ``.mo``.

Sentences are written as English templates with named ``{placeholders}`` and
their ``params``: the refusals of the core (:func:`translate_error`), the API's
own problems and the store's refusals (:mod:`api.problems`), the audit's
findings (:func:`translate_audit`). :func:`translate` looks a template up in the
catalog and fills it in; English, the default, is the sentence as written.
marshmallow's messages for a field that is not valid are recognised by their
template (:func:`sentence_of`) and translated the same way. The catalog is
brought up to date by ``make translations`` (:mod:`api.catalog`)::

    >>> from nj_ledger.errors import RuleViolation
    >>> translate_error(RuleViolation("nothing-to-undo", "Nothing to undo."))  # no request: the English sentence
    'Nothing to undo.'
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, Response, g, has_request_context, request
from flask_babel import Babel, get_locale, gettext, ngettext

from nj_ledger.errors import LedgerError
from nj_ledger.findings import Finding
from nj_ledger.messages import Listed, Message, Player

from .sentences import N_, english, english_sentence, written
from .sentences import fill as fill  # api.problems imports it from here

LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"
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


def translate(template: str, params: Mapping[str, Any] | None = None, english: str | None = None) -> str:
    """A sentence in the language of the request: ``template`` looked up in the catalog, filled in with ``params``.

    ``english`` is the sentence as written (by default ``template`` filled in);
    it is the answer in English, outside a request, without a translation, or
    when the French does not fit the parameters. The rules are
    :func:`api.sentences.written`'s (the command line writes with them too): a
    ``"{field}: "`` prefix, names never translated, a card as a French deck
    prints it ("D♠"), a template that counts (:mod:`api.plurals`) said in the
    singular when its count is: in English 1, in French 0 and 1.
    """
    language = current_language()
    if has_request_context():
        g.content_language = language
    if language == DEFAULT_LANGUAGE:
        return english_sentence(template, params, english)
    return written(template, params, gettext, ngettext, english)


def render(said: Message) -> str:
    """What the core said (a refusal, a finding, a problem of a text) in the language of the request."""
    return translate(said.template, said.params)


def translate_error(error: LedgerError) -> str:
    """A refusal's sentence in the language of the request."""
    return render(error.said)


# --- validation messages ------------------------------------------------------------------------
# What marshmallow (and the app's own schemas and input checks) say of a field that is not valid, as
# written once filled in: the field's errors and the detail of an ``invalid-request`` are translated by
# matching them against these (tests/api/test_i18n_problems.py checks every field of the app's schemas
# says nothing else).
VALIDATION_MESSAGES = (
    N_("Missing data for required field."),
    N_("Field may not be null."),
    N_("Invalid value."),
    N_("Unknown field."),
    N_("Invalid input type."),
    N_("Invalid input."),
    N_("Invalid type."),
    N_("Not a valid string."),
    N_("Not a valid utf-8 string."),
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Number too large."),
    N_("Special numeric values (nan or infinity) are not permitted."),
    N_("Not a valid boolean."),
    N_("Not a valid list."),
    N_("Not a valid delimited list."),
    N_("Not a valid tuple."),
    N_("Not a valid mapping type."),
    N_("Not a valid date."),
    N_("\"{input}\" cannot be formatted as a date."),
    N_("Must be one of: {choices}."),
    N_("Must be equal to {other}."),
    N_("String does not match expected pattern."),
    N_("Shorter than minimum length {min}."),
    N_("Longer than maximum length {max}."),
    N_("Length must be between {min} and {max}."),
    N_("Length must be {equal}."),
    N_("Must be greater than or equal to {min}."),
    N_("Must be greater than {min}."),
    N_("Must be less than or equal to {max}."),
    N_("Must be less than {max}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Must be greater than {min} and less than {max}."),
    N_("Must not be blank."),
)


def _pattern(template: str) -> re.Pattern[str]:
    """A filled-in ``template`` as a pattern whose groups are its placeholders."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P<{field}>.*?)")
    return re.compile("".join(parts), re.DOTALL)


def _specific_first(patterns: list[tuple[str, re.Pattern[str]]]) -> list[tuple[str, re.Pattern[str]]]:
    """The templates with the most text of their own first: "Must be … {min} and … {max}." before "Must be … {min}."."""
    return sorted(patterns, key=lambda item: -len(re.sub(r"\{[^}]*\}", "", item[0])))


_REGISTERED: list[str] = []  # the app's own field messages, added by validation_templates()
_PATTERNS = _specific_first([(template, _pattern(template)) for template in VALIDATION_MESSAGES if "{" in template])


def validation_templates(*templates: str) -> None:
    """Adds field messages of the app's own to those :func:`sentence_of` recognises."""
    global _PATTERNS
    added = [template for template in templates if template not in validation_messages()]
    _REGISTERED.extend(added)
    _PATTERNS = _specific_first([*_PATTERNS, *((t, _pattern(t)) for t in added if "{" in t)])


def validation_messages() -> tuple[str, ...]:
    """Every field message translated in a validation error: marshmallow's and the app's own."""
    return (*VALIDATION_MESSAGES, *_REGISTERED)


def sentence_of(message: str) -> dict[str, Any]:
    """A field's message as ``{template, params, message}``: the template it was filled in from, if known.

    >>> sentence_of("Longer than maximum length 80.")["params"]
    {'max': '80'}
    """
    for template, pattern in _PATTERNS:
        match = pattern.fullmatch(message)
        if match is not None:
            return {"template": template, "params": match.groupdict(), "message": message}
    return {"template": message, "params": {}, "message": message}


def translate_messages(messages: Any) -> Any:
    """A validation error's messages (``{field: [message…]}``, nested) in the language of the request."""
    if current_language() == DEFAULT_LANGUAGE:
        return messages
    if isinstance(messages, Mapping):
        return {key: translate_messages(value) for key, value in messages.items()}
    if isinstance(messages, list | tuple):
        return [translate_messages(value) for value in messages]
    if isinstance(messages, str):
        sentence = sentence_of(messages)
        return translate(sentence["template"], sentence["params"], messages)
    return messages


# --- the audit's findings -----------------------------------------------------------------------
def _transfer_reason(reason: Any) -> Any:
    """A transfer's reason ("ante", "payment"…) as the pages name it, in the language of the request."""
    from .page_text import MESSAGES  # the pages' own names of the reasons

    phrase = MESSAGES.get(f"reason.transfer.{reason}")
    return str(phrase) if phrase is not None else reason


def by_name(value: Any) -> Any:
    """A parameter as the audit shows it: each player by name alone, as every page names them ("Ben", not
    "Ben (seat 1)"), in nested sentences and lists too."""
    if isinstance(value, Player):
        return value.name
    if isinstance(value, Message):
        return Message(value.code, value.template, {name: by_name(item) for name, item in value.params.items()})
    if isinstance(value, Listed):
        return Listed(tuple(by_name(item) for item in value.items), value.alternatives)
    return value


def translate_finding(finding: Finding) -> dict[str, Any]:
    """A finding of the audit as the API shows it: ``{severity, seq, code, message}``, its message in the
    language of the request (players by name, a transfer's reason named as the pages name it)."""
    said = by_name(finding.said)
    params = said.params
    if "transfer_reason" in params and current_language() != DEFAULT_LANGUAGE:
        params = {**params, "transfer_reason": _transfer_reason(params["transfer_reason"])}
    return {"severity": finding.severity, "seq": finding.seq, "code": finding.code,
            "message": translate(said.template, params, english(said))}


def translate_audit(report: Mapping[str, Any]) -> dict[str, Any]:
    """An audit report (:func:`nj_ledger.audit.audit`) as the API shows it: its findings and the differences
    of its re-computation written out in the language of the request.

    The report is copied, never changed: it may be shared.
    """
    recomputation = dict(report.get("recomputation") or {})
    if "differences" in recomputation:
        recomputation["differences"] = [{"seq": difference.seq, "message": render(by_name(difference.said))}
                                        for difference in recomputation["differences"]]
    findings = [translate_finding(finding) for finding in report.get("findings", [])]
    said = {(f["seq"], f["code"]): f["message"] for f in findings if f["code"] in ("undo", "adjustment")}
    corrections = [{**c, "message": said.get((c.get("seq"), "undo" if c.get("type") == "undo" else "adjustment"))}
                   for c in report.get("corrections", [])]  # each undo and adjustment in words, as its finding
    shown = {**report, "recomputation": recomputation, "corrections": corrections, "findings": findings}
    if "receipts" in report:
        shown["receipts"] = {**report["receipts"],
                             "findings": [translate_finding(finding) for finding in report["receipts"]["findings"]]}
    return shown


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
