"""(e) Peak memory of importing one long game: ``nj-ledger import FILE`` in a subprocess.

The document is written an action per line; the import streams it. The peak
resident set of the importing process alone is its ``VmHWM`` (``/proc``),
watched while it runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .results import row

POLL_SECONDS = 0.02


def _high_water_mark(pid: int) -> float | None:
    """The process's peak RSS so far in MB (``VmHWM``), or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def _run(arguments: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Peak RSS in MB, seconds, and output of ``nj-ledger ARGUMENTS`` in a subprocess.

    ``VmHWM`` is the importing process's own peak: a forked child's ``ru_maxrss``
    starts from its parent's (here the benchmark's, which holds the simulated
    game), so it is read only where ``/proc`` is missing.
    """
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "cli", *arguments], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peaks: list[float] = []

    def watch() -> None:
        while process.returncode is None:
            mark = _high_water_mark(process.pid)
            if mark is None:
                return
            peaks.append(mark)
            time.sleep(POLL_SECONDS)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert process.stdout is not None
    output = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    watcher.join()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"nj-ledger {' '.join(arguments)} failed: {output.strip()[-2000:]}")
    return (max(peaks) if peaks else usage.ru_maxrss / 1024), seconds, output


def import_peak(database_url: str, path: Path, events: int, club_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Rows for the import's peak RSS and its speed."""
    env = {**os.environ, "NJ_LEDGER_DATABASE_URL": database_url}
    peak, seconds, output = _run(["import", str(path), "--club", club_id], env)
    if f"{events} events" not in output:
        raise RuntimeError(f"the import did not store {events} events: {output.strip()}")
    size = path.stat().st_size / 1e6
    return (
        row(f"peak RSS, import of a {events}-event game ({size:.0f} MB file)", "MB", peak, at_most=250),
        row("streaming import speed (same file, one transaction)", "events/s", events / seconds),
    )
