"""docs/DEPLOY.md's backups, restores, signing key and upgrade, run as the page gives them (its ``backup`` and
``upgrade`` routes), on a server of the test's own made by the page's ``internet`` route (tests/deploy/machine.py:
a mount namespace whose /etc, /opt, /usr/local and /var/lib vanish after the test).

Where the page says ``systemctl``, the test does what systemd would: it stops and starts the ledger's service as
its unit says, and for the timer, checks both units and runs the backup service once, as the timer would at
03:30. The page's upgrade is run on a database taken back to the previous release's schema while the server is
stopped (the release installed again is this one: the commands are what is checked).
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.guide import Block, blocks
from deploy.machine import Machine, Service, can_make_machines, source_tree, wait_for
from reliability.helpers import free_port

PREVIOUS_RELEASE = "0009_deal_analysis"
BACKUPS = "/var/lib/nj-ledger/backups"
TAKE_BACK = ("runuser -u nj-ledger -- env NJ_LEDGER_INSTANCE=/var/lib/nj-ledger /opt/nj-ledger/bin/python -c "
             "\"from alembic import command; from nj_ledger.store.migrate import alembic_config; "
             f"command.downgrade(alembic_config(), '{PREVIOUS_RELEASE}')\"")  # as the previous release left it


class Server:
    """The guide's server: the machine, the ledger's service, and the guide's blocks run on it."""

    def __init__(self, folder: Path) -> None:
        self.source = source_tree(folder)
        self.machine = Machine(folder)
        self.port = free_port()
        self.ledger: Service | None = None

    def run(self, commands: str) -> str:
        return self.machine.run(commands, cwd=self.source, timeout=900)

    def start(self) -> None:
        self.ledger = self.machine.start("nj-ledger.service")
        wait_for(lambda: urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v1/health", timeout=2).status
                 == 200, 60, "the ledger's health", self.ledger)

    def stop(self) -> None:
        assert self.ledger is not None
        self.ledger.stop()

    def block(self, block: Block) -> str:
        """Run a block of the guide as written, its ``systemctl`` lines done as systemd would."""
        said: list[str] = []
        for kind, words in block.steps():
            if kind == "sh":
                said.append(self.run(words[0]))
            elif words == ["stop", "nj-ledger"]:
                self.stop()
                if block.route == "upgrade":
                    self.machine.run(TAKE_BACK)
            elif words == ["start", "nj-ledger"]:
                self.start()
            elif words == ["enable", "--now", "nj-ledger-backup.timer"]:
                for unit in ("nj-ledger-backup.timer", "nj-ledger-backup.service"):
                    self.machine.verify(f"/etc/systemd/system/{unit}")
                backup = self.machine.start("nj-ledger-backup.service")  # as the timer starts it
                assert backup.process.wait(timeout=300) == 0, backup.output()
                said.append(backup.output())
            else:
                assert words == ["daemon-reload"], f"a systemctl line the test does not know: {words}"
        return "\n".join(said)

    def games(self) -> list[str]:
        return [line.split()[0] for line in self.run("nj-ledger games list --limit 100").splitlines() if line]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    reason = can_make_machines()
    if reason is not None:
        pytest.fail(reason)
    made = Server(tmp_path_factory.mktemp("guide"))
    try:
        internet = blocks("internet")
        made.run(internet[0].commands.replace("apt-get install -y caddy python3-venv python3-dev gcc\n", ""))
        made.run(internet[1].commands)  # its user, its folders, its settings
        made.run(f"echo NJ_LEDGER_PORT={made.port} >> /etc/nj-ledger/nj-ledger.env")
        made.run("install -m 644 deploy/nj-ledger.service /etc/systemd/system/nj-ledger.service")
        made.start()
        made.run('nj-ledger club create "Cercle du Nain Jaune" && nj-ledger simulate --games 4')
        yield made
    finally:
        if made.ledger is not None:
            made.ledger.stop()
        made.machine.close()


def test_the_guides_backups_restore_and_signing_key_run_as_written(server: Server) -> None:
    scheduled, restore, key_copied, key_back = blocks("backup")
    assert "nj-ledger restore" in restore.commands and "signing.key" in key_copied.commands + key_back.commands
    said = server.block(scheduled)
    assert said.count("Backup of /var/lib/nj-ledger/nj-ledger.sqlite written to") == 2, said
    backed_up = server.games()
    server.run("nj-ledger simulate --games 1")  # recorded after the backup: the restore loses it
    assert len(server.games()) == len(backed_up) + 1
    said = server.block(restore)
    assert "Restored" in said and "Receipts are signed with key" in said
    assert server.games() == backed_up
    server.block(key_copied)
    assert server.run("stat -c '%a' /root/nj-ledger-signing.key").strip() == "600"
    server.run("rm /var/lib/nj-ledger/signing.key")  # the key lost with the machine, then put back
    server.block(key_back)
    assert server.run("stat -c '%a %U' /var/lib/nj-ledger/signing.key").strip() == "600 nj-ledger"
    server.stop()
    assert "Receipts are signed with key" in server.run(
        f'nj-ledger restore "$(ls {BACKUPS}/nj-ledger-*.tar | tail -n 1)"')
    server.start()


def test_the_guides_upgrade_backs_up_and_migrates_as_written(server: Server) -> None:
    (upgrade,) = blocks("upgrade")
    games = server.games()
    said = server.block(upgrade)
    assert f"Backup of the database at schema {PREVIOUS_RELEASE} written to {BACKUPS}/nj-ledger-" in said, said
    assert "is at revision" in said and server.games() == games
    made = server.run(f"ls {BACKUPS}").split()
    assert any(name.endswith(f"-at-{PREVIOUS_RELEASE}.tar") for name in made), made
