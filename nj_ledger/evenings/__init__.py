"""Club evenings: several tables, rounds of games, a ranking across tables, a season ladder.

An evening adds no new kind of truth. Its log holds the director's decisions
only — the evening created, players arriving and leaving, a round started (its
games named), a result confirmed, the mends (an adjustment, a game voided, a
player's withdrawal, a score awarded), the leaderboard frozen and revealed, the
evening closed — and every view (the grid, the ranking, the ladder) is folded
from those decisions and from the games' own logs. Nothing here reads a clock
or a database: the store hands in the entries and the games' outcomes.

    >>> created = decide_creation(name="Jeudi", played_on="2026-11-26", players=["Ana", "Ben", "Chloé"],
    ...     rounds=1, rules="classic", starting_chips=60, seating=[[["Ana", "Ben", "Chloé"]]])
    >>> state = fold_evening([entry(1, *created)])
    >>> state.schedule[0][0], state.ranking
    (('Ana', 'Ben', 'Chloé'), 'match_points')

The modules: :mod:`.log` (the log's entries, their hash chain, and the state folded from them),
:mod:`.decisions` (each decision of the director, or its refusal), :mod:`.tables` (the players' names and
the tables checked, the rounds planned by :mod:`nj_ledger.seating`), :mod:`.standings` (the grid and the
ranking across tables) and :mod:`.season` (the season ladder).
"""

from .decisions import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    decide_close,
    decide_confirmation,
    decide_creation,
    decide_freeze,
    decide_mend,
    decide_presence,
    decide_round,
    round_tables,
)
from .log import (
    ADJUSTED,
    AWARDED,
    CLOSED,
    CONFIRMED,
    CREATED,
    ENTRY_TYPES,
    FROZEN,
    HASHED,
    MENDS,
    PRESENCE,
    REVEALED,
    ROUND,
    VOIDED,
    WITHDRAWN,
    EveningState,
    TableGame,
    Tables,
    entry,
    entry_hash,
    first_bad_entry,
    fold_evening,
)
from .season import EveningResult, ladder
from .standings import (
    CELL_MARKS,
    COUNTED,
    MATCH_SCALE,
    MISSING,
    PLANNED,
    RANKINGS,
    UNCONFIRMED,
    VOID,
    GameOutcome,
    cell_mark,
    game_scores,
    grid,
    ranking,
)
from .tables import LARGEST_TABLE, SMALLEST_TABLE, Planned, check_tables, plan_rounds

__all__ = [
    "ADJUSTED", "AWARDED", "CELL_MARKS", "CLOSED", "CONFIRMED", "COUNTED", "CREATED", "ENTRY_TYPES", "FROZEN",
    "HASHED", "LARGEST_TABLE", "MATCH_SCALE", "MAX_PLAYERS", "MAX_ROUNDS", "MENDS", "MISSING", "PLANNED",
    "PRESENCE", "RANKINGS", "REVEALED", "ROUND", "SMALLEST_TABLE", "UNCONFIRMED", "VOID", "VOIDED", "WITHDRAWN",
    "EveningResult", "EveningState", "GameOutcome", "Planned", "TableGame", "Tables", "cell_mark", "check_tables",
    "decide_close", "decide_confirmation", "decide_creation", "decide_freeze", "decide_mend", "decide_presence",
    "decide_round", "entry", "entry_hash", "first_bad_entry", "fold_evening", "game_scores", "grid", "ladder",
    "plan_rounds", "ranking", "round_tables",
]
