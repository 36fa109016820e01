"""Signed checkpoints: an HMAC of a game's head hash, written in the transaction that appends to its log.

The hash chain shows an edited, deleted or reordered event, but not a log that
was rewritten and then re-chained (every hash after the edit recomputed): that
needs only SHA-256. A checkpoint signs ``(game, seq, head hash)`` with a key the
database does not hold, so a rewritten log no longer matches the checkpoints
signed before the rewrite, and a deleted checkpoint is missed by the audit.

A checkpoint is signed at the game's first event, at the end of every deal and
at the end of the game. The key is ``NJ_LEDGER_CHECKPOINT_KEY`` or, without it,
a key generated once in the instance folder (``instance/checkpoint.key``).

    >>> from nj_ledger import new_game
    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.create_club("Club")
    >>> game = store.create_game(club.id, new_game(["Ana", "Ben"], "classic", 40), [{"type": "end"}]).game
    >>> [c["seq"] for c in checkpoints(store, club.id, game.id)], audit_game(store, club.id, game.id)["ok"]
    ([1, 3], True)
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, ForeignKey, Integer, String, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..audit import CheckpointCheck, audit
from ..chain import checkpoint_valid, sign_checkpoint
from .base import StoreBase, iso, utcnow
from .database import instance_path
from .errors import NotFound
from .log import record_of, records_query
from .models import Base, Game
from .values import Record

CHECKPOINT_KEY_ENV = "NJ_LEDGER_CHECKPOINT_KEY"
KEY_FILE = "checkpoint.key"
MIN_KEY_LENGTH = 16
SIGNED_TYPES = frozenset({"deal_ended", "game_ended"})


class Checkpoint(Base):
    """A signature of a game's head hash at ``seq``, kept beside the log and never changed."""

    __tablename__ = "checkpoints"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    head_hash: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]


# --- the key -----------------------------------------------------------------------------------
_file_keys: dict[Path, bytes] = {}
_file_keys_lock = threading.Lock()


def checkpoint_key(folder: Path | None = None) -> bytes:
    """The signing key: ``NJ_LEDGER_CHECKPOINT_KEY``, else the instance folder's key file (made once).

    Several processes starting at once agree on one key file: each writes its
    candidate to a private file and links it into place; the first link wins and
    every process reads the key that won.
    """
    configured = os.environ.get(CHECKPOINT_KEY_ENV)
    if configured:
        if len(configured) < MIN_KEY_LENGTH:
            raise ValueError(f"{CHECKPOINT_KEY_ENV} must have at least {MIN_KEY_LENGTH} characters.")
        return configured.encode()
    path = (folder or instance_path()) / KEY_FILE
    with _file_keys_lock:
        if path not in _file_keys:
            _file_keys[path] = _read_or_make_key_file(path)
        return _file_keys[path]


def _read_or_make_key_file(path: Path) -> bytes:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        candidate = path.with_name(f".{KEY_FILE}.{secrets.token_hex(8)}")
        descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(descriptor, (secrets.token_hex(32) + "\n").encode())
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass  # another process made the key first: use theirs
        finally:
            candidate.unlink()
    key = path.read_text(encoding="ascii").strip()
    if len(key) < MIN_KEY_LENGTH:
        raise ValueError(f"The checkpoint key file {path} holds no usable key.")
    return key.encode()


# --- writing -----------------------------------------------------------------------------------
def signed_seqs(records: Iterable[Mapping[str, Any]]) -> list[int]:
    """The seqs among ``records`` that get a checkpoint: the first event, deal ends and the game's end.

    >>> signed_seqs([{"seq": 1, "type": "game_started"}, {"seq": 2, "type": "deal"},
    ...              {"seq": 9, "type": "deal_ended"}])
    [1, 9]
    """
    return [r["seq"] for r in records if r["seq"] == 1 or r["type"] in SIGNED_TYPES]


def checkpoint_rows(
    key: bytes, game_id: str, records: Iterable[Record], moment: datetime
) -> list[dict[str, Any]]:
    """The checkpoint rows for a batch of new records of one game."""
    by_seq = {r["seq"]: r for r in records}
    return [
        {"game_id": game_id, "seq": seq, "head_hash": by_seq[seq]["hash"],
         "signature": sign_checkpoint(key, game_id, seq, by_seq[seq]["hash"]), "created_at": moment}
        for seq in signed_seqs(by_seq.values())
    ]


def sign_checkpoints(connection: Connection, game_id: str, records: list[Record]) -> None:
    """Add the checkpoints of newly inserted records, in the connection's transaction (the append's)."""
    if not any(r["seq"] == 1 or r["type"] in SIGNED_TYPES for r in records):
        return
    connection.execute(insert(Checkpoint), checkpoint_rows(checkpoint_key(), game_id, records, utcnow()))


# --- reading and checking ----------------------------------------------------------------------
def _game_version(session: Session, club_id: str, game_id: str) -> int:
    version = session.scalar(select(Game.version).where(Game.id == game_id, Game.club_id == club_id))
    if version is None:
        raise NotFound("There is no game {game!r} in this club.", game=game_id)
    return version


def _stored(session: Session, game_id: str) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Checkpoint.seq, Checkpoint.head_hash, Checkpoint.signature, Checkpoint.created_at)
        .where(Checkpoint.game_id == game_id).order_by(Checkpoint.seq)
    )
    return [{"seq": seq, "head_hash": head, "signature": signature, "created_at": iso(created)}
            for seq, head, signature, created in rows]


def checkpoints(store: StoreBase, club_id: str, game_id: str) -> list[dict[str, Any]]:
    """A game's stored checkpoints, ``{seq, head_hash, signature, created_at}`` by seq."""
    with store.reading() as session:
        _game_version(session, club_id, game_id)
        return _stored(session, game_id)


def checker(key: bytes, game_id: str, records: Iterable[Record]) -> CheckpointCheck:
    """The check the audit applies to each checkpoint: the log's hash at its seq, signed with ``key``."""
    hashes = {r["seq"]: r.get("hash") for r in records}

    def valid(checkpoint: Mapping[str, Any]) -> bool:
        seq, head, signature = checkpoint["seq"], checkpoint.get("head_hash"), checkpoint.get("signature")
        logged = hashes.get(seq)
        if not (isinstance(head, str) and isinstance(signature, str) and isinstance(logged, str)):
            return False
        return hmac.compare_digest(logged, head) and checkpoint_valid(key, game_id, seq, head, signature)

    return valid


def expected_checkpoints(records: list[Record], stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stored checkpoints, plus an empty one wherever the log says one was signed and none is kept."""
    kept = {c["seq"] for c in stored}
    missing = [{"seq": seq, "head_hash": None, "signature": None, "created_at": None}
               for seq in signed_seqs(records) if seq not in kept]
    return sorted([*stored, *missing], key=lambda c: c["seq"])


def audit_game(store: StoreBase, club_id: str, game_id: str) -> dict[str, Any]:
    """The audit of a game's log (SPEC §5), its signed checkpoints included."""
    with store.reading() as session:
        _game_version(session, club_id, game_id)  # 404 before anything is read
        # Checkpoints first: the version read next is never behind them (they are committed with the
        # events they sign), so every checkpoint is within the log, unless the log lost its tail.
        stored = _stored(session, game_id)
        version = _game_version(session, club_id, game_id)
        records = [record_of(row) for row in session.execute(records_query(game_id, 0, version))]
    return audit(records, expected_checkpoints(records, stored), checker(checkpoint_key(), game_id, records))
