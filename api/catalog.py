"""Keeping the catalogs up to date: ``python -m api.catalog`` (``make translations``).

It does what ``pybabel extract`` and ``pybabel update`` would, in one step: the
pages' strings (``_``, ``gettext``, ``_l``, ``lazy_gettext`` in ``api/`` and its
templates) and the refusal templates of the core, then lists the messages still
waiting for their French. The refusal templates are the literal string
arguments of the calls named in :data:`ERROR_KEYWORDS`, at the position given
there (``pybabel extract -k RuleViolation:2`` counts from 1; these from 0), and
the ``template=`` keyword argument of those calls. The phrases a rule option
expects (``_bad``'s third argument) are gathered too: :func:`api.i18n.translate_error`
translates a parameter that is one of the catalog's phrases.
"""

from __future__ import annotations

import ast
import string
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from .i18n import TRANSLATIONS

PROJECT = Path(__file__).resolve().parents[1]
CORE = PROJECT / "nj_ledger"
CORE_MODULES = ("decide.py", "rules.py", "cards.py", "exchange.py")
# The calls whose string arguments are refusal templates, with the position of the template
# (0-based), see the module docstring.
ERROR_KEYWORDS: Mapping[str, int] = {
    "LedgerError": 1, "InvalidInput": 1, "RuleViolation": 1,  # (code, template, **params)
    "_invalid": 1,  # exchange.py: (field, template, **params)
    "_bad": 2,  # rules.py: (option, value, expected): its own template is in _bad's body
}

PAGE_SOURCES = [("api/**.py", "python"), ("api/templates/pages/**.html", "jinja2")]
PAGE_KEYWORDS = {"_": None, "gettext": None, "_l": None, "lazy_gettext": None}


def _callee(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def error_templates(modules: tuple[str, ...] = CORE_MODULES, root: Path = CORE) -> Iterator[tuple[str, str, int]]:
    """``(template, module, line)`` for every literal refusal template in the core's modules.

    Templates are the literal string arguments of the calls in
    :data:`ERROR_KEYWORDS`, and the ``template=`` keyword of any of them.
    A sentence built with an f-string has no template to translate and is skipped.
    """
    for name in modules:
        path = root / name
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            callee = _callee(node) if isinstance(node, ast.Call) else None
            if callee is None or callee not in ERROR_KEYWORDS:
                continue
            assert isinstance(node, ast.Call)
            position = ERROR_KEYWORDS[callee]
            candidates = node.args[position:position + 1] + [kw.value for kw in node.keywords if kw.arg == "template"]
            for candidate in candidates:
                if isinstance(candidate, ast.Constant) and isinstance(candidate.value, str) and any(
                        ch.isalpha() for ch in candidate.value):
                    yield candidate.value, name, node.lineno


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template is filled in with.

    >>> sorted(placeholders("It is {turn}'s turn, not {seat!r}'s."))
    ['seat', 'turn']
    """
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(template) if field}


def current_template(project: Path = PROJECT) -> Catalog:
    """Every message to translate: the pages' strings and templates, and the core's refusal templates."""
    template = Catalog(project="Nain Jaune Ledger", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(project), method_map=PAGE_SOURCES, keywords=PAGE_KEYWORDS,
        options_map={"api/templates/pages/**.html": {"extensions": "jinja2.ext.i18n"}},
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    for text, module, line in error_templates():
        template.add(text, None, [(f"nj_ledger/{module}", line)], flags=["python-brace-format"])
    return template


def update_catalog(language: str = "fr", directory: Path = TRANSLATIONS) -> list[str]:
    """Bring a language's catalog up to date (``pybabel extract`` then ``update``); returns the untranslated ids."""
    po = directory / language / "LC_MESSAGES" / "messages.po"
    with po.open("rb") as source:
        catalog: Catalog = read_po(source, locale=language)
    before = [(m.id, m.locations) for m in catalog]
    catalog.update(current_template(), no_fuzzy_matching=True, update_header_comment=False)
    if [(m.id, m.locations) for m in catalog] != before or catalog.obsolete:
        with po.open("wb") as target:
            write_po(target, catalog, width=110, ignore_obsolete=True)
    return [str(message.id) for message in catalog if message.id and not message.string]


if __name__ == "__main__":  # python -m api.catalog (make translations): refresh the catalog, list what needs French
    missing = update_catalog()
    for text in missing:
        print(f"untranslated: {text}", file=sys.stderr)
    print(f"{len(missing)} messages wait for their French.", file=sys.stderr)
