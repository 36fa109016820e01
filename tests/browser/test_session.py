"""Signing in with a club token kept in the browser (never in an address), the home page, signing out."""

from __future__ import annotations

from playwright.sync_api import Browser, Request, expect

from .conftest import PageErrors, new_context, screenshot
from .server import LiveServer


def test_sign_in_keeps_the_token_in_the_browser_only(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser)
    page = context.new_page()
    errors = PageErrors(page)
    requests: list[Request] = []
    page.on("request", lambda request: requests.append(request))

    # A page that needs the club sends the visitor to sign in, then back.
    page.goto(f"{live_server.url}/games/{live_server.example_game}/audit")
    page.wait_for_url("**/signin?next=*")
    page.fill("#club", live_server.club)
    page.fill("#token", "not-the-token")
    page.locator("#signin button[type=submit]").click()
    expect(page.locator("#notice")).to_contain_text("do not match")
    page.fill("#token", live_server.token)
    page.locator("#signin button[type=submit]").click()
    page.wait_for_url(f"**/games/{live_server.example_game}/audit")
    expect(page.locator("#verdict")).to_contain_text("Every check passes")

    stored = page.evaluate("localStorage.getItem('nj-ledger.session')")
    assert live_server.token in stored
    assert all(live_server.token not in request.url for request in requests)
    api_calls = [r for r in requests if "/api/v1/" in r.url]
    assert all(r.headers.get("authorization", "").startswith("Bearer ") for r in api_calls)
    audit = [r for r in api_calls if r.url.endswith("/audit")]
    assert audit and audit[-1].headers["authorization"] == f"Bearer {live_server.token}"

    # found by its title: the club's other tests add newer games, which come first in the list
    page.goto(f"{live_server.url}/?title=dimanche")
    expect(page.locator("#club-title")).to_have_text(live_server.club_name)
    game = page.locator(f'li.game[data-game="{live_server.example_game}"]')
    expect(game).to_contain_text("Le Nain Jaune du dimanche chez Jeanne")
    expect(game.locator("a")).to_have_text(["Replay", "Audit"])  # a finished game is not scored any more
    screenshot(page, "home")

    page.locator("#signout").click()
    page.wait_for_url("**/signin")
    assert page.evaluate("localStorage.getItem('nj-ledger.session')") is None
    context.close()
    assert errors.errors == []


def test_pages_forbid_inline_scripts(browser: Browser, live_server: LiveServer) -> None:
    context = new_context(browser)
    page = context.new_page()
    response = page.goto(f"{live_server.url}/signin")
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    ran = page.evaluate("""() => {
        window.injected = false;
        const script = document.createElement('script');
        script.textContent = 'window.injected = true';
        document.body.append(script);
        return window.injected;
    }""")
    assert ran is False
    context.close()
