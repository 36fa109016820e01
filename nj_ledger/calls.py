"""What a player says on laying cards, as the table hears it: "Valet qui prend, Roi et je recommence, sans 8".

The rules decide the calls (an honour announced takes its box, a card that ends the run starts a new one, the
last card goes out, what the run wants next); each interface words them its own way — the NJN writer in its
comments, the replay page in French at the table — from this one list.

    >>> from nj_ledger import execute, new_game, replay
    >>> log = [new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60, dealer=0)]
    >>> log += execute(replay(log), [{"type": "deal"}])[1]
    >>> play = {"type": "play", "seat": 1, "cards": ["JC", "QC", "KC", "7D"], "announced": ["JC"]}
    >>> after = execute(replay(log), [play])[0]
    >>> calls_view(after, play)
    [{'call': 'takes', 'card': 'JC'}, {'call': 'restarts', 'card': 'KC'}, {'call': 'wants', 'expected': '8'}]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .cards import Card, parse_card
from .state import GameState
from .view import expected_label

TAKES = "takes"  # an honour (or a hoc) announced: "Valet qui prend !"
RESTARTS = "restarts"  # a card that ends the run, its player goes on: "Roi et je recommence"
OUT = "out"  # the last card of the hand: "J'arrête !"
GRAND_OPERA = "grand_opera"  # gone out in one play: "Grand Opéra !"
WANTS = "wants"  # what the run wants next: "sans 8"
KINDS = (TAKES, RESTARTS, OUT, GRAND_OPERA, WANTS)


class Call(NamedTuple):
    kind: str
    card: Card | None = None


def play_calls(after: GameState, play: Mapping[str, Any]) -> list[Call]:
    """The calls of ``play`` (a play's data), ``after`` the state it made; a ``wants`` call is for the deal's
    ``expected`` in that state."""
    deal = after.deal
    assert deal is not None
    cards = [parse_card(card) for card in play["cards"]]
    announced = {parse_card(card) for card in play.get("announced") or ()}
    out = deal.winner == play["seat"]
    calls = []
    for position, card in enumerate(cards):
        if card in announced:
            calls.append(Call(TAKES, card))
        if after.rules.ends_run(card) and not (out and position == len(cards) - 1):
            calls.append(Call(RESTARTS, card))
    if out:
        calls.append(Call(OUT))
        if deal.grand_opera:
            calls.append(Call(GRAND_OPERA))
    elif deal.expected is not None:
        calls.append(Call(WANTS))
    return calls


def calls_view(after: GameState, play: Mapping[str, Any]) -> list[dict[str, str]]:
    """:func:`play_calls` as the API shows them: ``{"call", "card"}``, ``{"call": "wants", "expected"}``."""
    shown: list[dict[str, str]] = []
    for call in play_calls(after, play):
        if call.kind == WANTS:
            assert after.deal is not None
            shown.append({"call": WANTS, "expected": expected_label(after.deal) or ""})
        elif call.card is not None:
            shown.append({"call": call.kind, "card": str(call.card)})
        else:
            shown.append({"call": call.kind})
    return shown
