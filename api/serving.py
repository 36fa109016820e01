"""Serving the app: granian's ASGI workers, one process by default, one per core with ``--workers N``.

One worker serves a club's table well; a busy server (a federation, an online
table) gives it one worker per core: the workers share the database, and each
keeps its own caches (a state is always checked against the game's version in
the database before use, so a worker never serves a stale game).

granian reads and writes HTTP in Rust. Each worker runs one asyncio event loop
(the ASGI interface, :mod:`api.asgi`): the streams (:mod:`api.streams`) are
coroutines on it and hold no thread while they wait, and every other request
runs in the Flask app on the worker's ``threads`` threads. Why this
model: docs/STREAMS.md. With several workers each has one thread by default,
so that its requests never wait for one another's turn at the interpreter lock.

Connections. The server keeps answering while a thousand idle or slow
connections are open (``tests/reliability/test_connections.py``); each limit is
set here on purpose rather than left at the server's default:

- Open files: a connection is a file descriptor, and a fresh machine may give a
  process only 1,024. The soft ``RLIMIT_NOFILE`` is raised to the hard limit on
  start (workers inherit it), and the connection limits below never exceed it,
  keeping ``FILES_KEPT_FREE`` for the database, the logs and spooled bodies.
- granian ``backpressure`` (default ``backlog // workers``, 512 with two
  workers): each open connection, a stream's too, holds one of a worker's
  places until it closes, and the kernel may hand most connections to one
  worker, so every worker gets as many places as it may open files (less
  ``FILES_KEPT_FREE``). A connection costs the server little until it has sent
  a request head, so places are not what runs out first: with 4,096 of them,
  4,096 streams of one share link, or 4,150 idle sockets opened again as they
  were closed, left no place for ``/api/v1/health``. What one client may hold
  once its request has arrived is limited per client address
  (:mod:`api.admission`: requests in flight; :mod:`api.streams`: streams); the
  deploy unit raises the open-files limit (``LimitNOFILE``).
- granian ``HTTP1Settings(header_read_timeout=...)``: the whole request head
  must arrive within ``IDLE_TIMEOUT`` (10 s: a phone on a poor network sends
  one in well under a second), counted from the connection's start or
  from the previous answer, so it also closes idle keep-alive connections and
  connections that send nothing (a stream is not idle: it has its answer).
- granian ``HTTP1Settings(max_buffer_size=...)``: what it reads ahead of the
  app on each connection, so that bodies being sent hold little memory
  (:mod:`api.admission`).
- granian ``http=HTTPModes.http1``: in its ``auto`` mode granian first reads the
  opening bytes to tell HTTP/2 from HTTP/1, with no deadline, so a connection
  that sends nothing would hold its place forever. Browsers speak HTTP/2 only
  over TLS, and a proxy in front speaks HTTP/1.1 to the app.
- ``backlog``: connections the kernel completes while the server is busy
  accepting others wait in this queue (the kernel caps it at
  ``net.core.somaxconn``).

Stopping: a worker stops with its server however the server stops (see
``_stop_with_server`` and ``_server_class``).

Watching: each run has a private folder of its own (``PROMETHEUS_MULTIPROC_DIR``,
made before the workers start and removed when the server stops) where every
worker writes its counters, so that ``GET /metrics`` answers for all of them
(:mod:`api.metrics`); and the workers write the access log, a JSON line per
request, to the server's standard error (:mod:`api.accesslog`), unless
``NJ_LEDGER_ACCESS_LOG=off``.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import json
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask

from nj_ledger.store.database import instance_path

from . import create_app
from .admission import IN_MEMORY
from .config import ACCESS_LOG_ENV
from .lan_serving import Tls, plain_http_beside
from .metrics import MULTIPROCESS_ENV
from .orphans import end_with_parent

ONE_PROCESS_THREADS = 8
WORKER_THREADS = 1
STOP_GRACE = 10  # seconds a stopped server gives its workers to finish their requests
MAX_CONNECTIONS = 65536  # open connections a process holds at most (each worker, with several)
FILES_KEPT_FREE = 256  # file descriptors never given to connections: database, logs, bodies being received
IDLE_TIMEOUT = 10  # seconds a connection may take to send a request head
BACKLOG = 2048  # connections the kernel keeps waiting for the server to accept them
READ_BUFFER = 64 * 1024  # bytes granian reads ahead on a connection (its default, 408 KiB, times 1,200 bodies)
_WORKER_CONFIG_ENV = "NJ_LEDGER_WORKER_CONFIG"  # the app's settings, passed to the worker processes
_SERVER_PID_ENV = "NJ_LEDGER_SERVER_PID"  # the process that started the workers
_WORKER_THREADS_ENV = "NJ_LEDGER_WORKER_THREADS"  # threads of each worker for the requests that are not streams
_OPEN_FILES_WANTED = 65536  # the soft limit asked for when the hard limit is unlimited
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
METRICS_FOLDER = "nj-ledger-metrics-"  # then the server's process id: each run's folder of counters (api.metrics)


class PortInUse(OSError):
    """The port asked for is another program's already."""


def check_ports_free(host: str, ports: Iterable[int]) -> None:
    """Raise :class:`PortInUse` if another program listens on one of ``ports`` of ``host`` already.

    granian opens its port so that the workers of one server share it (``SO_REUSEPORT``), which would let a
    second server, or a second copy of this one, share it too: both would serve, each a part of the clients,
    each with caches of its own. A plain socket that cannot take the port says it is taken.
    """
    for port in ports:
        for family, kind, protocol, _, address in socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                                     flags=socket.AI_PASSIVE):
            with socket.socket(family, kind, protocol) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # connections of a server that ended
                try:
                    probe.bind(address)
                except OSError as error:
                    if error.errno != errno.EADDRINUSE:
                        continue  # an address this machine does not have: granian says so
                    raise PortInUse(errno.EADDRINUSE, f"Port {port} of {host} is in use by another program (another "
                                    "nj-ledger serve?): stop it, or serve on another port (--port).") from None


def serve(config: Mapping[str, Any], host: str, port: int, threads: int | None, workers: int,
          tls: Tls | None = None) -> None:
    """Serve ``create_app(config)`` on ``host:port`` until interrupted: granian's ASGI workers (``threads`` in
    each for the requests that are not streams). With ``tls`` (a room's network), HTTPS on its port, and ``port``
    keeps plain HTTP for the installation page of the club's certificate (:mod:`api.lan_serving`)."""
    connections = connection_limit(raise_open_files_limit())
    give_memory_back()  # before the workers are forked: they start with it
    default = ONE_PROCESS_THREADS if workers == 1 else WORKER_THREADS
    config = {"ACCESS_LOG": os.environ.get(ACCESS_LOG_ENV) or "json", **config}  # a server logs its requests
    with metrics_folder():
        if tls is None:
            _run_workers(config, host, port, threads or default, workers, connections)
            return
        with plain_http_beside(_run_workers, config, host, port, threads or default, connections):
            _run_workers(config, host, tls.port, threads or default, workers, connections, tls)


@contextmanager
def metrics_folder() -> Iterator[str]:
    """A fresh private folder for this run's counters, which the workers inherit (``PROMETHEUS_MULTIPROC_DIR``:
    api.metrics), removed when the server stops. Never one named in the environment: files a previous run left
    there would be added to this run's counts, and two servers sharing one would add up each other's.

    In the temporary folder (``TMPDIR``; a systemd service's private ``/tmp``), else in the instance folder, the
    one place a locked-down service surely may write. Its name holds the server's process id: the folders of
    servers that were killed (SIGKILL stops a server before it removes its own) are removed when the next one
    starts (:func:`remove_dead_metrics_folders`)."""
    prefix = f"{METRICS_FOLDER}{os.getpid()}-"
    try:
        remove_dead_metrics_folders(Path(tempfile.gettempdir()))
        folder = tempfile.mkdtemp(prefix=prefix)  # empty, mode 0700
    except OSError:
        remove_dead_metrics_folders(instance_path())
        folder = tempfile.mkdtemp(prefix=prefix, dir=instance_path())
    previous = os.environ.get(MULTIPROCESS_ENV)
    os.environ[MULTIPROCESS_ENV] = folder
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if previous is None:
            os.environ.pop(MULTIPROCESS_ENV, None)
        else:
            os.environ[MULTIPROCESS_ENV] = previous


def remove_dead_metrics_folders(parent: Path) -> None:
    """Remove the metrics folders in ``parent`` of servers that are gone (never one of a server still running,
    nor one this user may not remove)."""
    for folder in parent.glob(f"{METRICS_FOLDER}*-*"):
        owner = folder.name[len(METRICS_FOLDER):].split("-", 1)[0]
        if not owner.isdigit() or not folder.is_dir():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:  # alive (another user's process): not ours to judge
            continue


def raise_open_files_limit() -> int | None:
    """Raise this process's soft limit of open files to its hard limit; the limit now (None: no such limit).

    >>> import resource
    >>> raise_open_files_limit() == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    True
    """
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = _OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):  # refused (a system cap below the hard limit): the old limit stays
            return soft
        return wanted
    return None if soft == resource.RLIM_INFINITY else soft


def connection_limit(open_files: int | None) -> int:
    """How many connections a process may hold with ``open_files`` file descriptors.

    >>> connection_limit(1024), connection_limit(20000), connection_limit(None)
    (768, 19744, 65536)
    """
    if open_files is None:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, open_files - FILES_KEPT_FREE))


def _run_workers(config: Mapping[str, Any], host: str, port: int, threads: int, workers: int,
                 connections: int, tls: Tls | None = None) -> None:
    """granian's ASGI workers, each making its own app (and with it its own database engine): the streams on
    each worker's event loop, every other request on ``threads`` threads of it (:mod:`api.asgi`)."""
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    os.environ[_WORKER_CONFIG_ENV] = json.dumps(dict(config))
    os.environ[_WORKER_THREADS_ENV] = str(threads)
    os.environ[_SERVER_PID_ENV] = str(os.getpid())
    _server_class()(
        f"{__name__}:worker_asgi", factory=True, interface=Interfaces.ASGI, address=host, port=port,
        workers=workers,
        http=HTTPModes.http1,
        http1_settings=HTTP1Settings(header_read_timeout=IDLE_TIMEOUT * 1000, max_buffer_size=READ_BUFFER),
        backlog=BACKLOG, backpressure=connections,
        respawn_failed_workers=True,  # a worker that dies is replaced, as the others keep serving
        workers_kill_timeout=STOP_GRACE,  # a worker still busy (or stuck) that long after a stop is killed
        # granian's own access log stays off: it would write the query string (filters name players) and cannot
        # leave a player's name out of a path; the app writes its own (api.accesslog), with the request's id
        log_level=LogLevels.warning,
        **(tls.granian_settings() if tls else {}),
    ).serve()


def _server_class() -> type:
    """granian's server, whose stop handlers, inherited by a worker until granian sets the worker's own, stop
    that worker at once.

    granian forks a worker from a server that already handles SIGTERM and SIGINT
    (by flagging its main loop, which the worker does not run): a stop arriving
    before the worker's app is made would be lost, and the server would wait
    ``STOP_GRACE`` before killing the worker.
    """
    from granian import Granian

    server = os.getpid()

    class _Server(Granian):  # type: ignore[misc, valid-type]
        def signal_handler_interrupt(self, *args: Any, **kwargs: Any) -> None:
            if os.getpid() != server:  # a worker still starting
                signum = args[0] if args else signal.SIGTERM
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)
                return
            super().signal_handler_interrupt(*args, **kwargs)

    return _Server


def worker_app() -> Flask:
    """The app of one worker process, with the settings ``serve`` was given."""
    for stop in (signal.SIGTERM, signal.SIGINT):  # a stop while the app is being made ends the worker there
        signal.signal(stop, signal.SIG_DFL)
    _stop_with_server()
    give_memory_back()
    app = create_app(json.loads(os.environ.get(_WORKER_CONFIG_ENV) or "{}"))
    # The app's objects, made once and kept for the worker's life (about 115,000: routes, schemas, the
    # engine, the translations), are moved out of the collector's reach: a full collection then walks only
    # what was made since. A full collection of them took 80 ms in a process of its own, and 565 ms in a worker
    # of the followers' bench on a busy machine (set off by a thousand followers connecting), stalling every
    # request of the worker meanwhile.
    gc.freeze()
    return app


def give_memory_back() -> None:
    """Have this process's C allocator (glibc's) give memory back to the system once it is freed.

    The pieces of request bodies (:mod:`api.admission`) are blocks of tens to hundreds of kilobytes. glibc serves
    a block past its ``mmap`` threshold with a mapping of its own, but raises that threshold to the size of each
    such block freed, after which the next ones are carved out of its heap, whose freed middle it never returns:
    400 connections that sent 300 kB of a body each and left kept 50 MB in the worker for good. A fixed threshold
    (the size of a body kept in memory) and a low trimming threshold keep the worker's memory where it was once
    they are gone. Nothing to do with another C library.
    """
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, IN_MEMORY)
    mallopt(_M_TRIM_THRESHOLD, 2 * IN_MEMORY)


def worker_asgi() -> Any:
    """The ASGI app of one worker process: its streams on the event loop, its other requests on threads."""
    from .asgi import asgi_app

    return asgi_app(worker_app(), int(os.environ.get(_WORKER_THREADS_ENV) or WORKER_THREADS))


def _stop_with_server() -> None:
    """Have Linux kill this worker (SIGKILL) when the server process is gone, even killed with SIGKILL: orphaned
    workers would go on serving and hold the port (why SIGKILL: :mod:`api.orphans`). granian forks its workers
    from its main thread, which lives until the server has stopped them."""
    server = os.environ.get(_SERVER_PID_ENV)
    end_with_parent(int(server) if server else os.getppid())
