"""What a backup or a restore leaves behind when its process dies (a kill, a power cut), named after that process,
and removed by the next backup or restore in the same folder once the process is gone.

A backup copies the whole database into a ``.work`` folder beside its target, then writes the archive to a
``.partial`` file there; an SQLite restore unpacks the backup's database into a ``.work`` folder beside the live
file, a PostgreSQL restore in the temporary folder. A process that dies leaves them, each as large as the
database, and ``--keep`` (which counts backups by their names) never sees them: night after night, the disk
would fill. So each is named ``.<target>~<machine>~<process id>~<start>~<random>.work`` (or ``.partial``): the
start is when the process began (the boot's id and the moment since it), so that neither a process id taken
again since, nor a restart of the machine, passes for the owner. A leftover of another machine (a folder shared
over the network) is never removed: whether its owner lives cannot be told from here.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
from pathlib import Path

KINDS = (".work", ".partial")
_NAME = re.compile(r"\.(?P<target>.+)~(?P<host>[^~/]+)~(?P<pid>\d{1,10})~(?P<start>[^~/]*)~[^~/]+\.(?:work|partial)")
_PROC = Path("/proc")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname()) or "localhost"


def _boot() -> str:
    try:
        return (_PROC / "sys/kernel/random/boot_id").read_text(encoding="ascii").strip().replace("-", "")[:16]
    except OSError:
        return ""


def _start(pid: int) -> str | None:
    """When the process ``pid`` began, as a name holds it: ``<boot>.<clock ticks since the boot>``; ``""`` where
    the system does not say (no ``/proc``), None where it says of no such process (or hides it)."""
    if not (_PROC / "self" / "stat").exists():
        return ""
    try:
        stat = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # after the command's name, which may hold anything
    return f"{_boot()}.{fields[19]}" if len(fields) > 19 else ""


def owner() -> str:
    """This process, as the names of its leftovers say it: ``<machine>~<process id>~<start>``."""
    pid = os.getpid()
    return f"{_host()}~{pid}~{_start(pid) or ''}"


def prefix(target: Path) -> str:
    """The beginning of the name of a work folder or partial file of ``target``, made by this process."""
    return f".{target.name}~{owner()}~"


def gone(name: str) -> bool:
    """Whether ``name`` is a leftover whose process is gone (False for any other name, and when it cannot be
    told: another machine's, a process of another user that the system hides)."""
    found = _NAME.fullmatch(name)
    if found is None or found["host"] != _host():
        return False
    pid = int(found["pid"])
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)  # no signal is sent: only whether the process is there
    except (ProcessLookupError, OverflowError):
        return True
    except PermissionError:
        pass  # there, and another user's
    start = _start(pid)
    return bool(start) and start != found["start"]  # that id is another process's now (or of a later boot)


def sweep(folder: Path) -> list[Path]:
    """Remove the leftovers in ``folder`` whose process is gone; what was removed. Nothing else is touched, and a
    leftover that cannot be removed (another user's) is left for whoever may."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []  # no such folder yet: nothing left in it
    removed = []
    for entry in entries:
        if not entry.name.endswith(KINDS) or not gone(entry.name):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed
