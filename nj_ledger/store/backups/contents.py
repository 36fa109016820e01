"""What a backup says it holds, read from the database in the moment it is copied, and whether the configured
signing key may go on signing the games it holds once it is restored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, inspect, text

from ..base import iso
from ..keys import KeyInfo, SigningKeyError, configured_signer, key_source, registered_keys, trusted_keys
from .archive import COUNTED, BackupError, Contents


def read_contents(connection: Connection, where: str) -> Contents:
    """The schema revision, the counts and the public keys of the database behind ``connection``, all read in
    its transaction (the backup's moment). A database the ledger never set up has nothing to back up."""
    tables = set(inspect(connection).get_table_names())
    if "alembic_version" not in tables:
        raise BackupError("nothing-to-back-up", f"{where} holds no ledger (no schema revision): there is nothing "
                                                "to back up (`nj-ledger db upgrade` sets a database up).")
    revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    if not revision:
        raise BackupError("nothing-to-back-up", f"{where} has no schema revision: there is nothing to back up.")
    counts = {name: int(connection.execute(text(f"SELECT count(*) FROM {name}")).scalar_one())
              for name in COUNTED}
    keys = [_key_document(key) for key in registered_keys(connection)] if "signing_keys" in tables else []
    return Contents(str(revision), counts, keys)


def _key_document(key: KeyInfo) -> dict[str, Any]:
    return {"number": key.number, "id": key.id, "algorithm": key.algorithm, "public_key": key.public_key,
            "created_at": iso(key.created_at), "predecessor": key.predecessor, "endorsement": key.endorsement,
            "handover": key.handover}


def _key_info(document: dict[str, Any]) -> KeyInfo:
    return KeyInfo(int(document["number"]), str(document["id"]), str(document["algorithm"]),
                   str(document["public_key"]), datetime.fromisoformat(str(document["created_at"])),
                   document.get("predecessor"), document.get("endorsement"), document.get("handover"))


def signing_after_restore(contents: Contents) -> tuple[str | None, str | None]:
    """``(key, refusal)``: the configured key when the restored games' keys trust it (or hold none yet), else
    why it may not sign them, in a sentence that says how to mend it (the key is kept apart from backups)."""
    try:
        known = [_key_info(key) for key in contents.keys]
    except (KeyError, TypeError, ValueError):
        return None, "The backup's list of public keys cannot be read."
    try:
        signer = configured_signer()
    except SigningKeyError as error:
        return None, error.template.format(**error.params)
    if not known:
        return (signer.id if signer else None), None
    listed = ", ".join(key.id for key in known)
    if signer is not None and trusted_keys(known, signer.id):
        return signer.id, None
    what = "There is no signing key at {source}" if signer is None else f"The signing key {signer.id} at {{source}}"
    return None, (what.format(source=key_source()) + f", and it did not sign this backup's games (their keys: "
                  f"{listed}). Put back the copy of the signing key kept apart from the backups (docs/DEPLOY.md, "
                  f"\"The signing key\") and restore again; or, if that key is lost, restore with --other-key, then "
                  f"sign with a key of your own: `nj-ledger keys rotate --adopt --after {known[-1].id}`.")
