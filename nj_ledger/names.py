"""Names people type — players' above all: one form for one name, and nothing in it that shows nothing.

A name is kept in Unicode's composed form (NFC): "Chloé" typed with its é as
one character or as an e and an accent is one name, one member, one key. A
name may not hold a character that shows nothing where it stands — a control
character, a format character (zero-width space, joiners, word joiner,
byte-order mark, the marks and overrides that reorder text), a line or
paragraph separator, a variation selector, a filler that draws as blank —
for "Ana" and "Ana" with a zero-width space in it would be two players no one
can tell apart. Names that look alike without being equal ("Аna", its А
Cyrillic, beside "Ana") are allowed, and flagged where they are typed
(:mod:`api.lookalikes`).

Only new names are held to this (a new game's players, new members, new
evenings): stored events are facts and are read back as they were recorded.

    >>> normal_name(" Chloe\\u0301 ") == "Chloé"
    True
    >>> code_point(hidden_character("Ana\\u200b") or "")
    'U+200B'
    >>> hidden_character("Chloé 🃏 Ana-Marie") is None
    True
    >>> name_key("CHLOE\\u0301") == name_key("chloé")
    True
    >>> sorted(["Marcel", "élise", "Zoé", "Élise", "Emile"], key=sort_key)
    ['Élise', 'élise', 'Emile', 'Marcel', 'Zoé']
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import Any, Final

# Categories of characters that show nothing: controls (NUL, tab, newline…), format characters (U+200B–U+200F,
# U+202A–U+202E, U+2060–U+2064, U+2066–U+206F, U+FEFF, tags…), line and paragraph separators.
HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Characters of other categories that draw nothing either: the combining grapheme joiner, the Hangul fillers,
# Khmer's inherent vowels, Mongolian's variation selectors, the blank Braille pattern, and the variation
# selectors (which change how the character before them is drawn, so that two names differ by nothing seen).
BLANK_CHARACTERS: Final = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10))) + "".join(map(chr, range(0xE0100, 0xE01F0))))


def hidden(char: str) -> bool:
    """Whether ``char`` shows nothing where it stands."""
    return char in BLANK_CHARACTERS or unicodedata.category(char) in HIDDEN_CATEGORIES


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` that shows nothing, or None."""
    return next((char for char in text if hidden(char)), None)


def code_point(char: str) -> str:
    """How a refusal names a character no one can see: ``U+200B``."""
    return f"U+{ord(char):04X}"


def normal_name(text: str) -> str:
    """``text`` composed (NFC), without the spaces around it."""
    return unicodedata.normalize("NFC", text).strip()


def name_key(name: str) -> str:
    """What two names are compared by: the same letters, whatever their case and however they were composed
    (Unicode's canonical caseless match, composed again to keep keys short)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name.strip()).casefold())


def sort_key(name: str) -> tuple[str, str, str]:
    """Where a name goes in alphabetical order, in French as in English: by its letters first, whatever their
    accents and case ("Élise" before "Marcel", "Émile" beside "Emile"; "œ" as "oe"; numbers by their value, "Table 2"
    before "Table 10"), then by accents and case, then as written, so that the order is the same every time."""
    letters = "".join(char for char in unicodedata.normalize("NFKD", name.strip()) if not unicodedata.combining(char))
    folded = letters.casefold().replace("œ", "oe").replace("æ", "ae")
    return re.sub(r"\d+", lambda digits: digits.group().zfill(12), folded), name_key(name), name


@cache
def hidden_ranges() -> tuple[tuple[int, int], ...]:
    """Every character :func:`hidden` refuses, as ranges of code points (for this Python's Unicode)."""
    ranges: list[list[int]] = []
    for number in range(sys.maxunicode + 1):
        if 0xD800 <= number <= 0xDFFF or not hidden(chr(number)):
            continue
        if ranges and ranges[-1][1] == number - 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    return tuple((first, last) for first, last in ranges)


class Forgetting:
    """How a member's erasure writes their name out of what the club holds: a text that *is* the name, in any of
    its ``spellings`` and whatever its case, becomes ``pseudonym`` whole; a longer text ("Ana arrived late") has the
    name replaced where it stands as a word of its own — not inside another word ("Anatole"), nor inside a compound
    name ("Ana-Marie", "Marie-Ana"), nor inside the name of one of the ``others`` (the club's other members and
    co-players: "Ana Marie" stays whole when it is somebody's name). Plain JSON (texts, lists, objects) is walked
    through, in the keys of objects as in their values, key order kept.

    >>> forget = Forgetting(["Ana", "ANA"], "Joueur 1", others=["Ana Marie", "Ben"])
    >>> forget({"players": ["ana", "Ana-Marie", "Ben"], "by": "Anatole", "Ana": 5})
    {'players': ['Joueur 1', 'Ana-Marie', 'Ben'], 'by': 'Anatole', 'Joueur 1': 5}
    >>> forget("Ana arrived late, after Ana Marie")
    'Joueur 1 arrived late, after Ana Marie'
    """

    def __init__(self, spellings: Iterable[str], pseudonym: str, others: Iterable[str] = ()) -> None:
        self.pseudonym = pseudonym
        spellings = [spelling for spelling in spellings if spelling.strip()]
        self.keys = frozenset(name_key(spelling) for spelling in spellings)
        words = {normal_name(spelling) for spelling in spellings}
        near = re.compile(_alternation(words), re.IGNORECASE) if words else None
        # only the other names the erased one could be found in need keeping whole
        kept = {normal_name(other) for other in others if name_key(other) not in self.keys and other.strip()
                and near is not None and near.search(normal_name(other))}
        self.pattern = re.compile(_alternation(kept | words), re.IGNORECASE) if words else None

    def text(self, text: str) -> str:
        """``text`` with the name written out of it."""
        if self.pattern is None:
            return text
        if name_key(text) in self.keys:
            return self.pseudonym
        composed = unicodedata.normalize("NFC", text)
        if not self.pattern.search(composed):
            return text
        return self.pattern.sub(lambda found: self.pseudonym if name_key(found.group()) in self.keys
                                else found.group(), composed)

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self(key): self(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [self(inner) for inner in value]
        return value


def _alternation(words: Iterable[str]) -> str:
    """A pattern finding any of ``words`` as a word of its own, the longest first: not beside a letter, nor joined
    to one by a hyphen or a dash (a compound name: "Ana-Marie", "Ana–Marie")."""
    either = "|".join(re.escape(word) for word in sorted(words, key=lambda word: (-len(word), word)))
    return rf"(?<!\w)(?<!\w[-\u2010\u2011\u2013])(?:{either})(?!\w)(?![-\u2010\u2011\u2013]\w)"
