"""The seating workload: the rotation quality table and the timed 64-player evenings."""

from __future__ import annotations

from benchmarks import seating


def test_the_quality_table_reports_each_evening_against_its_bound():
    lines = seating.quality([(9, 3, 4), (12, 4, 3), (13, 4, 2)])
    assert [(line["players"], line["tables"], line["rounds"]) for line in lines] == [
        (9, (3, 3, 3), 4), (12, (4, 4, 4), 3), (13, (5, 4, 4), 2)]
    assert [(line["worst_pair"], line["bound"]) for line in lines[:2]] == [(1, 1), (2, 2)]
    assert all(line["worst_pair"] >= line["bound"] and line["seconds"] >= 0 for line in lines)
    table = seating.markdown(lines).splitlines()
    assert table[0].startswith("| players | tables | rounds | worst pair | bound |")
    assert table[2] == f"| 9 | 3 × 3 | 4 | 1 | 1 | 36 | {lines[0]['seconds']:.2f} | {lines[0]['cpu']:.2f} |"
    assert table[4].startswith("| 13 | 1 × 5 + 2 × 4 | 2 |")


def test_the_workload_times_the_64_player_evenings_and_lists_the_quick_cases():
    rows = seating.workload(quick=True)
    assert rows[0]["name"].startswith("seating: plan 64 players") and rows[0]["unit"] == "ms"
    assert rows[0]["target"] == "≤ 1000 ms" and rows[0]["ours"] > 0
    assert len(rows) == 1 + len(seating.QUICK_CASES)
    assert all(line["met"] in (True, False) and "bound" in line["note"] for line in rows[1:])
