"""The core's sentences written out: a template filled in with its raw parameters.

What the core says is a :class:`~nj_ledger.messages.Message` — a code, an English
template, raw parameters (numbers, cards, names, players, nested sentences). This
module writes one out in English (:func:`english`), or in the language of a
catalog (:func:`written`, given its ``gettext`` and ``ngettext``): :mod:`api.i18n`
writes it so in the language of a request, the command line in the terminal's
(:mod:`cli.language`), with the same rules for each kind of parameter
(:func:`shown`; a card as a French deck prints it). It imports no web framework.

    >>> english(Message("card-not-in-hand", "{player} was not dealt {card}.", {"player": Player(0, "Ana"), "card": 7}))
    'Ana (seat 0) was not dealt 7.'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from nj_ledger.cards import Card
from nj_ledger.messages import Listed, Message, Player

from .plurals import counted

Writer = Callable[[str, Mapping[str, Any]], str]
Lookup = Callable[[str], str]  # a catalog's gettext
PluralLookup = Callable[[str, str, int], str]  # a catalog's ngettext

log = logging.getLogger("nj_ledger.api")


def N_(text: str) -> str:
    """Marks a sentence for the catalog without translating it (``gettext_noop``): it is translated where shown."""
    return text


SEAT_NAME = N_("{name} (seat {seat})")  # how a sentence names a player: "Ana (seat 0)"
OR = N_("{before} or {after}")  # alternatives: "first_turn or no_other_plays"
FIELD_PREFIX = N_("{field}: ")  # a field's sentence: the prefix is looked up on its own


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


# --- cards, as a French table reads them ------------------------------------------------------------
# The API's card codes ("QS", "10D") are its own; a French sentence shows a card as a French deck prints it: "D♠"
# (dame), "V♣" (valet), "R♥" (roi), "10♦", "A♠". The parameters that hold cards (or a rank the run wants, "J",
# "JH"): a Card anywhere, and under these names a card's code.
CARD_PARAMS = frozenset({"card", "cards", "lowest", "expected", "announceable", "honours", "best", "played"})
CARD_CODE = re.compile(r"(A|[2-9]|10|J|Q|K)([CDHS])?")
FRENCH_RANK = {"J": "V", "Q": "D", "K": "R"}
SUIT_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def french_card(code: str) -> str:
    """A card's code ("QS") or a rank ("J", "JH") as a French deck prints it ("D♠", "V", "V♥"); other text as it is.

    >>> french_card("QS"), french_card("10D"), french_card("JH"), french_card("K"), french_card("seat:1")
    ('D♠', '10♦', 'V♥', 'R', 'seat:1')
    """
    match = CARD_CODE.fullmatch(code)
    if match is None:
        return code
    rank, suit = match.groups()
    return FRENCH_RANK.get(rank, rank) + (SUIT_SYMBOL[suit] if suit else "")


def french_cards(name: str, value: Any) -> Any:
    """A parameter with the cards in it written as a French deck prints them."""
    if isinstance(value, Card) or (name in CARD_PARAMS and isinstance(value, str)):
        return french_card(str(value))
    if isinstance(value, Listed):
        return Listed(tuple(french_cards(name, item) for item in value.items), value.alternatives)
    return value


# --- a sentence in the language of a catalog ------------------------------------------------------
def english_sentence(template: str, params: Mapping[str, Any] | None = None, english: str | None = None) -> str:
    """The English of a template, ``english`` (the sentence as written) unless its count is said in the singular
    (:mod:`api.plurals`: 1 in English), then its singular filled in."""
    plural = counted(template, params)
    one = plural is not None and plural[1] == 1
    if english is None or (one and english == fill(template, params)):
        english = fill(plural[0] if plural is not None and one else template, params)
    return english


def written(template: str, params: Mapping[str, Any] | None, gettext: Lookup, ngettext: PluralLookup,
            english: str | None = None) -> str:
    """A sentence in the language of a catalog (its ``gettext`` and ``ngettext``): ``template`` looked up and
    filled in with ``params``, each nested sentence written the same way.

    ``english`` is the sentence as written (by default ``template`` filled in,
    :func:`english_sentence`); it is the answer without a translation, or when
    the translation does not fit the parameters. A template that starts with
    ``"{field}: "`` and is not in the catalog as a whole is looked up without it
    (a document's refusal, a field's validation message). Names a club chose are
    never translated; a card is shown as a French deck prints it ("D♠"). A
    template that counts (:mod:`api.plurals`) takes the catalog's plural entry,
    as the language's ``Plural-Forms`` chooses (French: 0 and 1 in the singular).
    """
    plural = counted(template, params)
    english = english_sentence(template, params, english)
    translated = gettext(template)
    if plural is not None:
        chosen = ngettext(plural[0], template, plural[1])
        translated = chosen if chosen not in (plural[0], template) else translated
    if translated == template and template.startswith(FIELD_PREFIX):  # "{field}: " + a sentence of the catalog
        rest = template[len(FIELD_PREFIX):]
        translated = gettext(rest)
        translated = gettext(FIELD_PREFIX) + translated if translated != rest else template
    if translated == template:
        return english
    if not params:
        return translated  # written out as it stands, like the English

    def write(inner: str, inner_params: Mapping[str, Any]) -> str:
        return written(inner, inner_params, gettext, ngettext)

    try:
        return translated.format_map({name: shown(french_cards(name, value), write) for name, value in params.items()})
    except (KeyError, IndexError, ValueError, AttributeError):
        log.warning("The French of %r does not fit its parameters", template)
        return english
