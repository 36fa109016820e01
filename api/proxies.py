"""Which reverse proxies are believed about the client: ``NJ_LEDGER_PROXIES``.

Behind a proxy (Caddy, docs/DEPLOY.md) every connection comes from the proxy;
the client's address and the scheme it used arrive in ``X-Forwarded-For`` and
``X-Forwarded-Proto``. Anyone can send those headers, so they are believed only
from the proxies the setting names, and nothing else may set them:

- a list of addresses or networks (``127.0.0.1,::1``, ``10.0.0.0/8``): the
  headers are read only when the connection comes from one of them; the client
  is the right-most address of ``X-Forwarded-For`` that is not itself a trusted
  proxy (each proxy appends the address it saw), so an address a client wrote
  at the left of the header is never taken. This is what the deploy files use.
- a number of hops (``1``): the last that many proxies, whoever connects
  (werkzeug's ``ProxyFix``). Right only when nothing can reach the server but
  through them.
- ``0`` or nothing: no proxy; the connection's address is the client's.

What follows depends on it: the count of wrong tokens per address
(:mod:`api.auth`), the access log, the links the server writes (an evening's
table links) and ``Strict-Transport-Security``, sent on answers to requests
that arrived over HTTPS.

    >>> trusted_proxies("127.0.0.1, ::1, 10.0.0.0/8")
    (IPv4Network('127.0.0.1/32'), IPv6Network('::1/128'), IPv4Network('10.0.0.0/8'))
    >>> trusted_proxies("2")
    2
    >>> trusted_proxies("") == trusted_proxies("0") == 0
    True
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Proxies = int | tuple[Network, ...]
SCHEMES = frozenset({"http", "https"})
PROXIED = "nj_ledger.proxied"  # in the environ when a trusted proxy passed the request on (its headers believed)


class AddressSettingError(ValueError):
    """A setting that names addresses (``NJ_LEDGER_PROXIES``, ``NJ_LEDGER_METRICS_FROM``) names something else."""


def networks(setting: object, name: str) -> tuple[Network, ...]:
    """The addresses and networks a setting names, separated by commas (none for an empty one).

    >>> networks("127.0.0.1, example.org", "NJ_LEDGER_PROXIES")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    api.proxies.AddressSettingError: NJ_LEDGER_PROXIES ...: 'example.org' is not an address or a network ...
    """
    if isinstance(setting, (list, tuple)):
        setting = ",".join(str(part) for part in setting)
    found: list[Network] = []
    for part in (piece.strip() for piece in str(setting or "").split(",")):
        if not part:
            continue
        try:
            found.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise AddressSettingError(
                f"{name} names addresses: {part!r} is not an address or a network (write them separated by "
                "commas, e.g. 127.0.0.1,::1 or 10.0.0.0/8).") from None
    return tuple(found)


def trusted_proxies(setting: object) -> Proxies:
    """The proxies a setting names: a number of hops, or the addresses and networks to believe."""
    if isinstance(setting, int) and not isinstance(setting, bool) and setting >= 0:
        return setting
    text = str(setting or "").strip()
    if not text or text.isdigit():
        return int(text or 0)
    return networks(setting, "NJ_LEDGER_PROXIES (the proxies believed about the client's address, or a number of "
                             "hops)")


def within(address: str | None, allowed: tuple[Network, ...]) -> bool:
    """Whether ``address`` (a client's, as the trusted proxies told it) is in one of the networks ``allowed``;
    an IPv4 client of a server listening on both families counts as itself."""
    known = hop_address(address or "")
    if known is None:
        return False
    parsed = ipaddress.ip_address(known)
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return any(parsed in network for network in allowed)


def behind_proxies(wsgi_app: Callable[..., Any], proxies: Proxies) -> Callable[..., Any]:
    """``wsgi_app`` reading the client's address and scheme from the proxies named (itself when none)."""
    if isinstance(proxies, int):
        return _Counted(ProxyFix(wsgi_app, x_for=proxies, x_proto=proxies)) if proxies else wsgi_app
    return TrustedProxies(wsgi_app, proxies)


class _Counted:
    """A number of hops: every request came through the proxies, by the setting's own word."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        environ[PROXIED] = True
        return self.app(environ, start_response)


def counted_as(address: str) -> str:
    """Who a client address counts as, for limits: an IPv6 address by its /64 (a host can take any address of its
    network), an IPv4 one written as IPv6 as itself, anything else as it is.

    >>> counted_as("2001:db8::7"), counted_as("::ffff:192.0.2.7"), counted_as("192.0.2.7")
    ('2001:db8::/64', '192.0.2.7', '192.0.2.7')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 4:
        return address
    if parsed.ipv4_mapped is not None:  # an IPv4 client of a server listening on both (::ffff:a.b.c.d)
        return str(parsed.ipv4_mapped)
    return str(ipaddress.ip_network(f"{parsed}/64", strict=False))


def hop_address(hop: str) -> str | None:
    """The address of one ``X-Forwarded-For`` entry, which some proxies write with a port (``192.0.2.7:4711``,
    ``[2001:db8::7]:4711``); None for anything that is not an address.

    >>> hop_address("192.0.2.7:4711"), hop_address("[2001:db8::7]:4711"), hop_address("2001:db8::7")
    ('192.0.2.7', '2001:db8::7', '2001:db8::7')
    >>> hop_address("unknown") is None
    True
    """
    text = hop.strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # an IPv4 address and its port (an IPv6 address has two colons or more)
        text = text.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


class TrustedProxies:
    """WSGI middleware: the client's address and scheme as the trusted proxies tell them, and only they."""

    def __init__(self, app: Callable[..., Any], networks: Iterable[Network]) -> None:
        self.app = app
        self.networks = tuple(networks)

    def trusted(self, address: str) -> bool:
        return within(address, self.networks)

    def client(self, peer: str, forwarded: str) -> str:
        """The right-most address of ``forwarded`` that is not a trusted proxy (the peer when none is readable).

        >>> proxies = TrustedProxies(None, [ipaddress.ip_network("127.0.0.1")])  # type: ignore[arg-type]
        >>> proxies.client("127.0.0.1", "203.0.113.9, 198.51.100.7")  # the client wrote the first one
        '198.51.100.7'
        >>> proxies.client("127.0.0.1", "198.51.100.7, 127.0.0.1, not-an-address")
        '127.0.0.1'
        """
        client = peer
        for hop in reversed([piece for piece in forwarded.split(",") if piece.strip()]):
            address = hop_address(hop)
            if address is None:
                break  # a hop that is no address: nothing to its left can be believed either
            client = address
            if not self.trusted(address):
                break
        return client

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        peer = environ.get("REMOTE_ADDR") or ""
        if peer and self.trusted(peer):
            environ[PROXIED] = True
            forwarded = environ.get("HTTP_X_FORWARDED_FOR")
            if forwarded:
                environ["REMOTE_ADDR"] = self.client(peer, forwarded)
            scheme = (environ.get("HTTP_X_FORWARDED_PROTO") or "").rsplit(",", 1)[-1].strip().lower()
            if scheme in SCHEMES:
                environ["wsgi.url_scheme"] = scheme
        return self.app(environ, start_response)
