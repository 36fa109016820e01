"""Names that look alike without being the same: "Аna", its А Cyrillic, beside "Ana".

Such a name is allowed — it may be another person — but the page that starts a
game asks first (``POST /clubs/{club}/players/look-alikes``): "Аna looks like
Ana: the same person?". Two names look alike when each character of one is
the other's, or a homoglyph of it in the table of ``confusable_homoglyphs``
(Unicode's confusables, both ways), once spaces are made one and what shows
nothing is left out; as typed, or both without case ("аna" looks like "Ana").
Names that are one member's (the same letters, whatever their case and
composition: :func:`nj_ledger.names.name_key`) are the same name, not look-alikes.

    >>> looks_alike("\\u0410na", "Ana"), looks_alike("Ilona", "llona"), looks_alike("Léa", "Lea")
    (True, True, False)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache

from confusable_homoglyphs import confusables

from nj_ledger.names import hidden, name_key


@cache
def _homoglyphs(char: str) -> frozenset[str]:
    """The single characters the table says ``char`` may be taken for (its entries wrapped in direction marks
    unwrapped; the entries of several characters left out)."""
    found = confusables.is_confusable(char, greedy=True) or []
    glyphs = ("".join(c for c in glyph["c"] if not hidden(c)) for entry in found for glyph in entry["homoglyphs"])
    return frozenset(glyph for glyph in glyphs if len(glyph) == 1)


@cache
def _shape(char: str) -> str:
    """One character for all those that look like ``char``: the least of its class. The table pairs each
    character with its prototype (Unicode's confusables), so a character's class is itself, its homoglyphs, and
    theirs (another character of the same prototype)."""
    near = _homoglyphs(char)
    return min({char, *near, *(far for glyph in near for far in _homoglyphs(glyph))})


def skeleton(name: str) -> str:
    """What ``name`` looks like: its characters decomposed, those that show nothing left out, spaces made one,
    each character replaced by the least of those that look like it."""
    shown = "".join(c for c in unicodedata.normalize("NFD", name) if not hidden(c))
    return "".join(_shape(char) for char in " ".join(shown.split()))


def skeletons(name: str) -> frozenset[str]:
    """What ``name`` looks like as typed and without case."""
    return frozenset({skeleton(name), skeleton(name.casefold())})


def looks_alike(name: str, other: str) -> bool:
    """Whether two names that are not the same look alike."""
    return name_key(name) != name_key(other) and bool(skeletons(name) & skeletons(other))


def look_alikes(names: Iterable[str], members: Iterable[str]) -> list[dict[str, str]]:
    """For each name of ``names``, the members (and the other names before it) it looks like without being
    them: ``[{"name": "Аna", "looks_like": "Ana"}]``, in the order of ``names``; a name that is a member is
    never flagged against that member."""
    known: dict[str, list[str]] = {}
    for member in members:
        for shape in skeletons(member):
            known.setdefault(shape, []).append(member)
    found: list[dict[str, str]] = []
    for name in names:
        alike: dict[str, str] = {}  # by key: a member and a name that is the member are named once, the member
        for shape in skeletons(name):
            for other in known.get(shape, ()):
                if looks_alike(name, other):
                    alike.setdefault(name_key(other), other)
        found += [{"name": name, "looks_like": other} for other in alike.values()]
        for shape in skeletons(name):
            known.setdefault(shape, []).append(name)
    return found
