"""Game documents in and out of the store: import (re-executing the actions) and export.

Shared by the API and the command line, so both import the same way.

    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.clubs.create_club("Club")
    >>> doc = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"],
    ...        "rules": "classic", "starting_chips": 60, "actions": [{"type": "deal"}]}
    >>> game = import_document(store.games, club.id, doc).game
    >>> export_document(store.games, club.id, game.id)["actions"]
    [{'type': 'deal', 'dealer': 2}]
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..chain import canonical_json
from ..exchange import document_meta, read_game_document, write_game_document
from .errors import LogDamaged
from .games import Games
from .values import Appended


def document_digest(document: Mapping[str, Any]) -> str:
    """What identifies a document's game: everything but the stored records it may carry."""
    game = {key: value for key, value in document.items() if key != "events"}
    return hashlib.sha256(canonical_json(game).encode()).hexdigest()


def import_document(games: Games, club_id: str, document: Mapping[str, Any]) -> Appended:
    """A new game of ``club_id`` from a document, all or nothing (a refused action stores nothing)."""
    started, actions = read_game_document(document)
    return games.create_game(club_id, started, actions, meta=document_meta(document),
                             source_digest=document_digest(document))


def export_document(games: Games, club_id: str, game_id: str) -> dict[str, Any]:
    """A stored game as a document: its table actions, its details and its records."""
    game = games.game(club_id, game_id)
    try:
        return write_game_document(games.records(club_id, game_id), game.meta)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise LogDamaged("The log of game {game!r} cannot be exported: events were changed outside the ledger. "
                         "Its audit shows what changed.", game=game_id) from None
