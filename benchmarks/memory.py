"""(e) Peak memory of importing one long game: ``nj-ledger import FILE`` in a subprocess.

The document is written an action per line; the import streams it. The peak
resident set of the importing process alone is read from ``wait4``'s resource
usage (Linux reports ``ru_maxrss`` in KiB).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .results import row


def _run(arguments: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Peak RSS in MB, seconds, and output of ``nj-ledger ARGUMENTS`` in a subprocess."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "nj_ledger.cli", *arguments], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    output = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"nj-ledger {' '.join(arguments)} failed: {output.strip()[-2000:]}")
    return usage.ru_maxrss / 1024, seconds, output


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
