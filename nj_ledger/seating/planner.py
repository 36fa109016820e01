"""The seating planner: how many players sit at each table, the evening's rounds, and who deals first.

:func:`plan` keeps the rounds played, has the others searched for (:mod:`.search`) and
seats each table in order, the first seat (who deals first) going round the players;
:func:`table_sizes` splits the players present into tables.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInput
from .bounds import lower_bound, pair_counts
from .search import search_rounds

SMALLEST = 3  # a Nain Jaune table seats 3 to 8 players
LARGEST = 8


class SeatingError(InvalidInput, ValueError):
    """A seating that cannot be planned: a refusal of the core (``code``, ``template``), and a ``ValueError``."""


@dataclass(frozen=True)
class Plan:
    """An evening's seating.

    ``rounds``: round → table → players, in seat order (the first seat deals first);
    ``worst_pair``: the most times any two players share a table over all rounds;
    ``bound``: a proven lower bound on ``worst_pair`` for these counts (see :func:`lower_bound`);
    ``at_worst``: how many pairs share a table ``worst_pair`` times.
    """

    rounds: tuple[tuple[tuple[str, ...], ...], ...]
    worst_pair: int
    bound: int
    at_worst: int = 0


def table_sizes(players: int, *, smallest: int = SMALLEST, largest: int = LARGEST,
                preferred: int = 4) -> tuple[int, ...]:
    """How to split ``players`` into tables of ``smallest``..``largest``, as close to ``preferred`` as possible.

    Tables are as even as the count allows (sizes differ by one at most), largest
    first; among the splits, the one whose tables stray least from ``preferred``
    (the sum of the distances), then the one with more tables.

    >>> table_sizes(12), table_sizes(13), table_sizes(7), table_sizes(3), table_sizes(20)
    ((4, 4, 4), (5, 4, 4), (4, 3), (3,), (4, 4, 4, 4, 4))
    """
    if smallest < 1 or largest < smallest:
        raise SeatingError("seating-no-table", "No table can seat between {smallest} and {largest} players.",
                           smallest=smallest, largest=largest)
    if players < smallest:
        raise SeatingError("seating-too-few-players", "{players} players cannot fill a table of {smallest}.",
                           players=players, smallest=smallest)
    best: tuple[int, ...] | None = None
    best_key: tuple[int, int] | None = None
    for count in range(1, players // smallest + 1):
        base, extra = divmod(players, count)
        sizes = (base + 1,) * extra + (base,) * (count - extra)
        if sizes[-1] < smallest or sizes[0] > largest:
            continue
        key = (sum(abs(size - preferred) for size in sizes), -count)
        if best_key is None or key < best_key:
            best, best_key = sizes, key
    if best is None:
        raise SeatingError("seating-no-split",
                           "{players} players cannot be split into tables of {smallest} to {largest}.",
                           players=players, smallest=smallest, largest=largest)
    return best


def plan(players: Sequence[str], rounds: int, *, sizes: Sequence[int] | None = None, seed: int = 0,
         played: Sequence[Sequence[Sequence[str]]] = ()) -> Plan:
    """The evening's seating: ``played`` rounds kept as given, the others planned for ``players``.

    ``rounds`` is the evening's total number of rounds; the rounds after ``played``
    seat every one of ``players`` (those present now) once each, at tables of
    ``sizes`` (default :func:`table_sizes`; table ``i`` of a planned round seats
    ``sizes[i]``), counting the pairs already met in the played rounds. The same
    arguments and ``seed`` give the same plan. The first seat of a table (who
    deals first) goes round the players over the evening.
    """
    names = tuple(players)
    twice = _twice(names)
    if twice is not None:
        raise SeatingError("seating-player-twice", "{name} is listed twice.", name=twice)
    if rounds < len(played):
        raise SeatingError("seating-rounds-played",
                           "{played} rounds are played already: the evening cannot have {rounds}.",
                           played=len(played), rounds=rounds)
    kept = tuple(tuple(tuple(table) for table in played_round) for played_round in played)
    for number, done in enumerate(kept, 1):
        twice = _twice([name for table in done for name in table])
        if twice is not None:
            raise SeatingError("seating-seated-twice", "Round {round} seats {name} twice.", round=number, name=twice)
    todo = rounds - len(kept)
    split = tuple(sizes) if sizes is not None else (table_sizes(len(names)) if todo else ())
    if todo:
        for size in split:
            if not SMALLEST <= size <= LARGEST:
                raise SeatingError("seating-table-size", "A table seats {smallest} to {largest} players, not {size}.",
                                   smallest=SMALLEST, largest=LARGEST, size=size)
        if not split or sum(split) != len(names):
            raise SeatingError("seating-sizes-do-not-seat",
                               "Tables of {sizes} do not seat the {players} players present.",
                               sizes=" + ".join(str(size) for size in split) or "0", players=len(names))
    index = {name: number for number, name in enumerate(names)}
    n = len(names)
    counts = [0] * (n * n)  # pairs of present players already met, flattened: counts[p * n + q]
    firsts = [0] * n  # how many times each present player has had the first seat
    for done in kept:
        for table in done:
            here = [index[name] for name in table if name in index]
            for i, p in enumerate(here):
                for q in here[i + 1:]:
                    counts[p * n + q] += 1
                    counts[q * n + p] += 1
            if table and table[0] in index:
                firsts[index[table[0]]] += 1
    rng = random.Random(seed)
    schedule = search_rounds(n, todo, split, counts, rng) if todo else []
    seated_rounds = _seat(schedule, firsts, rng)
    planned = tuple(tuple(tuple(names[p] for p in table) for table in tables) for tables in seated_rounds)
    everything = kept + planned
    met = pair_counts(everything)
    worst = max(met.values(), default=0)
    return Plan(everything, worst, lower_bound(names, todo, split, kept),
                sum(1 for count in met.values() if count == worst and worst))


def _twice(names: Sequence[str]) -> str | None:
    """The first name met a second time in ``names``, if any."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _seat(rounds: list[list[list[int]]], firsts: list[int], rng: random.Random) -> list[list[list[int]]]:
    """Seat order at each table: the first seat (who deals first) goes round.

    Round by round, to whoever at the table has had it least (the played rounds
    count; a seeded draw among equals); then, while a player has had it two times
    more than another, first seats pass along a chain of tables between them
    (:func:`_pass_on`). The other seats are drawn by the seed.
    """
    chosen: list[list[int]] = []
    for tables in rounds:
        picks = []
        for table in tables:
            drawn = list(table)
            rng.shuffle(drawn)
            first = min(drawn, key=lambda p: firsts[p])
            firsts[first] += 1
            picks.append(first)
        chosen.append(picks)
    while _pass_on(rounds, chosen, firsts):
        pass
    seated = []
    for tables, picks in zip(rounds, chosen, strict=True):
        ordered = []
        for table, first in zip(tables, picks, strict=True):
            rest = [p for p in table if p != first]
            rng.shuffle(rest)
            ordered.append([first, *rest])
        seated.append(ordered)
    return seated


def _pass_on(rounds: list[list[list[int]]], chosen: list[list[int]], firsts: list[int]) -> bool:
    """One chain of first seats handed on, from a player who has had the most to one who has had two fewer.

    A breadth-first search: from ``a``, who has the first seat of a table where ``b`` sits,
    the seat can pass to ``b``; along a chain a → b → … → z, everyone in between keeps
    his count, ``a`` loses one and ``z`` gains one. False when no such chain exists.
    """
    most = max(firsts)
    start = [p for p, count in enumerate(firsts) if count == most]
    came: dict[int, tuple[int, int, int]] = {}  # player → (previous player, round, table)
    seen = set(start)
    queue = list(start)
    for p in queue:
        for r, tables in enumerate(rounds):
            for t, table in enumerate(tables):
                if chosen[r][t] != p:
                    continue
                for q in table:
                    if q in seen:
                        continue
                    seen.add(q)
                    came[q] = (p, r, t)
                    if firsts[q] <= most - 2:
                        end = q
                        while end in came:
                            back, r_, t_ = came[end]
                            chosen[r_][t_] = end
                            end = back
                        firsts[end] -= 1
                        firsts[q] += 1
                        return True
                    queue.append(q)
    return False
