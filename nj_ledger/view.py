"""The game state as the API shows it (SPEC §5): the view of a :class:`~nj_ledger.state.GameState`.

One definition, used by the server and by the scorer page with no connection: the API answers with it
(:class:`api.schemas.GameStateSchema` declares the answer's fields and dumps the view into it,
:mod:`api.dumping`), and the scorer page runs it under Pyodide (:mod:`nj_ledger.scorer`) to show the state of
the actions still waiting to be sent. It is here, in the core, for that: plain values, no framework.
tests/api/test_dumping.py holds the view to exactly the declared fields on games of every profile.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .cards import Card, rank_label
from .state import READY, DealState, GameState


def wanted_label(rank: int | None, suit: str | None) -> str | None:
    """What a run wants, as the API writes it: ``"8"``, or ``"8H"`` in suit play; None for a new run."""
    if rank is None:
        return None
    return rank_label(rank) + (suit or "")


def expected_label(deal: DealState) -> str | None:
    return wanted_label(deal.expected, deal.expected_suit)


def state_view(state: GameState) -> dict[str, Any]:
    """The game state as the API shows it (SPEC §5), without the store's ``id`` and ``club``."""
    deal = state.deal
    deal_view = None
    if deal is not None:
        open_deal = not deal.ended
        deal_view = {
            "number": deal.number,
            "dealer": deal.dealer,
            "first_hand": deal.first_hand,
            "turn": deal.turn if open_deal and deal.winner is None else None,
            "expected": expected_label(deal) if open_deal and deal.winner is None else None,
            "run": list(deal.run),
            "hand_sizes": list(deal.hand_sizes),
            "hands": [list(_sorted_hand(h)) for h in deal.hands] if deal.hands is not None else None,
            "passed": list(deal.passers),
            "winner": deal.winner,
            "grand_opera": deal.grand_opera,
            "awaiting_reveal": list(deal.awaiting),
            "can_undo": deal.undo_to is not None and deal.undo_action is not None,  # past a settlement too
        }
    return {
        "version": state.version,
        "status": state.status,
        "rules": state.rules.view(),
        "starting_chips": state.starting_chips,
        "players": [
            {"seat": seat, "name": name, "chips": chips}
            for seat, (name, chips) in enumerate(zip(state.players, state.balances, strict=True))
        ],
        "board": state.board(),
        "deals_played": state.deals_played,
        "next_dealer": state.next_dealer() if state.status == READY else None,
        "deal": deal_view,
        "result": state.result,
        "undo": state.undoable(),
        "redo": state.redo_action(),
    }


def _card_order(card: Card) -> tuple[int, str]:
    return (card.rank, card.suit)


@lru_cache(maxsize=4096)
def _sorted_hand(hand: frozenset[Card]) -> tuple[Card, ...]:
    """A hand in rank then suit order (a deal's steps show the same hands again and again)."""
    return tuple(sorted(hand, key=_card_order))
