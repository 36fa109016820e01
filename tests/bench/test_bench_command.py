"""``nj-ledger bench`` runs every workload end to end and writes the report as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.commands import main

pytest.importorskip("eventsourcing", reason="the benchmark's peer: pip install 'nj-ledger[bench]'")

WORKLOADS = ("bulk import, SQLite", "bulk import, PostgreSQL", "live appends, HTTP", "live appends, latency p50",
             "live appends, latency p99", "replay: load a game's state", "replay endpoint p50",
             "replay endpoint p99", "peak RSS, import", "streaming import speed", "audit: hash chain",
             "scoreboard", "stream delivery", "appends p99 beside", "server memory per follower", "seating: plan 64",
             "seating: 20 players",
             "analysis: 3-player deal (15 cards), p99", "analysis: 8-player deal (6 cards), p99",
             "analysis: one decision point, p99", "analysis: one decision point, positions")
KEYS = {"name", "unit", "ours", "peer", "raw", "ratio_peer", "ratio_raw", "target", "met"}
TINY = ("bulk_deals=6", "live_games=4", "live_deals=1", "replay_events=400", "store_events=1500",
        "replay_requests=5", "scoreboard=0", "followers=20", "follower_appends=3", "analysis_deals=1",
        "analysis_budget=2000")


def check_report(path: Path, with_scoreboard: bool) -> None:
    report = json.loads(path.read_text(encoding="utf-8"))
    assert {"cpu", "cores", "memory_gib", "python", "sqlite", "postgresql"} <= set(report["machine"])
    lines = report["workloads"]
    for line in lines:
        assert set(line) >= KEYS, line
    names = [line["name"] for line in lines]
    for workload in WORKLOADS:
        assert any(name.startswith(workload) for name in names), workload
    measured = [line for line in lines if line["ours"] is not None]
    for line in measured:
        assert line["ours"] > 0, line
        if line["peer"]:
            assert line["ratio_peer"] == pytest.approx(line["ours"] / line["peer"], rel=1e-2)
        if line["target"]:
            assert isinstance(line["met"], bool), line
    by_name = {line["name"].split(" (")[0]: line for line in lines}
    assert by_name["bulk import, SQLite"]["peer"] and by_name["bulk import, SQLite"]["raw"]
    audit = next(line for line in lines if line["name"].startswith("audit: hash chain"))
    assert audit["raw"] and audit["ratio_raw"] is not None
    scoreboard = [line for line in lines if line["name"].startswith("scoreboard")]
    assert all(line["ours"] is not None for line in scoreboard) == with_scoreboard


def test_a_tiny_bench_runs_every_workload_and_writes_json(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    arguments = ["bench", "--quick", "--json", str(path)]
    for size in TINY:
        arguments += ["--size", size]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    assert "bulk import, SQLite" in result.output and "×peer" in result.output
    check_report(path, with_scoreboard=False)


@pytest.mark.slow
def test_the_quick_bench_runs_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "quick.json"
    result = CliRunner().invoke(main, ["bench", "--quick", "--json", str(path)])
    assert result.exit_code == 0, result.output
    check_report(path, with_scoreboard=True)


def test_a_size_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", "--quick", "--size", "deals=3"])
    assert result.exit_code == 2 and "--size" in result.output


def test_a_fast_solves_seconds_keep_their_figures() -> None:
    """A decision point solved in 40 µs is reported as such, in the JSON and on the screen, not as 0."""
    from benchmarks.results import row
    from benchmarks.runner import _figure

    line = row("analysis: one decision point, p50", "s", 0.0000412, at_most=1)
    assert line["ours"] == 0.0000412 and line["met"] is True
    assert row("x", "s", 0.01137)["ours"] == 0.0114 and row("x", "s", 2.34567)["ours"] == 2.346
    assert row("x", "events/s", 42_245.37)["ours"] == 42_245.4
    assert [_figure(v) for v in (0.0000412, 0.011, 0.53, 2.34, 42_245.4, None)] == \
        ["4.1e-05", "0.011", "0.53", "2.3", "42,245", "-"]
