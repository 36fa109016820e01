"""The words of NJN: the scanner that cuts a text into tokens and tags (their names: :mod:`.tags`).

The scanner keeps the place (line, column) of every token and collects every
problem it meets (:mod:`.problems`) instead of stopping at the first, up to :data:`MAX_ERRORS`::

    >>> scanner = Scanner('[Players "Ana; Ben"]\\n0: 5H {sans 6}')
    >>> scanner.scan()
    >>> [tag.name for tag in scanner.tags], [(t.text, t.place) for t in scanner.tokens]
    (['Players'], [('0', (2, 1)), (':', (2, 2)), ('5H', (2, 4))])
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any, NamedTuple

from .problems import (
    MAX_DEPTH,
    MAX_ERRORS,
    NOTATION_ERROR,
    NotationError,
    Place,
    TextProblem,
    TooManyErrors,
    problem,
)
from .tags import GAME_TAGS, TAG_NAMES, tag_key

__all__ = ["MAX_ERRORS", "NOTATION_ERROR", "NotationError", "Place", "Scanner", "Tag", "Token", "TooManyErrors"]


# --- the scanner ----------------------------------------------------------------------------------------
class Token(NamedTuple):
    kind: str  # "word", "string" or "colon"
    text: str  # the word as written, or the string's decoded text
    place: Place


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    value: Any
    place: Place
    value_place: Place
    sound: bool = True  # False when its value has a problem of its own (reported): nests too deep, spells a NUL…


_DECODER = json.JSONDecoder()
_TAG_DECODER = json.JSONDecoder(strict=False)  # a tag's text may run over several lines, like [Notes]
_TAG_WINDOW = 1 << 18  # a tag's value is read from this many characters at most, unless it runs on past them
_SKIP = re.compile(r"(?:[\s,]+|\{[^}]*\}|;[^\n]*)*")  # blanks, commas, {comments} and ; comments
_WORD = re.compile(r'[^\s{}\[\]";:,]+')
# Blank space and comments, then a word or a colon: the tokens most of a text is made of, read in a run.
_PLAIN = re.compile(r'(?:[\s,]++|\{[^}]*+\}|;[^\n]*+)*+(?:([^\s{}\[\]";:,]++)|:)')
_PLAIN_RUN = 256  # tokens read at once at most
_STRING = re.compile(r'"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"')  # a text in quotes, closed on its line
_TAG_NAME = re.compile(r"\[[ \t]*([\w.\-]+)[ \t]*")
_UNSTORABLE = re.compile("\x00+|[\ud800-\udfff]+")  # NUL, and halves of surrogate pairs: no database keeps them
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def clip(text: str, length: int = 40) -> str:
    """A text as a sentence quotes it: cut after ``length`` characters.

    >>> clip("6X" * 30)
    '6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X…'
    """
    return text if len(text) <= length else text[:length] + "…"


def shown(value: Any) -> str:
    """A tag's value as a sentence quotes it: its ``repr``, cut after 60 characters."""
    return clip(repr(value), 60)


def nesting(value: Any) -> int:
    """How deep a JSON value nests: 0 for a number or a text, 1 for ``[4, 40]``, 2 for ``{"3": [4, 40]}``.

    The walk keeps its own stack, so no depth can exhaust Python's.

    >>> nesting({"profile": "classic", "deal_table": {"3": [15, 7]}})
    3
    """
    deepest, stack = 0, [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        inner = item.values() if isinstance(item, dict) else item
        stack.extend((part, depth + 1) for part in inner if isinstance(part, dict | list))
    return deepest


def unstorable(value: Any) -> bool:
    """Whether a JSON value holds a NUL character or half of a surrogate pair (in a text or a key)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def bad_escapes(json_text: str) -> Iterator[tuple[int, str]]:
    r"""``(offset, escape)`` of every JSON escape in ``json_text`` that writes a NUL or half of a surrogate pair.

    A surrogate pair written as two escapes is one character, and fine.

    >>> list(bad_escapes(r'["\u0000", "\ud83c\udccf", "\\u0000", "\udccf"]'))
    [(2, '\\u0000'), (39, '\\udccf')]
    """
    high = None  # a first half waiting for its second
    for match in _ESCAPE.finditer(json_text):
        code = int(match[1], 16) if match[1] else None
        if high is not None:
            paired = code is not None and 0xDC00 <= code <= 0xDFFF and match.start() == high.end()
            if not paired:
                yield high.start(), high.group()
            high = None
            if paired:
                continue
        if code is None:
            continue
        if code == 0 or 0xDC00 <= code <= 0xDFFF:
            yield match.start(), match.group()
        elif 0xD800 <= code <= 0xDBFF:
            high = match
    if high is not None:
        yield high.start(), high.group()


class Scanner:
    """One NJN text cut into tags and tokens, with every problem met on the way.

    The tags are read first (:meth:`read_tags`), the tokens after them as they
    are asked for (:meth:`token`), so that reading stops as soon as a text has
    more problems than are listed (:meth:`error` raises :class:`TooManyErrors`).
    """

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n").removeprefix("\ufeff")
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", self.text)]
        self.errors: list[TextProblem] = []
        self.tags: list[Tag] = []
        self.given: dict[str, Tag] = {}  # each tag by its name, as first given
        self.tokens: list[Token] = []
        self.pos: int | None = None  # where scanning goes on (None: not started)

    def place(self, index: int) -> Place:
        line = bisect_right(self.line_starts, index)
        return line, index - self.line_starts[line - 1] + 1

    def error(self, place: Place, template: str, code: str = NOTATION_ERROR, /, **params: Any) -> None:
        """Report a problem: ``template`` filled in with ``params``. Past :data:`MAX_ERRORS`, reading stops."""
        if len(self.errors) >= MAX_ERRORS:
            raise TooManyErrors
        self.errors.append(problem(place, template, code, **params))

    def line_end(self, index: int) -> int:
        end = self.text.find("\n", index)
        return len(self.text) if end < 0 else end

    # --- scanning, as far as asked ----------------------------------------------------------------------
    def scan(self) -> None:
        """Scan the whole text."""
        while self.step():
            pass

    def read_tags(self) -> None:
        """Scan up to the first token: the tags, and the problems among them."""
        while not self.tokens and self.step():
            pass

    def token(self, index: int) -> Token | None:
        """The token at ``index``, scanning on as far as needed; None past the last one."""
        tokens = self.tokens
        while len(tokens) <= index and self.step():
            pass
        return tokens[index] if index < len(tokens) else None

    def pass_over(self, pattern: re.Pattern[str]) -> bool:
        """Move past what ``pattern`` matches where scanning goes on, without scanning it; whether it matched."""
        found = pattern.match(self.text, self.pos if self.pos is not None else self.start())
        if found is None:
            return False
        self.pos = found.end()
        return True

    def start(self) -> int:
        """NUL characters and halves of surrogate pairs are problems at their place (no database keeps them);
        the text is read on with a replacement character for each, so that the columns stay where they are.
        The position scanning starts from: 0."""
        self.pos = 0
        if not _UNSTORABLE.search(self.text):
            return 0
        for match in _UNSTORABLE.finditer(self.text):
            if match.group().startswith("\x00"):
                self.error(self.place(match.start()), "A record may not hold NUL characters.")
            else:
                self.error(self.place(match.start()),
                           "A record may not hold halves of surrogate pairs: it is text that is not UTF-8.")
        self.text = re.sub("[\x00\ud800-\udfff]", "\ufffd", self.text)
        return 0

    def step(self) -> bool:
        """Scan the next tag, token or problem (or a run of words and colons); False at the end of the text."""
        if self.pos is None:
            self.start()
        if self.scan_plain():
            return True
        text, pos = self.text, self.pos
        skipped = _SKIP.match(text, pos if pos is not None else 0)
        assert skipped is not None  # it matches the empty text
        i = self.pos = skipped.end()
        if i >= len(text):
            return False
        c, place = text[i], self.place(i)
        if c == "{":
            self.pos = len(text)
            self.error(place, "This comment is never closed: a {mark} is missing.", mark="}")
            return False
        if c == "[":
            if self.tokens:
                self.error(place, "Tags come first, before the deals: move this tag up.")
            self.pos = self.scan_tag(i)
        elif c == '"':
            self.scan_string(i, place)
        elif c == ":":
            self.tokens.append(Token("colon", c, place))
            self.pos = i + 1
        elif c in "}]":
            self.pos = i + 1
            self.error(place, "This {mark} closes nothing.", mark=c)
        else:
            word = _WORD.match(text, i)
            assert word is not None  # every other character starts a word
            self.tokens.append(Token("word", word.group(), place))
            self.pos = word.end()
        return True

    def scan_plain(self) -> bool:
        """Words and colons, up to :data:`_PLAIN_RUN` of them, up to anything else: whether there were any."""
        pos = self.pos if self.pos is not None else self.start()  # (started first: it may mend the text)
        text, tokens, line_starts = self.text, self.tokens, self.line_starts
        plain, new = _PLAIN.match, tuple.__new__
        for _ in range(_PLAIN_RUN):
            found = plain(text, pos)
            if found is None:
                break
            pos = found.end()
            word = found.group(1)
            if word is None:
                kind, word, i = "colon", ":", pos - 1
            else:
                kind, i = "word", found.start(1)
            line = bisect_right(line_starts, i)
            tokens.append(new(Token, (kind, word, (line, i - line_starts[line - 1] + 1))))
        else:
            self.pos = pos
            return True
        found_any = pos != self.pos
        self.pos = pos
        return found_any

    def scan_string(self, i: int, place: Place) -> None:
        """``"text"``: a JSON string, closed on its line."""
        quoted = _STRING.match(self.text, i)
        if quoted is None:
            self.pos = self.line_end(i)
            self.error(place, 'This text in quotes has no closing " on its line (or a bad \\ escape).')
            return
        self.pos = quoted.end()
        try:
            value = _DECODER.decode(quoted.group())
        except ValueError:
            self.error(place, 'This text in quotes has no closing " on its line (or a bad \\ escape).')
            return
        self.tokens.append(Token("string", value, place))
        self.check_escapes(i, quoted.end())

    def scan_tag(self, start: int) -> int:
        """``[Name value]``: the value is JSON (``"text"``, ``60``, ``{...}``) or a bare word."""
        text, line_end = self.text, self.line_end(start)
        name = _TAG_NAME.match(text, start)
        if name is None:
            close = text.find("]", start, line_end)
            self.error(self.place(start), 'A tag is written [Name "value"], like [Players "Ana; Ben; Chloé"].')
            return line_end if close < 0 else close + 1
        i = end = name.end()
        value: Any = None
        try:
            value, end = self.decode_value(i)
        except ValueError:
            if text[i:i + 1] in ('"', "{", "["):
                self.error(self.place(i), "This tag's value is not well formed: check its quotes and brackets.")
                return line_end
        except RecursionError:  # nested thousands deep
            self.error(self.place(i), "This tag's value nests more than {depth} levels deep.", depth=MAX_DEPTH)
            self.name_tag(Tag(name.group(1), None, self.place(start), self.place(i), sound=False))
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
            value, sound = text[i:end].strip(), True
        elif nesting(value) > MAX_DEPTH:
            self.error(self.place(i), "This tag's value nests more than {depth} levels deep.", depth=MAX_DEPTH)
            value, sound = None, False
        else:
            sound = self.check_escapes(i, end)
        self.name_tag(Tag(name.group(1), value, self.place(start), self.place(i), sound))
        return end + 1

    def decode_value(self, i: int) -> tuple[Any, int]:
        """The JSON value at ``i`` and where it ends (ValueError if there is none).

        It is read from a window of the text, so that a value that is not well
        formed costs its own length, not the length of the text before it.
        """
        window = self.text[i:i + _TAG_WINDOW]
        try:
            value, length = _TAG_DECODER.raw_decode(window)
        except ValueError:
            if len(window) < _TAG_WINDOW:
                raise
            return _TAG_DECODER.raw_decode(self.text, i)  # a value as long as the window: read it whole
        return value, i + length

    def name_tag(self, tag: Tag) -> None:
        """Keep a tag by its name; an unknown name, or one given twice, is a problem."""
        self.tags.append(tag)
        name = TAG_NAMES.get(tag_key(tag.name))
        if name is None:
            near = get_close_matches(tag.name, list(TAG_NAMES.values()), n=1)
            if near:
                self.error(tag.place, "Unknown tag [{tag}]. Did you mean [{near}]?", tag=clip(tag.name), near=near[0])
            else:
                self.error(tag.place, "Unknown tag [{tag}]. The tags are {tags} and the rule options.",
                           tag=clip(tag.name), tags=", ".join(GAME_TAGS))
        elif name in self.given:
            self.error(tag.place, "[{tag}] is given twice (first on line {line}).",
                       tag=name, line=self.given[name].place[0])
        else:
            self.given[name] = tag

    def check_escapes(self, start: int, end: int) -> bool:
        """The JSON escapes of ``text[start:end]`` that write a NUL or half of a surrogate pair are problems;
        whether there were none."""
        if self.text.find("\\u", start, end) < 0:
            return True
        sound = True
        for offset, escape in bad_escapes(self.text[start:end]):
            sound = False
            place = self.place(start + offset)
            if escape[2:] == "0000":
                self.error(place, "{escape} writes a NUL character, which a record may not hold.", escape=escape)
            else:
                self.error(place, "{escape} is only half of a surrogate pair: write the character itself.",
                           escape=escape)
        return sound
