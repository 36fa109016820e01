"""HTTPS in a club room: a certificate authority of the club's own, and the server's certificate it signs
(``nj-ledger serve --lan --https``; docs/DEPLOY.md, "HTTPS on the local network").

No public authority signs a certificate for 192.168.1.20 or ``laptop.local``, and a browser runs the scorer's
service worker (its reload with no network) on a secure page only. So the instance folder holds, in ``lan/``:

- ``authority.crt`` and ``authority.key``: the club's authority, made once. Each phone installs its certificate
  once (the installation page, :mod:`api.lan`). Its key never leaves the folder (mode 0600, the folder 0700),
  and it can sign for little: its **name constraints** (critical) allow only private networks' addresses (and
  the networks this machine was on when it was made), and names under ``.local``, ``.lan``, ``.home.arpa``,
  ``.internal`` and the machine's own name. A phone that trusts it trusts nothing on the internet by it, even if
  the key were stolen: Chromium, Android and iOS check those constraints.
- ``server.crt`` and ``server.key``: the server's certificate for the machine's addresses and names, made again
  at start when an address or a name is new (a laptop on another Wi-Fi), when it nears its end (397 days, under
  the 825 days iOS accepts from an installed authority), or when the authority changed.

An address outside what the authority may name (a network neither private nor known when it was made) makes a
new authority: each phone installs it again, and ``serve`` says so.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from cli.lan_addresses import Address, Found, Network

LAN_FOLDER = "lan"  # in the instance folder
AUTHORITY_CERT, AUTHORITY_KEY = "authority.crt", "authority.key"
SERVER_CERT, SERVER_KEY = "server.crt", "server.key"
AUTHORITY_LIFE = timedelta(days=3650)
SERVER_LIFE = timedelta(days=397)
RENEW_BEFORE = timedelta(days=30)
PRIVATE_NETWORKS: tuple[Network, ...] = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"))
PRIVATE_NAMES = ("local", "lan", "home.arpa", "internal")


@dataclass(frozen=True)
class Certificates:
    """The files granian and the installation page use, and what was made by this call."""

    authority: Path
    certificate: Path
    key: Path
    new_authority: bool
    new_certificate: bool

    @property
    def fingerprint(self) -> str:
        """The authority's SHA-256 fingerprint, as the installation page shows it: a phone's owner compares."""
        from api.lan import fingerprint

        return fingerprint(self.authority.read_bytes())


def prepare(folder: Path, found: Sequence[Found], names: Sequence[str], now: datetime | None = None) -> Certificates:
    """The authority and a server certificate for ``found`` addresses and ``names``, made when missing or stale."""
    now = now or datetime.now(UTC)
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    addresses = [item.address for item in found]
    paths = [folder / name for name in (AUTHORITY_CERT, AUTHORITY_KEY, SERVER_CERT, SERVER_KEY)]
    authority_cert, authority_key, server_cert, server_key = paths
    new_authority = False
    if not (authority_cert.is_file() and authority_key.is_file()) or not permits(
            x509.load_pem_x509_certificate(authority_cert.read_bytes()), addresses, names, now):
        key, cert = make_authority(found, names, now)
        _write_secret(authority_key, _key_pem(key))
        _write(authority_cert, cert.public_bytes(serialization.Encoding.PEM))
        new_authority = True
    authority = x509.load_pem_x509_certificate(authority_cert.read_bytes())
    new_certificate = new_authority or not server_cert.is_file() or not server_key.is_file() or stale(
        x509.load_pem_x509_certificate(server_cert.read_bytes()), authority, addresses, names, now)
    if new_certificate:
        signer = serialization.load_pem_private_key(authority_key.read_bytes(), password=None)
        assert isinstance(signer, ec.EllipticCurvePrivateKey)
        key, cert = make_server_certificate(authority, signer, addresses, names, now)
        _write_secret(server_key, _key_pem(key))
        _write(server_cert, cert.public_bytes(serialization.Encoding.PEM))
    return Certificates(authority_cert, server_cert, server_key, new_authority, new_certificate)


def make_authority(found: Sequence[Found], names: Sequence[str], now: datetime
                   ) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A new authority, allowed to name private networks, the networks of ``found`` and private names."""
    key = ec.generate_private_key(ec.SECP256R1())
    networks = list(PRIVATE_NETWORKS)
    networks += [item.network for item in found if not any(_within(item.address, n) for n in networks)]
    dns = [*PRIVATE_NAMES, *(name for name in names if "." not in name)]
    host = next((name for name in names if "." not in name), "")
    subject = x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Nain Jaune Ledger"),
        x509.NameAttribute(NameOID.COMMON_NAME, f"Nain Jaune Ledger, local network{f' ({host})' if host else ''}"),
    ])
    public = key.public_key()
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(public)
            .serial_number(_serial()).not_valid_before(now - timedelta(hours=1)).not_valid_after(now + AUTHORITY_LIFE)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.NameConstraints(
                permitted_subtrees=[*(x509.IPAddress(n) for n in networks), *(x509.DNSName(d) for d in dns)],
                excluded_subtrees=None), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def make_server_certificate(authority: x509.Certificate, signer: ec.EllipticCurvePrivateKey,
                            addresses: Sequence[Address], names: Sequence[str], now: datetime
                            ) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """The server's certificate for ``addresses`` and ``names``, signed by the authority."""
    key = ec.generate_private_key(ec.SECP256R1())
    first = names[0] if names else str(addresses[0])
    alternative = [*(x509.IPAddress(a) for a in addresses), *(x509.DNSName(n) for n in names)]
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, first)]))
            .issuer_name(authority.subject).public_key(key.public_key()).serial_number(_serial())
            .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + SERVER_LIFE)
            .add_extension(x509.SubjectAlternativeName(alternative), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()), critical=False)
            .sign(signer, hashes.SHA256()))
    return key, cert


def permits(authority: x509.Certificate, addresses: Iterable[Address], names: Iterable[str],
            now: datetime) -> bool:
    """Whether the authority is valid long enough and may name every address and name."""
    if authority.not_valid_after_utc - now < SERVER_LIFE:
        return False
    constraints = authority.extensions.get_extension_for_class(x509.NameConstraints).value
    networks = [n.value for n in constraints.permitted_subtrees or () if isinstance(n, x509.IPAddress)]
    domains = [d.value for d in constraints.permitted_subtrees or () if isinstance(d, x509.DNSName)]
    return (all(any(_within(a, n) for n in networks) for a in addresses)
            and all(any(name == d or name.endswith(f".{d}") for d in domains) for name in names))


def stale(certificate: x509.Certificate, authority: x509.Certificate, addresses: Iterable[Address],
          names: Iterable[str], now: datetime) -> bool:
    """Whether the server's certificate must be made again: another authority's, near its end, or missing one of
    the machine's addresses or names."""
    if certificate.issuer != authority.subject or certificate.not_valid_after_utc - now < RENEW_BEFORE:
        return True
    try:
        certificate.verify_directly_issued_by(authority)
    except (ValueError, TypeError, InvalidSignature):
        return True
    named = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return not (set(addresses) <= set(named.get_values_for_type(x509.IPAddress))
                and set(names) <= set(named.get_values_for_type(x509.DNSName)))


def _within(address: Address, network: object) -> bool:
    return isinstance(network, ipaddress.IPv4Network | ipaddress.IPv6Network) and address.version == network.version \
        and address in network


def _serial() -> int:
    return int.from_bytes(secrets.token_bytes(16), "big") >> 1


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write_secret(path: Path, data: bytes) -> None:
    _write(path, data, 0o600)


def _write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write whole or not at all (a server started meanwhile never reads half a key), with ``mode`` from the first
    byte: a key is never readable by others, even for a moment."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
