"""SQLite's writers queue in the store (a lock per process, a file lock across processes), not in SQLite's
busy handler: one writer at a time, waiters let in as soon as the turn is free, a killed holder frees it."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from nj_ledger.store.database import WriterQueue, fcntl

pytestmark = pytest.mark.skipif(fcntl is None, reason="file locks are POSIX only")


def take_turns(url: str, journal: str, turns: int) -> None:
    """Two threads of one process taking ``turns`` turns each, writing in and out marks to ``journal``."""
    queue = WriterQueue(url)

    def work() -> None:
        for _ in range(turns):
            with queue.turn(), open(journal, "a") as out:
                out.write(f"in {os.getpid()}\n")
                out.flush()
                time.sleep(0.001)
                out.write(f"out {os.getpid()}\n")

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def hold_forever(url: str, ready: multiprocessing.synchronize.Event) -> None:
    with WriterQueue(url).turn():
        ready.set()
        time.sleep(600)


def test_one_writer_at_a_time_across_threads_and_processes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    journal = str(tmp_path / "journal")
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=take_turns, args=(url, journal, 25)) for _ in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    marks = Path(journal).read_text().splitlines()
    assert len(marks) == 3 * 2 * 25 * 2
    for opened, closed in zip(marks[::2], marks[1::2], strict=True):  # every "in" is followed by its own "out"
        assert opened.startswith("in ") and closed == "out " + opened[3:]


def test_a_killed_holder_frees_the_turn_at_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    holder = context.Process(target=hold_forever, args=(url, ready))
    holder.start()
    assert ready.wait(60)
    queue = WriterQueue(url)
    waited: list[float] = []

    def wait_for_turn() -> None:
        started = time.monotonic()
        with queue.turn():
            waited.append(time.monotonic() - started)

    waiter = threading.Thread(target=wait_for_turn)
    waiter.start()
    time.sleep(0.2)
    assert waited == []  # the holder still has the turn
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    waiter.join(timeout=10)
    assert len(waited) == 1 and waited[0] < 5


def test_postgresql_and_memory_databases_need_no_lock_file() -> None:
    assert WriterQueue("postgresql+psycopg://postgres@127.0.0.1/test").path is None
    assert not WriterQueue("postgresql+psycopg://postgres@127.0.0.1/test").active
    assert WriterQueue("sqlite://").path is None and WriterQueue("sqlite://").active
