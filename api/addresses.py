"""The address a phone opens this server at, for the links the server writes for phones (a table's QR code, the
sign-in code of the home page), and those QR codes.

A link written from the address the request came to is wrong on the organiser's laptop: opened there as
``http://127.0.0.1:5000/``, it would send a phone to itself. So:

- ``PUBLIC_URL`` (``NJ_LEDGER_PUBLIC_URL``; ``nj-ledger serve --lan`` sets it to the machine's address on the
  room's network) is the address, when it is set;
- else the address the request came to, which behind a proxy is the public name the phone used (the proxy is
  believed about the scheme: :mod:`api.proxies`);
- unless that address is this machine's loopback: no phone reaches it, and there is no address to give.
"""

from __future__ import annotations

import base64
import io
import ipaddress

import segno
from flask import current_app, request


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a Host header: a name or an address, with its port or not) names this machine's loopback.

    >>> [is_loopback_host(h) for h in ("localhost:5000", "127.0.0.1", "[::1]:5000", "app.localhost", "192.0.2.2:5000")]
    [True, True, True, True, False]
    """
    name = host.lower()
    if name.startswith("["):
        name = name[1:].split("]", 1)[0]
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def public_base() -> str | None:
    """The address phones open this server at, without its final slash (``https://club.example.org``), or None
    when the request came to this machine's loopback and no ``PUBLIC_URL`` is set."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return str(configured).rstrip("/")
    if is_loopback_host(request.host):
        return None
    return request.host_url.rstrip("/")


def link_base() -> str:
    """The address to write links for phones with: :func:`public_base`, else the request's own (a page opened on
    the server's machine shows a link that works there, at least)."""
    return public_base() or request.host_url.rstrip("/")


def qr_svg(text: str, scale: int = 4) -> str:
    """``text``'s QR code, an SVG document (never a Micro QR code, which phones' cameras do not read)."""
    out = io.BytesIO()
    segno.make_qr(text, error="m").save(out, kind="svg", scale=scale, border=2, xmldecl=False)
    return out.getvalue().decode()


def qr_uri(text: str) -> str:
    """``text``'s QR code as a ``data:`` address for an ``<img>`` (the pages' policy allows ``img-src data:``)."""
    return f"data:image/svg+xml;base64,{base64.b64encode(qr_svg(text, scale=6).encode()).decode()}"
