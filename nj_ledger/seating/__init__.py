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

The modules: :mod:`.planner` (the table split, the plan, who deals first), :mod:`.search` (the rounds
searched for, pairs as even as can be found), :mod:`.designs` (the known resolvable designs the search starts
from), :mod:`.bounds` (the pairs' counts and the proven lower bound on the worst of them).
"""

from .bounds import lower_bound, pair_counts, worst_pair
from .planner import LARGEST, SMALLEST, Plan, SeatingError, plan, table_sizes

__all__ = ["LARGEST", "SMALLEST", "Plan", "SeatingError", "lower_bound", "pair_counts", "plan", "table_sizes",
           "worst_pair"]
