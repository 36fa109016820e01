"""The real server for the HTTP workloads: ``nj-ledger serve`` in a subprocess, on loopback.

A small keep-alive JSON client goes with it; each client thread owns one.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

HOST = "127.0.0.1"
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Server:
    port: int
    admin_token: str
    pid: int  # the server's process (its memory is read from /proc)


PER_ADDRESS_UNLIMITED = {"NJ_LEDGER_CLIENT_REQUESTS": "1000000", "NJ_LEDGER_STREAMS_PER_ADDRESS": "1000000",
                         "NJ_LEDGER_STREAMS_PER_CREDENTIAL": "1000000"}


@contextmanager
def serving(database_url: str, threads: int | None = None, workers: int = 1) -> Iterator[Server]:
    """``nj-ledger serve`` on a free loopback port with the database at ``database_url``, stopped on exit."""
    port = free_port()
    admin = secrets.token_urlsafe(32)
    env = {**os.environ, "NJ_LEDGER_DATABASE_URL": database_url, "NJ_LEDGER_ADMIN_TOKEN": admin,
           # every client of a workload is this machine: the limits per client address (api.admission, streams)
           # are for the clients of the internet, and would refuse a thousand followers from one address
           **PER_ADDRESS_UNLIMITED}
    # Its standard error, the access log's line per request among it, goes to a file: a pipe nobody reads while
    # the workload runs would fill up and stop the server. The log is written as a served server writes it.
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--host", HOST, "--port", str(port),
             "--workers", str(workers), *(["--threads", str(threads)] if threads else [])],
            env=env, stdout=subprocess.DEVNULL, stderr=errors,
        )
        try:
            _wait_until_up(process, port, errors)
            yield Server(port, admin, process.pid)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_up(process: subprocess.Popen[bytes], port: int, errors: IO[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            errors.seek(0)
            error = errors.read().decode(errors="replace")
            raise RuntimeError(f"the server stopped on start: {error.strip()[-2000:]}")
        try:
            client = Client(port, "")
            status, _ = client.get("/api/v1/health")
            client.close()
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer on port {port} within {START_TIMEOUT:.0f} s")


class Client:
    """One keep-alive connection speaking JSON with a bearer token."""

    def __init__(self, port: int, token: str, timeout: float = 60.0) -> None:
        self.connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                        "Accept": "application/json"}

    def fetch(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """The status and the raw body: what a latency is measured to (the client's own JSON parsing is not)."""
        payload = None if body is None else json.dumps(body).encode()
        self.connection.request(method, path, body=payload, headers=self.headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, data = self.fetch(method, path, body)
        return status, (json.loads(data) if data else None)

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        return self.request("POST", path, body)

    def close(self) -> None:
        self.connection.close()


def new_club(server: Server, name: str = "Bench") -> tuple[str, str]:
    """A club made through the API: its id and scorer token."""
    admin = Client(server.port, server.admin_token)
    try:
        status, body = admin.post("/api/v1/clubs", {"name": name})
        if status != 201:
            raise RuntimeError(f"creating a club answered {status}: {body}")
        return body["id"], body["token"]
    finally:
        admin.close()
