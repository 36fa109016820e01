"""Backups of the ledger's database that restore and verify, on SQLite and on PostgreSQL.

- :mod:`.archive`: the backup file (a tar of a manifest and the database), written in one step, read and checked
  whole before anything is changed;
- :mod:`.contents`: what a backup holds, read in the moment it is taken, and whether the configured signing key
  may sign its games once restored (the key is never in a backup);
- :mod:`.sqlite`: SQLite's online backup, and a restore that replaces the file;
- :mod:`.postgresql`: ``pg_dump`` in one exported snapshot, and a restore in one transaction;
- :mod:`.operations`: ``backup``, ``restore``, and the backups made before a migration and before a restore;
- :mod:`.leftovers`: what an interrupted backup or restore left behind, named after its process, and removed by
  the next one once that process is gone.
"""

from .archive import BackupError, Contents, Manifest, verify
from .operations import (
    BEFORE_RESTORE,
    SCHEDULED,
    Made,
    Restored,
    backup,
    backup_before_restore,
    backup_before_upgrade,
    backup_in,
    restore,
    revision_to_back_up,
    shown,
)

__all__ = [
    "BEFORE_RESTORE",
    "SCHEDULED",
    "BackupError",
    "Contents",
    "Made",
    "Manifest",
    "Restored",
    "backup",
    "backup_before_restore",
    "backup_before_upgrade",
    "backup_in",
    "restore",
    "revision_to_back_up",
    "shown",
    "verify",
]
