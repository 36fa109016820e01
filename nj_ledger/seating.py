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
from fractions import Fraction
from itertools import combinations

from .errors import InvalidInput

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
    schedule = _search(n, todo, split, counts, rng) if todo else []
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


# --- constructions ------------------------------------------------------------------------------------------------

_POLYNOMIALS = {4: 0b111, 8: 0b1011}  # GF(4) = GF(2)[x]/(x²+x+1), GF(8) = GF(2)[x]/(x³+x+1)
_MAX_CLASSES = 200  # designs with more parallel classes than this are left to the search


def _field(q: int) -> tuple[list[list[int]], list[list[int]]]:
    """Addition and multiplication tables of GF(q), q in 2, 3, 4, 5, 7, 8."""
    if q in _POLYNOMIALS:
        def times(a: int, b: int) -> int:
            product = 0
            while b:
                if b & 1:
                    product ^= a
                b >>= 1
                a <<= 1
                if a & q:
                    a ^= _POLYNOMIALS[q]
            return product
        return [[a ^ b for b in range(q)] for a in range(q)], [[times(a, b) for b in range(q)] for a in range(q)]
    return [[(a + b) % q for b in range(q)] for a in range(q)], [[a * b % q for b in range(q)] for a in range(q)]


def _power(n: int, base: int) -> int:
    """``k`` when ``n == base ** k`` (k ≥ 1), else 0."""
    k, value = 0, 1
    while value < n:
        value *= base
        k += 1
    return k if value == n else 0


def _lines(q: int, k: int) -> list[list[list[int]]]:
    """The parallel classes of lines of the affine space AG(k, q): every two points on exactly one line."""
    add, mul = _field(q)
    points = [tuple((index // q ** axis) % q for axis in range(k)) for index in range(q ** k)]
    number = {point: index for index, point in enumerate(points)}
    directions = [point for point in points if any(point) and point[next(i for i, c in enumerate(point) if c)] == 1]
    classes = []
    for direction in directions:
        seen = [False] * len(points)
        tables = []
        for start, point in enumerate(points):
            if seen[start]:
                continue
            line = [number[tuple(add[x][mul[t][d]] for x, d in zip(point, direction, strict=True))] for t in range(q)]
            for member in line:
                seen[member] = True
            tables.append(line)
        classes.append(tables)
    return classes


def _flats(k: int, dimension: int) -> list[list[list[int]]]:
    """The parallel classes of the ``dimension``-flats of AG(k, 2) (points 0..2^k − 1, added by exclusive or)."""
    spaces: dict[tuple[int, ...], None] = {}
    vectors = range(1, 2 ** k)

    def extend(chosen: tuple[int, ...], span: frozenset[int]) -> None:
        if len(spaces) > _MAX_CLASSES:
            return
        if len(chosen) == dimension:
            spaces.setdefault(tuple(sorted(span)), None)
            return
        for v in vectors:
            if v > (chosen[-1] if chosen else 0) and v not in span:
                extend((*chosen, v), span | {x ^ v for x in span})

    extend((), frozenset({0}))
    if len(spaces) > _MAX_CLASSES:
        return []
    classes = []
    for space in spaces:
        seen: set[int] = set()
        tables = []
        for point in range(2 ** k):
            if point not in seen:
                coset = sorted(point ^ v for v in space)
                seen.update(coset)
                tables.append(coset)
        classes.append(tables)
    return classes


def _design(n: int, sizes: Sequence[int]) -> list[list[list[int]]]:
    """Parallel classes of a resolvable design on ``n`` points with blocks of ``sizes`` (all equal), if one is known.

    Lines of AG(k, q) for tables of q = 3, 4, 5, 7, 8 and q^k players (every pair on one line: over all the
    classes, each pair meets exactly once); else flats of AG(k, 2) for tables of 4 or 8 and 2^k players.
    """
    size = sizes[0] if sizes else 0
    if any(other != size for other in sizes):
        return []
    k = _power(n, size)
    if size in (3, 4, 5, 7, 8) and k >= 2:
        if (n - 1) // (size - 1) <= _MAX_CLASSES:
            return _lines(size, k)
        return []
    dimension = {4: 2, 8: 3}.get(size, 0)
    k = _power(n, 2)
    if dimension and k > dimension:
        return _flats(k, dimension)
    return []


# --- search ---------------------------------------------------------------------------------------------------------

_BASE = 4.0  # a pair met c times costs _BASE ** c: the worst pairs weigh most, then how many, then the spread
_EFFORT = 2_000_000  # seats looked at by the annealing, and as many by the tabu search (about 0.3 s each)
_TABU_STEPS = 3_000
_TRIES = 400  # most swaps tried by the annealing, per player and round
_STALL = 1_000  # tabu steps without a better plan before giving up
_TENURE = (4, 10)  # steps a swap undone stays forbidden: drawn between these
_PICKS = 48  # conflicting (round, player) places looked at by one tabu step (a seeded sample when more)


class _Search:
    """Rounds of tables over players 0..n − 1, and how often each pair has met (the played rounds included)."""

    def __init__(self, n: int, sizes: Sequence[int], counts: list[int], todo: int, rng: random.Random) -> None:
        self.n, self.sizes, self.counts, self.rng = n, tuple(sizes), counts, rng
        self.rounds: list[list[list[int]]] = []
        self.where: list[list[int]] = []
        top = max(counts, default=0) + todo + 2
        weight = [_BASE ** c for c in range(top + 1)]
        self.up = [weight[c + 1] - weight[c] for c in range(top)]
        pairs = [counts[p * n + q] for p in range(n) for q in range(p + 1, n)]
        self.hist = [0] * (top + 1)
        for c in pairs:
            self.hist[c] += 1
        self.squares = sum(c * c for c in pairs)
        per_round = sum(size * (size - 1) // 2 for size in sizes)
        self.ideal = _poured(pairs, todo * per_round)

    def key(self) -> tuple[int, int, int]:
        """(worst pair count, pairs at that count, sum of squared counts): less is better, in that order."""
        worst = len(self.hist) - 1
        while worst and not self.hist[worst]:
            worst -= 1
        return worst, self.hist[worst], self.squares

    def add(self, tables: list[list[int]]) -> None:
        n, counts, hist = self.n, self.counts, self.hist
        where = [0] * n
        for number, table in enumerate(tables):
            for i, p in enumerate(table):
                where[p] = number
                for q in table[i + 1:]:
                    c = counts[p * n + q]
                    hist[c] -= 1
                    hist[c + 1] += 1
                    self.squares += 2 * c + 1
                    counts[p * n + q] = counts[q * n + p] = c + 1
        self.rounds.append(tables)
        self.where.append(where)

    def cost(self, tables: list[list[int]]) -> float:
        """What adding the round ``tables`` would cost."""
        n, counts, up = self.n, self.counts, self.up
        return sum(up[counts[p * n + q]] for table in tables for i, p in enumerate(table) for q in table[i + 1:])

    def greedy(self) -> list[list[int]]:
        """A round built player by player (in a seeded order), each to the table where he has met the others least."""
        n, counts, up, rng = self.n, self.counts, self.up, self.rng
        order = list(range(n))
        rng.shuffle(order)
        tables: list[list[int]] = [[] for _ in self.sizes]
        for p in order:
            best, chosen = math.inf, 0
            for number, table in enumerate(tables):
                if len(table) < self.sizes[number]:
                    price = sum(up[counts[p * n + x]] for x in table)
                    if price < best:
                        best, chosen = price, number
            tables[chosen].append(p)
        return tables

    def delta(self, r: int, p: int, q: int) -> float:
        """The change of cost when ``p`` and ``q`` (at different tables of round ``r``) swap seats."""
        n, counts, up, where = self.n, self.counts, self.up, self.where[r]
        first, second = self.rounds[r][where[p]], self.rounds[r][where[q]]
        pn, qn = p * n, q * n
        change = 0.0
        for x in first:
            if x != p:
                change += up[counts[qn + x]] - up[counts[pn + x] - 1]
        for y in second:
            if y != q:
                change += up[counts[pn + y]] - up[counts[qn + y] - 1]
        return change

    def swap(self, r: int, p: int, q: int) -> None:
        n, counts, hist, where = self.n, self.counts, self.hist, self.where[r]
        a, b = where[p], where[q]
        first, second = self.rounds[r][a], self.rounds[r][b]
        squares = self.squares
        for leaving, joining, table in ((p, q, first), (q, p, second)):
            for x in table:
                if x != leaving:
                    c = counts[leaving * n + x]
                    hist[c] -= 1
                    hist[c - 1] += 1
                    squares += 1 - 2 * c
                    counts[leaving * n + x] = counts[x * n + leaving] = c - 1
                    c = counts[joining * n + x]
                    hist[c] -= 1
                    hist[c + 1] += 1
                    squares += 2 * c + 1
                    counts[joining * n + x] = counts[x * n + joining] = c + 1
        self.squares = squares
        first[first.index(p)] = q
        second[second.index(q)] = p
        where[p], where[q] = b, a

    def anneal(self, tries: int) -> None:
        """Simulated annealing over swaps of two players of one round, cooling geometrically."""
        n, counts, up, rounds, places = self.n, self.counts, self.up, self.rounds, self.where
        random, exp, count = self.rng.random, math.exp, len(rounds)
        scale = up[max(self.ideal[0], 1)]
        temperature, final = 0.3 * scale, 0.01 * scale
        cooling = (final / temperature) ** (1 / max(tries, 1))
        for _ in range(tries):
            temperature *= cooling
            r = int(random() * count)
            where = places[r]
            p, q = int(random() * n), int(random() * n)
            if where[p] == where[q]:
                continue
            pn, qn = p * n, q * n
            change = 0.0
            for x in rounds[r][where[p]]:
                if x != p:
                    change += up[counts[qn + x]] - up[counts[pn + x] - 1]
            for y in rounds[r][where[q]]:
                if y != q:
                    change += up[counts[pn + y]] - up[counts[qn + y] - 1]
            if change <= 0 or random() < exp(-change / temperature):
                self.swap(r, p, q)

    def tabu(self, steps: int, budget: int) -> None:
        """Tabu search: each step makes the best swap of a player of a worst pair (a few sampled), swaps just
        undone being forbidden for a few steps; the best rounds met are kept."""
        n, rng = self.n, self.rng
        best, kept = self.key(), self.snapshot()
        forbidden: dict[tuple[int, int, int], int] = {}
        last = 0  # the step that found the best
        for step in range(steps):
            if best <= self.ideal or budget <= 0 or step - last > _STALL:
                break
            together = [(self.counts[p * n + q], r, p, q) for r, tables in enumerate(self.rounds)
                        for table in tables for i, p in enumerate(table) for q in table[i + 1:]]
            worst = max(together)[0]  # the worst pair the planned rounds can change (played ones may be worse)
            places = sorted({(r, x) for c, r, p, q in together if c >= worst for x in (p, q)})
            if len(places) > _PICKS:
                places = rng.sample(places, _PICKS)
            move, lowest = None, math.inf
            for r, p in places:
                where = self.where[r]
                for q in range(n):
                    if where[q] != where[p] and forbidden.get((r, p, q), -1) < step:
                        change = self.delta(r, p, q)
                        budget -= 1
                        if change < lowest or (change == lowest and rng.random() < 0.3):
                            move, lowest = (r, p, q), change
            if move is None:
                break
            r, p, q = move
            self.swap(r, p, q)
            tenure = step + rng.randint(*_TENURE)
            forbidden[r, p, q] = forbidden[r, q, p] = tenure
            now = self.key()
            if now < best:
                best, kept, last = now, self.snapshot(), step
        self.restore(kept)

    def snapshot(self) -> list[list[list[int]]]:
        return [[list(table) for table in tables] for tables in self.rounds]

    def restore(self, rounds: list[list[list[int]]]) -> None:
        start = len(self.rounds)
        for tables in self.rounds[::-1]:
            for table in tables:  # take the round away again
                for i, p in enumerate(table):
                    for q in table[i + 1:]:
                        c = self.counts[p * self.n + q]
                        self.hist[c] -= 1
                        self.hist[c - 1] += 1
                        self.squares += 1 - 2 * c
                        self.counts[p * self.n + q] = self.counts[q * self.n + p] = c - 1
        self.rounds, self.where = [], []
        for tables in rounds:
            self.add(tables)
        assert len(self.rounds) == start


def _poured(levels: Sequence[int], amount: int) -> tuple[int, int, int]:
    """The key of the evenest counts: ``amount`` meetings added to ``levels`` lowest first (no plan does better)."""
    if not levels:
        return 0, 0, 0
    ordered = sorted(levels)
    height, filled, below = ordered[0], 0, 0  # raise the lowest ``below`` levels to ``height``
    while True:
        while below < len(ordered) and ordered[below] <= height:
            below += 1
        step = (ordered[below] - height) if below < len(ordered) else math.inf
        if filled + step * below > amount:
            rise, extra = divmod(amount - filled, below)
            height += int(rise)
            break
        filled += int(step * below)
        height = ordered[below]
    final = [max(level, height) for level in ordered]
    for i in range(extra):  # ``extra`` of the levels at ``height`` go one higher
        final[i] += 1
    worst = max(final)
    return worst, final.count(worst), sum(c * c for c in final)


def _search(n: int, todo: int, sizes: Sequence[int], counts: list[int],
            rng: random.Random) -> list[list[list[int]]]:
    """``todo`` rounds of tables of ``sizes`` over players ``0..n-1``, pairs as even as can be found.

    A resolvable design when one is known for these sizes (its classes picked one by one, the cheapest
    first, the players drawn onto its points by the seed); else rounds built greedily. Then, unless the
    counts are already the evenest possible, simulated annealing and a tabu search over swaps.
    """
    search = _Search(n, sizes, counts, todo, rng)
    classes = _design(n, sizes)
    if classes:
        label = list(range(n))
        rng.shuffle(label)
        drawn = [[[label[point] for point in table] for table in tables] for tables in classes]
        rng.shuffle(drawn)
        unused: list[list[list[int]]] = []
        for _ in range(todo):
            if not unused:
                unused = list(drawn)
            chosen = min(range(len(unused)), key=lambda number: search.cost(unused[number]))
            search.add([list(table) for table in unused.pop(chosen)])
    else:
        for _ in range(todo):
            search.add(search.greedy())
    if search.key() > search.ideal and len(sizes) > 1:
        before, kept = search.key(), search.snapshot()
        per_swap = 2 * n // len(sizes)  # seats looked at to price a swap
        search.anneal(min(_EFFORT // per_swap, _TRIES * n * todo))
        if search.key() > before:
            search.restore(kept)
        search.tabu(_TABU_STEPS, _EFFORT // per_swap)
    return search.rounds


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
