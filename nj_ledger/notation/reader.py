"""Reading NJN: text in, a game document out, or every problem with its line and column."""

from __future__ import annotations

from typing import Any

from ..errors import LedgerError
from ..exchange import FORMAT, VERSION, load_game
from ..messages import phrase
from .header import Header, read_header
from .movetext import Movetext
from .problems import NotationError, TooManyErrors, problem
from .syntax import Scanner

# Which tag a refusal of the game's players, rules, chips or dealer is about.
_TAG_OF_FIELD = {"players": "Players", "rules": "Rules", "starting_chips": "StartingChips", "dealer": "Dealer"}
FIELD = "{field}: "  # how a refusal of a game document names its field


def parse_njn(text: str) -> dict[str, Any]:
    """The game document (see :mod:`nj_ledger.exchange`) an NJN text records, checked by the engine.

    Reading is forgiving: keywords and cards in any case, suit symbols, ``T``
    for 10, comments and blank space anywhere, optional tags left out. Every
    problem of form is reported at once, then the actions are executed and the
    first one the rules refuse is reported with the engine's sentence and code;
    both raise :class:`NotationError`, whose ``problems`` give each one's line,
    column and sentence (the first 1,000: reading stops there, and a last note
    says there are more).

    >>> doc = parse_njn('[Players "Ana; Ben; Chloé"] [StartingChips "60"]\\n'
    ...                 'deal 1 dealer 2 {Chloé deals}\\n0: 5♥ 6h 7♣ {sans 8}\\n')
    >>> doc["rules"], doc["dealer"], doc["actions"][1]
    ('classic', 2, {'type': 'play', 'seat': 0, 'cards': ['5H', '6H', '7C'], 'announced': []})
    >>> try:
    ...     parse_njn('[Players "Ana; Ben"] [StartingChips "60"]\\nDeal\\n0: 5H\\n1: 9Z 7C')
    ... except NotationError as problem:
    ...     first = problem.problems[0]
    ...     print(first.line, first.column, first.code, first.said.params)
    4 4 invalid-notation {'text': '9Z'}
    """
    scanner = Scanner(text)
    try:
        header = read_header(scanner)
        movetext = Movetext(scanner, header.players)
        actions = movetext.read()
    except TooManyErrors:
        raise NotationError(scanner.errors, more=True) from None
    if scanner.errors:
        raise NotationError(scanner.errors)
    dealer = header.dealer
    if dealer is None:  # a first deal that names its dealer names the game's first dealer
        dealer = next((action.get("dealer") for action in actions if action["type"] == "deal"), None)
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION, **header.meta, "players": header.players,
                                "rules": header.rules, "starting_chips": header.chips}
    if dealer is not None:
        document["dealer"] = dealer
    document["actions"] = actions
    _judge(document, header, movetext)
    return document


def _judge(document: dict[str, Any], header: Header, movetext: Movetext) -> None:
    """Execute the game; a refusal is reported where the refused action (or tag) was written."""
    try:
        load_game(document)
    except LedgerError as refusal:
        index = refusal.params.get("index")
        if refusal.code != "invalid-document" and index is not None:
            statement = movetext.statements[index]
            place = statement.cards.get(str(refusal.params.get("card")), statement.place)
            found = problem(place, refusal.template, refusal.code, **refusal.params)
        else:  # the table the tags describe: "[Players]: …", the engine's sentence without its field
            field = str(refusal.params.get("field")).split(".")[0]  # "rules.stake_unit": the rules
            tag = _TAG_OF_FIELD.get(field, "Players")
            place = header.places.get(tag, (1, 1))
            params = {name: value for name, value in refusal.params.items() if name not in ("field", "cause")}
            said = (phrase(refusal.template.removeprefix(FIELD), **params) if refusal.template.startswith(FIELD)
                    else phrase(refusal.template, **refusal.params))
            found = problem(place, "[{tag}]: {error}", refusal.params.get("cause", refusal.code), tag=tag, error=said)
        raise NotationError([found]) from None
