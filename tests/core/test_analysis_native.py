"""The compiled searches (``nj_ledger.analysis._maxn``) are the Python ones move for move.

- The module is built in the test environment (``make install`` builds it with the package): the tests below
  would otherwise hold nothing.
- On small random deals of every profile and of every rule the model reads (``small_deal``: from the deal's
  first card, or a few random table actions in), 2 to 8 seats, its moves are the model's, its values are
  :class:`~nj_ledger.analysis.solver.PythonSearch`'s and so are its counts of positions searched, call after
  call on one search (its transposition tables carried over), for best play by all and for what each seat is
  sure of; a limit gives up at the same count.
- ``NJ_LEDGER_NATIVE=0`` runs the search in Python, with the same answers.
"""

from __future__ import annotations

import random

import pytest

from core.test_analysis import small_deal
from nj_ledger import GameState
from nj_ledger.analysis import TooLarge, solve
from nj_ledger.analysis.convert import position
from nj_ledger.analysis.model import ENDED, P_MODE, Position, Table
from nj_ledger.analysis.solver import PythonSearch, Search, _turn_options, native
from support.scale import scaled, sized


def test_the_compiled_search_is_built_and_used() -> None:
    from nj_ledger.analysis import _maxn

    assert native(), "nj_ledger.analysis._maxn is built by `make install` (pip install -e .): install again"
    state = small_deal(3, sizes=(3,), players=(3,))
    table, p, _ = position(state)
    search = Search(table, p)
    assert isinstance(search._native, _maxn.Search)


def test_nj_ledger_native_0_searches_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    state = small_deal(9, sizes=(3,), players=(3,))
    compiled = solve(state)
    monkeypatch.setenv("NJ_LEDGER_NATIVE", "0")
    assert not native()
    table, p, _ = position(state)
    assert Search(table, p)._native is None
    assert solve(state) == compiled


def deal(seed: int) -> GameState:
    """A small deal of any profile: 2 to 4 seats of 2 to 5 cards, or 5 to 8 seats of 1 or 2."""
    sizes, players = (((2, 3), (2, 3, 4)), ((4,), (2, 3)), ((5,), (2,)), ((1, 2), (5, 6, 7, 8)))[seed // 7 % 4]
    return small_deal(seed, sizes=sizes, players=players)


def positions_along(table: Table, p: Position, rng: random.Random, most: int) -> list[Position]:
    """``p`` and up to ``most`` positions after it along random moves (one card, pass or stop at a time)."""
    out = [p]
    while len(out) <= most:
        moves = table.moves(p)
        p = table.play(p, rng.choice(moves))
        if p[P_MODE] == ENDED:
            break
        out.append(p)
    return out


@scaled
def test_the_compiled_searches_equal_the_python_ones_value_for_value_node_for_node() -> None:
    rng = random.Random(17)
    for seed in range(sized(400, 4000)):
        state = deal(60_000 + seed)
        table, root, _ = position(state)
        compiled, python = Search(table, root), PythonSearch(table, root)
        assert compiled._native is not None
        for p in positions_along(table, root, rng, 6):
            assert compiled._native.moves(p) == table.moves(p), seed
            # one search asked again and again, as solve and review ask it: its table carries over
            assert compiled.values(p) == python.values(p), seed
            assert compiled.nodes == python.nodes, seed
        for _moves, after in _turn_options(table, root):
            if after[P_MODE] != ENDED:
                assert compiled.values(after) == python.values(after), seed
        assert compiled.nodes == python.nodes, seed
        for p in positions_along(table, root, rng, 3):  # what each seat is sure of: alpha-beta, node for node
            for seat in range(table.n):
                assert compiled.secure(p, seat) == python.secure(p, seat), (seed, seat)
                assert compiled.nodes == python.nodes, (seed, seat)


@scaled
def test_solve_gives_the_same_solution_compiled_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in range(sized(150, 1500)):
        state = deal(70_000 + seed)
        compiled = solve(state)
        with monkeypatch.context() as patch:
            patch.setenv("NJ_LEDGER_NATIVE", "0")
            assert solve(state) == compiled, seed  # values, options, best line and positions searched


@scaled
def test_a_limit_gives_up_at_the_same_count() -> None:
    rng = random.Random(23)
    tried = 0
    for seed in range(sized(400, 4000)):
        state = deal(80_000 + seed)
        table, root, _ = position(state)
        whole = PythonSearch(table, root)
        whole.values(root)
        if whole.nodes < 2:
            continue
        tried += 1
        limit = rng.randint(1, whole.nodes)
        for search in (Search(table, root, limit), PythonSearch(table, root, limit)):
            with pytest.raises(TooLarge):
                search.values(root)
            assert search.nodes == limit, seed
        more = whole.nodes + 1  # a limit not reached: the same values as with none
        assert Search(table, root, more).values(root) == whole.values(root), seed
        seat = rng.randrange(table.n)
        sure = PythonSearch(table, root)
        sure.secure(root, seat)
        if sure.nodes >= 2:
            limit = rng.randint(1, sure.nodes)
            for search in (Search(table, root, limit), PythonSearch(table, root, limit)):
                with pytest.raises(TooLarge):
                    search.secure(root, seat)
                assert search.nodes == limit, seed
    assert tried >= sized(100, 1000)
