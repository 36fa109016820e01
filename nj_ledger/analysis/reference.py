"""The plain search the solver is held to: every move at every position, no table, no pruning, no shortcut for
forced moves. Exponential, so only for small deals (the tests: 2 to 4 cards a hand).

    >>> from nj_ledger import new_game, execute, replay
    >>> from nj_ledger.analysis.convert import position
    >>> rules = {"profile": "cards", "players": [2], "deal_table": {"2": [2, 48]}}
    >>> state, _ = execute(replay([new_game(["Ana", "Ben"], rules, 60)]),
    ...                    [{"type": "deal", "hands": [["5H", "9C"], ["6S", "KD"]]}])
    >>> table, root, _ = position(state)
    >>> best_play(table, root), guaranteed(table, root, 1)
    ((47, 43), 43)
"""

from __future__ import annotations

from .model import ENDED, P_BAL, P_MODE, P_TURN, Position, Table


def best_play(table: Table, p: Position) -> tuple[int, ...]:
    """Max^n by plain recursion: the player to act takes the first move (canonical order) worth the most to them."""
    if p[P_MODE] == ENDED:
        final: tuple[int, ...] = p[P_BAL]
        return final
    seat = p[P_TURN]
    best: tuple[int, ...] | None = None
    for move in table.moves(p):
        value = best_play(table, table.play(p, move))
        if best is None or value[seat] > best[seat]:
            best = value
    assert best is not None
    return best


def guaranteed(table: Table, p: Position, seat: int) -> int:
    """Plain minimax: the chips ``seat`` is sure of when every other player plays against it."""
    if p[P_MODE] == ENDED:
        chips: int = p[P_BAL][seat]
        return chips
    values = [guaranteed(table, table.play(p, move), seat) for move in table.moves(p)]
    return max(values) if p[P_TURN] == seat else min(values)


__all__ = ["best_play", "guaranteed"]
