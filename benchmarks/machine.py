"""What the figures were measured on: CPU, cores, memory, Python, SQLite and PostgreSQL."""

from __future__ import annotations

import os
import platform
import sqlite3
from pathlib import Path
from typing import Any


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _postgres_version(url: str | None) -> str | None:
    if url is None:
        return None
    from sqlalchemy import create_engine, text

    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            return str(connection.execute(text("SHOW server_version")).scalar())
    except Exception:  # noqa: BLE001 - an unreachable server is reported as absent
        return None
    finally:
        engine.dispose()


def machine(postgres_url: str | None = None) -> dict[str, Any]:
    """The machine's description for the JSON report.

    >>> sorted(machine())[:3]
    ['cores', 'cpu', 'load_average']
    """
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgresql": _postgres_version(postgres_url),
        "platform": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
