"""A game out and in again, as a document, a file read as it is imported, and an NJN record, on both databases."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from nj_ledger.application import exchange, game_owner, game_summary
from nj_ledger.errors import LedgerError
from nj_ledger.store import ClubInfo, NotFound, Store


def test_a_game_goes_out_and_comes_back_the_same(store: Store, club: ClubInfo, document: dict[str, Any]) -> None:
    game = exchange.imported(store, club.id, {**document, "actions": document["actions"][:30]}).game
    assert game_owner(store, game.id) == club.id and game_owner(store, "nothere") is None
    assert game_summary(store, club.id, game.id).version == game.version
    out = exchange.exported(store, club.id, game.id)
    assert len(out["actions"]) == 30 and [a["type"] for a in out["actions"]] == [
        a["type"] for a in document["actions"][:30]]
    again = exchange.imported_file(store, club.id, io.BytesIO(json.dumps(out).encode()))
    assert again.game.version == game.version
    text = exchange.njn_record(store, club.id, out)
    assert f'[Club "{club.name}"]' in text
    from_njn = exchange.imported_njn(store, club.id, text)
    assert exchange.exported(store, club.id, from_njn.game.id)["actions"] == out["actions"]
    other = store.clubs.create_club("Another")[0]
    with pytest.raises(NotFound):
        exchange.exported(store, other.id, game.id)


def test_a_document_the_core_refuses_stores_nothing(store: Store, club: ClubInfo, document: dict[str, Any]) -> None:
    with pytest.raises(LedgerError):
        exchange.imported(store, club.id, {**document, "actions": [{"type": "play", "seat": 0, "cards": ["5H"]}]})
    assert store.games.list_games(club.id) == []
