"""Serving HTTPS on a club room's network (``nj-ledger serve --lan --https``): granian serves TLS itself with the
server's certificate (:mod:`cli.lan_tls`), and the plain-HTTP port keeps a server of its own beside it.

Why two ports: a phone meets a warning on every HTTPS page until it trusts the club's authority, so it must get
the authority over plain HTTP first (the installation page, :mod:`api.lan`). That port's server is the same app
with ``LAN_REDIRECT``: the installation page, its assets and the authority's file are served there, every other
page is redirected to HTTPS, and the machine's own loopback (``http://localhost:5000``, a secure page already)
is served whole, for the organiser at the laptop.

It runs in a process of its own (forked before either server starts, with one worker), stopped with SIGTERM when
the HTTPS server stops, and killed by Linux when the serving process is gone, even killed itself
(:mod:`api.orphans`: the same parent-death signal as granian's workers, for the same reasons).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .orphans import end_with_parent

STOP_WITHIN = 15.0  # seconds the plain-HTTP server has to stop, after the HTTPS one did


@dataclass(frozen=True)
class Tls:
    """HTTPS on ``port`` with ``certificate`` and its ``key`` (PEM files)."""

    certificate: Path
    key: Path
    port: int

    def granian_settings(self) -> dict[str, Any]:
        """granian's TLS settings. TLS 1.2 at least (granian's default asks 1.3, which phones older than iOS 12.2
        lack; 1.2 with its modern ciphers is sound)."""
        from granian.constants import SSLProtocols

        return {"ssl_cert": self.certificate, "ssl_key": self.key, "ssl_protocol_min": SSLProtocols.tls12}


Runner = Callable[[Mapping[str, Any], str, int, int, int, int], None]  # api.serving._run_workers, without TLS


@contextmanager
def plain_http_beside(run: Runner, config: Mapping[str, Any], host: str, port: int, threads: int,
                      connections: int) -> Iterator[multiprocessing.process.BaseProcess]:
    """The plain-HTTP port's server, in a process of its own while the block runs."""
    process = multiprocessing.get_context("fork").Process(
        target=_serve_plain, args=(run, {**config, "LAN_REDIRECT": True}, host, port, threads, connections,
                                   os.getpid()), name="nj-ledger-plain-http")
    process.start()
    try:
        yield process
    finally:
        if process.is_alive():
            process.terminate()  # SIGTERM: granian stops its worker, its requests finished
            process.join(STOP_WITHIN)
        if process.is_alive():
            process.kill()
            process.join()


def _serve_plain(run: Runner, config: Mapping[str, Any], host: str, port: int, threads: int,
                 connections: int, parent: int) -> None:
    end_with_parent(parent)  # ended with the serving process, however that one ends
    run(config, host, port, threads, 1, connections)
