"""``nj-ledger serve --lan``: the ledger on a club room's network (or a home's), phones joining by a QR code.

    $ nj-ledger serve --lan            # plain HTTP on every address of this machine
    $ nj-ledger serve --lan --https    # HTTPS with the club's own certificate authority (cli/lan_tls.py)

It listens on every address (``::``, IPv4 too, where the system allows; else ``0.0.0.0``), finds the addresses
phones reach (:mod:`cli.lan_addresses`), prints them and the QR code of the one phones should open, and tells
the app that address (``PUBLIC_URL``): the links it writes for phones (a table's QR code, the home page's code
that signs a phone in) use it, never the ``127.0.0.1`` the organiser's laptop may show. ``NJ_LEDGER_PUBLIC_URL``
names another address instead (a name the room's router gives this machine). ``--host`` given keeps to that
address.

With ``--https``, the pages are served over HTTPS on ``--https-port``, and ``--port`` keeps plain HTTP for the
page that installs the club's certificate on a phone (:mod:`api.lan_serving`): the printed QR code opens that
page, which then sends the phone on to HTTPS.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import click

from cli.lan_addresses import Found, host_names, lan_addresses

if TYPE_CHECKING:
    from api.lan_serving import Tls

HTTPS_PORT_ENV = "NJ_LEDGER_HTTPS_PORT"
DEFAULT_HTTPS_PORT = 5443
Command = TypeVar("Command", bound=Callable[..., Any])


def lan_options(command: Command) -> Command:
    """``serve``'s options for a room's network: ``--lan``, ``--https``, ``--https-port``."""
    command = click.option(
        "--https-port", default=DEFAULT_HTTPS_PORT, show_default=True, type=click.IntRange(1, 65535),
        envvar=HTTPS_PORT_ENV, show_envvar=True, help="With --https: the HTTPS port (--port keeps plain HTTP for "
                                                      "the page that installs the club's certificate).")(command)
    command = click.option(
        "--https", "https", is_flag=True, help="With --lan: serve HTTPS with a certificate authority of the club's "
                                               "own, which each phone installs once (docs/DEPLOY.md).")(command)
    return click.option(
        "--lan", is_flag=True, help="Listen on this machine's network addresses, print the address phones open "
                                    "and its QR code (a club room, a home).")(command)


@dataclass
class Room:
    """How ``serve`` runs on a room's network: where it listens, what the app is told, what is printed."""

    host: str
    local: str  # the address on this machine itself (http://localhost:PORT)
    phones: str  # the address phones open ("" without --lan)
    others: list[str]  # the same on the machine's other addresses
    config: dict[str, Any] = field(default_factory=dict)
    tls: Tls | None = None  # with --https
    scan: str = ""  # what the printed QR code opens
    notes: list[str] = field(default_factory=list)

    def announce(self) -> None:
        """Print the address phones open, its QR code, and what to know (nothing without ``--lan``)."""
        if not self.phones:
            return
        secure = ", over HTTPS" if self.tls else ""
        click.echo(f"\nOn this network{secure}, phones open {self.phones}")
        if self.tls:
            click.echo(f"Each phone first installs the club's certificate, once: {self.scan} (this code)")
        import segno

        segno.make_qr(self.scan).terminal(out=sys.stdout, compact=True)
        sys.stdout.flush()
        for line in [f"Also at {', '.join(self.others)}"] * bool(self.others) + self.notes:
            click.echo(f"  {line}")
        click.echo()


def room(lan: bool, https: bool, https_port: int, host: str, port: int) -> Room:
    """How ``serve`` runs: as asked without ``--lan``; with it, on the room's network, and with ``--https`` the
    certificates made here (or made again: a new address)."""
    if https and not lan:
        raise click.UsageError("--https is for a room's network: give --lan too (on the internet, Caddy serves "
                               "HTTPS: docs/DEPLOY.md).")
    if not lan:
        return Room(host, f"http://{host}:{port}", "", [])
    source = click.get_current_context().get_parameter_source("host")
    chosen = source is not None and source.name != "DEFAULT"
    listen = host if chosen else wildcard()
    found = [item for item in lan_addresses() if not chosen or str(item.address) == host or _wildcard(host)]
    if chosen and not found:
        raise click.ClickException(f"--lan serves phones on this network, but --host (or NJ_LEDGER_HOST) names "
                                   f"{host}, which is none of this machine's network addresses.")
    if not found:
        raise click.ClickException("No network address found for phones to reach: is this machine on the room's "
                                   "network (its Wi-Fi, a cable)?")
    _free(listen, port)
    from api.config import PUBLIC_URL_ENV

    public = os.environ.get(PUBLIC_URL_ENV, "").rstrip("/")
    served_port = https_port if https else port
    scheme = "https" if https else "http"
    phones = f"{public or url(scheme, found[0].address, served_port)}/"
    others = [f"{url(scheme, item.address, served_port)}/" for item in found[1:]]
    setup = Room(listen, f"http://localhost:{port}", phones, others,
                 config={"PUBLIC_URL": phones, "HSTS": False}, scan=phones)
    if not https:
        setup.notes = ["Plain HTTP: a phone's pages do not reload without the network (keep them open). "
                       "For HTTPS: nj-ledger serve --lan --https (docs/DEPLOY.md)."]
    else:
        _free(listen, https_port)
        _https(setup, found, https_port, port)
    setup.notes.append(f"On this machine: {setup.local}/ ; the home page shows the code that signs a phone in.")
    return setup


def _https(setup: Room, found: list[Found], https_port: int, port: int) -> None:
    """HTTPS: the certificates (made, or made again), granian's TLS, the installation page's address."""
    from api.lan_serving import Tls
    from cli.lan_tls import LAN_FOLDER, prepare
    from nj_ledger.store.database import instance_path

    names = host_names()
    named = urlsplit(setup.phones).hostname  # NJ_LEDGER_PUBLIC_URL's name, if it gives one: named too
    if named and not _is_address(named) and named not in names:
        names.append(named)
    made = prepare(instance_path() / LAN_FOLDER, found, names)
    install = f"{url('http', found[0].address, port)}/certificate"
    setup.tls = Tls(made.certificate, made.key, https_port)
    setup.scan = install
    setup.config.update({"LAN_AUTHORITY": str(made.authority), "LAN_INSTALL_URL": install})
    if made.new_authority:
        setup.notes.append(f"A new certificate authority for the club: {made.authority}. Each phone installs it, "
                           "once (its key stays in that folder).")
    if made.new_certificate:
        setup.notes.append("The server's certificate is made for " + ", ".join(
            [*(str(item.address) for item in found), *names]) + ".")
    setup.notes.append(f"The certificate's fingerprint (SHA-256), as the installation page shows it: "
                       f"{made.fingerprint}")


def url(scheme: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> str:
    """``http://192.168.1.20:5000``, ``http://[fd00::2]:5000``."""
    host = f"[{address}]" if address.version == 6 else str(address)
    return f"{scheme}://{host}:{port}"


def wildcard() -> str:
    """``::`` (every address, IPv4 too) where the system has IPv6 with both families on one socket, else
    ``0.0.0.0``."""
    if not socket.has_ipv6:
        return "0.0.0.0"
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            probe.bind(("::", 0))
    except OSError:
        return "0.0.0.0"
    return "::"


def _wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::", "")


def _free(host: str, port: int) -> None:
    """Refuse at once, in words, a port another program holds (the plain-HTTP port's server would fail alone)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as refused:
            raise click.ClickException(f"Port {port} is taken on this machine ({refused.strerror}): choose "
                                       "another with --port (or --https-port).") from None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
