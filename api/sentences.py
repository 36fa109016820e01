"""The core's sentences written out: a template filled in with its raw parameters.

What the core says is a :class:`~nj_ledger.messages.Message` — a code, an English
template, raw parameters (numbers, cards, names, players, nested sentences). This
module writes one out in English (:func:`english`, also what the CLI prints);
:mod:`api.i18n` does the same in the language of a request, with the same rules
for each kind of parameter (:func:`shown`). It imports no web framework.

    >>> english(Message("card-not-in-hand", "{player} was not dealt {card}.", {"player": Player(0, "Ana"), "card": 7}))
    'Ana (seat 0) was not dealt 7.'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nj_ledger.messages import Listed, Message, Player

Writer = Callable[[str, Mapping[str, Any]], str]


def N_(text: str) -> str:
    """Marks a sentence for the catalog without translating it (``gettext_noop``): it is translated where shown."""
    return text


SEAT_NAME = N_("{name} (seat {seat})")  # how a sentence names a player: "Ana (seat 0)"
OR = N_("{before} or {after}")  # alternatives: "first_turn or no_other_plays"


def shown(value: Any, write: Writer) -> Any:
    """A raw parameter as a sentence shows it, each template written by ``write`` (:func:`fill` for English,
    :func:`api.i18n.translate` for the language of a request): a player by name and seat, a nested sentence or
    phrase written out, listed values joined; any other value as it is."""
    if isinstance(value, Player):
        return write(SEAT_NAME, {"name": value.name, "seat": value.seat})
    if isinstance(value, Message):
        return write(value.template, value.params)
    if isinstance(value, Listed):
        if not value.alternatives:
            return ", ".join(str(shown(item, write)) for item in value.items)
        items = [str(shown(item, write)) for item in value.items]
        joined = items[0] if items else ""
        for item in items[1:]:
            joined = write(OR, {"before": joined, "after": item})
        return joined
    return value


def fill(template: str, params: Mapping[str, Any] | None = None) -> str:
    """The English sentence: ``template`` filled in with ``params``.

    A template without parameters is written out as it stands (braces and all).

    >>> fill("There is no club {club!r}.", {"club": "x"})
    "There is no club 'x'."
    """
    if not params:
        return template
    try:
        return template.format_map({name: shown(value, fill) for name, value in params.items()})
    except (KeyError, IndexError, ValueError, AttributeError):
        return template


def english(said: Message) -> str:
    """What the core or the store said, written out in English."""
    return fill(said.template, said.params)
