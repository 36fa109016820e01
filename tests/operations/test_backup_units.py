"""The scheduled backup (deploy/nj-ledger-backup.service and .timer): units systemd accepts, run as the server
runs (its user, its settings file, the folder it may write), whose command makes a backup that restores."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from nj_ledger.store.backups import SCHEDULED, verify

from .helpers import NJ_LEDGER, fill

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
INSTALLED = "/opt/nj-ledger/bin/nj-ledger"  # where docs/DEPLOY.md installs the command
INSTANCE = "/var/lib/nj-ledger"


def settings(unit: Path) -> dict[str, list[str]]:
    """A unit's ``[Service]`` (or ``[Timer]``) lines, each key with its values in order."""
    found: dict[str, list[str]] = {}
    for line in unit.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_units_are_valid_and_run_as_the_server_runs(tmp_path: Path) -> None:
    service, timer = DEPLOY / "nj-ledger-backup.service", DEPLOY / "nj-ledger-backup.timer"
    backup, server = settings(service), settings(DEPLOY / "nj-ledger.service")
    for key in ("User", "Group", "EnvironmentFile", "ReadWritePaths", "ProtectSystem", "UMask"):
        assert backup[key] == server[key], key
    assert backup["Type"] == ["oneshot"] and settings(timer)["Persistent"] == ["true"]
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    folder = tmp_path / "units"
    folder.mkdir()
    for unit in (service, timer):  # the command where this machine has it (docs/DEPLOY.md installs it in /opt)
        (folder / unit.name).write_text(unit.read_text(encoding="utf-8").replace(INSTALLED, NJ_LEDGER),
                                        encoding="utf-8")
    checked = subprocess.run(["systemd-analyze", "verify", str(folder / timer.name), str(folder / service.name)],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    assert "Next elapse" in subprocess.run(
        ["systemd-analyze", "calendar", settings(timer)["OnCalendar"][0]], capture_output=True, text=True,
        check=True).stdout


def test_the_units_command_makes_a_backup_and_keeps_the_newest(fresh_url: str, instance: Path) -> None:
    fill(fresh_url, 2)
    command = settings(DEPLOY / "nj-ledger-backup.service")["ExecStart"][0]
    assert command.startswith(INSTALLED + " backup ")
    arguments = [argument.replace(INSTANCE, str(instance)) for argument in shlex.split(command)[1:]]
    keep = int(arguments[arguments.index("--keep") + 1])
    folder = instance / "backups"
    folder.mkdir()
    for number in range(keep + 1):  # older backups, as earlier nights left them
        (folder / f"nj-ledger-2000010{1 + number // 10}T00000{number % 10}.000Z.tar").write_bytes(b"older")
    done = subprocess.run([NJ_LEDGER, *arguments], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    scheduled = sorted(path for path in folder.iterdir() if SCHEDULED.fullmatch(path.name))
    assert len(scheduled) == keep and scheduled[-1].read_bytes() != b"older"
    assert verify(scheduled[-1]).contents.counts["games"] == 2
