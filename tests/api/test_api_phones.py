"""A phone signed in by a QR code (``POST /clubs/{club}/phones``), the address phones open (``PUBLIC_URL``), and the
routes of HTTPS on a room's network: the installation page, the authority's file, the plain-HTTP port's redirect."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask

from support.http import Calls, Club, assert_problem

LAN = "http://192.0.2.2:5000"  # the address phones open, as `serve --lan` sets it


@pytest.fixture
def on_lan(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setitem(app.config, "PUBLIC_URL", f"{LAN}/")
    yield app


def phone(calls: Calls, club: Club, body: object = None, **headers: str):  # type: ignore[no-untyped-def]
    return calls.client.post(f"/api/v1/clubs/{club.id}/phones", json={} if body is None else body,
                             headers={**club.auth, **headers})


def test_a_phone_gets_a_token_of_its_own_in_a_link_at_the_address_phones_open(
        on_lan: Flask, calls: Calls, club: Club) -> None:
    answer = phone(calls, club, {"label": "Ana's phone"})
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    made = answer.get_json()
    assert made["role"] == "scorer" and made["label"] == "Ana's phone"
    link = urlsplit(made["url"])
    assert f"{link.scheme}://{link.netloc}" == LAN and link.path == "/signin" and not link.query
    assert parse_qs(link.fragment) == {"club": [club.id], "token": [made["token"]]}  # never sent to a server
    assert made["qr_svg"].startswith("<svg") and made["certificate_url"] is None
    signed_in = calls.client.get(f"/api/v1/clubs/{club.id}", headers={"Authorization": f"Bearer {made['token']}"})
    assert signed_in.status_code == 200
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/tokens", headers=club.auth).get_json()["tokens"]
    assert {"id": made["id"], "label": "Ana's phone", "role": "scorer"}.items() <= listed[-1].items()
    revoked = calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/{made['id']}", headers=club.auth)
    assert revoked.status_code == 204
    assert calls.client.get(f"/api/v1/clubs/{club.id}",
                            headers={"Authorization": f"Bearer {made['token']}"}).status_code == 401


def test_a_viewer_phone_and_the_default_label(on_lan: Flask, calls: Calls, club: Club) -> None:
    made = phone(calls, club, {"role": "viewer"}).get_json()
    assert (made["role"], made["label"]) == ("viewer", "phone (QR code)")
    viewer = Club(club.id, made["token"])
    assert_problem(phone(calls, viewer), 403, "forbidden")  # a viewer makes no token
    assert_problem(phone(calls, club, {"role": "admin"}), 422, "invalid-request")
    assert_problem(phone(calls, club, {"label": "x" * 121}), 422, "invalid-request")


def test_another_clubs_phone_link_is_not_found(on_lan: Flask, calls: Calls, club: Club) -> None:
    other = calls.club("Autre club")
    assert_problem(phone(calls, Club(club.id, other.token)), 404, "not-found")
    assert_problem(calls.client.post(f"/api/v1/clubs/{club.id}/phones", json={}), 401, "unauthorized")


def test_a_server_on_its_own_loopback_has_no_address_for_phones_and_says_so(calls: Calls, club: Club) -> None:
    english = assert_problem(phone(calls, club), 409, "no-phone-address")  # the test client asks http://localhost
    assert english["detail"] == ("This server listens on this machine only (localhost): no phone reaches it. Start "
                                 "it with `nj-ledger serve --lan` so that phones on this network do.")
    french = assert_problem(phone(calls, club, **{"Accept-Language": "fr"}), 409, "no-phone-address")
    assert french["title"] == "Aucune adresse que les téléphones atteignent"
    assert french["detail"].startswith("Ce serveur n’écoute que sur cette machine (localhost)\u00a0:")
    tokens = calls.client.get(f"/api/v1/clubs/{club.id}/tokens", headers=club.auth).get_json()["tokens"]
    assert len(tokens) == 1  # no token made for nothing


def test_behind_a_proxy_the_address_is_the_one_the_request_came_to(calls: Calls, club: Club) -> None:
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/phones", json={}, headers=club.auth,
                               base_url="https://club.example.org")
    assert answer.status_code == 201
    assert answer.get_json()["url"].startswith("https://club.example.org/signin#club=")


def test_a_tables_link_uses_the_address_phones_open(on_lan: Flask, calls: Calls, club: Club) -> None:
    body = {"name": "Jeudi", "date": "2026-11-26", "rounds": 1, "starting_chips": 60,
            "players": ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo"]}
    evening = calls.client.post(f"/api/v1/clubs/{club.id}/evenings", json=body, headers=club.auth)
    assert evening.status_code == 201, evening.get_json()
    assert all(link["url"].startswith(f"{LAN}/tables/") for link in evening.get_json()["links"])


def test_the_home_page_shows_the_address_phones_open_or_why_there_is_none(on_lan: Flask, calls: Calls) -> None:
    page = calls.client.get("/").get_data(as_text=True)
    assert f'id="phones-address" class="address" href="{LAN}/">{LAN}/</a>' in page
    on_lan.config["PUBLIC_URL"] = None
    alone = calls.client.get("/").get_data(as_text=True)
    assert 'id="phone-form"' not in alone and "<code>nj-ledger serve --lan</code>" in alone


def test_plain_http_pages_carry_the_notice_and_the_installation_page_says_how_to_get_https(calls: Calls) -> None:
    page = calls.client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert 'id="insecure" class="insecure" hidden' in page and 'href="/certificate"' in page
    assert "Sans HTTPS, cette page ne peut pas se recharger sans réseau." in page
    install = calls.client.get("/certificate")
    assert install.status_code == 200 and 'id="insecure"' not in install.get_data(as_text=True)
    assert "<code>nj-ledger serve --lan --https</code>" in install.get_data(as_text=True)
    assert_problem(calls.client.get("/certificate.crt"), 404, "not-found")


def authority_file(folder: Path) -> Path:
    from cli.lan_addresses import host_names, lan_addresses
    from cli.lan_tls import prepare

    return prepare(folder, lan_addresses()[:1], host_names()).authority


def test_with_https_the_page_and_file_give_the_authority_and_the_plain_port_sends_the_rest_to_https(
        on_lan: Flask, calls: Calls, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    authority = authority_file(tmp_path / "lan")
    for key, value in {"LAN_AUTHORITY": str(authority), "LAN_INSTALL_URL": f"{LAN}/certificate",
                       "PUBLIC_URL": "https://192.0.2.2:5443/", "LAN_REDIRECT": True}.items():
        monkeypatch.setitem(on_lan.config, key, value)
    lan = {"base_url": LAN}
    crt = calls.client.get("/certificate.crt", **lan)
    assert crt.status_code == 200 and crt.mimetype == "application/x-x509-ca-cert"
    assert crt.get_data() == authority.read_bytes()
    assert 'filename="nain-jaune-ledger.crt"' in crt.headers["Content-Disposition"]
    page = calls.client.get("/certificate", headers={"Accept-Language": "fr"}, **lan).get_data(as_text=True)
    from api.lan import fingerprint

    assert fingerprint(authority.read_bytes()) in page and 'href="https://192.0.2.2:5443/"' in page
    assert "Réglages de confiance des certificats" in page and "Certificat CA" in page
    assert calls.client.get("/static/pages/style.css", **lan).status_code == 200
    moved = calls.client.get("/games/new?title=x", **lan)
    assert (moved.status_code, moved.headers["Location"]) == (308, "https://192.0.2.2:5443/games/new?title=x")
    assert calls.client.get("/api/v1/health", **lan).status_code == 308
    assert calls.client.get("/", base_url="http://localhost:5000").status_code == 200  # the laptop itself
    if shutil.which("openssl"):
        shown = subprocess.run(["openssl", "x509", "-noout", "-subject"], input=crt.get_data(), capture_output=True,
                               check=True).stdout.decode()
        assert "Nain Jaune Ledger, local network" in shown


def test_https_on_a_rooms_network_sends_no_hsts(on_lan: Flask, calls: Calls, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "Strict-Transport-Security" in calls.client.get("/", base_url="https://club.example.org").headers
    monkeypatch.setitem(on_lan.config, "HSTS", False)  # `serve --lan` sets it
    assert "Strict-Transport-Security" not in calls.client.get("/", base_url="https://192.0.2.2:5443").headers
