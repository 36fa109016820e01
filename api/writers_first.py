"""Writers first: the requests other than streams that this process is serving, counted on the event loop
(:mod:`api.asgi`), so that the streams' work (:mod:`api.channels`) waits until a scorer's append is answered
before it spends the process's turn writing that append to its followers."""

from __future__ import annotations

import asyncio
import contextlib

# Seconds the streams' work waits for the requests in flight in the process to be answered, at most
WRITERS_FIRST = 0.025


class WritersInFlight:
    """The requests other than streams that this process is serving: the streams' work waits until they are
    answered (at most ``WRITERS_FIRST`` seconds), so that a scorer's append is answered before the
    process spends its turn at the interpreter lock and its event loop writing the append to its followers.
    Counted on the event loop (:mod:`api.asgi`)."""

    def __init__(self) -> None:
        self.busy = 0
        self._waiting: list[asyncio.Future[None]] = []

    def enter(self) -> None:
        self.busy += 1

    def leave(self) -> None:
        self.busy -= 1
        if not self.busy:
            for waiting in self._waiting:
                if not waiting.done():
                    waiting.set_result(None)
            self._waiting.clear()

    async def answered(self, longest: float) -> None:
        """Return once no request is in flight, or after ``longest`` seconds."""
        if not self.busy:
            return
        waiting = asyncio.get_running_loop().create_future()
        self._waiting.append(waiting)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiting, longest)
        finally:
            if waiting in self._waiting:  # timed out: busy all along
                self._waiting.remove(waiting)


writers = WritersInFlight()
