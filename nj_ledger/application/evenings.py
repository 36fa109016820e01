"""Club evenings: an evening opened with its tables' links, read, listed and audited; the director's decisions, the
next round started, a player's confirmation (from the director's page or the table's phone), the evening closed; a
table's links and its view by code; the season's ladder and a player's evenings (docs/EVENINGS.md).

Who made a decision (``by``) is the caller's to say, as the evening's log keeps it: a token, or the operator of the
command line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from .. import evenings as core
from ..decide import new_game
from ..evenings import DirectorDecision, EveningResult, EveningState, GameOutcome
from ..store import EveningInfo, EveningRead, NewShare, NewTableLink, Store
from ..store.evening_tables import JoinedTable
from ..store.projections import SeasonInfo, find_season
from .listing import Page


@dataclass(frozen=True)
class SeasonLadder:
    """A season, its closed evenings (oldest first) and its ladder's rows."""

    season: SeasonInfo
    evenings: list[EveningRead]
    rows: list[dict[str, Any]]


def evenings_page(store: Store, club: str, *, status: str | None = None, played_from: date | None = None,
                  played_to: date | None = None, limit: int = 50, offset: int = 0) -> Page[EveningInfo]:
    """A page of the club's evenings, newest first, by status and days played, and whether more follow."""
    found = store.evenings.list_evenings(club, status=status, played_from=played_from, played_to=played_to,
                                         limit=limit + 1, offset=offset)
    return Page(found[:limit], len(found) > limit)


def check_game_settings(data: Mapping[str, Any]) -> None:
    """The evening's rules and chips make a game at every table size of its plan (the core's refusal, before
    anything is stored)."""
    sizes = {len(table) for tables in data["plan"] for table in tables} or {data["tables"]["smallest"]}
    for size in sorted(sizes):
        new_game([f"p{seat}" for seat in range(size)], data["rules"], data["starting_chips"])


def create_evening(store: Store, club: str, by: Mapping[str, Any], *, name: str, played_on: date,
                   players: Sequence[str], rounds: int, rules: str | Mapping[str, Any], starting_chips: int,
                   ranking: str = "match_points", confirmation: bool = False, seed: int = 0,
                   ends_at: datetime | None = None, tables: Mapping[str, int] | None = None,
                   sizes: Sequence[int] | None = None, seating: Sequence[Sequence[Sequence[str]]] | None = None,
                   ) -> tuple[EveningRead, list[NewTableLink]]:
    """Open an evening of ``club``: its seats drawn for every round (or set by the director), and a scorer link
    per table (a token reaching that table's games only, its secret shown once). The core refuses what is not an
    evening, and rules or chips that make no game at one of its tables."""
    created = core.decide_creation(
        name=name, played_on=played_on.isoformat(), players=list(players), rounds=rounds, rules=rules,
        starting_chips=starting_chips, ranking=ranking, confirmation=confirmation, seed=seed,
        ends_at=None if ends_at is None else ends_at.isoformat(), tables=tables, sizes=sizes, seating=seating)
    check_game_settings(created[1])
    return store.evenings.create_evening(club, created, by)


def evening(store: Store, club: str, evening_id: str) -> EveningRead:
    """The evening as it stands: its settings, its log folded, its games' outcomes and its tables' codes."""
    return store.evenings.evening(club, evening_id)


def evening_audit(store: Store, club: str, evening_id: str, receipts: Sequence[Mapping[str, Any]] | None = None,
                  ) -> tuple[EveningRead, dict[str, Any], dict[str, Any] | None]:
    """The evening, its log held to its signed checkpoints, and to the ``receipts`` a member kept when given: each
    receipt of this evening once, then those of other evenings (which the audit skips)."""
    if receipts is not None:
        mine = list({(r["version"], r["head"], r["signature"]): r for r in receipts
                     if r["evening"] == evening_id}.values())
        receipts = [*mine, *(r for r in receipts if r["evening"] != evening_id)]
    return store.evenings.evening_audit(club, evening_id, receipts)


def evening_receipt(store: Store, club: str, evening_id: str) -> tuple[EveningInfo, dict[str, Any] | None]:
    """The evening and the signed receipt of its head (None: its last decision is older than signing)."""
    return store.evenings.evening_receipt(club, evening_id)


def decide(store: Store, club: str, evening_id: str, decision: DirectorDecision, by: Mapping[str, Any], *,
           expected_version: int | None = None) -> EveningRead:
    """Record a director's decision (a value of its kind, :func:`nj_ledger.evenings.parse_decision`): refused by
    the core when it does not hold, and when ``expected_version`` is not the evening's."""
    return store.evenings.decide(club, evening_id, lambda state, _outcomes: core.decide(state, decision), by,
                                 expected_version=expected_version)


def start_round(store: Store, club: str, evening_id: str, by: Mapping[str, Any], *,
                tables: Sequence[Sequence[str]] | None = None, force: bool = False, now: datetime | None = None,
                expected_version: int | None = None) -> EveningRead:
    """Start the next round: a game for each table, the plan's or those the director sets (``tables``); refused
    while the last round's games have not ended (unless ``force``), past the end time, with no round left."""
    return store.evenings.start_round(club, evening_id, by, tables=tables, force=force, now=now,
                                      expected_version=expected_version)


def close(store: Store, club: str, evening_id: str, reason: str, by: Mapping[str, Any], *,
          expected_version: int | None = None) -> EveningRead:
    """Close the evening: nothing more is recorded in it, and its ranking is final."""
    return store.evenings.decide(club, evening_id, lambda state, _: core.decide_close(state, reason), by,
                                 expected_version=expected_version)


def confirm(store: Store, club: str, evening_id: str, game: str, player: str, by: Mapping[str, Any],
            table: int | None = None) -> EveningRead:
    """A player's confirmation of a game's result as it stands, recorded in the evening's log (``table``: from
    that table's phone, whose table must hold the game)."""
    def decision(state: EveningState, outcomes: Mapping[str, GameOutcome]) -> tuple[str, dict[str, Any]]:
        return core.decide_confirmation(state, game, player, outcomes.get(game), table)

    return store.evenings.decide(club, evening_id, decision, by)


def table_link(store: Store, club: str, evening_id: str, table: int) -> NewTableLink:
    """Another scorer link for a table: a new token, its secret shown once."""
    return store.evenings.table_link(club, evening_id, table)


def table_by_code(store: Store, club: str, code: str) -> tuple[EveningRead, int]:
    """The evening and the table a code names in ``club`` (NotFound for none)."""
    evening_id, table = store.tables.table_by_code(club, code)
    return store.evenings.evening(club, evening_id), table


def confirm_at_table(store: Store, club: str, code: str, game: str, player: str, by: Mapping[str, Any],
                     ) -> tuple[EveningRead, int]:
    """A player's confirmation from the table's phone (the table a code names must hold the game): the evening
    as it stands after it, and the table."""
    evening_id, table = store.tables.table_by_code(club, code)
    confirm(store, club, evening_id, game, player, by, table)
    return store.evenings.evening(club, evening_id), table


def join_table(store: Store, code: str, most: int | None = None) -> JoinedTable | None:
    """A new token for the table of an open evening a code names, whatever its club (None: no such open table);
    :class:`~nj_ledger.store.evening_tables.TableFull` past ``most`` tokens."""
    return store.tables.join_table(code, most)


def screen_share(store: Store, club: str, evening_id: str, label: str) -> NewShare:
    """The share that opens the evening's big screen (it reads the tables' codes too), its secret shown once."""
    return store.shares.create_share(club, None, label, evening_id=evening_id, screen=True)


def _results(reads: Sequence[EveningRead]) -> list[EveningResult]:
    """Each closed evening's result for the ladder: the players its ranking ranks (``rank`` not null)."""
    return [EveningResult.of_ranking(read.info.id, read.info.name, read.info.played_on.isoformat(),
                                     core.ranking(read.state, read.outcomes)) for read in reads]


def season_ladder(store: Store, club: str, season: str) -> SeasonLadder | None:
    """The season's ladder over its closed evenings (None: the club has no such season)."""
    found = find_season(store.db, club, season)
    if found is None:
        return None
    reads = store.evenings.evenings_between(club, found.starts_on, found.ends_on, closed_only=True)
    rows = core.ladder(_results(reads), qualifying=found.qualifying_evenings, best=found.best_evenings)
    return SeasonLadder(found, reads, rows)


def player_evenings(store: Store, club: str, player: str, played_from: date | None, played_to: date | None,
                    ) -> tuple[str, list[dict[str, Any]]]:
    """A player's evenings in a period, newest first (open ones as they stand), each with the player's rank, score,
    games and average and how many players were ranked; and the player's name as the evenings write it."""
    return nights_of(store.evenings.evenings_between(club, played_from, played_to), player)


def nights_of(reads: Sequence[EveningRead], player: str) -> tuple[str, list[dict[str, Any]]]:
    """:func:`player_evenings` over evenings already read (oldest first)."""
    key = player.strip().casefold()
    nights = []
    for read in reversed(reads):
        rows = core.ranking(read.state, read.outcomes)
        mine = next((row for row in rows if row["name"].casefold() == key), None)
        if mine is None:
            continue
        nights.append({"evening": read.info.id, "name": read.info.name, "date": read.info.played_on.isoformat(),
                       "status": read.info.status, "rule": read.state.ranking, "rank": mine["rank"],
                       "players": sum(1 for row in rows if row["rank"] is not None), "score": mine["score"],
                       "games": mine["games"], "average": mine["average"], "player": mine["name"]})
    shown = nights[0]["player"] if nights else player.strip()
    for night in nights:
        del night["player"]
    return shown, nights
