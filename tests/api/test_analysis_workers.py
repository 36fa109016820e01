"""The analysis processes of a server (api.analysis_workers, nj_ledger.analysis_worker): a fault in the solver is
answered, not fatal; the process runs niced and limited; it ends with the process that started it, even one
killed in the middle of an analysis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from api.analysis_workers import Job, Worker
from nj_ledger import execute, new_game, replay
from nj_ledger.analysis_worker import DONE, FAILED, Limits

ROOT = Path(__file__).resolve().parents[2]


def small_deal() -> tuple[Any, list[tuple[int, Any]]]:
    """A deal of two cards a hand, played out."""
    start = replay([new_game(["Ana", "Ben"], {"profile": "classic", "players": [2], "deal_table": {"2": [2, 48]}},
                             60)])
    _, events = execute(start, [{"type": "deal", "hands": [["5H", "6H"], ["7D", "KS"]]},
                                {"type": "play", "seat": 0, "cards": ["5H", "6H"], "announced": []}])
    return start, list(enumerate(events, start=1))


def job(start: Any, events: list[tuple[int, Any]]) -> Job:
    """The analysis of ``events`` within 20,000 positions (nowhere to keep it: the worker alone is tested)."""
    return Job(("game", 1, len(events), "hash"), "club", None, start, events, 20_000)


def test_a_fault_in_the_solver_is_answered_failed_and_the_process_serves_on_niced_and_limited() -> None:
    worker = Worker(Limits(memory=1024 * 2**20, seconds=30))
    try:
        start, events = small_deal()
        outcome, why = worker.analyse(job(start, [(1, "not an event")]))
        assert outcome == FAILED and "Traceback" in why and "AttributeError" in why
        process = worker.process
        assert process is not None and process.pid is not None
        outcome, analysis = worker.analyse(job(start, events))
        assert outcome == DONE and analysis.status == "done" and worker.process is process  # the same process
        assert json.loads(analysis.text)["status"] == "done"  # written in the analysis's process
        assert os.getpriority(os.PRIO_PROCESS, process.pid) >= 10
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        assert any(line.startswith("Max address space") and str(1024 * 2**20) in line for line in limits.splitlines())
    finally:
        worker.stop()


PARENT = textwrap.dedent("""
    import sys
    from api.analysis_workers import Job, Worker
    from nj_ledger.analysis_worker import Limits
    from nj_ledger.reducer import replay
    from nj_ledger.simulator import simulate

    game = simulate(seed=1, profile="skip", players=8, deals=3)
    first = next(i for i, event in enumerate(game.events) if event.type == "deal")
    events = list(enumerate(game.events[first:], start=first + 1))
    worker = Worker(Limits(memory=2**30, seconds=600))
    worker._start()
    print(worker.process.pid, flush=True)
    # an analysis of minutes (no budget to speak of): the parent is killed in its middle
    worker.analyse(Job(("g", 1, 1, "h"), "c", None, replay(game.events[:first]), events, 10**12))
""")


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_analysis_process_ends_with_the_server_process_killed_in_the_middle_of_an_analysis() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(1.0)  # busy analysing
        assert alive(child)
        parent.kill()
        parent.wait()
        ended = time.monotonic() + 5
        while alive(child) and time.monotonic() < ended:
            time.sleep(0.05)
        assert not alive(child), "the analysis process outlived its server"
    finally:
        parent.kill()
        parent.wait()
