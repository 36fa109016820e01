"""The scoreboard's read models: club scoreboards, players' figures and ratings, seasons.

Kept in the same transaction as the log (the store calls
:func:`~.projector.project_records` after inserting a game's records); rebuilt
from the log by :func:`~.rebuild.rebuild` (``nj-ledger projections rebuild``).
The figures and their choices are described in :mod:`nj_ledger.scoring`.
"""

from __future__ import annotations

from .models import GameResult, ScoreRollup, Season, SeatResult
from .projector import EndedGame, ended_game, ends_game, project_records, record_results
from .rebuild import Rebuilt, rebuild, rebuild_steps
from .scoreboard import GameLine, PlayerStats, ScoreLine, player_stats, scoreboard
from .seasons import SeasonExists, SeasonInfo, create_season, find_season, seasons, set_ladder

PROJECTION_TABLES = ("game_results", "seat_results", "score_rollups")

__all__ = [
    "PROJECTION_TABLES", "EndedGame", "GameLine", "GameResult", "PlayerStats", "Rebuilt", "ScoreLine", "ScoreRollup",
    "Season", "SeasonExists", "SeasonInfo", "SeatResult", "create_season", "ended_game", "ends_game", "find_season",
    "player_stats", "project_records", "rebuild", "rebuild_steps", "record_results", "scoreboard", "seasons",
    "set_ladder",
]
