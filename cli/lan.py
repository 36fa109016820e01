"""``nj-ledger serve --lan``: the ledger on a club room's network (or a home's), phones joining by a QR code.

    $ nj-ledger serve --lan            # plain HTTP on this machine's IPv4 addresses
    $ nj-ledger serve --lan --https    # HTTPS with the club's own certificate authority (cli/lan_tls.py)

It listens on IPv4 only (``0.0.0.0``), finds the private addresses phones reach (:mod:`cli.lan_addresses`),
prints them and the QR code of the one phones should open, and tells the app that address (``PUBLIC_URL``): the
links it writes for phones (a table's QR code, the home page's code that signs a phone in) use it, never the
``127.0.0.1`` the organiser's laptop may show. Not IPv6: a laptop's IPv6 addresses are mostly global ones, and
behind a router that lets inbound IPv6 in, a server listening there is on the internet; a phone on a Wi-Fi always
has IPv4. ``--host`` given keeps to that address (one of the machine's private ones, an IPv6 unique-local one
too).

``NJ_LEDGER_PUBLIC_URL`` names the machine otherwise (a name the room's router gives it): only its host name is
taken, with the scheme and port this server serves, so that the setting of a plain ``serve --lan`` does not send
``--https``'s phones to a port with nothing behind it, or its plain port's redirect back to itself.

With ``--https``, the pages are served over HTTPS on ``--https-port``, and ``--port`` keeps plain HTTP for the
page that installs the club's certificate on a phone (:mod:`api.lan_serving`): the printed QR code opens that
page, which then sends the phone on to HTTPS. The authority's fingerprint is printed here, where the organiser
trusts what they read, for each phone's owner to check on their phone (:mod:`api.authority`).
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

from .language import _, say

if TYPE_CHECKING:
    from api.lan_serving import Tls

HTTPS_PORT_ENV = "NJ_LEDGER_HTTPS_PORT"
DEFAULT_HTTPS_PORT = 5443
ANY_IPV4 = "0.0.0.0"
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
        "--lan", is_flag=True, help="Listen on this machine's private IPv4 addresses, print the address phones "
                                    "open and its QR code (a club room, a home).")(command)


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
        click.echo("\n" + (say("On this network, over HTTPS, phones open {address}", address=self.phones) if self.tls
                           else say("On this network, phones open {address}", address=self.phones)))
        if self.tls:
            click.echo(say("Each phone first installs the club's certificate, once: {address} (this code)",
                           address=self.scan))
        import segno

        segno.make_qr(self.scan).terminal(out=sys.stdout, compact=True)
        sys.stdout.flush()
        for line in [say("Also at {addresses}", addresses=", ".join(self.others))] * bool(self.others) + self.notes:
            click.echo(f"  {line}")
        click.echo()


def room(lan: bool, https: bool, https_port: int, host: str, port: int) -> Room:
    """How ``serve`` runs: as asked without ``--lan``; with it, on the room's network, and with ``--https`` the
    certificates made here (or made again: a new address)."""
    if https and not lan:
        raise click.UsageError(_("--https is for a room's network: give --lan too (on the internet, Caddy serves "
                                 "HTTPS: docs/DEPLOY.md)."))
    if not lan:
        return Room(host, f"http://{host}:{port}", "", [])
    source = click.get_current_context().get_parameter_source("host")
    chosen = source is not None and source.name != "DEFAULT" and host not in ("", ANY_IPV4)
    if chosen and _is_address(host) and ipaddress.ip_address(host).is_unspecified:
        raise click.ClickException(say("--lan listens on IPv4 only, on this machine's private addresses: --host (or "
                                       "NJ_LEDGER_HOST) {host} would listen on its IPv6 addresses too, which the "
                                       "internet may reach. Give one of its private addresses, or no --host.",
                                       host=host))
    listen = host if chosen else ANY_IPV4
    found = [item for item in lan_addresses() if (str(item.address) == host if chosen else item.address.version == 4)]
    if chosen and not found:
        raise click.ClickException(say("--lan serves phones on this network, but --host (or NJ_LEDGER_HOST) names "
                                       "{host}, which is none of this machine's private network addresses (those a "
                                       "room's phones reach, and the internet does not).", host=host))
    if not found:
        raise click.ClickException(_("No private network address found for phones to reach: is this machine on the "
                                     "room's network (its Wi-Fi, a cable)?"))
    _free(listen, port)
    from api.config import PUBLIC_URL_ENV

    served_port = https_port if https else port
    scheme = "https" if https else "http"
    named, said = public_name(os.environ.get(PUBLIC_URL_ENV, ""), scheme, served_port, found)
    phones = f"{url(scheme, named or found[0].address, served_port)}/"
    others = [f"{url(scheme, item.address, served_port)}/" for item in found[1:]]
    setup = Room(listen, f"http://localhost:{port}", phones, others,
                 config={"PUBLIC_URL": phones, "HSTS": False}, scan=phones, notes=said)
    if not https:
        setup.notes.append(_("Plain HTTP: a phone's pages do not reload without the network (keep them open). "
                             "For HTTPS: nj-ledger serve --lan --https (docs/DEPLOY.md)."))
    else:
        _free(listen, https_port)
        _https(setup, found, named, https_port, port)
    setup.notes.append(say("On this machine: {address} ; the home page shows the code that signs a phone in.",
                           address=setup.local + "/"))
    return setup


def public_name(setting: str, scheme: str, port: int, found: list[Found]) -> tuple[str, list[str]]:
    """The host name ``NJ_LEDGER_PUBLIC_URL`` gives ("" when unset), and what to say of it: only the name is taken,
    the scheme and port being those this server serves. An address there must be one of ``found``."""
    from api.config import PUBLIC_URL_ENV

    setting = setting.strip()
    if not setting:
        return "", []
    parts = urlsplit(setting if "//" in setting else f"//{setting}")
    try:
        given_port = parts.port
    except ValueError:
        given_port = -1
    name = (parts.hostname or "").lower()
    if not name or given_port == -1:
        raise click.ClickException(say("{variable} ({setting}) names no host: give the name phones open this "
                                       "machine at, as laptop.lan or http://laptop.lan.", variable=PUBLIC_URL_ENV,
                                       setting=setting))
    if _is_address(name) and name not in {str(item.address) for item in found}:
        raise click.ClickException(say("{variable} names {name}, which is none of this machine's private network "
                                       "addresses: phones could not reach the ledger there.", variable=PUBLIC_URL_ENV,
                                       name=name))
    served = url(scheme, name, port)
    implied = given_port if given_port is not None else {"http": 80, "https": 443}.get(parts.scheme)
    if (parts.scheme and parts.scheme != scheme) or (implied is not None and implied != port) or parts.path.strip("/"):
        return name, [f"{PUBLIC_URL_ENV} gives {setting}: phones open {served}/ (its name, with the scheme and "
                      "port this server serves)."]
    return name, []


def _https(setup: Room, found: list[Found], named: str, https_port: int, port: int) -> None:
    """HTTPS: the certificates (made, or made again), granian's TLS, the installation page's address."""
    from api.config import PUBLIC_URL_ENV
    from api.lan_serving import Tls
    from cli.lan_tls import LAN_FOLDER, PRIVATE_NAMES, prepare
    from nj_ledger.store.database import instance_path

    names = host_names()
    if named and not _is_address(named) and named not in names:  # NJ_LEDGER_PUBLIC_URL's name: certified too
        names.append(named)
    made = prepare(instance_path() / LAN_FOLDER, found, names)
    if named and not _is_address(named) and named not in made.names:
        own = say(", or this machine's own name ({name})", name=names[0]) if names and names[0] != named else ""
        raise click.ClickException(say(
            "{setting} names {named}, which the club's certificate authority may not name: it names only names "
            "under {suffixes}{own}, so that a phone that trusts it trusts no site of the internet by it.",
            setting=PUBLIC_URL_ENV, named=named, suffixes=", ".join("." + suffix for suffix in PRIVATE_NAMES),
            own=own))
    install = f"{url('http', found[0].address, port)}/certificate"
    setup.tls = Tls(made.certificate, made.key, https_port)
    setup.scan = install
    setup.config.update({"LAN_AUTHORITY": str(made.authority), "LAN_INSTALL_URL": install})
    if made.new_authority:
        setup.notes.append(say("A new certificate authority for the club: {authority}. Each phone installs it, once "
                               "(its key stays in that folder).", authority=made.authority))
    if made.new_certificate:
        setup.notes.append(say("The server's certificate is made for {names}.", names=", ".join(
            [*(str(item.address) for item in found), *made.names])))
    setup.notes.append(say("The club's certificate, SHA-256 fingerprint: {fingerprint}", fingerprint=made.fingerprint))
    setup.notes.append(say("Each phone's owner checks that the phone shows this fingerprint while installing the "
                           "certificate (an iPhone in the profile's details, Android in its trusted credentials): the "
                           "installation page comes over plain HTTP, which anyone on the Wi-Fi could answer in its "
                           "place. The home page at {local}/ shows it too.", local=setup.local))


def url(scheme: str, host: ipaddress.IPv4Address | ipaddress.IPv6Address | str, port: int) -> str:
    """``http://192.168.1.20:5000``, ``http://[fd00::2]:5000``, ``https://laptop.lan:5443``."""
    shown = f"[{host}]" if ":" in str(host) else str(host)
    return f"{scheme}://{shown}:{port}"


def _free(host: str, port: int) -> None:
    """Refuse at once, in words, a port another program holds (the plain-HTTP port's server would fail alone)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as refused:
            raise click.ClickException(say("Port {port} is taken on this machine ({reason}): choose another with "
                                           "--port (or --https-port).", port=port, reason=refused.strerror)) from None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
