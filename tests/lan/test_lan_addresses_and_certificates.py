"""What ``serve --lan`` finds and makes before it serves: this machine's private addresses that phones reach, the
club's certificate authority and the server's certificate (cli/lan_addresses.py, cli/lan_tls.py), and what it
makes of ``--host`` and ``NJ_LEDGER_PUBLIC_URL`` (cli/lan.py)."""

from __future__ import annotations

import ipaddress
import os
import socket
import ssl
import stat
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner, Result
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from api.lan_serving import Tls
from cli import lan_addresses as lan_addresses_module
from cli import lan_tls
from cli.commands import main
from cli.lan_addresses import (
    Found,
    host_names,
    interface_addresses,
    lan_addresses,
    private,
    private_network,
    reachable,
)
from cli.lan_tls import (
    Certificates,
    load_pair,
    make_authority,
    make_server_certificate,
    permits,
    permitted_networks,
    prepare,
)
from reliability.helpers import free_port
from support.apps import new_app

from .guide import machine_addresses


def test_the_addresses_found_are_the_machines_own_private_network_addresses_ipv4_first() -> None:
    found = lan_addresses()
    listed = {a for a in machine_addresses() if private(ipaddress.ip_address(a))}
    assert found, "this machine has a private network address (the tests need one)"
    assert {str(item.address) for item in found} == listed
    assert found[0].address.version == 4 and all(reachable(item.address) for item in found)
    assert {str(item.address) for item in interface_addresses()} == set(machine_addresses())  # no loopback, no link
    assert all(item.address in item.network for item in found)


def test_what_no_phone_reaches_is_left_out() -> None:
    for address in ("127.0.0.1", "::1", "169.254.10.1", "fe80::1", "0.0.0.0", "224.0.0.251"):
        assert not reachable(ipaddress.ip_address(address)), address
    for address in ("192.168.1.20", "10.0.0.2", "fd00::2", "203.0.113.9"):
        assert reachable(ipaddress.ip_address(address)), address
    names = host_names()
    assert names == [names[0], f"{names[0]}.local"]


def test_only_private_addresses_are_advertised(monkeypatch: pytest.MonkeyPatch) -> None:
    private_ones = {"192.168.1.20": "192.168.1.0/24", "100.64.7.9": "100.64.0.0/10", "fd12::20": "fd12::/64",
                    "192.0.2.2": "192.0.2.0/24"}  # the last one a range set aside for documentation: a test machine's
    global_ones = {"2a01:e0a:1f2::20": "2a01:e0a:1f2::/64", "203.0.112.9": "203.0.112.0/24", "8.8.8.8": "8.8.8.0/24"}
    interfaces = [Found(ipaddress.ip_address(a), ipaddress.ip_network(n)) for a, n in {**global_ones,
                                                                                       **private_ones}.items()]
    monkeypatch.setattr(lan_addresses_module, "interface_addresses", lambda: iter(interfaces))
    routed = {socket.AF_INET: ipaddress.ip_address("8.8.8.8"),
              socket.AF_INET6: ipaddress.ip_address("2a01:e0a:1f2::20")}  # the routes out: global addresses
    monkeypatch.setattr(lan_addresses_module, "routed_address", lambda family, target: routed[family])
    found = lan_addresses()
    assert [str(item.address) for item in found] == ["192.168.1.20", "100.64.7.9", "192.0.2.2", "fd12::20"]
    for address in global_ones:
        assert not private(ipaddress.ip_address(address)), address
    assert not private_network(ipaddress.ip_network("0.0.0.0/0")) and not private_network(
        ipaddress.ip_network("2a01:e0a:1f2::/64"))


def here() -> list[Found]:
    return lan_addresses()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_authority_and_the_certificate_are_made_once_the_keys_readable_by_their_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "lan"
    made = prepare(folder, here(), host_names())
    assert made.new_authority and made.new_certificate
    assert mode(folder) == 0o700
    assert mode(folder / "authority.key") == 0o600 and mode(made.key) == 0o600
    assert mode(made.authority) == 0o644 and mode(made.certificate) == 0o644
    assert sorted(path.name for path in folder.iterdir()) == ["authority.crt", "authority.key", "server.crt",
                                                              "server.key"]  # nothing half-written left
    again = prepare(folder, here(), host_names())
    assert not again.new_authority and not again.new_certificate
    assert again.authority.read_bytes() == made.authority.read_bytes()


def verify(made_certificate: Path, authority: Path, name: x509.GeneralName, when: datetime | None = None) -> None:
    """Path validation as RFC 5280 says, name constraints included (cryptography's verifier)."""
    store = Store(x509.load_pem_x509_certificates(authority.read_bytes()))
    verifier = PolicyBuilder().store(store).time(when or datetime.now(UTC)).build_server_verifier(
        name)  # type: ignore[arg-type]
    verifier.verify(x509.load_pem_x509_certificate(made_certificate.read_bytes()), [])


def test_the_servers_certificate_verifies_for_each_address_and_name(tmp_path: Path) -> None:
    made = prepare(tmp_path / "lan", here(), host_names())
    for item in here():
        verify(made.certificate, made.authority, x509.IPAddress(item.address))
    for name in host_names():
        verify(made.certificate, made.authority, x509.DNSName(name))
    with pytest.raises(VerificationError):
        verify(made.certificate, made.authority, x509.IPAddress(ipaddress.ip_address("198.51.100.7")))


def test_a_real_tls_handshake_at_the_machines_address_trusting_the_authority_only(tmp_path: Path) -> None:
    made = prepare(tmp_path / "lan", here(), host_names())
    address = str(here()[0].address)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(made.certificate, made.key)
    listener = socket.create_server((address, 0))
    port = listener.getsockname()[1]

    def accept() -> None:
        connection, _ = listener.accept()
        try:
            with server.wrap_socket(connection, server_side=True) as tls:
                tls.sendall(b"ok")
        except (ssl.SSLError, OSError):
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    client = ssl.create_default_context(cafile=str(made.authority))
    with socket.create_connection((address, port), timeout=10) as raw, \
            client.wrap_socket(raw, server_hostname=address) as tls:
        assert tls.recv(2) == b"ok"
    thread.join(10)
    listener.close()


def test_the_authority_may_name_private_networks_and_local_names_only(tmp_path: Path) -> None:
    made = prepare(tmp_path / "lan", here(), host_names())
    authority = x509.load_pem_x509_certificate(made.authority.read_bytes())
    constraints = authority.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraints.critical
    now = datetime.now(UTC)
    assert permits(authority, [ipaddress.ip_address(a) for a in ("192.168.4.7", "10.1.2.3", "fd12::9")],
                   ["laptop.local", "ledger.lan"], now)
    assert not permits(authority, [ipaddress.ip_address("8.8.8.8")], [], now)
    assert not permits(authority, [], ["bank.example.com"], now)
    # were its key stolen, a certificate it signs for a site on the internet is refused by a verifier
    key = serialization.load_pem_private_key((tmp_path / "lan" / "authority.key").read_bytes(), password=None)
    _, rogue = make_server_certificate(authority, key, [], ["bank.example.com"], now)  # type: ignore[arg-type]
    forged = tmp_path / "rogue.crt"
    forged.write_bytes(rogue.public_bytes(serialization.Encoding.PEM))
    with pytest.raises(VerificationError):
        verify(forged, made.authority, x509.DNSName("bank.example.com"))


def test_a_new_address_makes_a_new_certificate_and_an_address_outside_the_authority_a_new_authority(
        tmp_path: Path) -> None:
    folder = tmp_path / "lan"
    first = prepare(folder, here(), host_names())
    old_certificate = first.certificate.read_bytes()
    moved = [Found(ipaddress.ip_address("192.168.7.9"), ipaddress.ip_network("192.168.7.0/24")), *here()]
    second = prepare(folder, moved, host_names())  # another Wi-Fi: a private network
    assert not second.new_authority and second.new_certificate
    assert second.certificate.read_bytes() != old_certificate
    verify(second.certificate, second.authority, x509.IPAddress(ipaddress.ip_address("192.168.7.9")))
    old_authority = second.authority.read_bytes()
    public = [Found(ipaddress.ip_address("198.51.100.7"), ipaddress.ip_network("198.51.100.0/24"))]
    third = prepare(folder, public, host_names())  # a network neither private nor known when it was made
    assert third.new_authority and third.new_certificate and third.authority.read_bytes() != old_authority
    verify(third.certificate, third.authority, x509.IPAddress(ipaddress.ip_address("198.51.100.7")))


def network(address: str, prefix: str) -> Found:
    return Found(ipaddress.ip_address(address), ipaddress.ip_network(prefix))


HOME = [network("192.168.1.20", "192.168.1.0/24"), network("2a01:cb00:1f2::20", "2a01:cb00:1f2::/64"),
        network("fd12:3456::20", "fd12:3456::/64")]  # a home: a private IPv4 network, the ISP's global IPv6 too
CLUB = [network("10.20.0.7", "10.20.0.0/16"), network("2001:4860:1:2::7", "2001:4860:1:2::/64")]


def test_moving_between_home_and_the_club_keeps_one_authority_that_never_names_the_internet(tmp_path: Path) -> None:
    folder = tmp_path / "lan"
    at_home = prepare(folder, HOME, host_names())
    authority = at_home.authority.read_bytes()
    at_the_club = prepare(folder, CLUB, host_names())
    home_again = prepare(folder, HOME, host_names())
    assert at_home.new_authority and not at_the_club.new_authority and not home_again.new_authority
    assert home_again.authority.read_bytes() == authority  # each phone installed it once, and keeps it
    assert at_the_club.new_certificate and home_again.new_certificate  # the server's certificate follows
    made = x509.load_pem_x509_certificate(authority)
    assert all(private_network(n) for n in permitted_networks(made))
    certified = x509.load_pem_x509_certificate(home_again.certificate.read_bytes()).extensions \
        .get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.IPAddress)
    assert {str(a) for a in certified} == {"192.168.1.20", "fd12:3456::20"}  # the global address is left out
    for leaf in ("192.168.1.20", "fd12:3456::20"):
        verify(home_again.certificate, home_again.authority, x509.IPAddress(ipaddress.ip_address(leaf)))


def test_an_authority_never_names_a_network_of_the_internet_and_one_that_did_is_made_again(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    _, made = make_authority([*HOME, network("8.8.8.8", "8.8.8.0/24")], host_names(), now,
                             kept=[ipaddress.ip_network("203.0.112.0/24"), ipaddress.ip_network("192.0.2.0/24")])
    named = permitted_networks(made)
    assert ipaddress.ip_network("192.0.2.0/24") in named  # private (set aside), kept from the one it replaces
    assert all(private_network(n) for n in named) and not permits(made, [ipaddress.ip_address("8.8.8.8")], [], now)
    # an authority an earlier version made for a global network is replaced, whatever the addresses asked
    key, older = make_authority([], host_names(), now)
    wide = (x509.CertificateBuilder().subject_name(older.subject).issuer_name(older.subject)
            .public_key(key.public_key()).serial_number(1).not_valid_before(now).not_valid_after(now + timedelta(3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.NameConstraints(permitted_subtrees=[
                x509.IPAddress(ipaddress.ip_network("10.0.0.0/8")),
                x509.IPAddress(ipaddress.ip_network("2a01:cb00:1f2::/64"))], excluded_subtrees=None), critical=True)
            .sign(key, hashes.SHA256()))
    assert not permits(wide, [ipaddress.ip_address("10.1.2.3")], [], now)
    folder = tmp_path / "lan"
    folder.mkdir()
    (folder / "authority.crt").write_bytes(wide.public_bytes(serialization.Encoding.PEM))
    (folder / "authority.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                             serialization.PrivateFormat.PKCS8,
                                                             serialization.NoEncryption()))
    again = prepare(folder, [network("10.1.2.3", "10.1.0.0/16")], host_names())
    assert again.new_authority
    assert all(private_network(n) for n in permitted_networks(x509.load_pem_x509_certificate(
        again.authority.read_bytes())))


def serves(made: Certificates) -> bool:
    """Whether a TLS server could start with the certificate and key (as granian loads them)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(made.certificate, made.key)
    except ssl.SSLError:
        return False
    return True


def test_a_key_that_is_not_its_certificates_is_made_again(tmp_path: Path) -> None:
    folder = tmp_path / "lan"
    first = prepare(folder, here(), host_names())
    other = prepare(tmp_path / "elsewhere", here(), host_names())
    first.key.write_bytes(other.key.read_bytes())  # a pair broken (the key of another certificate)
    assert load_pair(first.certificate, first.key) is None and not serves(first)
    again = prepare(folder, here(), host_names())
    assert again.new_certificate and not again.new_authority and serves(again)
    cut = folder / "authority.key"
    cut.write_bytes(cut.read_bytes()[:60])  # a key cut short
    remade = prepare(folder, here(), host_names())
    assert remade.new_authority and remade.new_certificate and serves(remade)
    assert load_pair(remade.authority, folder / "authority.key") is not None


def test_a_stop_between_writing_the_key_and_the_certificate_leaves_a_pair_the_next_start_makes_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "lan"
    prepare(folder, here(), host_names())
    renames: list[str] = []
    real_replace = os.replace

    def stop_after_the_key(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        renames.append(Path(target).name)
        if Path(target).name == "server.crt":
            raise KeyboardInterrupt  # the machine stops here: the new key in place, the old certificate still
        real_replace(source, target)

    monkeypatch.setattr(lan_tls.os, "replace", stop_after_the_key)
    moved = [network("192.168.7.9", "192.168.7.0/24"), *here()]  # a new address: a new server certificate
    with pytest.raises(KeyboardInterrupt):
        prepare(folder, moved, host_names())
    monkeypatch.setattr(lan_tls.os, "replace", real_replace)
    assert renames == ["server.key", "server.crt"]  # both written whole first, the key put in place first
    assert load_pair(folder / "server.crt", folder / "server.key") is None  # the pair is broken…
    again = prepare(folder, moved, host_names())
    assert again.new_certificate and not again.new_authority and serves(again)  # …and made again, not a dead server
    assert sorted(path.name for path in folder.iterdir()) == ["authority.crt", "authority.key", "server.crt",
                                                              "server.key"]


def test_a_certificate_near_its_end_is_made_again(tmp_path: Path) -> None:
    folder = tmp_path / "lan"
    prepare(folder, here(), host_names())
    later = datetime.now(UTC) + timedelta(days=380)
    renewed = prepare(folder, here(), host_names(), now=later)
    assert renewed.new_certificate and not renewed.new_authority
    verify(renewed.certificate, renewed.authority, x509.IPAddress(here()[0].address), when=later + timedelta(days=1))



def serve(tmp_path: Path, *arguments: str, **environment: str) -> Result:
    return CliRunner().invoke(main, ["serve", *arguments], env={"NJ_LEDGER_INSTANCE": str(tmp_path), **environment})


def test_serve_says_what_is_wrong_with_its_room_options(tmp_path: Path) -> None:
    alone = serve(tmp_path, "--https")
    assert alone.exit_code == 2 and "--https is for a room's network: give --lan too" in alone.output
    loopback = serve(tmp_path, "--lan", "--host", "127.0.0.1")
    assert loopback.exit_code == 1
    assert "names 127.0.0.1, which is none of this machine's private network addresses" in loopback.output
    both = serve(tmp_path, "--lan", "--host", "::")
    assert both.exit_code == 1 and "would listen on its IPv6 addresses too, which the internet may reach" in both.output
    with socket.create_server(("0.0.0.0", 0)) as taken:
        port = str(taken.getsockname()[1])
        busy = serve(tmp_path, "--lan", "--port", port)
    assert busy.exit_code == 1 and f"Port {port} is taken on this machine" in busy.output


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What ``serve`` would serve (the servers themselves are not started)."""
    calls: list[dict[str, Any]] = []

    def record(config: dict[str, Any], host: str, port: int, threads: object, workers: int, tls: Tls | None = None
               ) -> None:
        calls.append({"config": dict(config), "host": host, "port": port, "tls": tls})

    monkeypatch.setattr("api.serving.serve", record)
    return calls


def test_serve_lan_listens_on_ipv4_only_and_offers_only_private_addresses(
        tmp_path: Path, started: list[dict[str, Any]]) -> None:
    port = free_port()
    done = serve(tmp_path, "--lan", "--port", str(port))
    assert done.exit_code == 0, done.output
    (served,) = started
    assert (served["host"], served["port"]) == ("0.0.0.0", port)
    phones = urlsplit(served["config"]["PUBLIC_URL"]).hostname
    assert phones is not None and ipaddress.ip_address(phones).version == 4 and private(ipaddress.ip_address(phones))
    assert "http://[" not in done.output  # no IPv6 address offered: nothing listens there


@pytest.mark.parametrize("setting", ["http://laptop.lan:5000", "https://laptop.lan", "laptop.lan",
                                     "HTTPS://Laptop.LAN:5443/"])
def test_with_https_only_the_public_urls_name_is_taken_with_the_scheme_and_port_served(
        tmp_path: Path, started: list[dict[str, Any]], setting: str) -> None:
    port, https_port = free_port(), free_port()
    done = serve(tmp_path, "--lan", "--https", "--port", str(port), "--https-port", str(https_port),
                 NJ_LEDGER_PUBLIC_URL=setting)
    assert done.exit_code == 0, done.output
    (served,) = started
    phones = f"https://laptop.lan:{https_port}/"
    assert served["config"]["PUBLIC_URL"] == phones and f"phones open {phones}" in done.output
    assert (f"NJ_LEDGER_PUBLIC_URL gives {setting}: phones open {phones}" in done.output) == (setting != "laptop.lan")
    # the plain port's server sends a page asked at that name to HTTPS: to where HTTPS is served, not to itself
    plain = new_app(**{**served["config"], "LAN_REDIRECT": True}).test_client()
    moved = plain.get("/games/new", base_url=f"http://laptop.lan:{port}")
    assert (moved.status_code, moved.headers["Location"]) == (308, f"{phones}games/new")
    certificate = x509.load_pem_x509_certificate(served["tls"].certificate.read_bytes())
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "laptop.lan" in names.get_values_for_type(x509.DNSName)
    verify(served["tls"].certificate, tmp_path / "lan" / "authority.crt", x509.DNSName("laptop.lan"))


def test_plain_http_takes_the_public_urls_name_too(tmp_path: Path, started: list[dict[str, Any]]) -> None:
    port = free_port()
    done = serve(tmp_path, "--lan", "--port", str(port), NJ_LEDGER_PUBLIC_URL="https://laptop.lan/")
    assert done.exit_code == 0, done.output
    assert started[0]["config"]["PUBLIC_URL"] == f"http://laptop.lan:{port}/"


@pytest.mark.parametrize("setting, said", [
    ("https://bank.example.com", "names bank.example.com, which the club's certificate authority may not name"),
    ("http://203.0.113.50:5000", "names 203.0.113.50, which is none of this machine's private network addresses"),
    ("http://:5000", "names no host"),
])
def test_a_public_url_phones_could_not_use_is_refused_in_words(
        tmp_path: Path, started: list[dict[str, Any]], setting: str, said: str) -> None:
    done = serve(tmp_path, "--lan", "--https", "--port", str(free_port()), "--https-port", str(free_port()),
                 NJ_LEDGER_PUBLIC_URL=setting)
    assert done.exit_code == 1 and said in done.output, done.output
    assert started == []
