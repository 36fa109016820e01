"""What the ledger says, as values: a stable ``code``, an English ``template``, and raw ``params``.

Refusals (:class:`~nj_ledger.errors.LedgerError`), the audit's findings and the
problems of an NJN text all carry a :class:`Message`. The core never writes a
sentence out: the API fills the template in, in the language of the request
(``api.i18n``). A parameter is a raw value — a number, a card, a name, a
:class:`Player` (a seat and its player's name), such values :class:`Listed`, or
another :class:`Message` (a sentence inside a sentence, or a phrase of the
catalog: :func:`phrase`)::

    >>> said = Message("card-not-in-hand", "{player} was not dealt {card}.", {"player": Player(0, "Ana"), "card": "QS"})
    >>> said.code, said.params["player"].seat
    ('card-not-in-hand', 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Player:
    """A seat as a sentence names it: its number and the name of its player (shown "Ana (seat 0)")."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Listed:
    """Values shown one after another, joined by commas ("Ana (seat 0), Ben (seat 1)"), or, as ``alternatives``,
    by "or" ("first_turn or no_other_plays")."""

    items: tuple[Any, ...]
    alternatives: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    """A sentence as a value: what it is (``code``), its English ``template``, and its raw ``params``.

    A message nested as a parameter has no code of its own (``code`` is ``""``).
    """

    code: str
    template: str
    params: Mapping[str, Any] = field(default_factory=dict)


def message(code: str, template: str, /, **params: Any) -> Message:
    """``Message(code, template, params)`` with the parameters given by name."""
    return Message(code, template, params)


def phrase(template: str, /, **params: Any) -> Message:
    """A sentence or a phrase ("five different cards") given as a parameter of another one: no code of its own,
    translated where it is shown."""
    return Message("", template, params)
