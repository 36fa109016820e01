"""Reaching a server at an HTTPS name that no DNS knows (``club.test``), trusting an authority made for the test.

- :func:`https` asks over a real TLS connection to a loopback port, the name sent as the server name (SNI) and
  checked against the certificate, as a phone would; from a chosen loopback source address when asked, so that
  a test can play several clients.
- :func:`browser_home` makes a home folder whose NSS database (``~/.pki/nssdb``, where Chromium on Linux looks)
  trusts the authority, and :func:`resolving` the Chromium switch that sends the name to the loopback port: the
  page's address is ``https://club.test/`` itself, a secure origin, so its service worker runs.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class _Connection(http.client.HTTPSConnection):
    def __init__(self, name: str, port: int, context: ssl.SSLContext, source: str | None, timeout: float) -> None:
        super().__init__(name, port, context=context, timeout=timeout)
        self.name, self.source = name, source

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout,
                                       (self.source, 0) if self.source else None)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.name)  # type: ignore[attr-defined]


def connection(name: str, port: int, authority: Path, source: str | None = None,
               timeout: float = 10) -> http.client.HTTPSConnection:
    """An HTTPS connection to ``name`` served on loopback ``port``, trusting ``authority`` (a PEM file) only."""
    context = ssl.create_default_context(cafile=str(authority))
    return _Connection(name, port, context, source, timeout)


def https(name: str, port: int, authority: Path, method: str, path: str, body: Any = None,
          headers: dict[str, str] | None = None, source: str | None = None) -> Answer:
    """One request to ``https://name{path}`` (JSON ``body``), answered whole."""
    link = connection(name, port, authority, source)
    sent = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    try:
        link.request(method, path, body=data, headers=sent)
        answer = link.getresponse()
        return Answer(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        link.close()


def browser_home(folder: Path, authority: Path, nickname: str = "nj-ledger test authority") -> Path:
    """A home folder for Chromium whose NSS database trusts ``authority`` to name servers (certutil, of NSS)."""
    database = folder / ".pki" / "nssdb"
    database.mkdir(parents=True)
    subprocess.run(["certutil", "-N", "-d", f"sql:{database}", "--empty-password"], check=True, capture_output=True)
    subprocess.run(["certutil", "-A", "-d", f"sql:{database}", "-t", "C,,", "-n", nickname, "-i", str(authority)],
                   check=True, capture_output=True)
    return folder


def resolving(name: str, port: int) -> str:
    """The Chromium switch that sends ``name``'s HTTPS (port 443) to loopback ``port``."""
    return f"--host-resolver-rules=MAP {name}:443 127.0.0.1:{port}"
