"""Signed checkpoints: receipts the ledger keeps of its own log, written in the transaction that appends to it.

The hash chain shows an edited, deleted or reordered event, but not a log that
was rewritten and then re-chained (every hash after the edit recomputed): that
needs only SHA-256. A checkpoint signs ``(game, version, head hash, time)`` with
the store's Ed25519 key (:mod:`nj_ledger.store.keys`): it is the receipt the
append answers (:mod:`nj_ledger.receipts`), kept beside the log. A rewritten log
no longer matches the checkpoints signed before the rewrite, and a checkpoint
missing where the log says one was signed is a finding.

A checkpoint is signed at the end of every batch of events (so the open deal is
covered too), at the game's first event, at the end of every deal and at the
end of the game. Checkpoints written before receipts existed were HMACs (key
``NJ_LEDGER_CHECKPOINT_KEY`` or the instance folder's ``checkpoint.key``): the
migration that brought receipts signed again every one that checked, and no HMAC
is believed since.

What a database alone cannot show is a log cut back to an earlier batch with
the later checkpoints deleted and the game's summary lowered: the receipts a
member keeps (``POST /games/{game}/audit``) or a heads file kept elsewhere
(``nj-ledger heads export``) show it.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, ForeignKey, Integer, String, Table, bindparam, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..audit import audit_log, check_receipts, checkpoints_report, with_receipts
from ..chain import sign_checkpoint
from ..findings import Finding
from ..receipts import Signer, verify
from ..report import Items, Kept, Summary
from .base import Database, iso, utcnow
from .database import instance_path
from .errors import NotFound
from .keys import Keys, create_once
from .models import Base, Club, Game
from .recorder import LAST_SEQ, paced
from .redactions import redactions_of
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
    signature: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]
    # A checkpoint is a receipt: its key's id and the signed time (the text signed). Both are null only on an
    # HMAC checkpoint written before receipts existed that did not check when they came (never believed).
    key_id: Mapped[str | None] = mapped_column(String(32))
    at: Mapped[str | None] = mapped_column(String(32))


_TABLE = cast(Table, Checkpoint.__table__)
_INSERT = insert(_TABLE)
_COLUMNS = (Checkpoint.seq, Checkpoint.head_hash, Checkpoint.signature, Checkpoint.created_at, Checkpoint.key_id,
            Checkpoint.at)


# --- the HMAC key of the checkpoints written before receipts ------------------------------------
_file_keys: dict[Path, bytes] = {}
_file_keys_lock = threading.Lock()


def checkpoint_key(folder: Path | None = None) -> bytes:
    """The HMAC key: ``NJ_LEDGER_CHECKPOINT_KEY``, else the instance folder's key file (made once; used by the
    migration that signed the games stored before checkpoints existed).

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


def legacy_key(folder: Path | None = None) -> bytes | None:
    """The HMAC key if there is one (never made here: only the migration that brought receipts reads it, to check
    the HMAC checkpoints it signs again)."""
    if os.environ.get(CHECKPOINT_KEY_ENV) or ((folder or instance_path()) / KEY_FILE).exists():
        return checkpoint_key(folder)
    return None


def _read_or_make_key_file(path: Path) -> bytes:
    key = create_once(path, secrets.token_hex(32))
    if len(key) < MIN_KEY_LENGTH:
        raise ValueError(f"The checkpoint key file {path} holds no usable key.")
    return key.encode()


def checkpoint_rows(key: bytes, game_id: str, records: Iterable[Record], moment: datetime) -> list[dict[str, Any]]:
    """HMAC checkpoint rows (the migration that signed the games stored before checkpoints existed)."""
    by_seq = {r["seq"]: r for r in records}
    return [
        {"game_id": game_id, "seq": seq, "head_hash": by_seq[seq]["hash"],
         "signature": sign_checkpoint(key, game_id, seq, by_seq[seq]["hash"]), "created_at": moment}
        for seq in signed_seqs(by_seq.values())
    ]


# --- writing -----------------------------------------------------------------------------------
def signed_seqs(records: Iterable[Mapping[str, Any]]) -> list[int]:
    """The seqs among ``records`` that get a checkpoint wherever they stand: the first event, deal ends and the
    game's end (every batch's last event gets one too: :func:`sign_checkpoints`).

    >>> signed_seqs([{"seq": 1, "type": "game_started"}, {"seq": 2, "type": "deal"},
    ...              {"seq": 9, "type": "deal_ended"}])
    [1, 9]
    """
    return [r["seq"] for r in records if r["seq"] == 1 or r["type"] in SIGNED_TYPES]


def sign_checkpoints(connection: Connection, signer: Signer, game_id: str, records: Sequence[Record],
                     moment: datetime) -> dict[str, Any] | None:
    """Sign the new records' checkpoints in the connection's transaction (the append's); the receipt of the
    last record, which the append answers (None when nothing was appended)."""
    if not records:
        return None
    wanted = {r["seq"]: r for r in records if r["seq"] == 1 or r["type"] in SIGNED_TYPES}
    wanted[records[-1]["seq"]] = records[-1]
    receipts = [signer.sign(game_id, seq, r["hash"], r["recorded_at"]) for seq, r in sorted(wanted.items())]
    connection.execute(_INSERT, [
        {"game_id": game_id, "seq": r["version"], "head_hash": r["head"], "signature": r["signature"],
         "key_id": r["key"], "at": r["at"], "created_at": moment} for r in receipts
    ])
    return receipts[-1]


def receipt_of(game_id: str, row: Any) -> dict[str, Any] | None:
    """The receipt a stored checkpoint is (None for an HMAC checkpoint)."""
    if row.key_id is None:
        return None
    return {"game": game_id, "version": row.seq, "head": row.head_hash, "at": row.at, "key": row.key_id,
            "signature": row.signature}


# --- reading and checking ----------------------------------------------------------------------
def _game_row(session: Session, club_id: str, game_id: str) -> Any:
    row = session.execute(select(Game.version, Game.head_hash).where(Game.id == game_id, Game.club_id == club_id)
                          ).first()
    if row is None:
        raise NotFound("There is no game {game!r} in this club.", game=game_id)
    return row


def _stored(session: Session, game_id: str) -> list[dict[str, Any]]:
    rows = session.execute(select(*_COLUMNS).where(Checkpoint.game_id == game_id).order_by(Checkpoint.seq))
    return [{"seq": row.seq, "head_hash": row.head_hash, "signature": row.signature,
             "created_at": iso(row.created_at), "key_id": row.key_id, "at": row.at} for row in rows]


_AT_SEQ = select(*_COLUMNS).where(Checkpoint.game_id == bindparam("game_id"), Checkpoint.seq == bindparam("seq"))


def head_receipt(session: Session | Connection, game_id: str, version: int) -> dict[str, Any] | None:
    """The receipt the ledger signed for ``game_id`` at ``version`` (None before receipts existed)."""
    row = session.execute(_AT_SEQ, {"game_id": game_id, "seq": version}).first()
    return None if row is None else receipt_of(game_id, row)


def head_signed(connection: Session | Connection, game_id: str, version: int, head_hash: str,
                public_keys: Callable[[str | None], Mapping[str, bytes]]) -> bool:
    """Whether the ledger signed ``head_hash`` as ``game_id``'s head at ``version``: the checkpoint kept there
    names that hash and is validly signed by a key to believe (``public_keys(wanted)``). Nothing is signed on
    top of a head that is not."""
    row = connection.execute(_AT_SEQ, {"game_id": game_id, "seq": version}).first()
    if row is None or not hmac.compare_digest(row.head_hash, head_hash):
        return False
    receipt = receipt_of(game_id, row)
    return receipt is not None and verify(receipt, public_keys(row.key_id))


def checkpoints(db: Database, club_id: str, game_id: str) -> list[dict[str, Any]]:
    """A game's stored checkpoints, ``{seq, head_hash, signature, created_at, key_id, at}`` by seq."""
    with db.reading() as session:
        _game_row(session, club_id, game_id)
        return _stored(session, game_id)


def holds(public_keys: Mapping[str, bytes], game_id: str, checkpoint: Mapping[str, Any], logged: Any) -> bool:
    """Whether a checkpoint holds: it names the log's hash at its seq (``logged``: None where the log has no
    event), signed by a key to believe. An HMAC checkpoint is never believed: the migration that brought
    receipts signed again every one that checked with its key, so one still there did not (or was put there
    since)."""
    seq, head, signature = checkpoint["seq"], checkpoint.get("head_hash"), checkpoint.get("signature")
    if not (isinstance(head, str) and isinstance(signature, str) and isinstance(logged, str)):
        return False
    if not hmac.compare_digest(logged, head):
        return False
    return checkpoint.get("key_id") is not None and verify(
        {"game": game_id, "version": seq, "head": head, "at": checkpoint.get("at"),
         "key": checkpoint["key_id"], "signature": signature}, public_keys)


CHECKPOINTS_PAGE = 1024  # checkpoints read at a time beside the log (a game recorded a tap at a time has one a tap)
_PAGE_AFTER = (select(Checkpoint.seq, Checkpoint.head_hash, Checkpoint.signature, Checkpoint.key_id, Checkpoint.at)
               .where(Checkpoint.game_id == bindparam("game_id"), Checkpoint.seq > bindparam("after"))
               .order_by(Checkpoint.seq).limit(CHECKPOINTS_PAGE))
_KEY_IDS = select(Checkpoint.key_id).distinct().where(Checkpoint.game_id == bindparam("game_id"))


class LogCheckpoints:
    """A game's signed checkpoints held to its log as the log is read (:meth:`record`, in seq order), read a
    page at a time beside it: neither is ever held whole.

    Every checkpoint stored must hold (:func:`holds`), and one must be stored wherever one was signed: at the
    first event, deal ends and the game's end (:func:`signed_seqs`), and at the head (the game's ``version``,
    the last event of the last batch). The first that fails, in seq order, is the audit's finding.
    """

    def __init__(self, session: Session, game_id: str, version: int, public_keys: Mapping[str, bytes]) -> None:
        self.session, self.game_id, self.version, self.public_keys = session, game_id, version, public_keys
        self.page: deque[Any] = deque()
        self.after, self.read_all = 0, False
        self.count = 0
        self.first_bad: int | None = None
        self.at_version = False  # whether the log's event at the version was read

    def next_stored(self) -> Any:
        """The next stored checkpoint not yet judged (None: there is none)."""
        if not self.page and not self.read_all:
            rows = self.session.execute(_PAGE_AFTER, {"game_id": self.game_id, "after": self.after}).all()
            self.page.extend(rows)
            self.read_all = len(rows) < CHECKPOINTS_PAGE
            if rows:
                self.after = rows[-1].seq
        return self.page[0] if self.page else None

    def judge(self, seq: int, valid: Callable[[], bool]) -> None:
        self.count += 1
        if self.first_bad is None and not valid():
            self.first_bad = seq

    def record(self, record: Mapping[str, Any]) -> None:
        """Hold the checkpoints up to ``record`` (of seq at most the version) to the log."""
        seq = record["seq"]
        stored = self.next_stored()
        while stored is not None and stored.seq < seq:  # signed where the log has no event
            self.page.popleft()
            self.judge(stored.seq, _never)
            stored = self.next_stored()
        if stored is not None and stored.seq == seq:
            self.page.popleft()
            checkpoint = {"seq": seq, "head_hash": stored.head_hash, "signature": stored.signature,
                          "key_id": stored.key_id, "at": stored.at}
            self.judge(seq, lambda: holds(self.public_keys, self.game_id, checkpoint, record.get("hash")))
        elif signed_seqs((record,)) or seq == self.version:
            self.judge(seq, _never)  # signed there, and not kept
        self.at_version = self.at_version or seq == self.version

    def report(self) -> tuple[dict[str, Any], list[Finding]]:
        """The checkpoints past the log's last event judged too: the audit's ``checkpoints`` and its finding."""
        missing_head = bool(self.version) and not self.at_version  # the log stops before its version
        while (stored := self.next_stored()) is not None:
            self.page.popleft()
            if missing_head and stored.seq >= self.version:
                missing_head = False
                if stored.seq > self.version:
                    self.judge(self.version, _never)
            self.judge(stored.seq, _never)
        if missing_head:
            self.judge(self.version, _never)
        return checkpoints_report(self.count, self.first_bad)


def _never() -> bool:
    return False


def audit_game(keys: Keys, club_id: str, game_id: str,
               receipts: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The audit of a game's log (SPEC §5): its signed checkpoints, the log against the game's summary, and
    the ``receipts`` members hold, when given (:func:`audit_game_into`, its items kept in lists)."""
    kept = Kept()
    return audit_game_into(keys, club_id, game_id, kept, receipts).whole(kept)


def audit_game_into(keys: Keys, club_id: str, game_id: str, items: Items,
                    receipts: Sequence[Mapping[str, Any]] | None = None) -> Summary:
    """The audit of a game's log, its items (:class:`~nj_ledger.report.Items`) given to ``items`` as the log is
    read, a chunk of rows at a time: what it holds does not grow with the log.

    Everything is read in one snapshot of the database (a concurrent append is either wholly in it or not).
    """
    wanted = {r["version"] for r in receipts or () if isinstance(r, Mapping) and r.get("game") == game_id
              and type(r.get("version")) is int}
    hashes: dict[int, Any] = {}  # the log's hash at each version a receipt names
    with keys.db.snapshot() as session:
        game = _game_row(session, club_id, game_id)  # 404 before anything is read
        connection = session.connection()
        public_keys = keys.verifying_keys(None, connection)
        unknown = {key for key in session.execute(_KEY_IDS, {"game_id": game_id}).scalars() if key} - set(public_keys)
        if unknown:  # a key taken into use since this process last read them (read again once)
            public_keys = keys.verifying_keys(next(iter(unknown)), connection)
        checkpoints = LogCheckpoints(session, game_id, game.version, public_keys)

        def acknowledged(records: Iterable[Record]) -> Iterator[Record]:
            for record in records:
                if record["seq"] <= game.version:
                    checkpoints.record(record)
                    if record["seq"] in wanted:
                        hashes[record["seq"]] = record.get("hash")
                yield record

        records = paced(keys.db.recorder.select_records(connection, game_id, 0, LAST_SEQ))
        summary = audit_log(acknowledged(records), items, checkpoints.report, version=game.version,
                            head_hash=game.head_hash,
                            redacted=redactions_of(connection, club_id, public_keys, "game", game_id))
    if receipts is None:
        return summary
    named = {r.get("key") for r in receipts if isinstance(r, Mapping)} - set(public_keys)
    if named:
        public_keys = keys.verifying_keys(next(iter(named)))
    report = with_receipts({**summary.report, "findings": []},
                           check_receipts(game_id, game.version, hashes.get, receipts, public_keys))
    return Summary(report, summary.first, [*summary.last, *report.pop("findings")])  # the receipts' come last


# --- heads kept elsewhere ------------------------------------------------------------------------
HEADS_FORMAT = "nj-ledger/heads"


def sign_heads(keys: Keys, club_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A signed list of a club's game heads, to keep away from the server (printed, mailed): the receipt kept at
    each game's head. Any later audit of those games can be held to it (``nj-ledger heads check``). Also the
    games left out, each with why: a head the ledger did not sign is never vouched for."""
    keys.signer()  # the keys to believe are the ones this store's key trusts
    at = iso(utcnow())
    receipts: list[dict[str, Any]] = []
    left_out: list[dict[str, Any]] = []
    with keys.db.reading() as session:
        club = session.execute(select(Club.name).where(Club.id == club_id)).first()
        if club is None:
            raise NotFound("There is no club {club!r}.", club=club_id)
        games = session.execute(select(Game.id, Game.version, Game.head_hash).where(Game.club_id == club_id)
                                .order_by(Game.created_at, Game.id)).all()

        def believed(wanted: str | None) -> Mapping[str, bytes]:
            return keys.verifying_keys(wanted, session.connection())  # in this transaction

        for game, version, head in games:
            if not head_signed(session, game, version, head, believed):
                left_out.append({"game": game, "version": version, "why": "its head is not the one the ledger "
                                                                          "signed: audit it"})
                continue
            receipt = head_receipt(session, game, version)
            assert receipt is not None  # head_signed has just read and checked it
            receipts.append(receipt)
    document = {"format": HEADS_FORMAT, "version": 1, "club": club_id, "name": club.name, "at": at,
                "receipts": receipts}
    return document, left_out
