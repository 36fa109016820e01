"""Deal analysis: an exact double-dummy solver for Nain Jaune (docs/ANALYSIS.md).

Pure, like the rest of the core: values in, values out.

    >>> from nj_ledger import new_game, execute, replay
    >>> from nj_ledger.analysis import solve, secure
    >>> started = new_game(["Ana", "Ben"], {"profile": "classic", "players": [2], "deal_table": {"2": [2, 48]}}, 60)
    >>> state, _ = execute(replay([started]), [{"type": "deal", "hands": [["5H", "6H"], ["7D", "KS"]]}])
    >>> solution = solve(state)
    >>> solution.values, solution.best[0].action["cards"]
    ((92, 18), ['5H', '6H'])
    >>> secure(state, 1)
    18
"""

from .fair import Completed, NoConsistentDeal, Unseen, completions
from .review import MARKS, Decision, Fair, FairOption, mark, review
from .solver import Option, Search, Solution, TooLarge, searcher, secure, solve

__all__ = ["MARKS", "Completed", "Decision", "Fair", "FairOption", "NoConsistentDeal", "Option", "Search", "Solution",
           "TooLarge", "Unseen", "completions", "mark", "review", "searcher", "secure", "solve"]
