"""The process a server analyses deals in (:mod:`api.analysis_workers` starts it): one deal at a time, each
received whole over a pipe and answered with its analysis (:func:`nj_ledger.deal_analysis.analyse_deal`).

Why a process. An analysis is seconds of CPU that holds the interpreter lock between its searches: in a
thread of the server it delayed every request beside it (sixteen queued through one share link took the
scorers' appends' p99 from 38 to 135 ms). In a process of its own, it takes a core the scorers' requests do
not wait for, and the system is asked to keep it in its place:

- ``nice``: the server's own processes come first on a busy machine;
- on Linux, one core it keeps to (chosen by its process id, so that several spread): wandering from core to
  core, it left the server's threads on a core whose caches an analysis had just filled (appends' p99 2.2 times
  their idle p99 on a machine of 2 cores, 1.3 to 1.7 times once it keeps to one);
- an address space of ``memory`` bytes (``RLIMIT_AS``): a search past it meets MemoryError, the analysis is
  answered as failed and the process ends, giving its memory back (the next analysis starts a fresh one);
- ``seconds`` of CPU an analysis (``RLIMIT_CPU``, raised by that much before each): the analysis's own budget
  (positions and steps, :mod:`nj_ledger.analysis.budget`) ends it well before; past it, the system ends the
  process;
- it ends when the process that started it is gone, even killed with SIGKILL (the pipe that
  ``multiprocessing`` keeps to it closes), not only when it is asked to stop.

It sits beside the analysis, not in the web app, so that it starts with the core alone: 0.07 s of CPU and
15 MB, where the web app's modules take 1.1 s and 92 MB. It imports no framework (``tests/test_purity.py``);
the pipe is its only I/O.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from .chain import canonical_json
from .deal_analysis import analyse_deal

DONE, FAILED, MEMORY = "done", "failed", "memory"  # the first item of every answer


@dataclass(frozen=True)
class Analysed:
    """An analysis as the process answers it: its status and its JSON text (:func:`~nj_ledger.chain.canonical_json`),
    written here so that the server keeps it without reading or writing it again (a 250 KB analysis took the
    server's interpreter 11 ms to unpickle and write again, a pause its scorers' appends waited out)."""

    status: str
    text: str


@dataclass(frozen=True)
class Limits:
    """What the process may use: ``memory`` bytes of address space, ``seconds`` of CPU an analysis, and how much
    lower its priority is than the server's (``nice``)."""

    memory: int
    seconds: float
    nice: int = 19


def serve(connection: Connection, limits: Limits) -> None:
    """Answer each job received on ``connection`` (``analyse_deal``'s arguments) with ``(DONE, Analysed)``,
    ``(FAILED, why)``, or ``(MEMORY, why)`` and then end; end when the pipe or the parent closes."""
    _keep_in_place(limits)
    threading.Thread(target=_end_with_parent, name="parent-watch", daemon=True).start()
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        _cpu_for_one_more(limits.seconds)
        try:
            analysis = analyse_deal(*job)
            answer: tuple[str, Any] = (DONE, Analysed(analysis["status"], canonical_json(analysis)))
        except MemoryError:
            connection.send((MEMORY, f"past its memory ({limits.memory // 2**20} MB of address space)"))
            return
        except Exception:  # noqa: BLE001 - the server logs it and answers "failed"
            answer = (FAILED, traceback.format_exc())
        connection.send(answer)


def _keep_in_place(limits: Limits) -> None:
    os.nice(limits.nice)
    if hasattr(os, "sched_getaffinity"):  # Linux: one core it keeps to (several processes spread by their ids)
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 1:
            try:
                os.sched_setaffinity(0, {cores[os.getpid() % len(cores)]})
            except OSError:  # a system that refuses it: the process wanders, as it did
                pass
    try:
        import resource
    except ImportError:  # not a POSIX system: no limits but the analysis's own budget
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # ended past its CPU time: no core file left behind
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = limits.memory if hard == resource.RLIM_INFINITY else min(limits.memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def _cpu_for_one_more(seconds: float) -> None:
    """Have the system end this process once it has used ``seconds`` of CPU more than now."""
    try:
        import resource
    except ImportError:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    wanted = math.ceil(time.process_time() + seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard),
                                             hard))


def _end_with_parent() -> None:
    """End this process once its parent is gone. Not Linux's parent-death signal (``api.orphans``): that signal
    follows the thread that started the process, here one of the server's threads, not the server itself."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    wait([parent.sentinel])
    os._exit(1)


__all__ = ["DONE", "FAILED", "MEMORY", "Analysed", "Limits", "serve"]
