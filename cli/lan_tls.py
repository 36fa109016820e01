"""HTTPS in a club room: a certificate authority of the club's own, and the server's certificate it signs
(``nj-ledger serve --lan --https``; docs/DEPLOY.md, "HTTPS on the local network").

No public authority signs a certificate for 192.168.1.20 or ``laptop.local``, and a browser runs the scorer's
service worker (its reload with no network) on a secure page only. So the instance folder holds, in ``lan/``:

- ``authority.crt`` and ``authority.key``: the club's authority, made once. Each phone installs its certificate
  once (the installation page, :mod:`api.lan`). Its key never leaves the folder (mode 0600, the folder 0700),
  and it can sign for little: its **name constraints** (critical) allow only private networks' addresses (and
  the private networks this machine was on when it was made, a range set aside for documentation, say: never a
  network of the internet), and names under ``.local``, ``.lan``, ``.home.arpa``, ``.internal`` and the
  machine's own name. A phone that trusts it trusts nothing on the internet by it, even if the key were stolen:
  Chromium, Android and iOS check those constraints.
- ``server.crt`` and ``server.key``: the server's certificate for the machine's private addresses and the names
  the authority may name, made again at start when an address or a name is new (a laptop on another Wi-Fi), when
  it nears its end (397 days, under the 825 days iOS accepts from an installed authority), or when the authority
  changed.

Every private network a room's laptop may be on is the authority's already, so moving between a home and a club
keeps it: a new authority (which each phone installs again, ``serve`` says so) is made only when the authority
nears its end, when its files are damaged, or when an address falls outside it (a range set aside, not known when
it was made; the new one keeps the old one's networks, so that coming back changes nothing). A name it may not
name (the machine renamed) is left out of the server's certificate rather than make a new authority.

Each certificate and its key are written as a pair (:func:`_write_pair`): both whole in files of their own, then
put in place. A pair that does not load, or whose key is not its certificate's (the machine stopped between the
two renames), is made again rather than leave a server that cannot start.
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

from cli.lan_addresses import PRIVATE_NETWORKS, Address, Found, Network, private, private_network

LAN_FOLDER = "lan"  # in the instance folder
AUTHORITY_CERT, AUTHORITY_KEY = "authority.crt", "authority.key"
SERVER_CERT, SERVER_KEY = "server.crt", "server.key"
AUTHORITY_LIFE = timedelta(days=3650)
SERVER_LIFE = timedelta(days=397)
RENEW_BEFORE = timedelta(days=30)
PRIVATE_NAMES = ("local", "lan", "home.arpa", "internal")


@dataclass(frozen=True)
class Certificates:
    """The files granian and the installation page use, what was made by this call, and the names certified."""

    authority: Path
    certificate: Path
    key: Path
    new_authority: bool
    new_certificate: bool
    names: tuple[str, ...] = ()  # the names the server's certificate holds: those the authority may name

    @property
    def fingerprint(self) -> str:
        """The authority's SHA-256 fingerprint: a phone's owner checks that the phone shows this one."""
        from api.authority import fingerprint

        return fingerprint(self.authority.read_bytes())


Pair = tuple[x509.Certificate, ec.EllipticCurvePrivateKey]


def prepare(folder: Path, found: Sequence[Found], names: Sequence[str], now: datetime | None = None) -> Certificates:
    """The authority and a server certificate for the private ``found`` addresses and ``names`` (those the
    authority may name), made when missing, stale or damaged."""
    now = now or datetime.now(UTC)
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    _remove_partials(folder)
    addresses = [item.address for item in found if private(item.address)]  # never one of the internet
    authority_cert, authority_key, server_cert, server_key = (
        folder / name for name in (AUTHORITY_CERT, AUTHORITY_KEY, SERVER_CERT, SERVER_KEY))
    authority = load_pair(authority_cert, authority_key)
    new_authority = False
    if authority is None or not permits(authority[0], addresses, [], now):
        kept = [] if authority is None else permitted_networks(authority[0])
        signer, made = make_authority([item for item in found if private(item.address)], names, now, kept)
        _write_pair(authority_cert, made.public_bytes(serialization.Encoding.PEM), authority_key, _key_pem(signer))
        authority, new_authority = (made, signer), True
    certified = tuple(name for name in names if permits(authority[0], [], [name], now))
    server = load_pair(server_cert, server_key)
    new_certificate = new_authority or server is None or stale(server[0], authority[0], addresses, certified, now)
    if new_certificate:
        key, cert = make_server_certificate(authority[0], authority[1], addresses, certified, now)
        _write_pair(server_cert, cert.public_bytes(serialization.Encoding.PEM), server_key, _key_pem(key))
    return Certificates(authority_cert, server_cert, server_key, new_authority, new_certificate, certified)


def load_pair(certificate: Path, key: Path) -> Pair | None:
    """A certificate and its key as kept in the folder; None when either is missing or does not load, or when the
    key is not the certificate's (the machine stopped between writing the one and the other): made again then."""
    try:
        cert = x509.load_pem_x509_certificate(certificate.read_bytes())
        secret = serialization.load_pem_private_key(key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(secret, ec.EllipticCurvePrivateKey) or not matches(cert, secret):
        return None
    return cert, secret


def matches(certificate: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> bool:
    """Whether ``key`` is the private key of ``certificate``'s public key."""
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    return bool(certificate.public_key().public_bytes(serialization.Encoding.DER, spki)
                == key.public_key().public_bytes(serialization.Encoding.DER, spki))


def make_authority(found: Sequence[Found], names: Sequence[str], now: datetime, kept: Sequence[Network] = ()
                   ) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A new authority, allowed to name private networks, the private networks of ``found`` and those ``kept`` from
    the authority it replaces (never one of the internet: a laptop that comes back to a network keeps its
    authority), and private names."""
    key = ec.generate_private_key(ec.SECP256R1())
    networks = list(PRIVATE_NETWORKS)
    for network in [*kept, *(item.network for item in found)]:
        if private_network(network) and not any(network.subnet_of(n) for n in networks  # type: ignore[arg-type]
                                                if n.version == network.version):
            networks.append(network)
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
    """Whether the authority is valid long enough, names no network of the internet (an authority that could,
    made by an earlier version, is made again), and may name every address and name."""
    if authority.not_valid_after_utc - now < SERVER_LIFE:
        return False
    try:
        constraints = authority.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return False
    networks = permitted_networks(authority)
    if not all(private_network(n) for n in networks):
        return False
    domains = [d.value for d in constraints.permitted_subtrees or () if isinstance(d, x509.DNSName)]
    return (all(any(_within(a, n) for n in networks) for a in addresses)
            and all(any(name == d or name.endswith(f".{d}") for d in domains) for name in names))


def permitted_networks(authority: x509.Certificate) -> list[Network]:
    """The networks an authority's name constraints let it name (none when it has no constraints)."""
    try:
        constraints = authority.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return []
    return [n.value for n in constraints.permitted_subtrees or ()
            if isinstance(n, x509.IPAddress) and isinstance(n.value, ipaddress.IPv4Network | ipaddress.IPv6Network)]


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


def _partial(path: Path, data: bytes, mode: int) -> Path:
    """``data`` written whole beside ``path`` under a name of its own, with ``mode`` from its first byte (a key is
    never readable by others, even for a moment), and on the disk before it is put in place."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, mode)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return partial


def _write_pair(certificate: Path, certificate_pem: bytes, key: Path, key_pem: bytes) -> None:
    """Write a certificate and its key as a pair: both whole in files of their own first, then each put in place
    by a rename (a server started meanwhile reads the old file or the new one, never half of one). Were the
    machine to stop between the two renames, the next start finds a key that is not its certificate's
    (:func:`load_pair`) and makes the pair again."""
    partials: list[Path] = []
    try:
        partials.append(_partial(key, key_pem, 0o600))
        partials.append(_partial(certificate, certificate_pem, 0o644))
        os.replace(partials[0], key)
        os.replace(partials[1], certificate)
        _sync_folder(certificate.parent)
    finally:
        for partial in partials:
            partial.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    """Put the folder's renames on the disk (where the system allows a folder to be synced)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _remove_partials(folder: Path) -> None:
    """Remove what a write cut short left (``.server.key.1a2b3c4d``): never read, never needed."""
    for name in (AUTHORITY_CERT, AUTHORITY_KEY, SERVER_CERT, SERVER_KEY):
        for leftover in folder.glob(f".{name}.*"):
            leftover.unlink(missing_ok=True)
