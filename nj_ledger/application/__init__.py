"""The ledger's use cases, between the store and the interfaces: the HTTP views and the command line both call
them, so that what a request and a command do is written once.

A use case takes values already parsed and the club its caller reaches (a club token's club; for the command
line, run by the server's operator, the club of the game named), does the work through the store, and returns
values or raises the refusals of the core and of the store (a refusal of its own is a
:class:`~nj_ledger.store.StoreError` with its own ``code``). It answers no HTTP status and writes no sentence:
the interface that called it does both, each in its own way.

- :mod:`.recording`: a game started, table actions recorded (with ``If-Match`` and idempotent retries);
- :mod:`.games`: a game read (its state, its log a page at a time, a deal's segment and its steps), a club's games;
- :mod:`.analysis`: the deal to analyse (found, folded, settled) and its kept analysis;
- :mod:`.clubs`: clubs, their tokens and their members, and :mod:`.exchange`: a game out and in, as a
  document or an NJN record, and :mod:`.evenings`: club evenings — one opened, read, listed and audited, the
  director's decisions, the next round, a confirmation, a table's links and its view by code, the evening closed,
  the season's ladder and a player's evenings (their functions are called by the modules' names:
  ``clubs.new_token``, ``evenings.start_round``).
"""

from __future__ import annotations

from . import clubs, evenings, exchange
from .analysis import DealAnalysis, DealNotSettled, SettledDeal, deal_analysis, settled_deal
from .games import (
    Current,
    GameFilter,
    NoSuchDeal,
    NoSuchStep,
    RecordsPage,
    current_game,
    deal_segment,
    folded,
    game_owner,
    game_summary,
    list_games,
    receipt_of,
    records_page,
    replay_segment,
)
from .recording import idempotent_request, record_actions, start_game, what_may_be_tapped

__all__ = [
    "Current",
    "DealAnalysis",
    "DealNotSettled",
    "GameFilter",
    "NoSuchDeal",
    "NoSuchStep",
    "RecordsPage",
    "SettledDeal",
    "clubs",
    "current_game",
    "deal_analysis",
    "deal_segment",
    "evenings",
    "exchange",
    "folded",
    "game_owner",
    "game_summary",
    "idempotent_request",
    "list_games",
    "receipt_of",
    "record_actions",
    "records_page",
    "replay_segment",
    "settled_deal",
    "start_game",
    "what_may_be_tapped",
]
