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

The modules: :mod:`.entries` (the log's entries as values, read through the upcasters, and their hash chain),
:mod:`.log` (the state folded from them, by a handler per type of entry, and the log held to its signed
checkpoints), :mod:`.kinds` (the kinds of a director's decision, as values), :mod:`.decisions` (each decision
parsed as a value of its kind, and decided into its entry or refused), :mod:`.tables` (the players' names and
the tables checked, the rounds planned by :mod:`nj_ledger.seating`), :mod:`.standings` (the grid and the ranking
across tables) and :mod:`.season` (the season ladder).
"""

from .decisions import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    decide,
    decide_close,
    decide_confirmation,
    decide_creation,
    decide_freeze,
    decide_mend,
    decide_presence,
    decide_round,
    parse_decision,
    round_tables,
)
from .entries import (
    ADJUSTED,
    AWARDED,
    CLOSED,
    CONFIRMED,
    CREATED,
    ENTRY_TYPES,
    ENTRY_VERSION,
    FROZEN,
    HASHED,
    MENDS,
    PRESENCE,
    REVEALED,
    ROUND,
    VOIDED,
    WITHDRAWN,
    LogEntry,
    as_entry,
    entry,
    entry_hash,
    first_bad_entry,
    read_entry,
)
from .kinds import (
    DECISION_KINDS,
    NEEDED,
    Adjustment,
    Arrival,
    Award,
    Departure,
    DirectorDecision,
    Freeze,
    Reveal,
    Void,
    Withdrawal,
)
from .log import EveningState, TableGame, Tables, fold_evening, signed_log
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
    "ADJUSTED",
    "AWARDED",
    "CELL_MARKS",
    "CLOSED",
    "CONFIRMED",
    "COUNTED",
    "CREATED",
    "DECISION_KINDS",
    "ENTRY_TYPES",
    "ENTRY_VERSION",
    "FROZEN",
    "HASHED",
    "LARGEST_TABLE",
    "MATCH_SCALE",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MENDS",
    "MISSING",
    "NEEDED",
    "PLANNED",
    "PRESENCE",
    "RANKINGS",
    "REVEALED",
    "ROUND",
    "SMALLEST_TABLE",
    "UNCONFIRMED",
    "VOID",
    "VOIDED",
    "WITHDRAWN",
    "Adjustment",
    "Arrival",
    "Award",
    "Departure",
    "DirectorDecision",
    "EveningResult",
    "EveningState",
    "Freeze",
    "GameOutcome",
    "LogEntry",
    "Planned",
    "Reveal",
    "TableGame",
    "Tables",
    "Void",
    "Withdrawal",
    "as_entry",
    "cell_mark",
    "check_tables",
    "decide",
    "decide_close",
    "decide_confirmation",
    "decide_creation",
    "decide_freeze",
    "decide_mend",
    "decide_presence",
    "decide_round",
    "entry",
    "entry_hash",
    "first_bad_entry",
    "fold_evening",
    "game_scores",
    "grid",
    "ladder",
    "parse_decision",
    "plan_rounds",
    "ranking",
    "read_entry",
    "round_tables",
    "signed_log",
]
