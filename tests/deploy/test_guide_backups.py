"""docs/DEPLOY.md's backups, restores, signing key and upgrade, run as the page gives them (its ``backup`` and
``upgrade`` routes), on the server its ``internet`` route made (tests/deploy/conftest.py), after the tests of
test_deploy.py: these stop, restore and migrate it.

Where the page says ``systemctl``, the test does what systemd would (``Server.block``): it stops and starts the
ledger's service as its unit says, and for the timer, checks both units and runs the backup service once, as the
timer would at 03:30. The page's upgrade is run on a database taken back to the previous release's schema while
the server is stopped (the release installed again is this one: the commands are what is checked).
"""

from __future__ import annotations

import re

from .conftest import LEDGER, Server
from .guide import blocks

PREVIOUS_RELEASE = "0009_deal_analysis"
BACKUPS = "/var/lib/nj-ledger/backups"
TAKE_BACK = ("runuser -u nj-ledger -- env NJ_LEDGER_INSTANCE=/var/lib/nj-ledger /opt/nj-ledger/bin/python -c "
             "\"from alembic import command; from nj_ledger.store.migrate import alembic_config; "
             f"command.downgrade(alembic_config(), '{PREVIOUS_RELEASE}')\"")  # as the previous release left it


def test_the_guides_backups_restore_and_signing_key_run_as_written(server: Server) -> None:
    scheduled, restore, key_copied, new_machine = blocks("backup")
    assert "nj-ledger restore" in restore.commands and "signing.key" in key_copied.commands + new_machine.commands
    said = server.block(scheduled)
    assert said.count("Backup of /var/lib/nj-ledger/nj-ledger.sqlite written to") == 2, said
    backed_up = server.games()
    server.run("nj-ledger simulate --games 1")  # recorded after the backup: the restore loses it
    assert len(server.games()) == len(backed_up) + 1
    said = server.block(restore)
    assert "Restored" in said and "Receipts are signed with key" in said
    kept = re.search(rf"The database it replaced is kept in ({BACKUPS}/nj-ledger-\S+-before-restore\.tar): "
                     r"`nj-ledger restore \1` undoes this restore\.", said)
    assert kept is not None, said
    server.run(f"test -s {kept[1]}")
    assert server.games() == backed_up
    server.block(key_copied)
    assert server.run("stat -c '%a' /root/nj-ledger-signing.key").strip() == "600"

    # the machine lost: a new one made up to its settings (an empty instance folder), the newest nightly backup
    # brought back to /root beside the key
    server.stop(LEDGER)
    server.run(f'cp "$(ls {BACKUPS}/nj-ledger-*Z.tar | tail -n 1)" /root/')
    server.run("find /var/lib/nj-ledger -mindepth 1 -delete")
    said = server.block(new_machine)
    assert "Receipts are signed with key" in said and "Backup of the database" not in said, said
    assert server.run("stat -c '%a %U' /var/lib/nj-ledger/signing.key /var/lib/nj-ledger/backups").split() == [
        "600", "nj-ledger", "700", "nj-ledger"]
    server.start(LEDGER)  # step 3
    assert server.games() == backed_up


def test_the_guides_upgrade_backs_up_and_migrates_as_written(server: Server) -> None:
    (upgrade,) = blocks("upgrade")
    games = server.games()
    said = server.block(upgrade, after_stop=lambda: server.machine.run(TAKE_BACK))
    assert f"Backup of the database at schema {PREVIOUS_RELEASE} written to {BACKUPS}/nj-ledger-" in said, said
    assert "is at revision" in said and server.games() == games
    made = server.run(f"ls {BACKUPS}").split()
    assert any(name.endswith(f"-at-{PREVIOUS_RELEASE}.tar") for name in made), made
