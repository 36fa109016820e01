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
    >>> signer = store.signer()
    >>> [key.id for key in store.signing_keys()] == [signer.id]
    True
    >>> del os.environ[SIGNING_KEY_ENV]
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import cast

from sqlalchemy import Connection, Table, insert, select

from ..receipts import ALGORITHM, Signer, b64url, from_b64url, key_id
from .base import StoreBase, iso, utcnow
from .database import instance_path
from .errors import StoreError
from .models import SigningKey

SIGNING_KEY_ENV = "NJ_LEDGER_SIGNING_KEY"
SIGNING_KEY_FILE_ENV = "NJ_LEDGER_SIGNING_KEY_FILE"
KEY_FILE = "signing.key"
_KEYS = cast(Table, SigningKey.__table__)


class SigningKeyError(StoreError):
    """The configured signing key cannot sign this database's receipts (missing, unreadable, or not its key)."""

    code = "signing-key"


@dataclass(frozen=True)
class KeyInfo:
    """A public key of the database: ``public_key`` is the raw 32 bytes, base64url."""

    number: int
    id: str
    algorithm: str
    public_key: str
    created_at: datetime

    @property
    def raw(self) -> bytes:
        return from_b64url(self.public_key)

    def view(self) -> dict[str, str]:
        """The key as ``GET /keys`` and ``nj-ledger keys list`` show it."""
        return {"id": self.id, "algorithm": self.algorithm, "public_key": self.public_key,
                "created": iso(self.created_at)}


# --- the private key ---------------------------------------------------------------------------
def key_file() -> Path:
    """Where the private key is kept: ``NJ_LEDGER_SIGNING_KEY_FILE``, else ``signing.key`` in the instance folder."""
    configured = os.environ.get(SIGNING_KEY_FILE_ENV)
    return Path(configured).expanduser().resolve() if configured else instance_path() / KEY_FILE


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
        return read_key(path.read_text(encoding="ascii"), str(path))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise SigningKeyError("The signing key file {source} cannot be read: {error}.", source=str(path),
                              error=str(error)) from None


def _write_private(path: Path, signer: Signer) -> Path:
    """A new file beside ``path`` holding the key, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    candidate = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(descriptor, (b64url(signer.seed) + "\n").encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return candidate


def make_key_file(path: Path) -> Signer:
    """A new key in ``path``, unless another process made one first: then theirs (linking is atomic)."""
    candidate = _write_private(path, Signer.generate())
    try:
        os.link(candidate, path)
    except FileExistsError:
        pass  # another process made the key first: use theirs
    finally:
        candidate.unlink()
    return read_key(path.read_text(encoding="ascii"), str(path))


def replace_key_file(path: Path, signer: Signer) -> None:
    """Put ``signer`` in ``path`` in one step (a reader sees the old key or the new one, never half a file)."""
    os.replace(_write_private(path, signer), path)


# --- the public keys in the database -----------------------------------------------------------
def registered_keys(connection: Connection) -> list[KeyInfo]:
    """The database's public keys, oldest first (usable inside a migration)."""
    rows = connection.execute(select(*_KEYS.c).order_by(_KEYS.c.number))
    return [KeyInfo(row.number, row.id, row.algorithm, row.public_key, row.created_at) for row in rows]


def register_key(connection: Connection, signer: Signer) -> None:
    """Take ``signer`` into use: its public key becomes the database's newest."""
    connection.execute(insert(_KEYS), {"id": signer.id, "algorithm": ALGORITHM,
                                       "public_key": b64url(signer.public_key), "created_at": utcnow()})


def accepted_signer(connection: Connection) -> Signer:
    """The configured key, checked against the database's keys (in the caller's write transaction).

    An empty database takes the configured key into use, or a new key file's
    when none is configured. Otherwise the key must be the database's newest.
    """
    known = registered_keys(connection)
    signer = configured_signer()
    if not known:
        signer = signer or make_key_file(key_file())
        register_key(connection, signer)
        return signer
    active = known[-1]
    facts = {"source": key_source(), "active": active.id, "created": iso(active.created_at)}
    if signer is None:
        raise SigningKeyError(
            "There is no signing key at {source}, but this database's receipts are signed with key {active} "
            "(taken into use {created}): put that key back, or take a new one into use with "
            "`nj-ledger keys rotate`.", **facts)
    if signer.id == active.id:
        return signer
    if signer.id in {key.id for key in known}:
        raise SigningKeyError(
            "The signing key {key} at {source} was retired by a rotation: this database signs with key {active} "
            "now (taken into use {created}).", key=signer.id, **facts)
    raise SigningKeyError(
        "The signing key {key} at {source} did not sign this database's games: they are signed with key {active} "
        "(taken into use {created}). Give that key again (NJ_LEDGER_SIGNING_KEY, or the file "
        "NJ_LEDGER_SIGNING_KEY_FILE names), or run `nj-ledger keys rotate --adopt` to sign with this key from now "
        "on.", key=signer.id, **facts)


class KeysMixin(StoreBase):
    """The store's signing key and the database's public keys."""

    _signer: Signer | None = None
    _verifying: dict[str, bytes] | None = None

    def signing_keys(self) -> list[KeyInfo]:
        """Every public key of the database, oldest first."""
        with self.reading() as session:
            return registered_keys(session.connection())

    def verifying_keys(self, wanted: str | None = None) -> dict[str, bytes]:
        """The raw public keys by id, only those whose id is their own hash (a row changed in the database is
        left out); read again when ``wanted`` is not among them (another process may have rotated)."""
        if self._verifying is None or (wanted is not None and wanted not in self._verifying):
            self._verifying = {key.id: key.raw for key in self.signing_keys() if key_id(key.raw) == key.id}
        return self._verifying

    def signer(self) -> Signer:
        """The key this store signs with, checked against the database once per process
        (:class:`SigningKeyError` when it may not sign here)."""
        if self._signer is None:
            def attempt() -> Signer:
                with self.writing() as session:
                    return accepted_signer(session.connection())

            self._signer = self.retrying(attempt)
        return self._signer

    def rotate_signing_key(self, *, adopt: bool = False) -> KeyInfo:
        """Sign with a new key from now on (or, with ``adopt``, with the configured one); the old keys stay to
        verify what they signed. A new key is written to the key file first, so that a failure afterwards
        leaves a key to adopt rather than none."""
        if adopt:
            signer = configured_signer()
            if signer is None:
                raise SigningKeyError("There is no signing key at {source} to take into use.", source=key_source())
        else:
            if os.environ.get(SIGNING_KEY_ENV):
                raise SigningKeyError(
                    "The signing key comes from {source}: set it to a new key (`nj-ledger keys generate` prints "
                    "one), then run `nj-ledger keys rotate --adopt`.", source=SIGNING_KEY_ENV)
            signer = Signer.generate()
            replace_key_file(key_file(), signer)
        new = signer

        def attempt() -> KeyInfo:
            with self.writing() as session:
                connection = session.connection()
                known = registered_keys(connection)
                if any(key.id == new.id for key in known[:-1]):
                    raise SigningKeyError("The key {key} was retired by an earlier rotation: make a new one.",
                                          key=new.id)
                if not known or known[-1].id != new.id:
                    register_key(connection, new)
                return registered_keys(connection)[-1]

        taken = self.retrying(attempt)
        self._signer, self._verifying = new, None
        return taken
