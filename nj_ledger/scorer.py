"""What the scorer page computes with no connection: the core's own rules, run in the page under Pyodide.

The page (``api/static/pages/core.js``) loads this module and the modules it imports, served from the installed
core (``GET /core/modules.json``), so that the state it shows while actions wait in its outbox is the one the
server will compute from the same actions — the same :func:`~nj_ledger.decide.execute`, the same
:func:`~nj_ledger.reducer.replay`, the same :func:`~nj_ledger.view.state_view` — and what it lets the scorer
tap is what those rules accept. Values cross to the page as JSON text (the page keeps the states it is given
as Python objects, between calls).

    >>> import json
    >>> from nj_ledger import execute, new_game, replay
    >>> log = [new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60, dealer=0)]
    >>> log += execute(replay(log), [{"type": "deal"}])[1]
    >>> records = [{"seq": seq, "type": e.type, "data": e.data, "deal": e.deal, "v": e.v}
    ...            for seq, e in enumerate(log, 1)]
    >>> known = state_of(json.dumps(records))
    >>> shown = project(known, json.dumps([[{"type": "play", "seat": 1, "cards": ["5H", "6H"]}]]))
    >>> answer = json.loads(shown.answer)
    >>> answer["applied"], answer["state"]["deal"]["turn"], answer["state"]["deal"]["expected"]
    (1, 2, '7')
    >>> taps = json.loads(tappable(shown.state, "[]", -1))
    >>> taps["cards"]["7H"], taps["cards"]["5H"], taps["cards"]["8H"]  # 8H: Ben, after two passes (a skip)
    ([0, 1, 2], [], [1])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import seat_number
from .cards import DECK, Card, parse_cards
from .decide import execute
from .errors import LedgerError
from .events import event_from_dict
from .reducer import replay
from .state import GameState
from .view import expected_label, state_view, wanted_label

# A play that is refused only because the player may not stop there (``may_stop: false``, hands known) may still
# be the start of a longer play: its cards stay tappable, the seat is not offered until the play may end.
MAY_GO_ON = frozenset({"must-continue"})


@dataclass
class Projection:
    """The state after the waiting actions, and what the page shows of it (``answer``, JSON text):
    ``{"state": <state_view>, "events": [records], "applied": n, "refusal": null | {"index", "code"}}``."""

    state: GameState
    answer: str


def state_of(records: str) -> GameState:
    """The state a game's log gives (``records``: the API's records, JSON text, oldest first)."""
    return replay(event_from_dict(record) for record in json.loads(records))


def project(known: GameState, batches: str) -> Projection:
    """The state after each waiting batch of actions (``batches``: JSON text, a list of action lists, oldest
    first), each applied as the server applies it. Stops at the first batch the rules refuse: ``applied`` says
    how many were applied, ``refusal`` which one stopped and why (its code)."""
    state = known
    events: list[dict[str, Any]] = []
    applied = 0
    refusal = None
    for index, actions in enumerate(json.loads(batches)):
        try:
            state, made = execute(state, actions)
        except LedgerError as refused:
            refusal = {"index": index, "code": refused.code}
            break
        first = state.version - len(made) + 1
        events += [{"seq": first + at, "deal": event.deal, "type": event.type, "data": event.data, "v": event.v}
                   for at, event in enumerate(made)]
        applied += 1
    answer = {"state": state_view(state), "events": events, "applied": applied, "refusal": refusal}
    return Projection(state, json.dumps(answer))


def _accepts(state: GameState, seat: int, cards: Sequence[Card], partial: bool) -> bool:
    try:
        execute(state, [{"type": "play", "seat": seat, "cards": list(cards), "announced": []}])
    except LedgerError as refused:
        return partial and refused.code in MAY_GO_ON
    return True


def taps(state: GameState, tapped: Sequence[object], seat: int | None = None) -> dict[str, Any]:
    """What the scorer may tap now, the cards ``tapped`` so far, by ``seat`` (None: any seat):

    - ``cards``: for each card, the seats that may lay the cards tapped then it;
    - ``recordable``: the seats that may lay the cards tapped, as they are; ``starts``: the seats that may start a
      play with them (a play refused only because its player may not stop there may go on);
    - ``seen``: the cards seen this deal (a hand revealed card by card cannot hold them);
    - ``next``: what the run wants after the cards tapped (the deal's ``expected`` when none is), as the state
      writes it; ``honours``: the cards tapped that their player may announce;
    - ``version``: the state's version, whose answer this is.

    A card that is not one, or a seat the table does not have, is refused (``invalid-card``, ``unknown-seat``).
    """
    cards = parse_cards(list(tapped))
    seats = [seat_number(seat, len(state.players))] if seat is not None else list(range(len(state.players)))
    deal = state.deal
    answer: dict[str, Any] = {"version": state.version, "cards": {}, "recordable": [], "starts": [], "seen": [],
                              "next": None, "honours": []}
    if deal is None:
        return answer
    rules = state.rules
    answer["seen"] = sorted(deal.seen)
    answer["next"] = wanted_label(*rules.wanted_after(cards[-1])) if cards else expected_label(deal)
    answer["honours"] = [card for card in cards if rules.announceable(card)]
    if state.status == "playing":
        answer["cards"] = {card: [] if card in cards else [
            seat for seat in seats if _accepts(state, seat, [*cards, card], partial=True)] for card in DECK}
        if cards:
            answer["recordable"] = [seat for seat in seats if _accepts(state, seat, cards, partial=False)]
            answer["starts"] = [seat for seat in seats if _accepts(state, seat, cards, partial=True)]
        else:
            answer["starts"] = seats
    return answer


def tappable(state: GameState, pending: str, chosen: int) -> str:
    """:func:`taps` for the page's worker, in and out as JSON text (``chosen``: -1 for any seat)."""
    return json.dumps(taps(state, json.loads(pending), None if chosen < 0 else chosen))


__all__ = ["Projection", "project", "state_of", "tappable", "taps"]
