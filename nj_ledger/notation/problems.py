"""The problems of an NJN text: where each one is, and what it is (a :class:`~nj_ledger.messages.Message`).

A reader collects every problem it meets instead of stopping at the first, up
to :data:`MAX_ERRORS`; :class:`NotationError` lists them in the order of the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..messages import Message, phrase

Place = tuple[int, int]  # (line, column), both counted from 1
NOTATION_ERROR = "invalid-notation"
MAX_ERRORS = 1000  # a text's problems are listed up to this many: reading stops at the next one
MAX_DEPTH = 32  # how deep a tag's JSON value may nest (a rules object nests three deep)


def N_(template: str) -> str:
    """Marks a sentence kept in a constant as a template for the catalog of translations (``gettext_noop``)."""
    return template


MORE_ERRORS = N_("… and more errors: reading stopped after the first {count}.")  # the note after the last listed


@dataclass(frozen=True, slots=True)
class TextProblem:
    """One problem of a text: where it is (``line``, ``column``, from 1) and what it is (a :class:`Message`:
    ``invalid-notation`` for text that is not well formed, or the engine's code for an action the rules refuse)."""

    line: int
    column: int
    said: Message

    @property
    def code(self) -> str:
        return self.said.code


def problem(place: Place, template: str, code: str = NOTATION_ERROR, /, **params: Any) -> TextProblem:
    """One problem of a text: where it is, its code, its template and parameters.

    >>> problem((2, 4), "{text!r} is not a card: write rank and suit, like 10D or QS.", text="5X").said.params
    {'text': '5X'}
    """
    return TextProblem(place[0], place[1], Message(code, template, params))


def listed(problems: Sequence[TextProblem], more: bool = False) -> list[TextProblem]:
    """Problems in the order of the text, the first :data:`MAX_ERRORS` of them, then a note if there are more.

    ``more`` says there are more than those given.
    """
    found = sorted((p for p in problems if p.said.template != MORE_ERRORS), key=lambda p: (p.line, p.column))
    if not more and len(found) == len(problems) and len(found) <= MAX_ERRORS:
        return found
    kept = found[:MAX_ERRORS]
    return [*kept, problem((kept[-1].line, kept[-1].column), MORE_ERRORS, count=MAX_ERRORS)]


class NotationError(InvalidInput):
    """Every problem found in an NJN text (the first :data:`MAX_ERRORS`), each a :class:`TextProblem`.

    The error's own ``code`` is its first problem's. A text with more problems
    than are listed ends its list with a note, ``… and more errors``. The
    error's own sentence ("Line 5, column 7: … (and 3 more)") is its
    ``template`` and ``params``, the first problem's sentence among them as ``error``.
    """

    def __init__(self, problems: Sequence[TextProblem], more: bool = False) -> None:
        self.problems = listed(problems, more)
        first, others = self.problems[0], len(self.problems) - 1
        where = {"line": first.line, "column": first.column, "error": phrase(first.said.template, **first.said.params)}
        if self.problems[-1].said.template == MORE_ERRORS:
            super().__init__(first.code, "Line {line}, column {column}: {error} (and over {more} more)",
                             more=others - 1, **where)
        elif others > 1:
            super().__init__(first.code, "Line {line}, column {column}: {error} (and {more} more)",
                             more=others, **where)
        elif others == 1:
            super().__init__(first.code, "Line {line}, column {column}: {error} (and 1 more)", **where)
        else:
            super().__init__(first.code, "Line {line}, column {column}: {error}", **where)


class TooManyErrors(Exception):
    """Raised by :meth:`Scanner.error` past :data:`MAX_ERRORS` problems: reading stops there."""
