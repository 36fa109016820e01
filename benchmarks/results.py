"""A workload's line of the report: figures, ratios, the target and whether it is met.

    >>> line = row("bulk import", "events/s", 30_000, peer=12_000, raw=90_000, min_peer=1.0, min_raw=0.3)
    >>> line["ratio_peer"], line["ratio_raw"], line["target"], line["met"]
    (2.5, 0.333, '≥ 1.0× peer, ≥ 0.3× raw', True)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def row(
    name: str,
    unit: str,
    ours: float | None,
    *,
    peer: float | None = None,
    raw: float | None = None,
    min_peer: float | None = None,
    min_raw: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """One line; ratios are ours / theirs (for throughputs: more is better)."""
    ratio_peer = round(ours / peer, 3) if ours is not None and peer else None
    ratio_raw = round(ours / raw, 3) if ours is not None and raw else None
    targets: list[str] = []
    met: list[bool] = []
    if min_peer is not None:
        targets.append(f"≥ {min_peer}× peer")
        met.append(ratio_peer is not None and ratio_peer >= min_peer)
    if min_raw is not None:
        targets.append(f"≥ {min_raw}× raw")
        met.append(ratio_raw is not None and ratio_raw >= min_raw)
    if at_least is not None:
        targets.append(f"≥ {at_least:g} {unit}")
        met.append(ours is not None and ours >= at_least)
    if at_most is not None:
        targets.append(f"≤ {at_most:g} {unit}")
        met.append(ours is not None and ours <= at_most)
    line: dict[str, Any] = {
        "name": name, "unit": unit, "ours": _round(ours), "peer": _round(peer), "raw": _round(raw),
        "ratio_peer": ratio_peer, "ratio_raw": ratio_raw, "target": ", ".join(targets) or None,
        "met": all(met) if met else None,
    }
    if note:
        line["note"] = note
    return line


def skipped(name: str, unit: str, why: str) -> dict[str, Any]:
    """A workload that could not run here, and why."""
    return {"name": name, "unit": unit, "ours": None, "peer": None, "raw": None, "ratio_peer": None,
            "ratio_raw": None, "target": None, "met": None, "note": why}


def _round(value: float | None) -> float | None:
    if value is None:
        return None
    if abs(value) >= 100:
        return round(value, 1)
    if abs(value) >= 0.1 or value == 0:
        return round(value, 3)
    return float(f"{value:.3g}")  # a fast solve's seconds keep three figures (0.0000412, not 0.0)


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100) of ``samples``, interpolated.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    """
    if len(samples) == 1:
        return float(samples[0])
    return statistics.quantiles(samples, n=100, method="inclusive")[int(q) - 1] if q < 100 else max(samples)
