"""Who is believed about the client: the proxies ``NJ_LEDGER_PROXIES`` names, and only they (api/proxies.py).

The real proxy (Caddy) in front of a real server is tests/deploy/test_deploy.py's; here, the app's side of it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from flask import Flask, request

from api.proxies import AddressSettingError, trusted_proxies
from nj_ledger.store import Store
from support.apps import new_app
from support.http import Calls

HSTS = "Strict-Transport-Security"


def app_behind(store: Store, proxies: object, limit: str = "3/minute") -> Flask:
    app = new_app(store, AUTH_FAILURE_LIMIT=limit, PROXIES=proxies)

    @app.get("/seen-by-the-app")
    def seen() -> dict[str, object]:  # what the app takes for the client
        return {"address": request.remote_addr, "scheme": request.scheme, "url": request.host_url}

    return app


def seen(app: Flask, peer: str, **headers: str) -> dict[str, object]:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = peer
    answer = client.get("/seen-by-the-app", headers={name.replace("_", "-"): value for name, value in headers.items()})
    return dict(answer.get_json())


def test_the_setting_names_addresses_networks_or_a_number_of_hops() -> None:
    assert trusted_proxies(None) == trusted_proxies("") == trusted_proxies("0") == trusted_proxies(0) == 0
    assert trusted_proxies("2") == trusted_proxies(2) == 2
    assert [str(n) for n in trusted_proxies(" 127.0.0.1 ,::1,10.0.0.0/8")] == ["127.0.0.1/32", "::1/128", "10.0.0.0/8"]
    for wrong in ("club.example.org", "127.0.0.1;::1", "-1", "10.0.0.0/33"):
        with pytest.raises(AddressSettingError, match="NJ_LEDGER_PROXIES"):
            trusted_proxies(wrong)


def test_only_a_trusted_proxy_is_believed_and_only_for_the_hops_it_added(store: Store) -> None:
    app = app_behind(store, "127.0.0.1,::1,10.1.0.0/16")
    # through the proxy: the address it appended, the scheme it was reached by
    assert seen(app, "127.0.0.1", X_Forwarded_For="198.51.100.7", X_Forwarded_Proto="https") == {
        "address": "198.51.100.7", "scheme": "https", "url": "https://localhost/"}
    # a client that wrote its own X-Forwarded-For before reaching the proxy: the proxy's entry wins
    assert seen(app, "::1", X_Forwarded_For="203.0.113.9, 198.51.100.7")["address"] == "198.51.100.7"
    # two trusted proxies in a row: the first untrusted address from the right
    assert seen(app, "127.0.0.1", X_Forwarded_For="198.51.100.7, 10.1.2.3")["address"] == "198.51.100.7"
    # an IPv4 proxy seen on a server listening on both
    assert seen(app, "::ffff:127.0.0.1", X_Forwarded_For="198.51.100.8")["address"] == "198.51.100.8"
    # a hop that is no address stops the walk: nothing to its left is believed
    assert seen(app, "127.0.0.1", X_Forwarded_For="198.51.100.7, garbage")["address"] == "127.0.0.1"
    # anyone else is not a proxy: its headers are the client's words, not believed
    assert seen(app, "192.0.2.50", X_Forwarded_For="127.0.0.1", X_Forwarded_Proto="https") == {
        "address": "192.0.2.50", "scheme": "http", "url": "http://localhost/"}
    assert seen(app, "127.0.0.1", X_Forwarded_Proto="gopher")["scheme"] == "http"


def test_wrong_tokens_are_counted_per_client_behind_the_proxy_not_for_the_proxy(store: Store) -> None:
    app = app_behind(store, "127.0.0.1")
    club = Calls(app.test_client()).club()

    def status(peer: str, forwarded: str | None) -> int:
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = peer
        headers = {"Authorization": "Bearer wrong", **({"X-Forwarded-For": forwarded} if forwarded else {})}
        return client.get(f"/api/v1/clubs/{club.id}", headers=headers).status_code

    assert [status("127.0.0.1", "198.51.100.7") for _ in range(4)] == [401, 401, 401, 429]
    assert status("127.0.0.1", "198.51.100.8") == 401  # another client through the same proxy
    # a client reaching the server directly cannot escape its count by naming another address
    assert [status("192.0.2.50", f"203.0.113.{n}") for n in range(4)] == [401, 401, 401, 429]


def test_answers_carry_hsts_only_to_requests_made_over_https(store: Store) -> None:
    app = app_behind(store, "127.0.0.1")
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    for path in ("/api/v1/health", "/signin", "/api/v1/clubs/nope"):
        secure = client.get(path, headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"})
        assert secure.headers[HSTS] == "max-age=31536000", path
        assert HSTS not in client.get(path).headers
    direct = app.test_client()
    direct.environ_base["REMOTE_ADDR"] = "192.0.2.50"  # not a proxy: its word for the scheme is not taken
    assert HSTS not in direct.get("/api/v1/health", headers={"X-Forwarded-Proto": "https"}).headers
    assert app.test_client().get("/api/v1/health", base_url="https://club.test").headers[HSTS]


def test_a_number_of_hops_still_reads_the_last_proxies(store: Store) -> None:
    app = app_behind(store, 1)
    assert seen(app, "10.0.0.1", X_Forwarded_For="203.0.113.9, 198.51.100.7", X_Forwarded_Proto="https") == {
        "address": "198.51.100.7", "scheme": "https", "url": "https://localhost/"}


def test_a_setting_that_names_no_proxy_stops_the_server_with_a_sentence(store: Store) -> None:
    with pytest.raises(AddressSettingError):
        new_app(store, PROXIES="club.example.org")
    started = subprocess.run([sys.executable, "-m", "cli", "serve", "--port", "1"], capture_output=True, text=True,
                             env={"NJ_LEDGER_PROXIES": "localhost", "PATH": "/usr/bin:/bin",
                                  "NJ_LEDGER_DATABASE_URL": store.db.url}, timeout=60)
    assert started.returncode != 0 and "'localhost' is not an address or a network" in started.stderr
    assert "Traceback" not in started.stderr
