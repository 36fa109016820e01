"""What an analysis may do, counted as work: the positions its searches visit and the steps of its sampling.

A search's ``limit`` counts positions, which is work: each costs about the same (a microsecond compiled). The
fair view (:mod:`nj_ledger.analysis.fair`) does work of another kind besides solving its samples: it counts the
deals consistent with what a seat saw, a split of the unseen cards at a time, or draws them by rejection, a
deal dealt at a time. Its budget once counted only the states the count kept, never the splits it tried nor
the deals it dealt, and one 8-player deal under ``blocked: skip`` (every pass rules cards out of a hand) took
80 s of CPU for 12,574 positions. A :class:`Budget` counts all of it in one unit, the position: a step of the
sampling counts as :data:`STEP` positions (a split the count tries is a step, some 4 µs of Python; a deal dealt
by rejection, two).
"""

from __future__ import annotations

from .solver import PythonSearch, TooLarge

STEP = 5  # positions one step of the sampling counts for: about as long as 5 positions of the compiled search


class Budget:
    """``positions`` of work at most, shared by the searches and the sampling of one analysis; spending past it
    raises :class:`~nj_ledger.analysis.TooLarge`."""

    def __init__(self, positions: int) -> None:
        self.left = positions

    def spend(self, positions: int) -> None:
        self.left -= positions
        if self.left < 0:
            raise TooLarge(self.left)

    def step(self, steps: int = 1) -> None:
        """``steps`` steps of the sampling."""
        self.left -= steps * STEP
        if self.left < 0:
            raise TooLarge(self.left)

    def lend(self, search: PythonSearch) -> int:
        """Let ``search`` go on within what is left (it gives up with TooLarge there); the positions it had
        searched, for :meth:`settle`."""
        if self.left <= 0:
            raise TooLarge(self.left)
        search.limit = search.nodes + self.left
        return search.nodes

    def settle(self, search: PythonSearch, before: int) -> None:
        """Count what ``search`` searched since :meth:`lend` returned ``before``."""
        self.spend(search.nodes - before)


__all__ = ["STEP", "Budget"]
