"""An evening's tables: the players' names and the director's tables checked, and the rounds planned by the
seating planner (:mod:`nj_ledger.seating`) at tables the rules allow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from .log import Tables

SMALLEST_TABLE, LARGEST_TABLE = 3, 8


def player_names(players: Sequence[Any], field_name: str = "players") -> list[str]:
    """The players' names, stripped: none blank, none named twice (whatever the case)."""
    names = [str(name).strip() for name in players]
    if any(not name for name in names):
        raise InvalidInput("invalid-evening-players", "A player's name is blank.", field=field_name)
    keys = [name.casefold() for name in names]
    if len(set(keys)) != len(keys):
        twice = next(name for name, key in zip(names, keys, strict=True) if keys.count(key) > 1)
        raise InvalidInput("invalid-evening-players", "{name!r} is named twice.", name=twice, field=field_name)
    return names


def check_sizes(sizes: Sequence[int], rules: Mapping[str, Any], field_name: str) -> None:
    """Tables of ``sizes`` refused unless each seats 3 to 8 players, as many as the ``rules`` allow."""
    allowed = set(rules["players"])
    for size in sizes:
        if not SMALLEST_TABLE <= size <= LARGEST_TABLE or size not in allowed:
            raise InvalidInput("invalid-tables", "A table of {size} players is not allowed: tables seat 3 to 8 "
                               "players, as many as the evening's rules allow.", size=size, field=field_name)


def check_tables(tables: Sequence[Sequence[str]], present: Sequence[str], rules: Mapping[str, Any],
                 field_name: str = "tables") -> Tables:
    """Tables set by the director: every present player seated once, each table of an allowed size."""
    seated = [str(name).strip() for table in tables for name in table]
    by_key = {name.casefold(): name for name in present}
    for name in seated:
        if name.casefold() not in by_key:
            raise InvalidInput("unknown-player", "{name!r} is not present at this evening.", name=name,
                               field=field_name)
    keys = [name.casefold() for name in seated]
    if len(set(keys)) != len(keys) or set(keys) != set(by_key):
        missing = [name for key, name in by_key.items() if key not in keys]
        raise InvalidInput("invalid-tables", "The tables must seat every present player exactly once "
                           "(unseated: {missing}; seated twice: {twice}).", missing=", ".join(missing) or "-",
                           twice=", ".join(sorted({n for n in seated if keys.count(n.casefold()) > 1})) or "-",
                           field=field_name)
    check_sizes([len(table) for table in tables], rules, field_name)
    return tuple(tuple(by_key[str(name).strip().casefold()] for name in table) for table in tables)


@dataclass(frozen=True)
class Planned:
    """A schedule of rounds and its quality."""

    rounds: tuple[Tables, ...]
    worst_pair: int | None
    bound: int | None


def plan_rounds(players: Sequence[str], rounds: int, table_rule: Mapping[str, int], seed: int,
                played: Sequence[Tables] = (), sizes: Sequence[int] | None = None,
                rules: Mapping[str, Any] | None = None) -> Planned:
    """The rounds after those ``played``, drawn by the seating planner (:mod:`nj_ledger.seating`), at tables of
    ``sizes`` (else the split the table rule chooses for the players present) that the rules allow."""
    from .. import seating  # the planner: pairs sharing a table as evenly as it can

    if rounds <= len(played):
        return Planned((), None, None)
    if sizes is None or sum(sizes) != len(players):
        try:
            sizes = seating.table_sizes(len(players), smallest=table_rule["smallest"],
                                        largest=table_rule["largest"], preferred=table_rule["preferred"])
        except ValueError:
            raise InvalidInput("invalid-tables", "{count} players cannot be split into tables of {smallest} to "
                               "{largest}.", count=len(players), smallest=table_rule["smallest"],
                               largest=table_rule["largest"], field="tables") from None
    if rules is not None:
        check_sizes(sizes, rules, "tables")
    made = seating.plan(list(players), rounds, sizes=list(sizes), seed=seed,
                        played=[[list(table) for table in tables] for tables in played])
    return Planned(tuple(tuple(tuple(t) for t in r) for r in made.rounds[len(played):]), made.worst_pair, made.bound)


def plan_data(planned: Planned) -> dict[str, Any]:
    return {"plan": [[list(table) for table in tables] for tables in planned.rounds],
            "worst_pair": planned.worst_pair, "bound": planned.bound}
