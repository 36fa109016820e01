"""Seats drawn and rotated over a club evening: who sits at which table in each round.

A pure planner: names in, a :class:`Plan` out. Over the evening, pairs of players
should share a table as evenly as possible: :func:`plan` minimises the most times
any two players meet (``worst_pair``), then the number of pairs meeting that
often, then the spread of the other counts; it reports ``bound``, a proven lower
bound on ``worst_pair`` for the same counts, beside it (``docs/EVENINGS.md``).

    >>> table_sizes(10)
    (4, 3, 3)
    >>> p = plan([f"P{i:02d}" for i in range(12)], 3, sizes=(3, 3, 3, 3))
    >>> p.worst_pair, p.bound
    (1, 1)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

SMALLEST = 3  # a Nain Jaune table seats 3 to 8 players
LARGEST = 8


@dataclass(frozen=True)
class Plan:
    """An evening's seating.

    ``rounds``: round → table → players, in seat order (the first seat deals first);
    ``worst_pair``: the most times any two players share a table over all rounds;
    ``bound``: a proven lower bound on ``worst_pair`` for these counts (see :func:`lower_bound`).
    """

    rounds: tuple[tuple[tuple[str, ...], ...], ...]
    worst_pair: int
    bound: int


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
        raise ValueError(f"no table can seat between {smallest} and {largest} players")
    if players < smallest:
        raise ValueError(f"{players} players cannot fill a table of {smallest}")
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
        raise ValueError(f"{players} players cannot be split into tables of {smallest} to {largest}")
    return best


def plan(players: Sequence[str], rounds: int, *, sizes: Sequence[int] | None = None, seed: int = 0,
         played: Sequence[Sequence[Sequence[str]]] = ()) -> Plan:
    """The evening's seating: ``played`` rounds kept as given, the others planned for ``players``.

    ``rounds`` is the evening's total number of rounds; the rounds after ``played``
    seat every one of ``players`` (those present now) once each, at tables of
    ``sizes`` (default :func:`table_sizes`), counting the pairs already met in the
    played rounds. The same arguments and ``seed`` give the same plan. Within a
    table, the first seat (who deals first) goes to whoever has had it least.
    """
    names = tuple(players)
    if len(set(names)) != len(names):
        raise ValueError("a player is listed twice")
    if rounds < len(played):
        raise ValueError(f"{len(played)} rounds are played already: the evening cannot have {rounds}")
    kept = tuple(tuple(tuple(table) for table in played_round) for played_round in played)
    for number, done in enumerate(kept, 1):
        seated = [name for table in done for name in table]
        if len(set(seated)) != len(seated):
            raise ValueError(f"round {number} seats a player twice")
    todo = rounds - len(kept)
    split = tuple(sizes) if sizes is not None else (table_sizes(len(names)) if todo else ())
    if todo:
        if any(not SMALLEST <= size <= LARGEST for size in split):
            raise ValueError(f"a table seats {SMALLEST} to {LARGEST} players, not {list(split)}")
        if sum(split) != len(names):
            raise ValueError(f"tables of {list(split)} do not seat {len(names)} players")
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
    schedule = _search(n, todo, split, counts, rng) if todo else []
    seated_rounds = _seat(schedule, firsts, rng)
    planned = tuple(tuple(tuple(names[p] for p in table) for table in tables) for tables in seated_rounds)
    everything = kept + planned
    return Plan(everything, worst_pair(everything), lower_bound(names, todo, split, kept))


def worst_pair(rounds: Sequence[Sequence[Sequence[str]]]) -> int:
    """The most times any two players share a table in ``rounds`` (0 when no two ever do)."""
    met: dict[tuple[str, str], int] = {}
    for tables in rounds:
        for table in tables:
            ordered = sorted(table)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    met[a, b] = met.get((a, b), 0) + 1
    return max(met.values(), default=0)


def lower_bound(players: Sequence[str], todo: int, sizes: Sequence[int],
                played: Sequence[Sequence[Sequence[str]]] = ()) -> int:
    """A proven lower bound on the worst pair count of any plan for these counts.

    The largest of:

    1. the worst pair count of the ``played`` rounds (counts only grow);
    2. per player: over ``todo`` rounds, each present player meets at least
       ``todo × (min(sizes) − 1)`` others (with repetition) among the ``n − 1``
       others present; the pair counts already met are filled up level by level,
       and the level this pouring reaches is a bound (without played rounds,
       ``ceil(todo × (min(sizes) − 1) / (n − 1))``);
    3. over all pairs: the ``todo × Σ C(size, 2)`` pair meetings of the planned
       rounds poured the same way over the ``C(n, 2)`` pairs of present players;
    4. pigeonhole: with two rounds or more, a table of ``s`` players in one round
       spreads them over the ``k`` tables of another; when ``s > k``, two of them
       met in both rounds: a count of 2 at least.
    """
    names = tuple(players)
    n = len(names)
    index = {name: number for number, name in enumerate(names)}
    counts = [[0] * n for _ in range(n)]
    bound = worst_pair(played)
    for done in played:
        for table in done:
            here = [index[name] for name in table if name in index]
            for i, p in enumerate(here):
                for q in here[i + 1:]:
                    counts[p][q] += 1
                    counts[q][p] += 1
    if not todo or n < 2:
        return bound
    smallest = min(sizes)
    for p in range(n):
        others = [counts[p][q] for q in range(n) if q != p]
        bound = max(bound, _pour(others, todo * (smallest - 1)))
    pairs = [counts[p][q] for p in range(n) for q in range(p + 1, n)]
    bound = max(bound, _pour(pairs, todo * sum(size * (size - 1) // 2 for size in sizes)))
    if todo >= 2 and max(sizes) > len(sizes):
        bound = max(bound, 2)
    for done in played:
        # a planned table holds at least (size − newcomers) players of this played round, spread over its tables
        present = [[name for name in table if name in index] for table in done]
        groups = sum(1 for table in present if table)
        newcomers = n - sum(len(table) for table in present)
        if max(sizes) - newcomers > groups:
            bound = max(bound, 2)
    return bound


def _pour(levels: Sequence[int], amount: int) -> int:
    """The least ``w`` such that raising every level below ``w`` up to ``w`` takes ``amount`` units or more.

    Adding ``amount`` units (one at a time, any level) to ``levels`` leaves a level of that height at least.
    """
    if amount <= 0:
        return max(levels, default=0)
    ordered = sorted(levels)
    filled = 0  # units needed to raise the lowest ``i`` levels to ordered[i]
    for i in range(1, len(ordered) + 1):
        top = ordered[i] if i < len(ordered) else math.inf
        room = (top - ordered[i - 1]) * i if top != math.inf else math.inf
        if filled + room >= amount:
            # the lowest i levels all reach ordered[i-1] + ceil((amount - filled) / i)
            return int(ordered[i - 1] + -(-(amount - filled) // i))
        filled += int(room)
    raise AssertionError("unreachable")  # pragma: no cover


def _search(n: int, todo: int, sizes: Sequence[int], counts: list[int],
            rng: random.Random) -> list[list[list[int]]]:
    """``todo`` rounds of tables of ``sizes`` over players ``0..n-1``, pairs as even as a seeded search finds.

    ``counts`` (the pairs already met, flattened) is updated with the rounds found.
    """
    rounds: list[list[list[int]]] = []
    for _ in range(todo):
        order = list(range(n))
        rng.shuffle(order)
        tables, start = [], 0
        for size in sizes:
            tables.append(order[start:start + size])
            start += size
        rounds.append(tables)
    for tables in rounds:
        _add(tables, counts, n, 1)
    _improve(rounds, counts, n, rng)
    return rounds


def _add(tables: Sequence[Sequence[int]], counts: list[int], n: int, step: int) -> None:
    for table in tables:
        for i, p in enumerate(table):
            for q in table[i + 1:]:
                counts[p * n + q] += step
                counts[q * n + p] += step


def _improve(rounds: list[list[list[int]]], counts: list[int], n: int, rng: random.Random) -> None:
    """Swaps of two players between tables of one round, kept when the pairs get no less even."""
    if len(rounds[0]) < 2:
        return
    weight = [4.0 ** c for c in range(len(rounds) + 64)]
    up = [weight[c + 1] - weight[c] for c in range(len(weight) - 1)]
    where = [[0] * n for _ in rounds]
    for r, tables in enumerate(rounds):
        for t, table in enumerate(tables):
            for p in table:
                where[r][p] = t
    for _ in range(2000 + 200 * n * len(rounds)):
        r = rng.randrange(len(rounds))
        p, q = rng.randrange(n), rng.randrange(n)
        a, b = where[r][p], where[r][q]
        if a == b:
            continue
        first, second = rounds[r][a], rounds[r][b]
        delta = 0.0
        for x in first:
            if x != p:
                delta += up[counts[q * n + x]] - up[counts[p * n + x] - 1]
        for y in second:
            if y != q:
                delta += up[counts[p * n + y]] - up[counts[q * n + y] - 1]
        if delta <= 0:
            for x in first:
                if x != p:
                    counts[p * n + x] -= 1
                    counts[x * n + p] -= 1
                    counts[q * n + x] += 1
                    counts[x * n + q] += 1
            for y in second:
                if y != q:
                    counts[q * n + y] -= 1
                    counts[y * n + q] -= 1
                    counts[p * n + y] += 1
                    counts[y * n + p] += 1
            first[first.index(p)] = q
            second[second.index(q)] = p
            where[r][p], where[r][q] = b, a


def _seat(rounds: list[list[list[int]]], firsts: list[int], rng: random.Random) -> list[list[list[int]]]:
    """Seat order at each table: the first seat to whoever has had it least (a seeded draw among equals)."""
    seated = []
    for tables in rounds:
        ordered = []
        for table in tables:
            rest = list(table)
            rng.shuffle(rest)
            first = min(rest, key=lambda p: firsts[p])
            firsts[first] += 1
            rest.remove(first)
            ordered.append([first, *rest])
        seated.append(ordered)
    return seated
