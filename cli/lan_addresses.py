"""The addresses at which the phones of a club room reach this machine (``nj-ledger serve --lan``).

Two sources, together:

- the address the machine would use to reach the network: a UDP socket "connected" to an address beyond it (a
  connect of UDP sends nothing; the kernel only chooses the route, and with it this end's address). Tried
  towards the internet first, then towards each private network, so that a club room's Wi-Fi with no way out
  still gives its address;
- every address of every interface that is up (``getifaddrs``), for a machine on two networks (a laptop on the
  room's Wi-Fi and a cable), each with its network (the certificate authority names them: :mod:`cli.lan_tls`).

Only private addresses are kept (:func:`private`: RFC 1918's, the shared 100.64.0.0/10, IPv6's unique-local
fc00::/7): an address the internet routes to (a laptop's global IPv6 address, behind a router that lets inbound
IPv6 in) would put the ledger on the internet, with no proxy, no HTTPS certificate of a public authority and a page
that gives away a sign-in code. The ranges set aside for documentation and benchmarks count as private too: the
internet never routes them either, and a test machine's network may be one. Loopback and link-local addresses are
left out: no phone reaches them (a link-local address needs its interface named in the address, which no phone's
camera would type). IPv4 comes first: a phone on a Wi-Fi always has it, and an address a person can read aloud is
a shorter QR code.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import ipaddress
import socket
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Where a connected UDP socket looks for a route (nothing is ever sent there): the internet (a root name server's
# address, IPv4 and IPv6), then each private network, for a room whose router has no way out.
ROUTE_PROBES: tuple[tuple[socket.AddressFamily, str], ...] = (
    (socket.AF_INET, "198.41.0.4"), (socket.AF_INET, "10.255.255.254"), (socket.AF_INET, "172.31.255.254"),
    (socket.AF_INET, "192.168.255.254"), (socket.AF_INET6, "2001:503:ba3e::2:30"), (socket.AF_INET6, "fdff::1"),
)


# The networks of a room (or a home): no router of the internet carries their addresses.
PRIVATE_NETWORKS: tuple[Network, ...] = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"))
# Set aside for documentation and benchmarks (RFC 5737, RFC 2544, RFC 3849): never routed either.
SET_ASIDE_NETWORKS: tuple[Network, ...] = tuple(ipaddress.ip_network(n) for n in (
    "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15", "2001:db8::/32"))


@dataclass(frozen=True)
class Found:
    """An address of this machine that phones may reach, and the network it is on (its prefix)."""

    address: Address
    network: Network


def reachable(address: Address) -> bool:
    """Whether a phone on a network of this machine could reach ``address``.

    >>> [reachable(ipaddress.ip_address(a)) for a in ("192.168.1.20", "127.0.0.1", "169.254.3.4", "fe80::1", "::")]
    [True, False, False, False, False]
    """
    return not (address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast)


def private(address: Address) -> bool:
    """Whether ``address`` belongs to a network the internet does not route to (:data:`PRIVATE_NETWORKS`, and the
    ranges :data:`SET_ASIDE_NETWORKS`).

    >>> [private(ipaddress.ip_address(a)) for a in ("192.168.1.20", "100.64.0.7", "fd00::2", "192.0.2.2")]
    [True, True, True, True]
    >>> [private(ipaddress.ip_address(a)) for a in ("8.8.8.8", "172.32.0.1", "2a01:e0a::5", "127.0.0.1")]
    [False, False, False, False]
    """
    return any(address in network for network in (*PRIVATE_NETWORKS, *SET_ASIDE_NETWORKS)
               if network.version == address.version)


def private_network(network: Network) -> bool:
    """Whether every address of ``network`` is :func:`private` (a prefix a router hands out, never wider).

    >>> [private_network(ipaddress.ip_network(n)) for n in ("192.168.1.0/24", "192.0.2.0/24", "0.0.0.0/0")]
    [True, True, False]
    """
    return any(network.subnet_of(wide) for wide in (*PRIVATE_NETWORKS, *SET_ASIDE_NETWORKS)  # type: ignore[arg-type]
               if wide.version == network.version)


def routed_address(family: socket.AddressFamily, target: str) -> Address | None:
    """This machine's end of a route to ``target`` (None: no route). Nothing is sent."""
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((target, 9))  # the discard port; a UDP connect only picks the route
            host = probe.getsockname()[0]
        except OSError:
            return None
    return ipaddress.ip_address(str(host).split("%", 1)[0])


def lan_addresses() -> list[Found]:
    """This machine's private addresses that phones may reach: the routed ones first (IPv4 before IPv6), then
    those of the other interfaces; each once."""
    interfaces = {found.address: found for found in interface_addresses() if private(found.address)}
    routed = [address for family, target in ROUTE_PROBES
              if (address := routed_address(family, target)) is not None and reachable(address) and private(address)]
    ordered: dict[Address, Found] = {}
    for address in [*routed, *interfaces]:
        if address not in ordered:
            ordered[address] = interfaces.get(address) or Found(address, ipaddress.ip_network(address))
    return sorted(ordered.values(), key=lambda found: (found.address.version,
                                                       found.address not in routed))


# --- getifaddrs, through ctypes (the standard library lists interfaces' names, not their addresses) -------------
class _SockAddr(ctypes.Structure):
    _fields_ = [("family", ctypes.c_ushort), ("data", ctypes.c_ubyte * 26)]


class _SockAddrBSD(ctypes.Structure):  # macOS and the BSDs: a length byte before a one-byte family
    _fields_ = [("length", ctypes.c_ubyte), ("family", ctypes.c_ubyte), ("data", ctypes.c_ubyte * 26)]


class _IfAddrs(ctypes.Structure):
    pass


_IfAddrs._fields_ = [("next", ctypes.POINTER(_IfAddrs)), ("name", ctypes.c_char_p), ("flags", ctypes.c_uint),
                     ("addr", ctypes.c_void_p), ("netmask", ctypes.c_void_p), ("broadcast", ctypes.c_void_p),
                     ("data", ctypes.c_void_p)]

_IFF_UP = 0x1
_BSD = sys.platform == "darwin" or "bsd" in sys.platform


def _ip_of(pointer: int | None) -> Address | None:
    """The address a ``struct sockaddr *`` holds (IPv4 or IPv6), else None."""
    if not pointer:
        return None
    family = (_SockAddrBSD if _BSD else _SockAddr).from_address(pointer).family
    raw = bytes((ctypes.c_ubyte * 28).from_address(pointer))
    if family == socket.AF_INET:
        return ipaddress.IPv4Address(raw[4:8])
    if family == socket.AF_INET6:
        return ipaddress.IPv6Address(raw[8:24])
    return None


def _prefix(mask: Address | None, address: Address) -> Network:
    if mask is None or mask.version != address.version:
        return ipaddress.ip_network(address)
    return ipaddress.ip_network(f"{address}/{bin(int(mask)).count('1')}", strict=False)


def interface_addresses() -> Iterator[Found]:
    """The addresses of the interfaces that are up, with their networks, loopback and link-local left out (none
    where ``getifaddrs`` is missing: the routed address is then the only one)."""
    library = ctypes.util.find_library("c")
    if library is None:
        return
    libc = ctypes.CDLL(library, use_errno=True)
    head = ctypes.POINTER(_IfAddrs)()
    if not hasattr(libc, "getifaddrs") or libc.getifaddrs(ctypes.byref(head)) != 0:
        return
    try:
        found = list(_walk(head))
    finally:
        libc.freeifaddrs(head)
    yield from found


def _walk(head: ctypes._Pointer[_IfAddrs]) -> Iterable[Found]:
    node = head
    while node:
        entry = node.contents
        address = _ip_of(entry.addr)
        if address is not None and entry.flags & _IFF_UP and reachable(address):
            yield Found(address, _prefix(_ip_of(entry.netmask), address))
        node = entry.next


def host_names() -> list[str]:
    """The names this machine may answer to on a room's network: its host name, and that name under ``.local``
    (multicast DNS: a Mac, a Linux laptop with Avahi, many phones resolve it).

    >>> all(name and "." not in name.removesuffix(".local") for name in host_names())
    True
    """
    name = socket.gethostname().split(".", 1)[0].lower()
    return [name, f"{name}.local"] if name and name != "localhost" else []
