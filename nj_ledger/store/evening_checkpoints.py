"""Signed checkpoints of an evening's log of decisions, written in the transaction that appends each decision.

An evening's log is hash-chained like a game's (:func:`nj_ledger.evenings.entry_hash`), and like a game's it is
signed: every decision appended signs ``(evening, seq, head hash, time)`` with the store's Ed25519 key
(:mod:`.keys`, the one that signs the games), an evening's receipt (:meth:`nj_ledger.receipts.Signer.sign_evening`)
kept here beside the log and never changed. Someone who can write the database and rewrites a decision, then
recomputes every hash after it, gets past the chain but not past these: the first rewritten decision's
checkpoint no longer holds (:func:`nj_ledger.evenings.log.signed_log`), and neither does a receipt of a later
head a member kept.

An evening stored before evenings were signed has no checkpoint for the decisions it held then: its audit says
it is not signed (older than signing), and the first decision recorded in it since is signed, vouching for every
one before it. What the database alone cannot show is a log cut back with its later checkpoints deleted and the
evening's row lowered to match: a receipt a member keeps shows it.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, ForeignKey, Integer, String, Table, bindparam, func, insert, select
from sqlalchemy.orm import Mapped, mapped_column

from ..audit import check_receipts
from ..evenings.log import signed_log
from ..receipts import Signer, verify
from .models import Base


class EveningCheckpoint(Base):
    """A signature of an evening's head hash at ``seq`` (an evening's receipt), kept beside its log and never
    changed."""

    __tablename__ = "evening_checkpoints"

    evening_id: Mapped[str] = mapped_column(ForeignKey("evenings.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    head_hash: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str] = mapped_column(String(128))
    key_id: Mapped[str] = mapped_column(String(32))
    at: Mapped[str] = mapped_column(String(32))  # the signed time: the decision's ``recorded_at``
    created_at: Mapped[datetime]


_TABLE = cast(Table, EveningCheckpoint.__table__)
_INSERT = insert(_TABLE)
_COLUMNS = (_TABLE.c.seq, _TABLE.c.head_hash, _TABLE.c.signature, _TABLE.c.key_id, _TABLE.c.at)
_OF_EVENING = select(*_COLUMNS).where(_TABLE.c.evening_id == bindparam("evening")).order_by(_TABLE.c.seq)
_AT_SEQ = select(*_COLUMNS).where(_TABLE.c.evening_id == bindparam("evening"), _TABLE.c.seq == bindparam("seq"))
_SIGNING_BEGAN = select(func.min(_TABLE.c.at))

PublicKeys = Callable[[str | None], Mapping[str, bytes]]  # the keys to believe, read again when one is wanted


def sign_entry(connection: Connection, signer: Signer, evening_id: str, item: Mapping[str, Any],
               moment: datetime) -> dict[str, Any]:
    """Sign the evening's new head (the entry just appended) in the connection's transaction, the append's; the
    receipt it is."""
    receipt = signer.sign_evening(evening_id, item["seq"], item["hash"], item["recorded_at"])
    connection.execute(_INSERT, [{"evening_id": evening_id, "seq": receipt["version"], "head_hash": receipt["head"],
                                  "signature": receipt["signature"], "key_id": receipt["key"], "at": receipt["at"],
                                  "created_at": moment}])
    return receipt


def receipt_of(evening_id: str, row: Any) -> dict[str, Any]:
    """The evening's receipt a stored checkpoint is."""
    return {"evening": evening_id, "version": row.seq, "head": row.head_hash, "at": row.at, "key": row.key_id,
            "signature": row.signature}


def head_receipt(connection: Connection, evening_id: str, version: int) -> dict[str, Any] | None:
    """The receipt signed when the evening reached ``version`` (None: its head is older than signing)."""
    row = connection.execute(_AT_SEQ, {"evening": evening_id, "seq": version}).first()
    return None if row is None else receipt_of(evening_id, row)


def audit_entries(connection: Connection, public_keys: PublicKeys, evening_id: str, version: int,
                  entries: Sequence[Mapping[str, Any]],
                  receipts: Sequence[Mapping[str, Any]] | None = None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """An evening's entries (read in the connection's transaction) held to its signed checkpoints
    (:func:`~nj_ledger.evenings.log.signed_log`), and to the ``receipts`` members hold when given
    (:func:`~nj_ledger.audit.check_receipts`, the games' check: a receipt of another evening, or a game's, is
    skipped)."""
    rows = {row.seq: row for row in connection.execute(_OF_EVENING, {"evening": evening_id})}
    keys = public_keys(None)
    unknown = {row.key_id for row in rows.values()} - set(keys)
    if unknown:  # a key taken into use since this process last read them (read again once)
        keys = public_keys(next(iter(unknown)))

    def holds(row: Any, logged: Any) -> bool:
        if not isinstance(logged, str) or not hmac.compare_digest(row.head_hash, logged):
            return False
        return verify(receipt_of(evening_id, row), keys)

    began = None
    if 1 not in rows and entries:  # only then can it matter (an evening signed from its start never asks)
        began = connection.execute(_SIGNING_BEGAN).scalar()
    report = signed_log(entries, rows, holds, began)
    if receipts is None:
        return report, None
    named = {r.get("key") for r in receipts if isinstance(r, Mapping) and isinstance(r.get("key"), str)} - set(keys)
    if named:
        keys = public_keys(next(iter(named)))
    hashes = {item["seq"]: item.get("hash") for item in entries}
    return report, check_receipts(evening_id, version, hashes.get, receipts, keys, names="evening")
