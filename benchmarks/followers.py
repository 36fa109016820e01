"""(g) Followers: a thousand streams of one game across two server processes while a scorer appends.

Two ``nj-ledger serve`` processes on one PostgreSQL database; half the
followers open ``GET /games/{game}/stream`` on each (one asyncio loop in a
process of its own holds every connection); a scorer appends one adjustment at a time
through the first server. The figures:

- delivery latency: from the moment the scorer has read the append's answer
  (acknowledged) to the moment each follower has read the event, p50 and p99
  over every (append, follower) pair (an event read before the answer counts
  as 0); goal p99 ≤ 100 ms;
- the appends' own p99 with the followers connected, against the p99 of the
  appends to a second game of the same club that nobody follows, appended in
  blocks of :data:`BLOCK` in turn with the followed one's (each append
  :data:`PACE` seconds after the previous, as a quick scorer taps), so that
  both see the same load of a machine shared with other work, and the
  followers' work for one block is over before the other starts; goal: no
  worse by more than 2 ms. The p99 of the same appends before any follower
  connected is told too;
- the servers' memory per follower: the growth of the resident memory of both
  servers and their workers once every follower is connected, divided by the
  followers.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import re
import threading
import time
from collections import defaultdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from nj_ledger.store.migrate import upgrade

from .results import percentile, row
from .scratch import scratch_postgres
from .server import HOST, Client, Server, new_club, serving

FOLLOWERS = 1000
APPENDS = 50
PACE = 0.1  # seconds between the end of an append and the next (a quick scorer taps no faster), with followers or not
BLOCK = 10  # appends to the followed game, then as many to the game nobody follows, and again
SWITCH = 0.5  # seconds of pause between two blocks: the followers' work for the block before is over
CONNECT_TIMEOUT = 120.0  # seconds for every follower to be connected and caught up
_EVENT_ID = re.compile(rb"\nid: ([0-9]+)\n")  # an SSE event's id line


def followers_workload(followers: int = FOLLOWERS, appends: int = APPENDS,
                       server: str | None = None) -> list[dict[str, Any]]:
    """Rows of the followers workload on a scratch database of the PostgreSQL server at ``server``."""
    with scratch_postgres(server) as url:
        upgrade(url)
        with serving(url) as first, serving(url) as second:
            return _measure([first, second], followers, appends)


def _measure(servers: list[Server], followers: int, appends: int) -> list[dict[str, Any]]:
    club, token = new_club(servers[0])
    scorer = Client(servers[0].port, token)
    try:
        followed, control = _Game.new(scorer, club), _Game.new(scorer, club)
        alone = [followed.append(scorer, step) for step in range(appends)]
        before = sum(_resident(server.pid) for server in servers)
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        crowd = context.Process(target=_crowd, args=([server.port for server in servers], token, followed.id,
                                                      followed.version, followers, theirs), daemon=True)
        crowd.start()
        try:
            if not ours.poll(CONNECT_TIMEOUT + 30):
                raise RuntimeError("the followers never connected")
            failed = ours.recv()
            if failed:
                raise RuntimeError(f"followers failed: {failed[:3]}")
            time.sleep(1.0)  # the servers settle (their first reads done) before memory is read
            after = sum(_resident(server.pid) for server in servers)
            acked: dict[int, float] = {}
            timed, unfollowed = [], []
            for step in range(appends):  # in blocks, in turn: both see the same load of a shared machine
                if step % BLOCK == 0:
                    time.sleep(SWITCH)
                timed.append(followed.append(scorer, step, acked))
                if step % BLOCK == BLOCK - 1 or step == appends - 1:
                    time.sleep(SWITCH)  # the followers' work for the last append is over
                    unfollowed += [control.append(scorer, s) for s in range(step - step % BLOCK, step + 1)]
            ours.send(sorted(acked))
            arrivals: dict[int, list[float]] = ours.recv()
        finally:
            crowd.kill()
            crowd.join(10)
        missing = sum(followers - len(arrivals.get(seq, [])) for seq in acked)
        if missing:
            raise RuntimeError(f"{missing} events never reached their followers")
        latencies = [max(0.0, arrival - acked[seq]) for seq in acked for arrival in arrivals[seq]]
    finally:
        scorer.close()
    p99_alone, p99_followed = percentile(alone, 99) * 1000, percentile(timed, 99) * 1000
    p99_unfollowed = percentile(unfollowed, 99) * 1000
    growth = after - before
    label = f"{followers:,} followers of one game on {len(servers)} servers"
    return [
        row(f"stream delivery, {label}, p50", "ms", percentile(latencies, 50) * 1000),
        row(f"stream delivery, {label}, p99", "ms", percentile(latencies, 99) * 1000, at_most=100),
        row(f"appends p99 beside {label}", "ms", p99_followed, at_most=round(p99_unfollowed + 2, 3),
            note=(f"{p99_unfollowed:.2f} ms for a game nobody follows, appended in blocks in turn with it; "
                  f"{p99_alone:.2f} ms before the followers connected; p50 {percentile(timed, 50) * 1000:.2f} ms, "
                  f"{percentile(unfollowed, 50) * 1000:.2f} ms and {percentile(alone, 50) * 1000:.2f} ms")),
        row(f"server memory per follower ({label})", "KiB", growth / followers / 1024 if growth > 0 else None,
            note=None if growth > 0 else "the servers' memory did not grow: too few followers to tell"),
    ]


class _Game:
    """A game the scorer appends to, and its version."""

    def __init__(self, game_id: str, version: int) -> None:
        self.id, self.version = game_id, version

    @classmethod
    def new(cls, scorer: Client, club: str) -> _Game:
        status, game = scorer.post(f"/api/v1/clubs/{club}/games",
                                   {"players": ["Ana", "Ben", "Chloé"], "rules": "classic", "starting_chips": 60})
        if status != 201:
            raise RuntimeError(f"creating the game answered {status}: {game}")
        return cls(game["id"], game["version"])

    def append(self, scorer: Client, step: int, acked: dict[int, float] | None = None) -> float:
        """One adjustment, :data:`PACE` after the previous append; its latency. ``acked`` gets the moment each
        new seq was acknowledged."""
        time.sleep(PACE)
        source, target = ("seat:0", "seat:1") if step % 2 == 0 else ("seat:1", "seat:0")
        action = {"type": "adjust", "from": source, "to": target, "amount": 1, "reason": f"bench {step}"}
        started = time.perf_counter()
        status, body = scorer.fetch("POST", f"/api/v1/games/{self.id}/actions", {"actions": [action]})
        done = time.perf_counter()
        if status != 201:
            raise RuntimeError(f"an append answered {status}: {body.decode(errors='replace')}")
        new_version = self.version + 2  # an adjustment and its transfer
        if acked is not None:
            for seq in range(self.version + 1, new_version + 1):
                acked[seq] = done
        self.version = new_version
        return done - started


class Crowd:
    """The followers: connections to the servers in turn, read on one event loop in a thread of its own."""

    def __init__(self, ports: list[int], token: str, game_id: str, after: int, count: int) -> None:
        self.ports, self.token, self.game_id, self.after, self.count = ports, token, game_id, after, count
        self.arrivals: dict[int, list[float]] = defaultdict(list)
        self.connected = threading.Event()
        self.failed: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bench-followers", daemon=True)
        self.tasks: list[asyncio.Future[None]] = []

    def start(self) -> None:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._open(), self.loop).result(CONNECT_TIMEOUT)

    async def _open(self) -> None:
        opened = 0
        ready = asyncio.Event()

        def one_more() -> None:
            nonlocal opened
            opened += 1
            if opened == self.count:
                ready.set()

        for number in range(self.count):
            port = self.ports[number % len(self.ports)]
            self.tasks.append(asyncio.ensure_future(self._follow(port, one_more)))
        try:
            await asyncio.wait_for(ready.wait(), CONNECT_TIMEOUT)
        except TimeoutError:
            self.failed.append(f"only {opened} of {self.count} followers connected")
        self.connected.set()

    async def _follow(self, port: int, opened: Any) -> None:
        writer: asyncio.StreamWriter | None = None
        try:
            reader, writer = await asyncio.open_connection(HOST, port, limit=2**20)
            writer.write((f"GET /api/v1/games/{self.game_id}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
                          f"Authorization: Bearer {self.token}\r\nLast-Event-ID: {self.after}\r\n"
                          "Accept: text/event-stream\r\n\r\n").encode())
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                self.failed.append(status.decode(errors="replace"))
                return
            while (await reader.readline()) not in (b"\r\n", b""):  # the head
                pass
            opened()
            # Chunked: a size line, then the chunk's bytes, SSE lines inside. Read as it comes, every event's
            # "id:" line found in what arrived (a line cut between two reads waits for its end): this process
            # stands for a thousand devices on the same two cores as the servers, so it spends as little of
            # them as it can.
            pending = b"\n"
            while True:
                data = await reader.read(2**16)
                if not data:
                    return
                now = time.perf_counter()
                pending += data
                end = pending.rfind(b"\n")
                for found in _EVENT_ID.finditer(pending, 0, end + 1):
                    self.arrivals[int(found[1])].append(now)
                pending = pending[end:]
        except (OSError, asyncio.IncompleteReadError) as error:
            self.failed.append(repr(error))
        except asyncio.CancelledError:
            if writer is not None:
                with contextlib.suppress(Exception):
                    writer.close()
            raise

    def collect(self, seqs: list[int], wait: float = 30.0) -> dict[int, list[float]]:
        """When each follower read each of ``seqs``, once all have (or ``wait`` passed)."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(len(self.arrivals[seq]) < self.count for seq in seqs):
            time.sleep(0.05)
        return {seq: list(self.arrivals[seq]) for seq in seqs}


def _crowd(ports: list[int], token: str, game_id: str, after: int, count: int, pipe: Connection) -> None:
    """The followers, in a process of their own (reading a thousand streams would take the scorer's turns at
    the interpreter lock in the same process): tells when all are connected, then when each read each seq
    asked for. Killed when done."""
    crowd = Crowd(ports, token, game_id, after, count)
    crowd.start()
    crowd.connected.wait(CONNECT_TIMEOUT)
    pipe.send(crowd.failed)
    pipe.send(crowd.collect(pipe.recv()))
    time.sleep(3600)  # until killed


def _resident(pid: int) -> int:
    """Resident bytes of a process and its children (granian's workers)."""
    total = 0
    for process in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{process}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return found + [grandchild for child in found for grandchild in _children(child)]
