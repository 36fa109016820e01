"""Resolvable designs known by construction: rounds of equal tables over which, all taken together, every two
players meet equally often (the lines of an affine space AG(k, q), where they meet exactly once, and the flats
of AG(k, 2)). The search (:mod:`.search`) starts from one when the evening's counts fit.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def design(n: int, sizes: Sequence[int]) -> list[list[list[int]]]:
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

