"""A process holding many connections open to a server: half idle, half slow (a request head, byte by byte).

Run by ``test_connections.py`` as ``python -m reliability.holders PORT COUNT LIFETIME``:
it prints ``held N`` once its connections are made (N of COUNT), then keeps
trickling bytes until its standard input closes or LIFETIME seconds have passed,
so it never outlives its test for long.

    $ python -m reliability.holders 5000 1000 40
    held 1000
"""

from __future__ import annotations

import resource
import select
import socket
import sys
import time

CONNECT_WITHIN = 15.0  # seconds to make them all (a server's full queue leaves a connection hanging)
SLOW_PASS = 1.0  # seconds between two bytes on one slow connection
SLOW_HEAD = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "  # then "a"s, never a blank line


def open_connections(port: int, count: int) -> list[socket.socket]:
    """Up to ``count`` connections to ``127.0.0.1:port`` (fewer if some cannot be made in time)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held = []
    deadline = time.monotonic() + CONNECT_WITHIN
    for _ in range(count):
        if time.monotonic() >= deadline:
            break
        connection = socket.socket()
        connection.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            connection.connect(("127.0.0.1", port))
        except OSError:
            connection.close()
            continue
        connection.setblocking(False)
        held.append(connection)
    return held


def trickle(slow: list[socket.socket], step: int) -> None:
    """One byte more of a request head on each slow connection, spread over ``SLOW_PASS`` (as from clients
    of their own); a closed connection is left alone."""
    byte = SLOW_HEAD[step:step + 1] or b"a"
    pause = SLOW_PASS / max(1, len(slow))
    for connection in slow:
        try:
            connection.send(byte)
        except OSError:
            pass
        time.sleep(pause)
    if not slow:
        time.sleep(SLOW_PASS)


def told_to_stop() -> bool:
    """Whether the test closed our standard input."""
    return bool(select.select([sys.stdin], [], [], 0)[0]) and not sys.stdin.buffer.read1(1)


def main(port: int, count: int, lifetime: float) -> None:
    deadline = time.monotonic() + lifetime
    held = open_connections(port, count)
    slow = held[::2]  # every other one: slow and idle connections reach the server mixed
    print(f"held {len(held)}", flush=True)
    step = 0
    while time.monotonic() < deadline and not told_to_stop():
        trickle(slow, step)
        step += 1
    for connection in held:
        connection.close()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
