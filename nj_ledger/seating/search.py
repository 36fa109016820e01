"""The search for an evening's rounds: pairs sharing a table as evenly as can be found.

Rounds start from a known design (:mod:`.designs`) or are built greedily, then are improved by simulated
annealing and a tabu search over swaps of two players of one round; a pair met ``c`` times costs
``4 ** c``, so the worst pairs weigh most, then how many they are, then the spread of the others.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from .designs import design

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


def search_rounds(n: int, todo: int, sizes: Sequence[int], counts: list[int],
            rng: random.Random) -> list[list[list[int]]]:
    """``todo`` rounds of tables of ``sizes`` over players ``0..n-1``, pairs as even as can be found.

    A resolvable design when one is known for these sizes (its classes picked one by one, the cheapest
    first, the players drawn onto its points by the seed); else rounds built greedily. Then, unless the
    counts are already the evenest possible, simulated annealing and a tabu search over swaps.
    """
    search = _Search(n, sizes, counts, todo, rng)
    classes = design(n, sizes)
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

