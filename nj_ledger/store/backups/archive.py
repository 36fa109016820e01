"""The backup file: one format for both databases, so that any file that is not a whole backup is told apart.

A backup is a plain tar archive (``tar -tf`` lists it) of two members, in this order:

- ``manifest.json``: what the backup holds, checked before anything is changed: the product
  (``nj-ledger``) and the format's version, the back end, the schema revision, when it was taken, the counts of
  clubs, games and events, the public keys that signed its receipts, and the payload's size and SHA-256;
- the payload: ``database.sqlite`` (a copy made by SQLite's online backup) or ``database.pgdump``
  (``pg_dump --format=custom`` of the ledger's schema).

A file is written beside its target under a temporary name, synced, then renamed over the target: a backup
that fails (a full disk) leaves no partial file, and never touches the backups already there; one whose process
is killed leaves files named after it, which the next one removes (:mod:`.leftovers`). The private signing key
is never in it (docs/DEPLOY.md, "The signing key").
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .leftovers import prefix

PRODUCT = "nj-ledger"
FORMAT = 1  # the version of this layout; a later release reads every earlier one
MANIFEST = "manifest.json"
PAYLOADS = {"sqlite": "database.sqlite", "postgresql": "database.pgdump"}
MANIFEST_MOST = 1 << 20  # bytes: a manifest is a few hundred; a larger first member is not one
CHUNK = 1 << 20
COUNTED = ("clubs", "games", "events")


class BackupError(Exception):
    """A backup that could not be made, or a file that is not restored: a sentence for the operator (English,
    as the command line speaks), with a stable ``code``. Nothing was changed when it is raised, unless it says so.
    """

    def __init__(self, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence


@dataclass(frozen=True)
class Contents:
    """What a database holds, read in the same moment as its copy: the schema revision, the counts of
    :data:`COUNTED` rows, and its public keys (rows of ``signing_keys``, every value as text)."""

    revision: str
    counts: dict[str, int]
    keys: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Manifest:
    """The first member of a backup (:mod:`.archive`)."""

    backend: str
    created_at: str
    ledger: str  # the release that made it
    contents: Contents
    size: int
    sha256: str
    schema: str | None = None  # PostgreSQL: the schema dumped (the URL's search path)

    @property
    def payload(self) -> str:
        return PAYLOADS[self.backend]

    def document(self) -> dict[str, Any]:
        return {"product": PRODUCT, "format": FORMAT, "backend": self.backend, "created_at": self.created_at,
                "ledger": self.ledger, "revision": self.contents.revision, "counts": self.contents.counts,
                "schema": self.schema, "keys": self.contents.keys,
                "payload": {"name": self.payload, "size": self.size, "sha256": self.sha256}}


def digest(path: Path) -> tuple[int, str]:
    """The size and SHA-256 of a file."""
    sha = hashlib.sha256()
    size = 0
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            sha.update(chunk)
            size += len(chunk)
    return size, sha.hexdigest()


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (the folder's entry is written to the disk)."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def work_folder(beside: Path) -> Iterator[Path]:
    """A private folder beside ``beside`` (on the same disk, so that a full disk is met there), removed after; named
    after this process, so that the next backup or restore there removes it if the process dies first."""
    beside.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new backups folder: its owner's only
    with tempfile.TemporaryDirectory(prefix=prefix(beside), suffix=".work", dir=beside.parent) as folder:
        yield Path(folder)


def write_archive(target: Path, manifest: Manifest, payload: Path) -> None:
    """Write the backup to ``target`` in one step: a temporary file beside it, synced, renamed over it."""
    document = json.dumps(manifest.document(), indent=1).encode()
    descriptor, partial = tempfile.mkstemp(prefix=prefix(target), suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
                _add(tar, MANIFEST, len(document), io.BytesIO(document))
                with payload.open("rb") as data:
                    _add(tar, manifest.payload, manifest.size, data)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    sync_folder(target.parent)


def _add(tar: tarfile.TarFile, name: str, size: int, data: IO[bytes]) -> None:
    member = tarfile.TarInfo(name)
    member.size, member.mode, member.mtime = size, 0o600, int(time.time())
    tar.addfile(member, data)


# --- reading -----------------------------------------------------------------------------------------
def not_a_backup(path: Path, why: str) -> BackupError:
    return BackupError("not-a-backup", f"{path} is not a whole backup of nj-ledger ({why}): nothing was changed.")


@contextmanager
def opened(path: Path) -> Iterator[tuple[Manifest, tarfile.TarFile, tarfile.TarInfo]]:
    """The backup at ``path``: its manifest read and checked, the archive, and its payload's member (whose
    bytes are checked as they are read: :func:`extract`). Anything else is :func:`not_a_backup`."""
    with ExitStack() as stack:
        try:
            tar = stack.enter_context(tarfile.open(path, mode="r:"))
        except OSError as error:  # the file itself (tarfile's own refusals are not OSErrors)
            raise BackupError("unreadable", f"{path} cannot be read: {error.strerror or error}. Nothing was "
                                            "changed.") from None
        except (tarfile.TarError, EOFError):
            empty = path.is_file() and path.stat().st_size == 0
            raise not_a_backup(path, "it is empty" if empty else "it is not a tar archive, as backups are") from None
        try:
            first = tar.next()
            if first is None or first.name != MANIFEST or not first.isfile() or first.size > MANIFEST_MOST:
                raise not_a_backup(path, "it does not begin with a manifest")
            text = tar.extractfile(first)
            assert text is not None  # a regular file
            manifest = read_manifest(path, text.read())
            payload = tar.next()
            if payload is None or payload.name != manifest.payload or not payload.isfile():
                raise not_a_backup(path, "it is cut short: the database is missing")
            if payload.size != manifest.size:
                raise not_a_backup(path, f"its database has {payload.size:,} bytes where the manifest says "
                                         f"{manifest.size:,}")
        except (tarfile.TarError, OSError, EOFError) as error:
            raise not_a_backup(path, f"it is cut short or damaged: {_why(error)}") from None
        yield manifest, tar, payload


def extract(path: Path, tar: tarfile.TarFile, member: tarfile.TarInfo, manifest: Manifest,
            into: Path | None) -> None:
    """Copy the payload to ``into`` (a new file, synced; None: only read it), refusing it unless its size and
    SHA-256 are the manifest's."""
    sha = hashlib.sha256()
    size = 0
    out = None if into is None else into.open("xb")
    try:
        source = tar.extractfile(member)
        assert source is not None
        while chunk := source.read(CHUNK):
            sha.update(chunk)
            size += len(chunk)
            if out is not None:
                out.write(chunk)
        if tar.next() is not None:
            raise not_a_backup(path, "it holds more than a manifest and a database")
        if out is not None:
            out.flush()
            os.fsync(out.fileno())
    except (tarfile.TarError, EOFError) as error:
        raise not_a_backup(path, f"it is cut short or damaged: {_why(error)}") from None
    finally:
        if out is not None:
            out.close()
    if size != manifest.size or sha.hexdigest() != manifest.sha256:
        raise not_a_backup(path, "its database is not the one its manifest describes (the checksum differs): "
                                 "the file was damaged or changed")


def read_manifest(path: Path, raw: bytes) -> Manifest:
    """The manifest's document, every field checked (a file of another product, or of a later format, is said)."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        raise not_a_backup(path, "its manifest is not JSON") from None
    if not isinstance(document, dict) or document.get("product") != PRODUCT:
        raise not_a_backup(path, "its manifest is not nj-ledger's")
    if type(document.get("format")) is not int or document["format"] > FORMAT:
        raise BackupError("backup-too-new", f"{path} was made by a later release of nj-ledger (backup format "
                                            f"{document.get('format')!r}; this release reads format {FORMAT}): "
                                            "restore it with that release or a later one. Nothing was changed.")
    try:
        payload, counts = document["payload"], document["counts"]
        manifest = Manifest(
            backend=_text(document["backend"]), created_at=_text(document["created_at"]),
            ledger=_text(document["ledger"]), size=_number(payload["size"]), sha256=_text(payload["sha256"]),
            schema=None if document.get("schema") is None else _text(document["schema"]),
            contents=Contents(_text(document["revision"]), {name: _number(counts[name]) for name in COUNTED},
                              [dict(key) for key in document["keys"]]))
        if manifest.backend not in PAYLOADS or payload["name"] != manifest.payload:
            raise ValueError(manifest.backend)
    except (KeyError, TypeError, ValueError):
        raise not_a_backup(path, "its manifest is incomplete") from None
    return manifest


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(value)
    return value


def _number(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise TypeError(value)
    return value


def _why(error: BaseException) -> str:
    return str(error) or type(error).__name__


def verify(path: Path) -> Manifest:
    """The manifest of the backup at ``path``, the whole file read and checked (:func:`opened`, :func:`extract`)."""
    with opened(path) as (manifest, tar, member):
        extract(path, tar, member, manifest, None)
        return manifest
