"""Keeping the catalogs up to date: ``python -m api.catalog`` (``make translations``).

It does what ``pybabel extract`` and ``pybabel update`` would, in one step: the
pages' strings (``_``, ``gettext``, ``_l``, ``lazy_gettext`` in ``api/`` and its
templates) and the sentences marked ``N_`` there (problem titles, HTTP errors,
validation messages), the refusal templates of the core and the problems its
NJN reader reports, the API's problem details and refusals, the store's
refusals and the audit's findings, and what the command line says (its sentences,
the help of its commands and options, click's own words: :func:`cli_messages`);
then it lists the messages still waiting for their French.

Templates are the literal string arguments of the calls named in each of
:data:`TEMPLATE_SOURCES`, at the position given there (``pybabel extract -k
RuleViolation:2`` counts from 1; these from 0), either branch of a conditional
in that place, and the ``template=`` (or ``detail=``) keyword argument of those
calls. The phrases given as parameters of a sentence (``phrase``, and ``_bad``'s
third argument, what a rule option expects) are gathered too: the API writes
them out in the language of the request.
"""

from __future__ import annotations

import ast
import inspect
import string
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_python
from babel.messages.pofile import read_po, write_po

from .i18n import TRANSLATIONS

PROJECT = Path(__file__).resolve().parents[1]
CORE = PROJECT / "nj_ledger"
CORE_MODULES = ("actions.py", "checks.py", "decide.py", "settlement.py", "rules.py", "cards.py", "exchange.py",
                "seating/planner.py", "evenings/decisions.py", "evenings/tables.py")
# The calls whose string arguments are refusal templates, with the position of the template
# (0-based), see the module docstring.
ERROR_KEYWORDS: Mapping[str, int] = {
    "LedgerError": 1, "InvalidInput": 1, "RuleViolation": 1, "SeatingError": 1,  # (code, template, **params)
    "_invalid": 1,  # exchange.py: (field, template, **params)
    "_bad": 2,  # rules.py: (option, value, expected): its own template is in _bad's body
    "phrase": 0,  # a phrase or a sentence given as a parameter of another one
}
# The NJN reader's problems: Scanner.error(place, template, code, **params) and the calls that pass one on.
NOTATION_KEYWORDS: Mapping[str, int] = {
    **ERROR_KEYWORDS, "error": 1, "fail": 1, "finish": 0, "problem": 1, "N_": 0, "__init__": 1,
}


def store_errors(root: Path = CORE / "store") -> tuple[str, ...]:
    """The names of :class:`~nj_ledger.store.StoreError` and every class of the store derived from it."""
    classes = [node for path in sorted(root.glob("**/*.py"))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ClassDef)]
    names = {"StoreError"}
    while True:
        more = {c.name for c in classes if any(isinstance(b, ast.Name) and b.id in names for b in c.bases)} - names
        if not more:
            return tuple(sorted(names))
        names |= more


# The audit's findings and differences: finding(severity, seq, code, template), difference(seq, template).
AUDIT_KEYWORDS: Mapping[str, int] = {"finding": 3, "difference": 1, "phrase": 0}


# Every place sentences are written as templates: (files, under the project, and the calls that take one).
TEMPLATE_SOURCES: tuple[tuple[str, Mapping[str, int]], ...] = (
    *((f"nj_ledger/{name}", ERROR_KEYWORDS) for name in CORE_MODULES),  # the core's refusals
    ("nj_ledger/notation/*.py", NOTATION_KEYWORDS),  # the problems of an NJN record
    ("nj_ledger/analysis/*.py", ERROR_KEYWORDS),  # the solver's refusals (a position it cannot analyse)
    ("api/*.py", {"Problem": 2, **ERROR_KEYWORDS}),  # Problem(status, code, detail, params=…), a refusal
    ("nj_ledger/store/**/*.py", {**dict.fromkeys(store_errors(), 0), "__init__": 0}),  # a refusal of the store
    ("nj_ledger/application/*.py", {"__init__": 0}),  # a refusal of a use case
    ("nj_ledger/audit.py", AUDIT_KEYWORDS), ("nj_ledger/findings.py", AUDIT_KEYWORDS),  # the audit's findings
    ("nj_ledger/archive.py", {"_problem": 1}),  # what is wrong with a club's archive
)
TEMPLATE_KEYWORDS = ("template", "detail")

PAGE_SOURCES = [("api/**.py", "python"), ("api/templates/pages/**.html", "jinja2")]
# Nn_ (api/plurals.py): a template's singular and plural, a plural entry of the catalog.
PAGE_KEYWORDS = {"_": None, "gettext": None, "_l": None, "lazy_gettext": None, "N_": None, "Nn_": (1, 2)}


def _callee(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _template_arguments(path: Path, keywords: Mapping[str, int]) -> Iterator[tuple[ast.expr, int]]:
    """The argument in template position of every call named in ``keywords``, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        callee = _callee(node) if isinstance(node, ast.Call) else None
        if callee is None or callee not in keywords:
            continue
        assert isinstance(node, ast.Call)
        position = keywords[callee]
        for candidate in node.args[position:position + 1] + [
                kw.value for kw in node.keywords if kw.arg in TEMPLATE_KEYWORDS]:
            yield candidate, node.lineno


def _literals(node: ast.expr) -> Iterator[str]:
    """The sentences an argument can be: a literal string, or either branch of a conditional."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(ch.isalpha() for ch in node.value):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _literals(node.body)
        yield from _literals(node.orelse)


def error_templates(modules: tuple[str, ...] = CORE_MODULES, root: Path = CORE,
                    keywords: Mapping[str, int] = ERROR_KEYWORDS) -> Iterator[tuple[str, str, int]]:
    """``(template, module, line)`` for every literal refusal template in the core's modules.

    Templates are the literal string arguments of the calls in
    :data:`ERROR_KEYWORDS`, and the ``template=`` keyword of any of them.
    A sentence built with an f-string has no template to translate and is skipped.
    """
    for name in modules:
        for candidate, line in _template_arguments(root / name, keywords):
            for text in _literals(candidate):
                yield text, name, line


def _files(pattern: str, project: Path = PROJECT) -> list[Path]:
    return sorted(project.glob(pattern))


def templates(project: Path = PROJECT) -> Iterator[tuple[str, str, int]]:
    """``(template, path, line)`` for every template of :data:`TEMPLATE_SOURCES`: refusals, problems, findings."""
    for pattern, keywords in TEMPLATE_SOURCES:
        for path in _files(pattern, project):
            for candidate, line in _template_arguments(path, keywords):
                for text in _literals(candidate):
                    yield text, str(path.relative_to(project)), line


def written_out(project: Path = PROJECT) -> list[str]:
    """``path:line`` of every template of :data:`TEMPLATE_SOURCES` written out as an f-string (or with ``format``
    or ``%``): such a sentence cannot be found in the catalog, so it is never translated."""
    found = []
    for pattern, keywords in TEMPLATE_SOURCES:
        for path in _files(pattern, project):
            for candidate, line in _template_arguments(path, keywords):
                branches = [candidate]
                while branches:
                    node = branches.pop()
                    if isinstance(node, ast.IfExp):
                        branches += [node.body, node.orelse]
                    elif isinstance(node, ast.JoinedStr) or (isinstance(node, ast.BinOp) and isinstance(
                            node.op, ast.Mod)) or (isinstance(node, ast.Call) and _callee(node) == "format"):
                        found.append(f"{path.relative_to(project)}:{line}")
    return found


def marked(paths: tuple[str, ...] = ("api/*.py",), project: Path = PROJECT) -> Iterator[tuple[str, str, int]]:
    """``(sentence, path, line)`` for the sentences marked ``N_`` (translated where they are shown)."""
    for pattern in paths:
        for path in _files(pattern, project):
            with path.open("rb") as source:
                for line, _, message, _ in extract_python(source, {"N_": None}, [], {}):
                    if isinstance(message, str):
                        yield message, str(path.relative_to(project)), line


CLI = "cli/*.py"
# The command line's sentences (cli/language.py): said, counted, or marked; click's own words marked in cli/spoken.py.
CLI_KEYWORDS = {"_": None, "N_": None, "say": None, "say_n": (1, 2), "Nn_": (1, 2)}
COMMAND_DECORATORS = ("command", "group")  # @main.command(), @click.group(…): the function's docstring is its help
HELP_KEYWORDS = ("help", "show_default")  # an option's help, and a default said in words


def cli_messages(project: Path = PROJECT) -> Iterator[tuple[str | tuple[str, str], str, int]]:
    """``(message, path, line)`` for what the command line says (``cli/``): its sentences (a pair for a count), the
    help of each command (its docstring, cleaned as click cleans it) and of each option, click's words it marks."""
    for path in _files(CLI, project):
        where = str(path.relative_to(project))
        with path.open("rb") as source:
            for line, call, message, _ in extract_python(source, CLI_KEYWORDS, [], {}):
                parts = tuple(message) if isinstance(message, tuple | list) else (message,)  # each literal argument
                wanted = [part for part in parts[:2 if CLI_KEYWORDS[str(call)] else 1] if isinstance(part, str)]
                if len(wanted) == 2:
                    yield (wanted[0], wanted[1]), where, line
                elif len(wanted) == 1 and not CLI_KEYWORDS[str(call)]:
                    yield wanted[0], where, line
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and _callee(d) in COMMAND_DECORATORS for d in node.decorator_list):
                doc = ast.get_docstring(node, clean=True)
                if doc:
                    yield doc, where, node.lineno
            elif isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg in HELP_KEYWORDS:
                        for text in _literals(keyword.value):
                            yield inspect.cleandoc(text), where, keyword.value.lineno


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template is filled in with.

    >>> sorted(placeholders("It is {turn}'s turn, not {seat!r}'s."))
    ['seat', 'turn']
    """
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(template) if field}


def current_template(project: Path = PROJECT) -> Catalog:
    """Every message to translate: the pages' strings, the sentences marked ``N_``, and every template."""
    template = Catalog(project="Nain Jaune Ledger", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(project), method_map=PAGE_SOURCES, keywords=PAGE_KEYWORDS,
        options_map={"api/templates/pages/**.html": {"extensions": "jinja2.ext.i18n"}},
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    for text, path, line in templates(project):
        template.add(text, None, [(path, line)], flags=["python-brace-format"] if placeholders(text) else [])
    for message, path, line in cli_messages(project):  # last: the command line's entries close the catalog
        known = template.get(message if isinstance(message, str) else message[0])
        if known is not None:
            known.locations.append((path, line))
        else:
            template.add(message, None, [(path, line)])
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
