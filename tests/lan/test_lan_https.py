"""``nj-ledger serve --lan --https`` as docs/DEPLOY.md gives it: HTTPS at this machine's network address with the
club's own certificate authority, and a phone that installs it, then scores offline.

A phone that does not trust the authority yet opens the installation page over plain HTTP (the code the server
printed), which shows no fingerprint of its own but sends the phone's owner to the organiser's screen, and downloads
the authority; the test installs that very file in a phone's certificate store (an NSS database, where Chromium on
Linux looks), as the phone's owner does in Settings. The organiser, on the laptop's own ``http://localhost``, shows
the authority's fingerprint and the codes of the home page; the phone scans the sign-in's and opens the ledger
over HTTPS at the address: a secure page, no notice, its service worker running. It records a deal, reloads with
no network from its service worker, taps on, and sends its outbox when the network returns. A certificate the
authority signed for a site on the internet is refused by the same Chromium (the authority's name constraints).
"""

from __future__ import annotations

import http.client
import http.server
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from playwright.sync_api import Browser, Error, Playwright, expect

from api.authority import fingerprint
from browser.conftest import CHROMIUM_ARGS, PageErrors, chromium_path, screenshot, sign_in, wait_for_worker
from browser.scripted_deal import NAMES, record_the_deal
from cli.lan_tls import make_server_certificate
from reliability.helpers import free_port
from support.tls import browser_home

from .conftest import Club, needs
from .guide import CLUB, Served, decode_qr, environment, health, lan_blocks, serve, show_outbox, terminal_qr_image

ROGUE = "bank.example.com"  # a site on the internet, which the club's authority may not name


@dataclass
class Secure:
    served: Served
    port: int  # plain HTTP: the installation page
    https_port: int
    authority: Path  # as the server keeps it in the instance folder
    club: Club


@pytest.fixture(scope="module")
def secure(guide_club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secure]:
    needs("zbarimg", "certutil")
    (line,) = lan_blocks()[1]
    port, https_port = free_port(), free_port()
    authority = guide_club.instance / "lan" / "authority.crt"
    folder = tmp_path_factory.mktemp("lan-https")
    served = serve(line, environment(guide_club.instance, port, https_port), folder / "serve.log",
                   lambda address: health(address, authority))
    yield Secure(served, port, https_port, authority, guide_club)
    served.stop()


def listening(host: str, port: int, within: float = 10.0) -> None:
    """Wait until ``host:port`` takes connections (at most ``within`` seconds)."""
    ends = time.monotonic() + within
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > ends:
                raise
            time.sleep(0.1)


@dataclass
class _Live:
    url: str
    club: str
    club_name: str
    token: str


def test_serve_lan_https_prints_the_installation_page_and_serves_https_at_the_address(secure: Secure) -> None:
    served = secure.served
    host = served.phones.split("//")[1].rsplit(":", 1)[0]
    assert served.phones == f"https://{host}:{secure.https_port}/"
    assert served.scan == f"http://{host}:{secure.port}/certificate"
    image = secure.authority.parent.parent / "terminal-qr.pgm"
    image.write_bytes(terminal_qr_image(served.qr_lines()))
    assert decode_qr(image) == served.scan  # a new phone starts at the installation page
    assert fingerprint(secure.authority.read_bytes()) in served.output
    listening(host, secure.port)  # the plain port may open a moment after the HTTPS one answered its health check
    plain = http.client.HTTPConnection(host, secure.port, timeout=10)
    plain.request("GET", "/games/new?title=Jeudi")
    moved = plain.getresponse()
    moved.read()
    assert (moved.status, moved.getheader("Location")) == (308, f"{served.phones}games/new?title=Jeudi")
    plain.request("GET", "/certificate.crt")
    crt = plain.getresponse()
    assert crt.status == 200 and crt.getheader("Content-Type") == "application/x-x509-ca-cert"
    assert crt.read() == secure.authority.read_bytes()
    assert "strict-transport-security" not in {k.lower() for k, _ in moved.getheaders()}


def test_a_phone_installs_the_clubs_authority_signs_in_by_its_code_and_scores_offline_over_https(
        playwright: Playwright, secure: Secure, tmp_path: Path) -> None:
    served = secure.served
    untrusting = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
    try:
        # 1. a new phone opens the printed code's page over plain HTTP and downloads the authority
        newcomer = untrusting.new_context(locale="en-GB", viewport={"width": 390, "height": 844}, has_touch=True,
                                          is_mobile=True, accept_downloads=True)
        install = newcomer.new_page()
        install.goto(served.scan)
        expect(install.locator("h1")).to_have_text("Install the club's certificate")
        shown = fingerprint(secure.authority.read_bytes())
        assert shown not in install.content()  # the page may be anyone's: it sends the phone's owner to the organiser
        expect(install.locator("#check")).to_have_text("Check that it is the club's")
        expect(install.locator("section.verify")).to_contain_text("with the fingerprint on the organiser's screen")
        expect(install.locator("#insecure")).to_have_count(0)
        expect(install.locator("#open-https")).to_have_attribute("href", served.phones)
        screenshot(install, "lan-https-install-page-phone")
        with install.expect_download() as download:
            install.locator("#download").tap()
        installed = tmp_path / download.value.suggested_filename
        download.value.save_as(installed)
        assert installed.name == "nain-jaune-ledger.crt" and installed.read_bytes() == secure.authority.read_bytes()
        newcomer.close()

        # 2. the organiser, on the laptop itself, shows the codes of the home page
        organiser = untrusting.new_context(locale="fr-FR", viewport={"width": 1200, "height": 900})
        desk = organiser.new_page()
        local = f"http://localhost:{secure.port}"
        sign_in(desk, _Live(local, secure.club.id, CLUB, secure.club.token))
        desk.goto(f"{local}/")
        expect(desk.locator("#phones-address")).to_have_text(served.phones)
        expect(desk.locator("#insecure")).to_be_hidden()
        expect(desk.locator("#authority-fingerprint")).to_have_text(shown)  # the screen the organiser trusts
        desk.locator("#add-phone").click()
        expect(desk.locator("#phone-certificate")).to_be_visible()
        desk.locator("#phones").screenshot(path=str(tmp_path / "phones.png"))
        screenshot(desk, "lan-https-home-codes-desktop", full_page=False)
        desk.locator("#certificate-qr").screenshot(path=str(tmp_path / "certificate.png"))
        assert decode_qr(tmp_path / "certificate.png") == served.scan
        desk.locator("#phone-qr").screenshot(path=str(tmp_path / "signin.png"))
        link = decode_qr(tmp_path / "signin.png")
        assert link.startswith(f"{served.phones}signin#club={secure.club.id}&name=") and "&code=" in link
        organiser.close()
    finally:
        untrusting.close()

    # 3. the phone, its store trusting the file it downloaded, scans the sign-in code
    home = browser_home(tmp_path / "home", installed)
    rogue_port = free_port()
    browser: Browser = playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {ROGUE}:443 127.0.0.1:{rogue_port}"])
    try:
        context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844}, has_touch=True,
                                      is_mobile=True, service_workers="allow")
        context.set_default_timeout(20_000)
        page = context.new_page()
        errors = PageErrors(page)
        page.goto(link)
        expect(page).to_have_url(served.phones)
        expect(page.locator("#club-title")).to_have_text(CLUB)
        assert page.evaluate("window.isSecureContext") is True
        expect(page.locator("#insecure")).to_be_hidden()
        screenshot(page, "lan-https-phone-signed-in", full_page=False)

        game = secure.served.calls(secure.authority).read(
            "POST", f"/clubs/{secure.club.id}/games", {"players": NAMES, "rules": "classic", "starting_chips": 200},
            token=secure.club.token)["id"]
        page.goto(f"{served.phones}games/{game}/record")
        expect(page.locator("#status")).to_contain_text("Donne 1")
        wait_for_worker(page)
        record_the_deal(page)
        expect(page.locator("#settlement")).to_contain_text("Ana n'a plus de cartes et gagne la donne 1.")
        screenshot(page, "lan-https-online-phone", full_page=False)
        recorded = len(events(secure, game))

        context.set_offline(True)
        reloaded = page.reload()
        assert reloaded is not None and reloaded.from_service_worker
        expect(page.locator("#kept-copy")).to_contain_text("telle que ce téléphone l'a vue")
        expect(page.locator("#status")).to_contain_text("Donne 2")
        screenshot(page, "lan-https-offline-reload-phone", full_page=False)
        page.locator("#deal").tap()
        expect(page.locator("#outbox-badge")).to_have_text("1 en attente d'envoi")
        show_outbox(page)
        screenshot(page, "lan-https-offline-outbox-phone", full_page=False)
        assert len(events(secure, game)) == recorded

        with page.expect_response(lambda r: r.url.endswith("/actions")) as sent:
            context.set_offline(False)
        assert sent.value.status == 201
        expect(page.locator("#outbox")).to_have_count(0)
        assert [e["type"] for e in events(secure, game)].count("deal") == 2
        screenshot(page, "lan-https-outbox-sent-phone", full_page=False)
        context.close()
        assert errors.errors == []

        # 4. what the authority signed for a site on the internet, this phone refuses (its name constraints)
        with RogueSite(secure, rogue_port):
            stranger = browser.new_page()
            with pytest.raises(Error, match="ERR_CERT"):
                stranger.goto(f"https://{ROGUE}/")
    finally:
        browser.close()


def events(secure: Secure, game: object) -> list[dict[str, object]]:
    return list(secure.served.calls(secure.authority).read("GET", f"/games/{game}/events?limit=1000",
                                                           token=secure.club.token)["events"])


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"a site the club's authority may not name")

    def log_message(self, *_: object) -> None:
        pass


class RogueSite:
    """An HTTPS site on loopback with a certificate the club's authority signed for :data:`ROGUE`."""

    def __init__(self, secure: Secure, port: int) -> None:
        folder = secure.authority.parent
        authority = x509.load_pem_x509_certificate(secure.authority.read_bytes())
        key = serialization.load_pem_private_key((folder / "authority.key").read_bytes(), password=None)
        leaf_key, leaf = make_server_certificate(authority, key, [], [ROGUE], datetime.now(UTC))  # type: ignore[arg-type]
        self.files = folder.parent / "rogue.crt", folder.parent / "rogue.key"
        self.files[0].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
        self.files[1].write_bytes(leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Hello)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*self.files)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)

    def __enter__(self) -> RogueSite:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()
