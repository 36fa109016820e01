"""The club's certificate authority as this server serves it (``nj-ledger serve --lan --https``): its file, and
its fingerprint, which only a screen the organiser trusts shows.

The installation page reaches a phone over plain HTTP, so anyone on the room's Wi-Fi may answer in its place, with
an authority of their own and a page that shows that authority's fingerprint: a fingerprint on that page proves
nothing. What proves the authority is the fingerprint the phone itself shows while installing the file, compared
with the one the organiser's own screen shows: the terminal where ``serve`` started, and the home page opened on
the laptop itself (``http://localhost``, which no one on the network can answer for).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from flask import current_app, request

from .addresses import is_loopback_host


def authority() -> bytes | None:
    """The club's certificate authority (PEM), when this server serves HTTPS on a room's network."""
    path = current_app.config.get("LAN_AUTHORITY")
    try:
        return Path(path).read_bytes() if path else None
    except OSError:
        return None


def fingerprint(pem: bytes) -> str:
    """A certificate's SHA-256 fingerprint as Android writes it, pairs of hexadecimal digits between colons (an
    iPhone writes the same pairs with spaces between them)."""
    digest = hashlib.sha256(x509.load_pem_x509_certificate(pem).public_bytes(Encoding.DER)).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def organiser_fingerprint() -> str:
    """The authority's fingerprint for a page opened on the server's machine itself (its loopback), the screen
    the organiser trusts; "" for a page any other machine asked for, or without HTTPS."""
    pem = authority()
    return fingerprint(pem) if pem and is_loopback_host(request.host) else ""
