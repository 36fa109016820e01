"""The records of a log that members' erasures redacted (:mod:`nj_ledger.store.erasures`), as the audits read them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from .models import RedactionRecord


def redactions_of(connection: Connection, log: str, log_id: str) -> dict[int, dict[str, Any]]:
    """The records of one log (``game`` or ``evening``) an erasure redacted, by seq (the latest redaction of each:
    a record naming two erased members was redacted twice), as :func:`nj_ledger.chain.verify_chain` takes them,
    with the erasure's number."""
    rows = connection.execute(select(RedactionRecord).where(RedactionRecord.log == log,
                                                            RedactionRecord.log_id == log_id)
                              .order_by(RedactionRecord.id))
    return {row.seq: {"previous": row.previous, "hash": row.hash, "redacted": row.redacted,
                      "erasure": row.erasure} for row in rows}
