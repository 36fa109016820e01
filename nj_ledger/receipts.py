"""Receipts: what the ledger acknowledged, signed so that anyone can check it without the server's secret.

A receipt says "at ``at``, the log of ``game`` stood at ``version`` with head hash ``head``", signed with
Ed25519 by the key ``key``. The head hash commits to every event before it (the hash chain), so a
receipt held by a member catches any later rewrite of events 1 to ``version``, and any log cut back
below ``version``. The signed bytes are the canonical JSON (sorted keys, no spaces, UTF-8) of the
receipt without its ``signature``; a key's id is the start of the SHA-256 of its raw public key, so a
key list that was tampered with cannot lend a receipt another key.

    >>> signer = Signer.from_seed(bytes(32))
    >>> receipt = signer.sign("g1", 3, "ab" * 32, "2026-11-23T10:00:00.000000Z")
    >>> sorted(receipt)
    ['at', 'game', 'head', 'key', 'signature', 'version']
    >>> verify(receipt, {signer.id: signer.public_key})
    True
    >>> verify({**receipt, "version": 4}, {signer.id: signer.public_key})
    False

An evening's log of decisions is signed the same way: its receipt names the evening by ``evening`` where a
game's names the game by ``game`` (the other fields, the signed bytes' rule and the check are the same), so a
game's receipt is never taken for an evening's nor the other way round, and a game's receipt is what it was::

    >>> evening = signer.sign_evening("e1", 3, "ab" * 32, "2026-11-23T10:00:00.000000Z")
    >>> sorted(evening)
    ['at', 'evening', 'head', 'key', 'signature', 'version']
    >>> keys = {signer.id: signer.public_key}
    >>> verify(evening, keys), verify({**evening, "game": "e1"}, keys)
    (True, False)

Pure: no I/O. Where the key comes from is the store's business (``nj_ledger.store.keys``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .chain import canonical_bytes

ALGORITHM = "Ed25519"
SIGNED_FIELDS = ("at", "game", "head", "key", "version")
FIELDS = (*SIGNED_FIELDS, "signature")
EVENING_SIGNED_FIELDS = ("at", "evening", "head", "key", "version")  # an evening's receipt: ``evening`` for ``game``
EVENING_FIELDS = (*EVENING_SIGNED_FIELDS, "signature")
ARCHIVE_SIGNED_FIELDS = ("archive", "at", "head", "key", "version")  # a club's archive: the club's id, its digest
ARCHIVE_FIELDS = (*ARCHIVE_SIGNED_FIELDS, "signature")
ERASURE_SIGNED_FIELDS = ("at", "erasure", "head", "key", "version")  # a member's erasure: the club, its number
ERASURE_FIELDS = (*ERASURE_SIGNED_FIELDS, "signature")
_SIGNED = {"game": SIGNED_FIELDS, "evening": EVENING_SIGNED_FIELDS, "archive": ARCHIVE_SIGNED_FIELDS,
           "erasure": ERASURE_SIGNED_FIELDS}
KEY_ID_LENGTH = 16  # hex characters: 64 bits of the public key's SHA-256
_HEAD = re.compile(r"[0-9a-f]{64}")
_GAME = re.compile(r"[A-Za-z0-9]{1,64}")  # a game's id: letters and digits
_KEY = re.compile(rf"[0-9a-f]{{{KEY_ID_LENGTH}}}")


def b64url(data: bytes) -> str:
    """Base64url without padding.

    >>> b64url(b"\\xff\\xfe")
    '__4'
    """
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def from_b64url(text: str) -> bytes:
    """The bytes of a base64url text (padding optional); ValueError for anything else."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*={0,2}", text):
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def key_id(public_key: bytes) -> str:
    """A public key's id: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_key).hexdigest()[:KEY_ID_LENGTH]


def signed_bytes(receipt: Mapping[str, Any]) -> bytes:
    """What a receipt's signature covers: the canonical JSON of its other fields."""
    names = next((fields for name, fields in _SIGNED.items() if name in receipt), SIGNED_FIELDS)
    return canonical_bytes({name: receipt[name] for name in names})


@dataclass(frozen=True)
class Signer:
    """An Ed25519 private key, with its id and raw public key."""

    private: Ed25519PrivateKey = field(repr=False, compare=False)  # a key is its public half: compared by it
    id: str
    public_key: bytes

    @classmethod
    def from_private(cls, private: Ed25519PrivateKey) -> Signer:
        public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return cls(private, key_id(public), public)

    @classmethod
    def from_seed(cls, seed: bytes) -> Signer:
        """The key whose 32-byte private seed is ``seed``."""
        if len(seed) != 32:
            raise ValueError("an Ed25519 private key is 32 bytes")
        return cls.from_private(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def generate(cls) -> Signer:
        return cls.from_private(Ed25519PrivateKey.generate())

    @property
    def seed(self) -> bytes:
        return self.private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                          serialization.NoEncryption())

    def sign(self, game: str, version: int, head: str, at: str) -> dict[str, Any]:
        """A receipt for ``game`` at ``version`` with head hash ``head``, signed at ``at``."""
        return self._signed({"game": game, "version": version, "head": head, "at": at, "key": self.id})

    def sign_evening(self, evening: str, version: int, head: str, at: str) -> dict[str, Any]:
        """A receipt for the log of decisions of ``evening`` at ``version`` (its seq) with head hash ``head``."""
        return self._signed({"evening": evening, "version": version, "head": head, "at": at, "key": self.id})

    def sign_archive(self, club: str, version: int, digest: str, at: str) -> dict[str, Any]:
        """A receipt for a club's archive (:mod:`nj_ledger.archive`) of format ``version`` whose digest is
        ``digest``: the server vouches for the whole file, the members and the seasons as much as the logs."""
        return self._signed({"archive": club, "version": version, "head": digest, "at": at, "key": self.id})

    def sign_erasure(self, club: str, number: int, head: str, at: str) -> dict[str, Any]:
        """A receipt for the club's ``number``-th erasure of a member, whose hash (chained after the club's
        erasures before it) is ``head``: the server vouches for the records it redacted and how they stood."""
        return self._signed({"erasure": club, "version": number, "head": head, "at": at, "key": self.id})

    def _signed(self, receipt: dict[str, Any]) -> dict[str, Any]:
        receipt["signature"] = b64url(self.private.sign(signed_bytes(receipt)))
        return receipt


def well_formed(receipt: Any) -> bool:
    """Whether ``receipt`` has the fields of a receipt (a game's, or an evening's), each of the right kind."""
    if not isinstance(receipt, Mapping) or set(receipt) not in (set(FIELDS), set(EVENING_FIELDS), set(ARCHIVE_FIELDS),
                                                                 set(ERASURE_FIELDS)):
        return False
    version, head, key = receipt["version"], receipt["head"], receipt["key"]
    game = next(receipt[name] for name in _SIGNED if name in receipt)  # the log's (or club's) id: letters and digits
    return (type(version) is int and 1 <= version < 2**63 and isinstance(game, str) and _GAME.fullmatch(game)
            is not None and isinstance(head, str) and _HEAD.fullmatch(head) is not None and isinstance(key, str)
            and _KEY.fullmatch(key) is not None and isinstance(receipt["at"], str)
            and isinstance(receipt["signature"], str))


def verify(receipt: Mapping[str, Any], public_keys: Mapping[str, bytes]) -> bool:
    """Whether ``receipt`` is well formed and signed by one of ``public_keys`` (raw keys by id)."""
    if not well_formed(receipt):
        return False
    public = public_keys.get(receipt["key"])
    if public is None or key_id(public) != receipt["key"]:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(from_b64url(receipt["signature"]), signed_bytes(receipt))
    except (InvalidSignature, ValueError):
        return False
    return True
