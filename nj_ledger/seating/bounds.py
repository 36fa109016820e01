"""How evenly a seating spreads the pairs: how often each two players share a table, the worst of those
counts, and a proven lower bound on the worst count any plan can reach for the same counts (what the planner
reports beside its plan, :attr:`~nj_ledger.seating.Plan.bound`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations


def pair_counts(rounds: Sequence[Sequence[Sequence[str]]]) -> dict[tuple[str, str], int]:
    """How many times each two players (in name order) share a table in ``rounds``; pairs never met are left out."""
    met: dict[tuple[str, str], int] = {}
    for tables in rounds:
        for table in tables:
            ordered = sorted(table)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    met[a, b] = met.get((a, b), 0) + 1
    return met


def worst_pair(rounds: Sequence[Sequence[Sequence[str]]]) -> int:
    """The most times any two players share a table in ``rounds`` (0 when no two ever do)."""
    return max(pair_counts(rounds).values(), default=0)


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
    4. pigeonhole: the ``s`` players of a table of one planned round sit, in
       ``j`` other planned rounds of ``k`` tables each, at one of ``k^j``
       combinations of tables; when ``s > k^j``, two of them share all ``j + 1``
       tables: a count of ``j + 1`` at least (12 players at tables of 4: in the
       second round, two of a table of 4 come from one of the 3 tables of the
       first, so 12 players at tables of 4 cannot play 2 rounds without a pair
       meeting twice);
    5. the same between a played round and a planned one: a planned table holds
       at least ``s −`` (players absent from the played round) players of it;
       when they outnumber the played round's tables, two who sat together then
       meet once more than the least met of such pairs;
    6. codes: over the planned rounds, each player's tables spell a word of
       ``R`` letters from an alphabet of the ``k`` tables; two players meet as
       many times as their words agree, ``R −`` their Hamming distance. No pair
       meeting more than ``w`` times asks for ``n`` words pairwise at distance
       ``R − w`` or more: when the Singleton, Hamming or Plotkin bound (or, for
       two tables, the exact size known) allows fewer, a count of ``w + 1``.
       9 players at two tables over 6 rounds: at most 8 binary words of length
       6 are pairwise 3 apart, so a pair meets 4 times;
    7. Euler's 36 officers: 36 players at 6 tables of 6 over 4 rounds with no
       pair twice would make two orthogonal Latin squares of order 6 (the
       first two rounds as rows and columns, the others as symbols), which do
       not exist (Tarry, 1900): from 4 such rounds on, a count of 2 at least.
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
    tables, again = len(sizes), 0
    while again + 1 < todo and max(sizes) > tables ** (again + 1):
        again += 1
    bound = max(bound, again + 1)
    if todo >= 4 and tuple(sizes) == (6,) * 6:
        bound = max(bound, 2)
    meets = 0  # codes: the planned rounds' tables of each player spell a word of `todo` letters among `tables`
    while meets < todo and _code_size(tables, todo, todo - meets) < n:
        meets += 1
    bound = max(bound, meets)
    for done in played:
        # a planned table holds at least (size − newcomers) players of this played round, spread over its tables:
        # when they outnumber the tables, two who sat together then sit together again
        present = [[index[name] for name in table if name in index] for table in done]
        groups = sum(1 for table in present if table)
        newcomers = n - sum(len(table) for table in present)
        if max(sizes) - newcomers > groups:
            bound = max(bound, 1 + min(counts[p][q] for table in present for p, q in combinations(table, 2)))
    return bound


# A(length, distance), the most binary words of ``length`` letters pairwise at ``distance`` or more, for odd
# distances where the Plotkin bound does not give it (exact values, from the tables of coding theory).
_BINARY = {(3, 3): 2, (4, 3): 2, (5, 3): 4, (6, 3): 8, (7, 3): 16, (8, 3): 20, (9, 3): 40, (10, 3): 72,
           (11, 3): 144, (12, 3): 256, (9, 5): 6, (10, 5): 12, (11, 5): 24, (12, 5): 32}


def _code_size(letters: int, length: int, distance: int) -> int:
    """An upper bound on how many words of ``length`` letters (``letters`` of them) can be pairwise at Hamming
    ``distance`` or more: the Singleton, Hamming and Plotkin bounds, and for two letters the exact values known.
    """
    if distance <= 1:
        return int(letters ** length)
    if distance > length:
        return 1
    if letters == 2 and distance % 2 == 0:
        return _code_size(2, length - 1, distance - 1)  # A(n, 2e) = A(n − 1, 2e − 1)
    best: int = int(letters ** (length - distance + 1))  # Singleton
    radius = (distance - 1) // 2
    ball = sum(math.comb(length, i) * (letters - 1) ** i for i in range(radius + 1))
    best = min(best, int(letters ** length) // ball)  # Hamming
    share = Fraction(letters - 1, letters) * length
    if distance > share:
        best = min(best, math.floor(distance / (distance - share)))  # Plotkin
    if letters == 2 and (length, distance) in _BINARY:
        best = min(best, _BINARY[length, distance])
    return best


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

