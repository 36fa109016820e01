"""The words of NJN: tag names, how a player list is written, and the scanner that cuts a text into tokens.

The scanner keeps the place (line, column) of every token and collects every
problem it meets instead of stopping at the first::

    >>> scanner = Scanner('[Players "Ana; Ben"]\\n0: 5H {sans 6}')
    >>> scanner.scan()
    >>> [tag.name for tag in scanner.tags], [(t.text, t.place) for t in scanner.tokens]
    (['Players'], [('0', (2, 1)), (':', (2, 2)), ('5H', (2, 4))])
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..rules import OPTION_NAMES

Place = tuple[int, int]  # (line, column), both counted from 1
NOTATION_ERROR = "invalid-notation"


class NotationError(InvalidInput):
    """Every problem found in an NJN text, each ``{line, column, message, code}``.

    ``code`` is ``invalid-notation`` for text that is not well formed, or the
    engine's code (``out-of-sequence``…) for an action the rules refuse; the
    error's own ``code`` is its first problem's.
    """

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(
            first["code"], f"Line {first['line']}, column {first['column']}: {first['message']}{more}", errors=errors
        )
        self.errors = errors

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "errors": self.errors}


# --- tags ---------------------------------------------------------------------------------------------
def option_tag(option: str) -> str:
    """``may_stop`` → ``MayStop``; ``players`` (the allowed counts) → ``PlayerCounts``, beside ``Players``."""
    return "PlayerCounts" if option == "players" else "".join(part.capitalize() for part in option.split("_"))


def tag_key(name: str) -> str:
    """Tag names are matched without case, underscores or dashes: ``max_deals`` is ``MaxDeals``."""
    return re.sub(r"[_\-.]", "", name).casefold()


GAME_TAGS = ("Club", "Title", "Date", "Table", "Players", "StartingChips", "Dealer", "Rules", "Notes")
OPTION_TAGS = {option_tag(option): option for option in OPTION_NAMES}
TAG_NAMES = {tag_key(name): name for name in (*GAME_TAGS, *OPTION_TAGS)}


def split_players(text: str) -> list[str]:
    """``"Ana; Ben"`` → ``["Ana", "Ben"]``; ``;;`` is a ``;`` inside a name.

    >>> split_players("Ana; Ben;;Jr; Chloé")
    ['Ana', 'Ben;Jr', 'Chloé']
    """
    names, current, i = [], [], 0
    while i < len(text):
        if text.startswith(";;", i):
            current.append(";")
            i += 2
        elif text[i] == ";":
            names.append("".join(current).strip())
            current = []
            i += 1
        else:
            current.append(text[i])
            i += 1
    names.append("".join(current).strip())
    return names


def join_players(names: Sequence[str]) -> str:
    """The inverse of :func:`split_players`."""
    return "; ".join(name.replace(";", ";;") for name in names)


# --- the scanner ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "string" or "colon"
    text: str  # the word as written, or the string's decoded text
    place: Place


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    value: Any
    place: Place
    value_place: Place


_DECODER = json.JSONDecoder()
_TAG_DECODER = json.JSONDecoder(strict=False)  # a tag's text may run over several lines, like [Notes]
_SKIP = re.compile(r"(?:[\s,]+|\{[^}]*\}|;[^\n]*)*")  # blanks, commas, {comments} and ; comments
_WORD = re.compile(r'[^\s{}\[\]";:,]+')
_TAG_NAME = re.compile(r"\[[ \t]*([\w.\-]+)[ \t]*")


class Scanner:
    """One NJN text cut into tags and tokens, with every problem met on the way."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n").removeprefix("\ufeff")
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", self.text)]
        self.errors: list[dict[str, Any]] = []
        self.tags: list[Tag] = []
        self.tokens: list[Token] = []

    def place(self, index: int) -> Place:
        line = bisect_right(self.line_starts, index)
        return line, index - self.line_starts[line - 1] + 1

    def error(self, place: Place, message: str, code: str = NOTATION_ERROR) -> None:
        self.errors.append({"line": place[0], "column": place[1], "message": message, "code": code})

    def line_end(self, index: int) -> int:
        end = self.text.find("\n", index)
        return len(self.text) if end < 0 else end

    def scan(self) -> None:
        text, i = self.text, 0
        while (i := _SKIP.match(text, i).end()) < len(text):  # type: ignore[union-attr]
            c, place = text[i], self.place(i)
            if c == "{":
                self.error(place, "This comment is never closed: a } is missing.")
                return
            if c == "[":
                if self.tokens:
                    self.error(place, "Tags come first, before the deals: move this tag up.")
                i = self.scan_tag(i)
            elif c == '"':
                try:
                    value, i = _DECODER.raw_decode(text, i)
                except ValueError:
                    self.error(place, 'This text in quotes has no closing " on its line (or a bad \\ escape).')
                    i = self.line_end(i)
                else:
                    self.tokens.append(Token("string", value, place))
            elif c == ":":
                self.tokens.append(Token("colon", c, place))
                i += 1
            elif c in "}]":
                self.error(place, f"This {c} closes nothing.")
                i += 1
            else:
                word = _WORD.match(text, i)
                assert word is not None  # every other character starts a word
                self.tokens.append(Token("word", word.group(), place))
                i = word.end()

    def scan_tag(self, start: int) -> int:
        """``[Name value]``: the value is JSON (``"text"``, ``60``, ``{...}``) or a bare word."""
        text, line_end = self.text, self.line_end(start)
        name = _TAG_NAME.match(text, start)
        if name is None:
            self.error(self.place(start), 'A tag is written [Name "value"], like [Players "Ana; Ben; Chloé"].')
            close = text.find("]", start, line_end)
            return line_end if close < 0 else close + 1
        i = end = name.end()
        value: Any = None
        try:
            value, end = _TAG_DECODER.raw_decode(text, i)
        except ValueError:
            if text[i:i + 1] in ('"', "{", "["):
                self.error(self.place(i), "This tag's value is not well formed: check its quotes and brackets.")
                return line_end
        while text[end:end + 1] in (" ", "\t"):
            end += 1
        if end > i and not text.startswith("]", end) and text[i] in ('"', "{", "["):
            self.error(self.place(i), "This tag's value is not well formed: check its quotes and brackets.")
            return line_end
        if end == i or not text.startswith("]", end):  # a bare value: the text up to "]"
            end = text.find("]", i, line_end)
            if end < 0:
                self.error(self.place(start), "This tag is never closed: a ] is missing on its line.")
                return line_end
            value = text[i:end].strip()
        self.tags.append(Tag(name.group(1), value, self.place(start), self.place(i)))
        return end + 1
