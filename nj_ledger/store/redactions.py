"""A club's erasures as records (:mod:`nj_ledger.erasures`), and the records of a log they redacted as the audits
believe them: only those of erasures whose chain and signatures hold. A redaction row added outside the ledger
(to pass an altered record for a redacted one) belongs to no signed erasure, and the chain breaks at its record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, select

from ..erasures import first_bad_erasure, redactions_by_log
from .models import ErasureRecord, RedactionRecord


def content_digest(*texts: str) -> str:
    """What a redaction names the content it leaves by: the SHA-256, in hex, of the record's JSON texts as stored
    (its data; an evening decision's data and ``by``), joined by a newline — what the logs' triggers compute of
    an update (migration 0018).

    >>> content_digest('{"a":1}', '{}') == hashlib.sha256(b'{"a":1}\\n{}').hexdigest()
    True
    """
    return hashlib.sha256("\n".join(texts).encode()).hexdigest()


def erasure_record(row: Any, redactions: Iterable[Any]) -> dict[str, Any]:
    """An erasure (its row, and its redactions' rows) as a record: every field of it, its redactions listed."""
    return {"club": row.club_id, "number": row.number, "member": row.member_id, "pseudonym": row.pseudonym,
            "reason": row.reason, "by": dict(row.by), "recorded_at": row.recorded_at,
            "redactions": [[r.log, r.log_id, r.seq, r.previous, r.hash, r.redacted] for r in redactions],
            "hash": row.hash, "receipt": None if row.receipt is None else dict(row.receipt)}


def erasure_records(connection: Connection, club_id: str) -> list[dict[str, Any]]:
    """The club's erasures as records, oldest first, in the connection's transaction."""
    erasures = ErasureRecord.__table__.c
    redactions = RedactionRecord.__table__.c
    rows = connection.execute(select(*erasures).where(erasures.club_id == club_id).order_by(erasures.number)).all()
    redacted = connection.execute(select(*redactions).where(redactions.club_id == club_id)
                                  .order_by(redactions.id)).all()
    return [erasure_record(row, [r for r in redacted if r.erasure == row.number]) for row in rows]


def redactions_of(connection: Connection, club_id: str, keys: Mapping[str, bytes], log: str,
                  log_id: str) -> dict[int, dict[str, Any]]:
    """The records of one log (``game`` or ``evening``) the club's erasures redacted, by seq, as
    :func:`nj_ledger.chain.verify_chain` takes them: those of the erasures before the first whose chain or
    signature (by one of ``keys``) fails."""
    records = erasure_records(connection, club_id)
    bad = first_bad_erasure(records, club_id, keys)
    return redactions_by_log(records if bad is None else records[: bad - 1]).get((log, log_id), {})
