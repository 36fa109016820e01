"""Deal analyses kept as a projection (``deal_analyses``): computed once for a deal as its events stand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from sqlalchemy import Table, select

from ..analysis_worker import Analysed
from .base import Database, utcnow
from .models import DealAnalysis
from .rows import JSONText

_ANALYSES = cast(Table, DealAnalysis.__table__)


class Analyses:
    """Deal analyses, each kept once for a deal as its events stand."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def deal_analysis(self, game_id: str, deal: int, head_seq: int, head_hash: str) -> dict[str, Any] | None:
        """The analysis kept for ``deal`` of ``game_id`` whose last event is (``head_seq``, ``head_hash``)."""
        with self.db.reading() as session:
            row = session.scalar(select(DealAnalysis).where(
                DealAnalysis.game_id == game_id, DealAnalysis.deal == deal, DealAnalysis.head_seq == head_seq))
            return dict(row.body) if row is not None and row.head_hash == head_hash else None

    def keep_deal_analysis(self, game_id: str, deal: int, head_seq: int, head_hash: str,
                           body: Mapping[str, Any] | Analysed) -> None:
        """Keep an analysis (one already kept for the same events stays: the analysis is deterministic): as the
        analysis process wrote it (:class:`~nj_ledger.analysis_worker.Analysed`, its text stored as it is), or a
        value."""
        status, stored = (body.status, JSONText(body.text)) if isinstance(body, Analysed) else (body["status"], body)

        def attempt() -> None:
            with self.db.writing_connection() as connection:
                connection.execute(self.db.recorder.insert_new(_ANALYSES), [{
                    "game_id": game_id, "deal": deal, "head_seq": head_seq, "head_hash": head_hash,
                    "status": status, "body": stored, "computed_at": utcnow()}])

        self.db.retrying(attempt)
