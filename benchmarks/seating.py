"""Seats drawn and rotated over a club evening: the rotation quality table and the time a plan takes.

For a selection of evenings (players × table size × rounds), :func:`nj_ledger.seating.plan` with seed 0: the
worst pair count (the most times two players share a table) against the proven lower bound, the pairs at that
count, and the time taken. The target: under a second for 64 players and 8 rounds, at the default tables of 4
and at tables of 5 and 6 (which no known design covers: the search does all the work).

    $ python -m benchmarks.seating            # the table, as docs/EVENINGS.md shows it
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from nj_ledger.seating import Plan, plan, table_sizes

from .results import row

TARGET_SECONDS = 1.0

# (players, preferred table size, rounds)
CASES = [
    (8, 4, 3), (8, 4, 7), (9, 3, 4), (9, 3, 6), (9, 5, 6), (12, 3, 4), (12, 4, 3), (12, 6, 4), (13, 4, 5),
    (15, 3, 7), (16, 4, 5), (16, 4, 8), (16, 8, 3), (20, 4, 5), (20, 4, 6), (20, 4, 8), (20, 5, 4), (21, 3, 8),
    (24, 4, 6), (24, 4, 8), (24, 6, 5), (25, 5, 6), (30, 5, 6), (32, 4, 8), (32, 8, 5), (36, 6, 7), (40, 5, 8),
    (48, 6, 8), (64, 4, 8), (64, 5, 8), (64, 6, 8), (64, 8, 8),
]
QUICK_CASES = [(9, 3, 4), (12, 4, 3), (16, 4, 5), (20, 4, 5), (24, 4, 6), (64, 4, 8), (64, 5, 8), (64, 6, 8)]
TIMED = [(64, 4, 8), (64, 5, 8), (64, 6, 8)]  # the target's evenings


def measure(players: int, preferred: int, rounds: int, *,
            repeat: int = 1) -> tuple[Plan, tuple[int, ...], float, float]:
    """The plan (seed 0) of ``players`` at tables close to ``preferred`` over ``rounds``; the median seconds
    taken (wall clock) and of processor time (what it takes on an idle machine: the bench's may be shared)."""
    names = [f"Player {number:02d}" for number in range(1, players + 1)]
    sizes = table_sizes(players, preferred=preferred)
    walls, processor, result = [], [], None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = plan(names, rounds, sizes=sizes)
        walls.append(time.perf_counter() - start)
        processor.append(time.process_time() - cpu)
    assert result is not None
    return result, sizes, statistics.median(walls), statistics.median(processor)


def quality(cases: list[tuple[int, int, int]] = CASES) -> list[dict[str, Any]]:
    """One line per evening: players, tables, rounds, worst pair count, bound, pairs at the worst, seconds."""
    lines = []
    for players, preferred, rounds in cases:
        result, sizes, seconds, cpu = measure(players, preferred, rounds)
        lines.append({"players": players, "tables": sizes, "rounds": rounds, "worst_pair": result.worst_pair,
                      "bound": result.bound, "at_worst": result.at_worst, "seconds": round(seconds, 3),
                      "cpu": round(cpu, 3)})
    return lines


def markdown(lines: list[dict[str, Any]]) -> str:
    """The quality table in Markdown."""
    text = ["| players | tables | rounds | worst pair | bound | pairs at worst | time (s) | CPU (s) |",
            "|---:|:---|---:|---:|---:|---:|---:|---:|"]
    for line in lines:
        sizes = line["tables"]
        shown = " + ".join(f"{sizes.count(size)} × {size}" for size in sorted(set(sizes), reverse=True))
        mark = "" if line["worst_pair"] == line["bound"] else " ⁺"
        text.append(f"| {line['players']} | {shown} | {line['rounds']} | {line['worst_pair']}{mark} | "
                    f"{line['bound']} | {line['at_worst']} | {line['seconds']:.2f} | {line['cpu']:.2f} |")
    return "\n".join(text)


def workload(quick: bool) -> list[dict[str, Any]]:
    """The bench's lines: the slowest of the timed 64-player evenings, then the quality of each evening."""
    slowest, slowest_cpu = 0.0, 0.0
    for players, preferred, rounds in TIMED:
        _, _, seconds, cpu = measure(players, preferred, rounds, repeat=1 if quick else 3)
        slowest, slowest_cpu = max(slowest, seconds), max(slowest_cpu, cpu)
    rows = [row("seating: plan 64 players × 8 rounds (tables of 4, 5, 6; slowest)", "ms", slowest * 1000,
                at_most=TARGET_SECONDS * 1000, note=f"{slowest_cpu * 1000:.0f} ms of processor time")]
    for line in quality(QUICK_CASES if quick else CASES):
        sizes = line["tables"]
        rows.append(row(f"seating: {line['players']} players, tables of {'/'.join(map(str, sorted(set(sizes))))}, "
                        f"{line['rounds']} rounds: worst pair", "meetings", line["worst_pair"],
                        at_most=line["bound"],
                        note=f"bound {line['bound']}, {line['at_worst']} pairs at the worst, "
                             f"{line['seconds'] * 1000:.0f} ms ({line['cpu'] * 1000:.0f} ms of processor time)"))
    return rows


if __name__ == "__main__":
    print(markdown(quality(QUICK_CASES if "--quick" in sys.argv else CASES)))
