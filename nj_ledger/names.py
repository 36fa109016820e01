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


def redacted(value: Any, name: str, pseudonym: str) -> Any:
    """``value`` (plain JSON: texts, lists, objects) with the name ``name`` written ``pseudonym`` wherever a text
    holds it as a word of its own, whatever its case ("Ana", "ana arrived late", but not "Anatole"), in the keys of
    objects as in their values; key order kept. A member's erasure writes their name out of what the club holds
    this way.

    >>> redacted({"players": ["Ana", "Ben"], "reason": "ana arrived late", "by": "Anatole", "Ana": 5},
    ...          "Ana", "Joueur 1")
    {'players': ['Joueur 1', 'Ben'], 'reason': 'Joueur 1 arrived late', 'by': 'Anatole', 'Joueur 1': 5}
    """
    pattern = re.compile(rf"(?<!\w){re.escape(normal_name(name))}(?!\w)", re.IGNORECASE)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return pattern.sub(lambda _: pseudonym, unicodedata.normalize("NFC", item)) if pattern.search(
                unicodedata.normalize("NFC", item)) else item
        if isinstance(item, dict):
            return {walk(key): walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        return item

    return walk(value)
