"""Upgrades without a loss (docs/DEPLOY.md, "Upgrading"): ``nj-ledger db upgrade`` on a database of the previous
release's schema holding data backs it up first, and the backup restores (then is migrated again); when no
backup can be made, it refuses and says how; an empty database, or one at the latest schema, needs none."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.scratch import scratch_postgres, scratch_sqlite
from nj_ledger.store import Store
from nj_ledger.store.backups import verify
from nj_ledger.store.checkpoints import audit_game
from nj_ledger.store.database import DATABASE_URL_ENV
from nj_ledger.store.migrate import head_revision, upgrade

from .helpers import fill, fingerprint, nj_ledger

PREVIOUS_RELEASE = "0009_deal_analysis"  # the schema of the release before this one


@pytest.fixture
def previous_url(backend: str, tmp_path: Path, instance: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A database at the previous release's schema, the one every command of the test reaches."""
    with scratch_sqlite(tmp_path) if backend == "sqlite" else scratch_postgres() as url:
        upgrade(url, PREVIOUS_RELEASE)
        monkeypatch.setenv(DATABASE_URL_ENV, url)
        yield url


def test_an_upgrade_backs_up_a_database_holding_data_first_and_the_backup_restores(
        previous_url: str, instance: Path) -> None:
    club = fill(previous_url, 5)
    before = fingerprint(previous_url)
    assert before is not None and before["revision"] == PREVIOUS_RELEASE

    said = nj_ledger("db", "upgrade").stdout
    made = sorted((instance / "backups").iterdir())
    assert len(made) == 1 and re.fullmatch(rf"nj-ledger-\d{{8}}T\d{{6}}\.\d{{3}}Z-at-{PREVIOUS_RELEASE}\.tar",
                                           made[0].name)
    assert f"Backup of the database at schema {PREVIOUS_RELEASE} written to {made[0]}" in said
    assert f"`nj-ledger restore {made[0]}` brings it back" in said
    assert said.index("Backup of") < said.index(f"is at revision {head_revision()}")
    upgraded = fingerprint(previous_url)
    assert upgraded is not None and upgraded["revision"] == head_revision()
    assert upgraded["games"] == before["games"]
    assert verify(made[0]).contents.revision == PREVIOUS_RELEASE

    # at the latest schema (every `make run`): nothing to back up, one line as before
    again = nj_ledger("db", "upgrade").stdout
    assert again.splitlines() == [line for line in said.splitlines() if "is at revision" in line]
    assert sorted((instance / "backups").iterdir()) == made

    # written to after the upgrade, then the backup restored: the previous schema comes back, migrated again
    fill(previous_url, 1, seed=77, name="Après la mise à jour")
    restored = nj_ledger("restore", str(made[0])).stdout
    assert f"(schema {PREVIOUS_RELEASE}), migrated to {head_revision()}" in restored
    after = fingerprint(previous_url)
    assert after is not None and after["revision"] == head_revision()
    assert (after["games"], after["clubs"], after["events"]) == (before["games"], before["clubs"], before["events"])
    store = Store(previous_url)
    try:
        for game, receipts in club.receipts.items():
            report = audit_game(store.keys, club.club, game, receipts)
            assert report["ok"] and report["receipts"]["checked"] == 1
    finally:
        store.close()


def test_an_upgrade_that_cannot_back_up_first_refuses_and_says_how(backend: str, previous_url: str,
                                                                   tmp_path: Path) -> None:
    fill(previous_url, 2)
    before = fingerprint(previous_url)
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way", encoding="utf-8")
    refusals = [nj_ledger("db", "upgrade", "--backup-to", str(blocked / "backups"), expect=1).stderr,
                nj_ledger("db", "upgrade", expect=1, env={**os.environ, "NJ_LEDGER_BACKUPS": str(blocked)}).stderr]
    if backend == "postgresql":  # its backups are its own tools': missing, they are said missing
        (tmp_path / "no-tools").mkdir()
        refusals.append(nj_ledger("db", "upgrade", expect=1,
                                  env={**os.environ, "PATH": str(tmp_path / "no-tools")}).stderr)
        assert "pg_dump is not installed here" in refusals[-1] and "apt-get install postgresql-client" in refusals[-1]
    for refused in refusals:
        assert refused.startswith("Error: The database holds data and was not migrated, because no backup of it "
                                  "could be made first: "), refused
        assert "--backup-to FOLDER" in refused and "`nj-ledger db upgrade --no-backup`" in refused
        assert "Traceback" not in refused
    assert fingerprint(previous_url) == before

    said = nj_ledger("db", "upgrade", "--no-backup").stdout  # knowingly
    assert "Backup" not in said and f"is at revision {head_revision()}" in said
    after = fingerprint(previous_url)
    assert after is not None and before is not None and after["games"] == before["games"]


def test_an_empty_database_is_migrated_without_a_backup(previous_url: str, instance: Path) -> None:
    said = nj_ledger("db", "upgrade").stdout
    assert "Backup" not in said and f"is at revision {head_revision()}" in said
    assert not (instance / "backups").exists()
