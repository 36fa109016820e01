"""A club brought into this server from its archive (:mod:`nj_ledger.archive`, checked before by
:func:`nj_ledger.archive.verify_archive`), in one transaction: anything refused stores nothing.

The club gets an id of its own here, and a director's token; its members (but those erased) are registered, its
seasons kept; every game is recorded again from its table actions (the one way a game is made here: its events
decided by this ledger's engine, chained, checkpointed and signed anew, its scoreboard rows written), oldest first;
every evening is recorded again decision by decision, the games it names given their ids here. The logs' hashes
are this server's: the archive's own stay in the archive, which its receipts still verify. An erasure recorded by
the other server is not recorded again: its logs arrive redacted, its pseudonym is a member here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from ..decide import execute
from ..exchange import document_meta, read_game_document
from ..receipts import Signer
from ..reducer import replay
from .base import Database, new_id, utcnow
from .clubs import name_key
from .documents import document_digest
from .evenings import Evenings
from .games import Games
from .keys import Keys
from .models import Club
from .projections.models import Season
from .tokens import DIRECTOR, Tokens
from .values import ClubInfo, NewToken
from .writes import register_players


@dataclass(frozen=True)
class ImportedClub:
    """The club made here, its director's token (its secret shown once), and the ids its games and evenings have
    here, by their ids in the archive."""

    club: ClubInfo
    token: NewToken
    games: dict[str, str]
    evenings: dict[str, str]
    members: int
    seasons: int


def _renamed(value: Any, ids: Mapping[str, str]) -> Any:
    """``value`` with every text that is a key of ``ids`` written as its value (a game's id in an evening's data)."""
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, dict):
        return {key: _renamed(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, ids) for item in value]
    return value


class ClubImports:
    """Clubs brought in from their archives (:mod:`this module <nj_ledger.store.imports>`)."""

    def __init__(self, db: Database, keys: Keys, tokens: Tokens, games: Games, evenings: Evenings) -> None:
        self.db, self.keys, self.tokens, self.games, self.evenings = db, keys, tokens, games, evenings

    def import_club(self, archive: Mapping[str, Any]) -> ImportedClub:
        """The club of ``archive`` (verified) recorded here: every part of it, or nothing (a game whose actions
        this ledger refuses, an evening it cannot fold: :class:`~nj_ledger.errors.LedgerError`, ValueError)."""
        played = []
        for game in reversed(archive["games"]):  # the archive lists the newest first
            started, actions = read_game_document(game["document"])
            state, events = execute(replay([started]), actions)  # decided before the transaction: pure
            played.append((game, started, state, events))
        signer = self.keys.signer()

        def attempt() -> ImportedClub:
            with self.db.writing() as session:
                return self._import(session, archive, played, signer)

        return self.db.retrying(attempt)

    def _import(self, session: Session, archive: Mapping[str, Any], played: list[Any],
                signer: Signer) -> ImportedClub:
        now = utcnow()
        club = Club(id=new_id(), name=archive["club"]["name"], created_at=now)
        session.add(club)
        session.flush()
        token = self.tokens.add(session, club.id, DIRECTOR, "the club's director (imported)")
        connection = session.connection()
        register_players(connection, club.id, [member["name"] for member in archive["members"]], now)
        for season in archive["seasons"]:
            session.add(Season(club_id=club.id, name=season["name"], name_key=name_key(season["name"]),
                               starts_on=date.fromisoformat(season["starts_on"]),
                               ends_on=date.fromisoformat(season["ends_on"]), created_at=now,
                               qualifying_evenings=season["qualifying_evenings"],
                               best_evenings=season["best_evenings"]))
        session.flush()
        games = {}
        for game, started, state, events in played:
            document = game["document"]
            written = self.games.write_game(connection, club.id, started, events, state, document_meta(document),
                                            signer, document_digest(document))
            games[game["id"]] = written.game.id
        evenings = {evening["id"]: self.evenings.record_again(
                        connection, club.id, evening["evening"],
                        [{**item, "data": _renamed(item["data"], games)} for item in evening["entries"]], signer)
                    for evening in reversed(archive["evenings"])}
        return ImportedClub(ClubInfo.of(club), token, games, evenings, len(archive["members"]),
                            len(archive["seasons"]))


__all__ = ["ClubImports", "ImportedClub"]
