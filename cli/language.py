"""The command line's language: French when the terminal's locale is French (``LANG=fr_FR.UTF-8``), else English.

The language is read as every POSIX program reads it, from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
(the first one set; ``C`` and ``POSIX`` are English), each time a sentence is written: the stdlib's
:mod:`gettext` does it. The catalog is the web app's (``api/translations``, the ``messages`` domain), bound for
the stdlib at the import of :mod:`cli` by :func:`bind`, so that click's own words ("Usage:", "Error:",
"Show this message and exit.") are found there too (click calls ``gettext.gettext``). English is the sentence as
written in the code, so an English terminal sees exactly what the code says.

Sentences are templates filled in after they are looked up (:func:`say`, :func:`say_n` for a count); the help of
commands and options is looked up where click writes it (:mod:`cli.spoken`). ``python -m api.catalog`` gathers
them all into the catalog.
"""

from __future__ import annotations

import gettext
from importlib.util import find_spec
from pathlib import Path
from typing import Any

DOMAIN = "messages"  # the catalog's domain, and the stdlib's default one (what click's gettext looks in)


def translations_folder() -> Path:
    """``api/translations``, found without importing the web app."""
    spec = find_spec("api")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "translations"


def bind() -> None:
    """Make the stdlib's ``messages`` domain (click's) the ledger's catalog."""
    gettext.bindtextdomain(DOMAIN, str(translations_folder()))


def catalog() -> gettext.NullTranslations:
    """The catalog of the terminal's language (a null one, English, unless the locale asks for French)."""
    return gettext.translation(DOMAIN, gettext.bindtextdomain(DOMAIN), fallback=True)


def french() -> bool:
    """Whether the terminal asks for French (and the French catalog is there)."""
    return isinstance(catalog(), gettext.GNUTranslations)


def _(text: str) -> str:
    """``text`` in the terminal's language."""
    return catalog().gettext(text)


def N_(text: str) -> str:
    """Marks a sentence for the catalog without translating it: it is translated where it is shown."""
    return text


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a sentence and its plural for the catalog without translating them."""
    return singular, plural


def _filled(translated: str, english: str, params: dict[str, Any]) -> str:
    if not params:
        return translated
    try:
        return translated.format_map(params)
    except (KeyError, IndexError, ValueError, AttributeError):  # a French that does not fit: the English
        return english.format_map(params)


def say(template: str, **params: Any) -> str:
    """``template`` in the terminal's language, filled in with ``params``."""
    return _filled(_(template), template, params)


def say_n(singular: str, plural: str, count: int, **params: Any) -> str:
    """The sentence for ``count`` (``ngettext``: French says 0 and 1 in the singular), filled in with ``params``
    (``count`` among them)."""
    english = singular if count == 1 else plural
    return _filled(catalog().ngettext(singular, plural, count), english, {"count": count, **params})


def refusal(said: Any) -> str:
    """What the core or the store said (a :class:`~nj_ledger.messages.Message`) in the terminal's language, by the
    rules the API writes it with (a card as a French deck prints it, the singular of a count of 0 or 1)."""
    from api.sentences import english, written  # not at the top: the API package loads Flask

    if not french():
        return english(said)
    translations = catalog()
    return written(said.template, said.params, translations.gettext, translations.ngettext)
