"""A club's server on the internet, as docs/DEPLOY.md makes it (tests/deploy/conftest.py: every command of its
route run as written), met as a club would meet it, with Chromium trusting its authority through an NSS database
made here: a phone records a deal, reloads with no network from its
service worker, and sends what it recorded offline when the network returns; the proxy is believed for the
client's address and nobody else is; a stream reaches the follower through the proxy as it is written, with
its heartbeats; the same service runs on PostgreSQL.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Playwright, expect

from benchmarks.scratch import scratch_postgres
from browser.conftest import CHROMIUM_ARGS, PageErrors, chromium_path, screenshot, sign_in, wait_for_worker
from browser.scripted_deal import NAMES, record_the_deal
from support.backends import usable_backend
from support.tls import browser_home, connection, resolving

from .conftest import CLUB, HEARTBEAT, LEDGER, SERVICE_ENV, SITE, WRONG_TOKENS, Server
from .guide import blocks, made_club, unmarked
from .machine import environment_file

ROUTES = {"internet", "lan", "backup", "upgrade"}  # the routes of the guide a test runs

def test_every_command_of_the_guide_is_run_by_a_test_or_says_why_not() -> None:
    assert unmarked() == 0, "a shell block of docs/DEPLOY.md has no <!-- run: … --> line before it"
    for block in blocks():
        assert block.route in ROUTES or block.route.startswith("never ("), (block.line, block.route)
    assert len(blocks("internet")) >= 4


def test_the_units_the_guide_installs_verify(server: Server) -> None:
    server.machine.verify("/etc/systemd/system/nj-ledger.service")
    server.machine.verify("/lib/systemd/system/caddy.service")  # with the guide's drop-in
    settings = environment_file(server.machine.read(SERVICE_ENV))
    assert settings["NJ_LEDGER_PROXIES"] == "127.0.0.1,::1" and len(settings["NJ_LEDGER_ADMIN_TOKEN"]) >= 32
    assert server.machine.run(f"stat -c '%a %U:%G' {SERVICE_ENV}").strip() == "640 root:nj-ledger"
    assert server.machine.run("stat -c '%U' /var/lib/nj-ledger/nj-ledger.sqlite /var/lib/nj-ledger/signing.key"
                              ).split() == ["nj-ledger", "nj-ledger"]


def test_https_at_the_club_name_with_hsts_a_redirect_from_http_and_no_metrics(server: Server) -> None:
    health = server.get("/api/v1/health", token="")
    assert (health.status, health.json()) == (200, {"status": "ok"})
    assert health.headers["strict-transport-security"] == "max-age=31536000"
    page = server.get("/signin", token="", headers={"Accept-Language": "fr"})
    assert page.status == 200 and "Se connecter" in page.body.decode()
    assert "strict-transport-security" in page.headers
    compressed = server.get("/signin", token="", headers={"Accept-Encoding": "gzip"})
    assert compressed.headers["content-encoding"] == "gzip"  # for phones on a slow network

    plain = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    plain.request("GET", "/games", headers={"Host": SITE})
    redirect = plain.getresponse()
    assert redirect.status in (301, 308) and redirect.getheader("Location") == f"https://{SITE}/games"
    assert server.get("/metrics", token="").status == 404  # not to the internet


def test_the_proxy_is_believed_for_the_real_client_and_a_forged_address_is_not(server: Server) -> None:
    club = f"/api/v1/clubs/{server.club}"

    def status(source: str, forged: str | None = None) -> int:
        headers = {"X-Forwarded-For": forged} if forged else None
        return server.get(club, token="wrong-token", source=source, headers=headers).status

    # two phones behind the same proxy: each counts for itself
    assert [status("127.0.0.5") for _ in range(WRONG_TOKENS + 1)] == [401] * WRONG_TOKENS + [429]
    assert status("127.0.0.6") == 401
    # a client that names the limited one in X-Forwarded-For is not taken for it (Caddy drops the header), nor
    # one that escapes its own count by naming another address
    assert status("127.0.0.6", forged="127.0.0.5") == 401
    assert [status("127.0.0.7", forged=f"198.51.100.{n}") for n in range(WRONG_TOKENS + 1)][-1] == 429
    # straight to the ledger from another address than the proxy's: its header is not believed either
    direct = http.client.HTTPConnection("127.0.0.1", server.app_port, timeout=10, source_address=("127.0.0.8", 0))
    direct.request("GET", club, headers={"Authorization": "Bearer wrong-token", "X-Forwarded-For": "127.0.0.6"})
    assert direct.getresponse().status == 401
    assert status("127.0.0.6") == 401  # not counted for the address it named


def test_a_stream_reaches_its_follower_through_the_proxy_as_written_with_its_heartbeats(server: Server) -> None:
    game = server.new_game()
    link = connection(SITE, server.https_port, server.authority, timeout=10)
    link.request("GET", f"/api/v1/games/{game}/stream",
                 headers={"Authorization": f"Bearer {server.token}", "Accept": "text/event-stream"})
    answer = link.getresponse()
    assert answer.status == 200 and answer.getheader("Content-Type", "").startswith("text/event-stream")
    try:
        opened = time.monotonic()
        beats = []
        lines = _lines(answer)
        while len(beats) < 3:  # heartbeats, each in its time: nothing held back on the way
            if next(lines).startswith(b": heartbeat"):
                beats.append(time.monotonic() - opened)
        assert beats[-1] < HEARTBEAT * 5, beats
        sent = time.monotonic()
        dealt = server.post(f"/api/v1/games/{game}/actions", {"actions": [{"type": "deal"}]})
        assert dealt.status == 201
        while not (line := next(lines)).startswith(b"data: ") or b'"type":"deal"' not in line:
            pass
        assert time.monotonic() - sent < 2.0, "the event reached the follower as written"
    finally:
        link.close()


def test_a_phone_at_the_club_name_records_a_deal_reloads_offline_and_sends_its_outbox(
        playwright: Playwright, server: Server, tmp_path: Path) -> None:
    home = browser_home(tmp_path / "home", server.authority)
    browser: Browser = playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        args=[*CHROMIUM_ARGS, resolving(SITE, server.https_port)])
    try:
        context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844}, has_touch=True,
                                      is_mobile=True, service_workers="allow")
        context.set_default_timeout(15_000)
        page = context.new_page()
        errors = PageErrors(page)
        url = f"https://{SITE}"
        sign_in(page, _Live(url, server.club, CLUB, server.token))
        game = server.new_game()
        page.goto(f"{url}/games/{game}/record")
        assert page.url.startswith("https://club.test/")
        expect(page.locator("#status")).to_contain_text("Donne 1")
        wait_for_worker(page)
        record_the_deal(page)
        expect(page.locator("#settlement")).to_contain_text("Ana n'a plus de cartes et gagne la donne 1.")
        screenshot(page, "deploy-club-test-online-phone", full_page=False)
        recorded = len(server.events(game))

        context.set_offline(True)
        reloaded = page.reload()
        assert reloaded is not None and reloaded.from_service_worker
        expect(page.locator("#kept-copy")).to_contain_text("telle que ce téléphone l'a vue")
        expect(page.locator("#status")).to_contain_text("Donne 2")
        screenshot(page, "deploy-club-test-offline-reload-phone", full_page=False)
        page.locator("#deal").tap()
        expect(page.locator("#outbox-badge")).to_have_text("1 en attente d'envoi")
        screenshot(page, "deploy-club-test-offline-outbox-phone", full_page=False)
        assert len(server.events(game)) == recorded

        with page.expect_response(lambda r: r.url.endswith("/actions")) as sent:
            context.set_offline(False)
        assert sent.value.status == 201
        expect(page.locator("#outbox")).to_have_count(0)
        deals = [event for event in server.events(game) if event["type"] == "deal"]
        assert len(deals) == 2
        screenshot(page, "deploy-club-test-outbox-sent-phone", full_page=False)
        context.close()
        assert errors.errors == []
    finally:
        browser.close()


def test_the_service_runs_on_postgresql(server: Server) -> None:
    usable_backend("postgresql")
    with scratch_postgres() as url:
        machine = server.machine
        machine.run(f"echo 'NJ_LEDGER_DATABASE_URL={url}' >> {SERVICE_ENV}")
        try:
            server.stop(LEDGER)
            migrated = machine.run("nj-ledger db upgrade")
            assert "is at revision" in migrated
            server.start(LEDGER)
            club, token = made_club(machine.run('nj-ledger club create "Club PostgreSQL"'))
            game = server.post(f"/api/v1/clubs/{club}/games", {"players": NAMES, "rules": "classic",
                                                               "starting_chips": 200}, token=token)
            assert game.status == 201 and game.json()["receipt"]["version"] == 1
            assert server.get(f"/api/v1/clubs/{server.club}", token=server.token).status == 401  # the SQLite club
        finally:
            machine.run(f"sed -i '/^NJ_LEDGER_DATABASE_URL=postgresql/d' {SERVICE_ENV}")
            server.start(LEDGER)


def _lines(answer: http.client.HTTPResponse) -> Iterator[bytes]:
    """A stream's lines as they arrive (``read1``: what has come, without waiting for more)."""
    pending = b""
    while True:
        chunk = answer.read1(65536)
        assert chunk, "the stream ended"
        pending += chunk
        *complete, pending = pending.split(b"\n")
        yield from complete


@dataclass
class _Live:
    """What :func:`browser.conftest.sign_in` reads of a server."""

    url: str
    club: str
    club_name: str
    token: str


