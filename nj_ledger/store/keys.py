"""The key that signs receipts and checkpoints, and the public keys a database knows.

The private key is ``NJ_LEDGER_SIGNING_KEY`` (its 32-byte seed, base64url, as
``nj-ledger keys generate`` prints it) or the file ``NJ_LEDGER_SIGNING_KEY_FILE``
(default: ``signing.key`` in the instance folder, which never depends on the
working directory). The public keys live in the database (``signing_keys``):
the newest one signs, every one still verifies, so receipts signed before a
rotation stay checkable.

The first key a database sees is taken into use; from then on a process whose
key did not sign the database's games refuses to sign (:class:`SigningKeyError`,
said at start), rather than making a new key that would turn every audit into a
false alarm. Changing the key is a command: ``nj-ledger keys rotate``.

    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> import os; os.environ[SIGNING_KEY_ENV] = b64url(bytes(32))
    >>> signer = store.keys.signer()
    >>> [key.id for key in store.keys.signing_keys()] == [signer.id]
    True
    >>> del os.environ[SIGNING_KEY_ENV]
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import Connection, Table, insert, select

from ..chain import canonical_bytes
from ..receipts import ALGORITHM, Signer, b64url, from_b64url, key_id
from .base import Database, iso, utcnow
from .database import absolute_setting, instance_path
from .errors import StoreError
from .models import SigningKey
from .recorder import recorder_for

SIGNING_KEY_ENV = "NJ_LEDGER_SIGNING_KEY"
SIGNING_KEY_FILE_ENV = "NJ_LEDGER_SIGNING_KEY_FILE"
KEY_FILE = "signing.key"
KEY_FILE_MOST = 256  # bytes read of a key file
SIGNER_CHECKED_FOR = 60.0  # seconds a process signs before it checks its key is still the one to sign with
_KEYS = cast(Table, SigningKey.__table__)


class SigningKeyError(StoreError):
    """The configured signing key cannot sign this database's receipts (missing, unreadable, or not its key)."""

    code = "signing-key"


@dataclass(frozen=True)
class KeyInfo:
    """A public key of the database: ``public_key`` is the raw 32 bytes, base64url.

    A key taken into use after another names it (``predecessor``) and signs the
    succession (``endorsement``: the new key vouches for the old one); a rotation
    made with the old key also has the old key sign it (``handover``: the old key
    vouches for the new one). Trust runs along these signatures from the key a
    process holds, never from the rows alone (:func:`trusted_keys`).
    """

    number: int
    id: str
    algorithm: str
    public_key: str
    created_at: datetime
    predecessor: str | None = None
    endorsement: str | None = None
    handover: str | None = None

    @property
    def raw(self) -> bytes:
        return from_b64url(self.public_key)

    @property
    def genuine(self) -> bool:
        """Whether the row's id is its public key's (a row changed in the database is not)."""
        try:
            return key_id(self.raw) == self.id
        except ValueError:
            return False

    def view(self) -> dict[str, str]:
        """The key as ``GET /keys`` and ``nj-ledger keys list`` show it."""
        return {"id": self.id, "algorithm": self.algorithm, "public_key": self.public_key,
                "created": iso(self.created_at)}


# --- the private key ---------------------------------------------------------------------------
def key_file() -> Path:
    """Where the private key is kept: ``NJ_LEDGER_SIGNING_KEY_FILE``, else ``signing.key`` in the instance folder."""
    configured = os.environ.get(SIGNING_KEY_FILE_ENV)
    return absolute_setting(SIGNING_KEY_FILE_ENV, configured) if configured else instance_path() / KEY_FILE


def key_source() -> str:
    """Where the key comes from, as a sentence names it."""
    return SIGNING_KEY_ENV if os.environ.get(SIGNING_KEY_ENV) else str(key_file())


def read_key(text: str, where: str) -> Signer:
    """The key written in ``text``: a 32-byte seed in base64url."""
    try:
        return Signer.from_seed(from_b64url(text.strip()))
    except ValueError:
        raise SigningKeyError("{source} holds no signing key: it should hold a 32-byte Ed25519 seed in base64url, "
                              "as `nj-ledger keys generate` prints one.", source=where) from None


def configured_signer() -> Signer | None:
    """The configured private key, or None when the key file does not exist (yet)."""
    text = os.environ.get(SIGNING_KEY_ENV)
    if text:
        return read_key(text, SIGNING_KEY_ENV)
    path = key_file()
    try:
        with path.open("rb") as file:
            text = file.read(KEY_FILE_MOST).decode("ascii")  # a key is 43 characters: never read a device whole
        return read_key(text, str(path))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise SigningKeyError("The signing key file {source} cannot be read: {error}.", source=str(path),
                              error=str(error)) from None


def _write_private(path: Path, text: str) -> Path:
    """A new file beside ``path`` holding ``text``, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    candidate = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(descriptor, (text + "\n").encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return candidate


def create_once(path: Path, text: str) -> str:
    """Make ``path`` hold ``text`` unless a file is there (made by another process at the same moment: linking
    is atomic, the first wins); what the file holds then."""
    if not path.exists():
        candidate = _write_private(path, text)
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass  # another process made it first: use theirs
        finally:
            candidate.unlink()
    return path.read_text(encoding="ascii").strip()


def make_key_file(path: Path) -> Signer:
    """A new key in ``path``, unless there is one (another process's, made first): then that one."""
    return read_key(create_once(path, b64url(Signer.generate().seed)), str(path))


def replace_key_file(path: Path, signer: Signer) -> None:
    """Put ``signer`` in ``path`` in one step (a reader sees the old key or the new one, never half a file)."""
    write_private(path, b64url(signer.seed))


def write_private(path: Path, text: str) -> None:
    """Make ``path`` hold ``text`` in one step (a reader sees the old text or the new, never half a file), the
    file readable and writable by its owner only (mode 0600): keys and tokens."""
    os.replace(_write_private(path, text), path)


# --- the public keys in the database -----------------------------------------------------------
def registered_keys(connection: Connection) -> list[KeyInfo]:
    """The database's public keys, oldest first (usable inside a migration)."""
    rows = connection.execute(select(*_KEYS.c).order_by(_KEYS.c.number))
    return [KeyInfo(row.number, row.id, row.algorithm, row.public_key, row.created_at, row.predecessor,
                    row.endorsement, row.handover) for row in rows]


def succession(key: str, public_key: str, predecessor: KeyInfo) -> bytes:
    """What a succession's signatures cover: the new key and the one it follows."""
    return canonical_bytes({"key": key, "public_key": public_key, "predecessor": predecessor.id,
                            "predecessor_key": predecessor.public_key})


def register_key(connection: Connection, signer: Signer, predecessor: KeyInfo | None = None,
                 handing_over: Signer | None = None) -> None:
    """Take ``signer`` into use after ``predecessor``: it signs the succession, and so does ``handing_over``
    (the predecessor's private key) when the rotation holds it."""
    row: dict[str, Any] = {"id": signer.id, "algorithm": ALGORITHM, "public_key": b64url(signer.public_key),
                           "created_at": utcnow(), "predecessor": None, "endorsement": None, "handover": None}
    if predecessor is not None:
        statement = succession(signer.id, row["public_key"], predecessor)
        row.update(predecessor=predecessor.id, endorsement=b64url(signer.private.sign(statement)),
                   handover=None if handing_over is None else b64url(handing_over.private.sign(statement)))
    connection.execute(insert(_KEYS), row)


def _signed_by(key: KeyInfo, signature: str | None, statement: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(key.raw).verify(from_b64url(signature or ""), statement)
    except (InvalidSignature, ValueError):
        return False
    return True


def trusted_keys(keys: Sequence[KeyInfo], anchor: str) -> list[KeyInfo]:
    """The keys to believe, oldest first, given the key a process holds (``anchor``): it, the keys it follows
    by the successions each newer key signed, and the keys an older trusted key handed over to. A row added
    to the database by anyone else is none of these.

    >>> first, second = Signer.from_seed(bytes(32)), Signer.from_seed(bytes(31) + b"\\x01")
    >>> one = KeyInfo(1, first.id, ALGORITHM, b64url(first.public_key), utcnow())
    >>> statement = succession(second.id, b64url(second.public_key), one)
    >>> two = KeyInfo(2, second.id, ALGORITHM, b64url(second.public_key), utcnow(), one.id,
    ...               b64url(second.private.sign(statement)))
    >>> [key.id for key in trusted_keys([one, two], second.id)] == [first.id, second.id]
    True
    >>> [key.id for key in trusted_keys([one, two], first.id)] == [first.id]  # not handed over
    True
    """
    usable = {key.id: key for key in keys if key.genuine}
    if anchor not in usable:
        return []
    trusted = {anchor}
    grew = True
    while grew:
        grew = False
        for key in usable.values():
            before = usable.get(key.predecessor or "")
            if before is None or (key.id in trusted and before.id in trusted):
                continue
            statement = succession(key.id, key.public_key, before)
            if not _signed_by(key, key.endorsement, statement):
                continue
            if key.id in trusted:  # a trusted key vouches for the one it follows
                trusted.add(before.id)
                grew = True
            elif before.id in trusted and _signed_by(before, key.handover, statement):  # handed over to
                trusted.add(key.id)
                grew = True
    return [key for key in keys if key.id in trusted]


def _lock_keys(connection: Connection) -> None:
    """One process at a time decides which key signs (PostgreSQL; SQLite's writers already queue)."""
    recorder_for(connection).lock_signing_keys(connection)


def _listed(keys: Sequence[KeyInfo]) -> str:
    return ", ".join(key.id for key in keys if key.genuine) or "none"


def accepted_signer(connection: Connection) -> Signer:
    """The configured key, checked against the database's keys (in the caller's write transaction).

    An empty database takes the configured key into use, or a new key file's
    when none is configured. Otherwise the key must be one of the database's,
    and no newer key may have signed that it follows it (a rotation: the
    configured key is retired). A row anyone else adds can retire a key (so can
    anyone who may write to the database: they could as well drop it), but never
    lend one its trust.
    """
    _lock_keys(connection)
    known = registered_keys(connection)
    signer = configured_signer()
    if not known:
        signer = signer or make_key_file(key_file())
        register_key(connection, signer)
        return signer
    facts = {"source": key_source(), "keys": _listed(known)}
    if signer is None:
        raise SigningKeyError(
            "There is no signing key at {source}, but this database holds keys already ({keys}): put the one that "
            "signs back, or take a new one into use with `nj-ledger keys rotate --adopt --after KEY`.", **facts)
    trusted = trusted_keys(known, signer.id)
    if not trusted:
        raise SigningKeyError(
            "The signing key {key} at {source} did not sign this database's games (its keys: {keys}). Give the key "
            "that did again, or sign with this one from now on: `nj-ledger keys rotate --adopt --after KEY`, KEY "
            "being the key that signed your games (the `key` of a receipt or a heads file you hold).",
            key=signer.id, **facts)
    mine = trusted[[key.id for key in trusted].index(signer.id)]
    successor = next((key for key in known if key.predecessor == signer.id and key.genuine
                      and _signed_by(key, key.endorsement, succession(key.id, key.public_key, mine))), None)
    if successor is not None:
        raise SigningKeyError(
            "The signing key {key} at {source} was retired by a rotation: this database signs with key {active} "
            "now (taken into use {created}).", key=signer.id, active=successor.id,
            created=iso(successor.created_at), source=facts["source"])
    return signer


class Keys:
    """The store's signing key and the database's public keys."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._signer: Signer | None = None
        self._signer_until = 0.0  # when the key is checked against the database again (a rotation elsewhere)
        self._verifying: dict[str, bytes] | None = None

    def signing_keys(self, connection: Connection | None = None) -> list[KeyInfo]:
        """The keys to believe, oldest first: this store's own and those it trusts (:func:`trusted_keys`);
        none before the database's first key. Read in ``connection``'s transaction when given."""
        # within a transaction, the key already checked (checking it again may need a transaction of its own)
        anchor = (self._signer if connection is not None and self._signer is not None else self.signer()).id
        if connection is None:
            with self.db.reading() as session:
                known = registered_keys(session.connection())
        else:
            known = registered_keys(connection)
        return trusted_keys(known, anchor) if known else []

    def verifying_keys(self, wanted: str | None = None, connection: Connection | None = None) -> dict[str, bytes]:
        """The raw public keys to believe, by id; read again when ``wanted`` is not among them (another
        process may have taken a key into use since), in ``connection``'s transaction when given."""
        if self._verifying is None or (wanted is not None and wanted not in self._verifying):
            self._verifying = {key.id: key.raw for key in self.signing_keys(connection)}
        return self._verifying

    def forget_keys(self) -> None:
        """Forget the public keys read so far: the next check reads them again, as a process started now would."""
        self._verifying = None

    def signer(self) -> Signer:
        """The key this store signs with, checked against the database (:class:`SigningKeyError` when it may
        not sign here), again every minute: a key retired by a rotation in another process stops signing."""
        now = time.monotonic()
        if self._signer is None or now >= self._signer_until:
            def attempt() -> Signer:
                with self.db.writing() as session:
                    return accepted_signer(session.connection())

            self._signer, self._verifying = None, None
            self._signer = self.db.retrying(attempt)
            self._signer_until = now + SIGNER_CHECKED_FOR
        return self._signer

    def all_keys(self) -> list[KeyInfo]:
        """Every row of the key table, believed or not (to choose the key an adopted key follows)."""
        with self.db.reading() as session:
            return registered_keys(session.connection())

    def rotate_signing_key(self, *, adopt: bool = False, after: str | None = None) -> KeyInfo:
        """Sign with a new key from now on, handed over by the key signing now; the old keys stay to verify what
        they signed. With ``adopt``, take the configured key into use instead, after the key ``after`` (the
        one that signed the games: a row of the table is no reason to believe a key). A new key is written to
        the key file first, so that a failure afterwards leaves a key to adopt rather than none."""
        if adopt:
            new = configured_signer()
            if new is None:
                raise SigningKeyError("There is no signing key at {source} to take into use.", source=key_source())
            old: Signer | None = None
        else:
            if os.environ.get(SIGNING_KEY_ENV):
                raise SigningKeyError(
                    "The signing key comes from {source}: set it to a new key (`nj-ledger keys generate` prints "
                    "one), then run `nj-ledger keys rotate --adopt --after KEY`.", source=SIGNING_KEY_ENV)
            old = self.signer()  # the key signing now hands over to the new one
            new = Signer.generate()
            replace_key_file(key_file(), new)

        def attempt() -> KeyInfo:
            with self.db.writing() as session:
                connection = session.connection()
                _lock_keys(connection)
                known = registered_keys(connection)
                if any(key.id == new.id for key in known):
                    raise SigningKeyError("The key {key} is in the database already: make a new one.", key=new.id)
                before = next((key for key in known if key.genuine and key.id == (old.id if old else after)),
                              None)
                if known and before is None:
                    raise SigningKeyError("Name the key the new one follows, one of this database's ({keys}): "
                                          "`nj-ledger keys rotate --adopt --after KEY`.", keys=_listed(known))
                register_key(connection, new, before, old)
                return registered_keys(connection)[-1]

        taken = self.db.retrying(attempt)
        self._signer, self._verifying, self._signer_until = new, None, time.monotonic() + SIGNER_CHECKED_FOR
        return taken
