"""What ``serve --lan`` finds and makes before it serves: this machine's addresses that phones reach, the club's
certificate authority and the server's certificate (cli/lan_addresses.py, cli/lan_tls.py)."""

from __future__ import annotations

import ipaddress
import socket
import ssl
import stat
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from cli.commands import main
from cli.lan_addresses import Found, host_names, interface_addresses, lan_addresses, reachable
from cli.lan_tls import make_server_certificate, permits, prepare

from .guide import machine_addresses


def test_the_addresses_found_are_the_machines_own_network_addresses_ipv4_first() -> None:
    found = lan_addresses()
    listed = machine_addresses()
    assert found, "this machine has a network address (the tests need one)"
    assert {str(item.address) for item in found} == listed
    assert found[0].address.version == 4 and all(reachable(item.address) for item in found)
    assert {str(item.address) for item in interface_addresses()} == listed  # loopback and link-local left out
    assert all(item.address in item.network for item in found)


def test_what_no_phone_reaches_is_left_out() -> None:
    for address in ("127.0.0.1", "::1", "169.254.10.1", "fe80::1", "0.0.0.0", "224.0.0.251"):
        assert not reachable(ipaddress.ip_address(address)), address
    for address in ("192.168.1.20", "10.0.0.2", "fd00::2", "203.0.113.9"):
        assert reachable(ipaddress.ip_address(address)), address
    names = host_names()
    assert names == [names[0], f"{names[0]}.local"]


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


def test_a_certificate_near_its_end_is_made_again(tmp_path: Path) -> None:
    folder = tmp_path / "lan"
    prepare(folder, here(), host_names())
    later = datetime.now(UTC) + timedelta(days=380)
    renewed = prepare(folder, here(), host_names(), now=later)
    assert renewed.new_certificate and not renewed.new_authority
    verify(renewed.certificate, renewed.authority, x509.IPAddress(here()[0].address), when=later + timedelta(days=1))



def serve(tmp_path: Path, *arguments: str) -> Result:
    return CliRunner().invoke(main, ["serve", *arguments], env={"NJ_LEDGER_INSTANCE": str(tmp_path)})


def test_serve_says_what_is_wrong_with_its_room_options(tmp_path: Path) -> None:
    alone = serve(tmp_path, "--https")
    assert alone.exit_code == 2 and "--https is for a room's network: give --lan too" in alone.output
    loopback = serve(tmp_path, "--lan", "--host", "127.0.0.1")
    assert loopback.exit_code == 1
    assert "names 127.0.0.1, which is none of this machine's network addresses" in loopback.output
    with socket.create_server(("0.0.0.0", 0)) as taken:
        port = str(taken.getsockname()[1])
        busy = serve(tmp_path, "--lan", "--port", port)
    assert busy.exit_code == 1 and f"Port {port} is taken on this machine" in busy.output
