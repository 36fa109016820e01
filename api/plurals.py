"""Sentences that count something: their singular, said when the count is singular in the language of the request.

A template of the core says its count in the plural ("{player} has {left} cards left, not {count}."). When the
count that the noun goes with can be 1 — or 0, which French says in the singular ("il reste 0 carte") — the
template has its singular here, with the name of that count. :func:`api.i18n.translate` then asks the catalog
for the pair (``ngettext``: the French catalog's ``Plural-Forms`` says which form a number takes) and, in
English, says the singular for 1. ``make translations`` (:mod:`api.catalog`) gathers the pairs marked
:func:`Nn_` as plural entries of the catalog (``msgid``, ``msgid_plural``, ``msgstr[0]``, ``msgstr[1]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def Nn_(singular: str, plural: str, count: str) -> tuple[str, str, str]:
    """Marks a template's singular for the catalog (like ``ngettext``, without translating): ``count`` names the
    parameter that decides between them."""
    return plural, singular, count


# plural template → (its singular, the parameter it counts with)
PLURALS: Mapping[str, tuple[str, str]] = {
    plural: (singular, count) for plural, singular, count in (
        Nn_("{player} has only {left} card left, not {count}.",
            "{player} has only {left} cards left, not {count}.", "left"),
        Nn_("{player} has {left} card left, not {count}.",
            "{player} has {left} cards left, not {count}.", "left"),
        Nn_("{player} has {left} different card left; the reveal lists {count}.",
            "{player} has {left} different cards left; the reveal lists {count}.", "left"),
        Nn_("Seat {seat} was dealt {count} card; each hand has {size}.",
            "Seat {seat} was dealt {count} cards; each hand has {size}.", "count"),
        Nn_("Seat {seat} holds {left} card, not {count}.",
            "Seat {seat} holds {left} cards, not {count}.", "left"),
        Nn_("{player} cannot hold {count} cards: only {unseen} card not yet seen can be in that hand.",
            "{player} cannot hold {count} cards: only {unseen} cards not yet seen can be in that hand.", "unseen"),
        Nn_("{player}'s {count} card cannot make {points} points: {count} card not yet seen, with the honours "
            "told, makes {least} to {most} points.",
            "{player}'s {count} cards cannot make {points} points: {count} cards not yet seen, with the honours "
            "told, make {least} to {most} points.", "count"),
        Nn_("{player}'s {count} card cannot make {points} points: {count} card not yet seen, with the honours "
            "told, makes {least} to {most} points, but never exactly {points}.",
            "{player}'s {count} cards cannot make {points} points: {count} cards not yet seen, with the honours "
            "told, make {least} to {most} points, but never exactly {points}.", "count"),
        Nn_("{player}'s count of {count} card making {points} points",
            "{player}'s count of {count} cards making {points} points", "count"),
    )
}


def counted(template: str, params: Mapping[str, Any] | None) -> tuple[str, int] | None:
    """``(singular, count)`` when ``template`` has a singular and its count is among ``params``; else None."""
    if template not in PLURALS or not params:
        return None
    singular, name = PLURALS[template]
    count = params.get(name)
    if isinstance(count, bool) or not isinstance(count, int):
        return None
    return singular, count
