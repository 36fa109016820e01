"""``nj-ledger serve --lan`` as docs/DEPLOY.md gives it, and phones on the room's network over plain HTTP.

The guide's first block runs as written (the club made, then ``serve --lan``) on free ports. The server prints this
machine's private IPv4 address (not a loopback one, and nothing is served on its IPv6 address) and its QR code,
which zbar reads back from the terminal's text. Then phones, in Chromium at a phone's viewport, at that address:
the home page shows it and, on a tap, the QR code of a one-time sign-in code; zbar reads the code from a
screenshot, and a fresh phone opens what it read: signed in with a token of its own, nothing typed. The organiser's
screen then counts it and shows the next code; the first one, opened again, signs nobody in. Every page says what
plain HTTP costs (English and French), the installation page how to get HTTPS; and the scorer, kept open, goes on
recording a deal with the network gone (the core's rules loaded while it was there), its outbox sent when it
returns.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from browser.conftest import ARTIFACTS, SESSION_KEY, PageErrors, screenshot, settled, sign_in
from browser.scripted_deal import DEAL, NAMES
from reliability.helpers import free_port

from .conftest import Club, needs
from .guide import (
    CLUB,
    Served,
    decode_qr,
    environment,
    health,
    lan_blocks,
    machine_addresses,
    serve,
    show_outbox,
    terminal_qr_image,
)

NOTICE = {"en": "No HTTPS: this page cannot reload without the network.",
          "fr": "Sans HTTPS, cette page ne peut pas se recharger sans réseau."}


@pytest.fixture(scope="module")
def plain(guide_club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    needs()
    line = lan_blocks()[0][-1]
    folder = tmp_path_factory.mktemp("lan-plain")
    served = serve(line, environment(guide_club.instance, free_port(), free_port()), folder / "serve.log", health)
    yield served
    served.stop()


@dataclass
class _Live:
    """What :func:`browser.conftest.sign_in` reads of a server."""

    url: str
    club: str
    club_name: str
    token: str


def phone(browser: Browser, locale: str) -> BrowserContext:
    context = browser.new_context(locale=locale, viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    context.set_default_timeout(15_000)
    return context


def test_serve_lan_prints_the_machines_network_address_and_its_qr_code(plain: Served) -> None:
    host = ipaddress.ip_address(plain.phones.split("//")[1].rsplit(":", 1)[0].strip("[]"))
    assert str(host) in machine_addresses() and not host.is_loopback and host.version == 4
    assert plain.phones.startswith("http://") and plain.phones.endswith("/")
    image = ARTIFACTS / "lan-terminal-qr.pgm"
    ARTIFACTS.mkdir(exist_ok=True)
    image.write_bytes(terminal_qr_image(plain.qr_lines()))
    assert decode_qr(image) == plain.phones  # the code printed is the address printed
    assert "Plain HTTP: a phone's pages do not reload without the network" in plain.output
    for other in (a for a in machine_addresses() if ipaddress.ip_address(a).version == 6):  # never IPv6: it may be
        assert f"http://[{other}]:" not in plain.output                                 # the internet's address
        with pytest.raises(OSError):
            socket.create_connection((other, plain.port), timeout=5).close()


SIGNED_IN = {"en": "1 phone signed in here", "fr": "1 téléphone connecté ici"}
USED = {"en": "This sign-in code was already used", "fr": "Ce code de connexion a déjà servi"}


@pytest.mark.parametrize("language, locale", [("en", "en-GB"), ("fr", "fr-FR")])
def test_a_phone_scans_the_home_pages_code_and_is_signed_in_with_nothing_typed(
        chromium: Browser, plain: Served, guide_club: Club, tmp_path: Path, language: str, locale: str) -> None:
    organiser = phone(chromium, locale)
    page = organiser.new_page()
    errors = PageErrors(page)
    sign_in(page, _Live(plain.phones.rstrip("/"), guide_club.id, CLUB, guide_club.token))
    page.goto(plain.phones)
    expect(page.locator("#club-title")).to_have_text(CLUB)
    expect(page.locator("#phones-address")).to_have_text(plain.phones)
    expect(page.locator("#insecure")).to_be_visible()
    expect(page.locator("#insecure")).to_contain_text(NOTICE[language])
    page.locator("#add-phone").tap()
    code = page.locator("#phone-qr")
    expect(code).to_be_visible()
    expect(page.locator("#phone-expiry")).to_contain_text(re.compile(r"[12]:\d\d"))
    page.locator("#phones").scroll_into_view_if_needed()
    screenshot(page, f"lan-home-phone-qr-{language}", full_page=False)
    shot = tmp_path / "code.png"
    code.screenshot(path=str(shot))
    link = decode_qr(shot)
    assert link.startswith(f"{plain.phones}signin#club={guide_club.id}&name=") and "&code=" in link
    first_code = code.get_attribute("src")

    fresh = phone(chromium, locale)  # a phone that never saw the club
    scanned = fresh.new_page()
    scanned_errors = PageErrors(scanned)
    scanned.goto(link)
    expect(scanned).to_have_url(plain.phones)  # the home page, the code gone from the address
    expect(scanned.locator("#club-title")).to_have_text(CLUB)
    kept = scanned.evaluate(f"JSON.parse(localStorage.getItem({json.dumps(SESSION_KEY)}))")
    assert kept["club"] == guide_club.id and kept["name"] == CLUB
    assert kept["token"] not in link  # the phone's own token, not the code the screen showed
    assert scanned.evaluate("window.isSecureContext") is False
    expect(scanned.locator("#insecure")).to_be_visible()
    expect(scanned.locator("#insecure")).to_contain_text(NOTICE[language])
    screenshot(scanned, f"lan-phone-signed-in-notice-{language}", full_page=False)
    scanned.locator("#insecure a").tap()
    expect(scanned.locator("main")).to_contain_text("nj-ledger serve --lan --https")

    # the organiser's screen counts the phone and shows the next code; the one photographed signs nobody in
    expect(page.locator("#phones-signed-in")).to_contain_text(SIGNED_IN[language])
    expect(code).not_to_have_attribute("src", first_code or "")
    page.locator("#phones").scroll_into_view_if_needed()
    screenshot(page, f"lan-home-next-code-{language}", full_page=False)
    late = phone(chromium, locale).new_page()
    late.goto(link)
    expect(late.locator("#notice")).to_contain_text(USED[language])
    expect(late.locator("#signin")).to_be_visible()
    assert late.evaluate(f"localStorage.getItem({json.dumps(SESSION_KEY)})") is None
    screenshot(late, f"lan-phone-code-used-{language}", full_page=False)
    late.context.close()
    # a code that expires unused (ended here from elsewhere) gives way to a fresh one as well
    second = code.get_attribute("data-code")
    plain.calls().read("DELETE", f"/clubs/{guide_club.id}/phones/{second}", token=guide_club.token)
    expect(code).not_to_have_attribute("data-code", second or "")
    page.locator("#phone-done").tap()
    expect(page.locator("#phone-code")).to_be_hidden()
    fresh.close()
    organiser.close()
    assert errors.errors == [] and scanned_errors.errors == []


def test_the_notice_is_not_shown_on_the_machine_itself(chromium: Browser, plain: Served) -> None:
    context = phone(chromium, "en-GB")
    page = context.new_page()
    page.goto(f"http://localhost:{plain.port}/signin")
    expect(page.locator("#signin")).to_be_visible()
    assert page.evaluate("window.isSecureContext") is True
    expect(page.locator("#insecure")).to_be_hidden()
    context.close()


def play(page: Page, turn: int) -> None:
    """Tap one turn of the scripted deal (its cards, then the seat that laid them)."""
    seat, cards, _ = DEAL[turn]
    for card in cards:
        page.locator(f'#controls .key[data-card="{card}"]').tap()
    settled(page)
    receiving = page.locator("#record-bar .pick.receiving").get_attribute("data-pick")
    page.locator("#play" if receiving == str(seat) else f'#record-bar .pick[data-pick="{seat}"]').tap()


def test_a_scorer_kept_open_over_plain_http_records_on_without_the_network(
        chromium: Browser, plain: Served, guide_club: Club) -> None:
    game = plain.calls().read("POST", f"/clubs/{guide_club.id}/games",
                              {"players": NAMES, "rules": "classic", "starting_chips": 200},
                              token=guide_club.token)["id"]
    context = phone(chromium, "en-GB")
    page = context.new_page()
    errors = PageErrors(page)
    sign_in(page, _Live(plain.phones.rstrip("/"), guide_club.id, CLUB, guide_club.token))
    page.goto(f"{plain.phones}games/{game}/record")
    expect(page.locator("#status")).to_contain_text("Deal 1")
    expect(page.locator("#insecure")).to_be_visible()
    # no service worker to keep the core's rules: the scorer loads them while the network is there
    expect(page.locator("body")).to_have_attribute("data-core", re.compile(r"^ready in"), timeout=60_000)
    screenshot(page, "lan-scorer-notice-phone", full_page=False)
    context.set_offline(True)
    page.locator("#deal").tap()
    for turn in range(3):
        play(page, turn)
    expect(page.locator("#outbox-badge")).to_have_text("4 waiting to be sent")
    show_outbox(page)
    screenshot(page, "lan-scorer-offline-outbox-phone", full_page=False)
    calls = plain.calls()
    assert calls.read("GET", f"/games/{game}", token=guide_club.token)["version"] == 1
    context.set_offline(False)
    expect(page.locator("#outbox")).to_have_count(0, timeout=30_000)
    assert calls.read("GET", f"/games/{game}", token=guide_club.token)["status"] == "playing"
    log = calls.read("GET", f"/games/{game}/events", token=guide_club.token)["events"]
    plays = [e for e in log if e["type"] == "play"]
    assert [p["data"]["cards"] for p in plays] == [cards for _, cards, _ in DEAL[:3]]
    context.close()
    assert errors.errors == []
