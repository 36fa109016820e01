"""The one way each of the rows a game's log stands on is written, whoever writes it.

:func:`insert_games` writes games' rows, their seats and the club members they
seat (creating a game, the streaming import and the bulk loader all call it);
:func:`insert_records` writes a game's new records with their signed
checkpoints and scoreboard rows (so do the append path and both imports). Both
run in the caller's transaction; what differs per database is the recorder's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, func, insert, select
from sqlalchemy.orm import Session

from ..erasures import could_be_pseudonym
from ..receipts import Signer
from ..state import GameState
from .checkpoints import sign_checkpoints
from .clubs import name_key
from .errors import ErasedName, NotFound
from .followers import CLUB_PREFIX
from .models import Club, ClubFeedRecord, ErasureRecord, Game, GamePlayer, Player
from .projections import project_records
from .projections.projector import Place, touches_results
from .recorder import recorder_for
from .values import GameInfo, Record

_GAMES = cast(Table, Game.__table__)
_SEATS = cast(Table, GamePlayer.__table__)
_PLAYERS = cast(Table, Player.__table__)
_INSERT_GAMES = insert(_GAMES)
_INSERT_SEATS = insert(_SEATS)
_CLUB_EXISTS = select(Club.id).where(Club.id == bindparam("club_id"))
_GAME_INFO_COLUMNS = ("id", "club_id", "created_at", "updated_at", "played_on", "version", "status", "profile",
                      "starting_chips", "deals_played", "meta")


@dataclass(frozen=True)
class NewGame:
    """A game's row to write: its summary, the hash of its last record and the digest of its document."""

    info: GameInfo
    head_hash: str
    source_digest: str | None = None


def register_players(connection: Connection, club_id: str, names: Sequence[str], moment: datetime) -> list[int]:
    """The member id of each name, registering new members (a concurrent registration is not an error).
    :class:`NotFound` for a club that is not there."""
    keys = [name_key(name) for name in names]
    found = _members(connection, club_id, keys)
    rows = [{"club_id": club_id, "name": name.strip(), "name_key": key, "created_at": moment}
            for name, key in zip(names, keys, strict=True) if key not in found]
    # A member found is a row that refers to its club, which is never deleted: the club is there. Otherwise
    # it is looked up (a game of no players, or of players new to the club).
    if not found and connection.execute(_CLUB_EXISTS, {"club_id": club_id}).first() is None:
        raise NotFound("There is no club {club!r}.", club=club_id)
    if rows:  # the new members; one registered by another writer meanwhile is skipped
        connection.execute(recorder_for(connection).insert_new(_PLAYERS), rows)
        found = _members(connection, club_id, keys)
    return [found[key] for key in keys]


def refuse_pseudonyms(connection: Connection, club_id: str, names: Sequence[str]) -> None:
    """:class:`ErasedName` for a name typed for a new game's player that is an erased member's pseudonym: a player
    typed "Joueur 1" is not the member erased as Joueur 1 (an evening's plan that seated that member before the
    erasure seats them under it: their games go on)."""
    keys = [key for key in map(name_key, names) if could_be_pseudonym(key)]
    if not keys:
        return
    named = list(_members(connection, club_id, keys).values())
    erased = connection.execute(select(ErasureRecord.pseudonym).where(ErasureRecord.member_id.in_(named))
                                .limit(1)).scalar() if named else None
    if erased is not None:
        raise ErasedName(erased)


def _members(connection: Connection, club_id: str, keys: Sequence[str]) -> dict[str, int]:
    return recorder_for(connection).members(connection, club_id, keys)


def insert_games(connection: Connection, games: Sequence[NewGame], moment: datetime) -> list[list[int]]:
    """Write new games' rows and their seats, their players registered as their clubs' members (at ``moment``);
    the member id of each game's seats. :class:`NotFound` for a club that is not there."""
    by_club: dict[str, list[str]] = {}
    for game in games:
        by_club.setdefault(game.info.club_id, []).extend(game.info.players)
    members: dict[tuple[str, str], int] = {}
    for club_id, names in by_club.items():
        unique = list(dict.fromkeys(names))
        ids = register_players(connection, club_id, unique, moment)
        members.update(((club_id, name_key(name)), member) for name, member in zip(unique, ids, strict=True))
    seats = [[members[(game.info.club_id, name_key(name))] for name in game.info.players] for game in games]
    connection.execute(_INSERT_GAMES, [
        {**{name: getattr(game.info, name) for name in _GAME_INFO_COLUMNS}, "player_names": list(game.info.players),
         "head_hash": game.head_hash, "source_digest": game.source_digest}
        for game in games
    ])
    connection.execute(_INSERT_SEATS, [
        {"game_id": game.info.id, "seat": seat, "player_id": member}
        for game, members_of in zip(games, seats, strict=True) for seat, member in enumerate(members_of)
    ])
    return seats


def insert_records(target: Session | Connection, game_id: str, records: Sequence[Record], signer: Signer,
                   moment: datetime, place: Place | None = None, before: GameState | None = None,
                   ) -> dict[str, Any] | None:
    """Insert a game's new records, with their signed checkpoints and scoreboard rows, in the caller's
    transaction (``place``: the game's club, day and seats, when the caller has just written them;
    ``before``: the game's state before ``records``, None when they start the log); the receipt of the last
    record."""
    connection = target.connection() if isinstance(target, Session) else target
    recorder_for(connection).insert_events(connection, game_id, records)
    receipt = sign_checkpoints(connection, signer, game_id, records, moment)  # in the same transaction
    if records:
        recorder_for(connection).announce(connection, game_id, records[-1]["seq"])  # heard at the commit
        insert_feed(connection, game_id, records, place[0] if place else None, undone_ends(before, records))
    if isinstance(target, Session):
        project_records(target, game_id, records, place)  # the scoreboard's tables, in the same transaction
    elif touches_results(records):  # ends the game, or an undo may withdraw its end
        with Session(bind=connection) as session:  # joins the connection's transaction, commits nothing
            project_records(session, game_id, records, place)
    return receipt


FEED_TYPES = frozenset({"game_started", "deal_ended", "game_ended"})  # the log's events a club's feed tells of
# What the feed tells of an undo that withdrew a deal's settlement, and of one that withdrew the game's end with it
DEAL_UNDONE, GAME_REOPENED = "deal_undone", "game_reopened"
_FEED_POSITION = select(func.coalesce(func.max(ClubFeedRecord.position), 0)).where(
    ClubFeedRecord.club_id == bindparam("club_id"))


def club_key(club_id: str) -> str:
    """The followers' key of a club's feed (a game's key is its id, which has no colon).

    >>> club_key("abc")
    'club:abc'
    """
    return CLUB_PREFIX + club_id


def undone_ends(before: GameState | None, records: Sequence[Record]) -> list[tuple[Record, str]]:
    """The ends the undos among ``records`` withdrew: for each undo that withdrew a deal's settlement
    ``(undo, "deal_undone")``, then ``(undo, "game_reopened")`` when that settlement had ended the game.

    ``before`` is the game's state before ``records`` (None: they start the log). The ``undo`` event says only
    its reason; what it withdrew follows from the log without folding it, as the reducer guarantees: an undo
    returns to the state before the latest play, pass or reveal, and none of these is ever recorded on a
    settled deal, so an undo withdraws a settlement exactly when the deal's ``deal_ended`` (with the
    ``game_ended`` it caused, and their transfers) are the last records before it, and the state it returns to
    is neither settled nor ended (``tests/store/test_club_feed.py`` holds this against a fold of thousands of
    simulated games).
    """
    if before is None and records and records[0]["seq"] != 1:
        raise ValueError(f"the state before seq {records[0]['seq']} is needed to tell what its undos withdrew")
    deal = before.deal if before is not None else None
    settled = deal is not None and deal.ended  # the latest deal is settled, and nothing but its end came since
    over = settled and before is not None and before.status == "ended"
    told: list[tuple[Record, str]] = []
    for record in records:
        kind = record["type"]
        if kind == "deal_ended":
            settled = True
        elif kind == "game_ended":
            over = settled
        elif kind == "undo":
            if settled:
                told.append((record, DEAL_UNDONE))
                if over:
                    told.append((record, GAME_REOPENED))
            settled = over = False
        elif kind != "transfer":
            settled = over = False
    return told


def insert_feed(connection: Connection, game_id: str, records: Sequence[Record], club_id: str | None,
                undone: Sequence[tuple[Record, str]] = ()) -> None:
    """Add the records that tell of a game created, a deal ended or a game ended, and the ends withdrawn by
    an undo (``undone``, from :func:`undone_ends`), to the club's feed, at the next positions, in the caller's
    transaction, in the log's order.

    The club's row is locked first (PostgreSQL; SQLite's writers are one at a
    time already), so that two transactions never take the same position and a
    position becomes visible only after every position before it: a follower
    that read up to position p has missed nothing, and never will.
    """
    told = sorted([*((record, record["type"]) for record in records if record["type"] in FEED_TYPES), *undone],
                  key=lambda item: item[0]["seq"])  # stable: a deal undone before the game reopened
    if not told:
        return
    if club_id is None:
        club_id = connection.execute(select(Game.club_id).where(Game.id == game_id)).scalar_one()
    recorder = recorder_for(connection)
    recorder.lock_clubs(connection, [club_id])
    last = int(connection.execute(_FEED_POSITION, {"club_id": club_id}).scalar_one())
    connection.execute(insert(ClubFeedRecord), [
        {"club_id": club_id, "position": last + number, "game_id": game_id, "seq": record["seq"],
         "deal": record["deal"], "type": kind, "recorded_at": record["recorded_at"]}
        for number, (record, kind) in enumerate(told, 1)])
    recorder.announce(connection, club_key(club_id), last + len(told))
