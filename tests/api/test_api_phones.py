"""A phone signed in by a QR code: a one-time code (``POST /clubs/{club}/phones``) exchanged for the phone's own
token (``POST /signin``); the address phones open (``PUBLIC_URL``), and the routes of HTTPS on a room's network:
the installation page, the authority's file, the fingerprint on the organiser's screen, the plain-HTTP port's
redirect."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask

from api.authority import fingerprint
from nj_ledger.store import Store
from support.apps import new_app
from support.http import Calls, Club, assert_problem

LAN = "http://192.0.2.2:5000"  # the address phones open, as `serve --lan` sets it
FRENCH = {"Accept-Language": "fr"}


@pytest.fixture
def on_lan(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setitem(app.config, "PUBLIC_URL", f"{LAN}/")
    yield app


def phone(calls: Calls, club: Club, body: object = None, **headers: str):  # type: ignore[no-untyped-def]
    return calls.client.post(f"/api/v1/clubs/{club.id}/phones", json={} if body is None else body,
                             headers={**club.auth, **headers})


def sign_in(calls: Calls, code: str, **headers: str):  # type: ignore[no-untyped-def]
    """What the sign-in page sends: the code in the body, and no token."""
    return calls.client.post("/api/v1/signin", json={"code": code}, headers=headers)


def code_of(made: dict[str, str]) -> str:
    return parse_qs(urlsplit(made["url"]).fragment)["code"][0]


def test_a_phone_gets_a_one_time_code_in_a_link_then_a_token_of_its_own_for_it(
        on_lan: Flask, calls: Calls, club: Club) -> None:
    tokens = len(calls.client.get(f"/api/v1/clubs/{club.id}/tokens", headers=club.auth).get_json()["tokens"])
    answer = phone(calls, club, {"label": "Ana's phone"})
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    made = answer.get_json()
    assert "token" not in made and (made["role"], made["label"], made["status"]) == ("scorer", "Ana's phone", "waiting")
    lasts = datetime.fromisoformat(made["expires_at"]) - datetime.fromisoformat(made["created_at"])
    assert lasts == timedelta(minutes=2) and made["used_at"] is None and made["token_id"] is None
    link = urlsplit(made["url"])
    assert f"{link.scheme}://{link.netloc}" == LAN and link.path == "/signin" and not link.query
    given = parse_qs(link.fragment)  # never sent to a server
    assert given["club"] == [club.id] and given["name"] == ["Le Nain du Jeudi"] and len(given["code"][0]) >= 22
    assert made["qr_svg"].startswith("<svg") and made["certificate_url"] is None
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/tokens", headers=club.auth).get_json()["tokens"]
    assert len(listed) == tokens  # the code is no token: a photograph of it reaches nothing

    signed = sign_in(calls, code_of(made))
    assert signed.status_code == 201, signed.get_json()
    assert signed.headers["Cache-Control"] == "no-store"
    mine = signed.get_json()
    assert (mine["club"], mine["name"], mine["role"], mine["label"]) == (club.id, "Le Nain du Jeudi", "scorer",
                                                                         "Ana's phone")
    own = {"Authorization": f"Bearer {mine['token']}"}
    assert calls.client.get(f"/api/v1/clubs/{club.id}", headers=own).status_code == 200
    used = calls.client.get(f"/api/v1/clubs/{club.id}/phones/{made['id']}", headers=club.auth).get_json()
    assert used["status"] == "used" and used["token_id"] == mine["id"] and used["used_at"]
    listed = calls.client.get(f"/api/v1/clubs/{club.id}/tokens", headers=club.auth).get_json()["tokens"]
    assert {"id": mine["id"], "label": "Ana's phone", "role": "scorer"}.items() <= listed[-1].items()
    revoked = calls.client.delete(f"/api/v1/clubs/{club.id}/tokens/{mine['id']}", headers=club.auth)
    assert revoked.status_code == 204  # an ordinary token: revoked like any other
    assert calls.client.get(f"/api/v1/clubs/{club.id}", headers=own).status_code == 401


def test_a_code_signs_one_phone_in_once_and_is_refused_after_in_english_and_french(
        on_lan: Flask, calls: Calls, club: Club, store: Store) -> None:
    made = phone(calls, club).get_json()
    assert sign_in(calls, code_of(made)).status_code == 201
    used = assert_problem(sign_in(calls, code_of(made)), 410, "sign-in-code-used")
    assert used["detail"] == ("This sign-in code was already used: each code signs one phone in. Scan the new code "
                              "on the organiser's screen.")
    french = assert_problem(sign_in(calls, code_of(made), **FRENCH), 410, "sign-in-code-used")
    assert french["title"] == "Code de connexion déjà utilisé"
    assert french["detail"].startswith("Ce code de connexion a déjà servi\u00a0: chaque code connecte un seul")

    late = store.phones.create_sign_in_code(club.id, life=timedelta(seconds=-1))
    expired = assert_problem(sign_in(calls, late.secret), 410, "sign-in-code-expired")
    assert "has expired (a code lasts two minutes)" in expired["detail"]
    assert assert_problem(sign_in(calls, late.secret, **FRENCH), 410)["detail"].startswith(
        "Ce code de connexion a expiré (un code dure deux minutes)\u00a0:")
    unknown = assert_problem(sign_in(calls, "not-a-code-of-this-ledger"), 404, "sign-in-code-unknown")
    assert unknown["detail"].startswith("This sign-in code is not one this ledger made:")
    assert assert_problem(sign_in(calls, "nope", **FRENCH), 404)["title"] == "Code de connexion inconnu"
    assert_problem(calls.client.post("/api/v1/signin", json={}), 422, "invalid-request")
    assert_problem(calls.client.post("/api/v1/signin", json={"code": ""}), 422, "invalid-request")
    assert_problem(calls.client.post("/api/v1/signin", data="x", content_type="text/plain"), 415)


def test_done_ends_the_code_on_the_screen_at_once(on_lan: Flask, calls: Calls, club: Club) -> None:
    made = phone(calls, club).get_json()
    ended = calls.client.delete(f"/api/v1/clubs/{club.id}/phones/{made['id']}", headers=club.auth)
    assert ended.status_code == 204
    assert calls.client.get(f"/api/v1/clubs/{club.id}/phones/{made['id']}",
                            headers=club.auth).get_json()["status"] == "expired"
    assert_problem(sign_in(calls, code_of(made)), 410, "sign-in-code-expired")


def test_wrong_codes_count_toward_the_wrong_token_limit_of_the_address(store: Store, club: Club) -> None:
    app = new_app(store, AUTH_FAILURE_LIMIT="3/minute", PUBLIC_URL=f"{LAN}/")
    client = app.test_client()
    guesser = {"environ_base": {"REMOTE_ADDR": "192.0.2.66"}}
    made = client.post(f"/api/v1/clubs/{club.id}/phones", json={}, headers=club.auth).get_json()
    for guess in range(3):
        assert_problem(client.post("/api/v1/signin", json={"code": f"guess-{guess}"}, **guesser), 404)
    limited = assert_problem(client.post("/api/v1/signin", json={"code": code_of(made)}, **guesser), 429,
                             "too-many-requests")
    assert limited["detail"].startswith("Too many requests with a wrong token came from this address")
    assert assert_problem(client.get(f"/api/v1/clubs/{club.id}", headers=club.auth, **guesser), 429)
    assert client.post("/api/v1/signin", json={"code": code_of(made)}).status_code == 201  # another address
    used = client.post("/api/v1/signin", json={"code": code_of(made)},
                       environ_base={"REMOTE_ADDR": "192.0.2.67"})
    assert_problem(used, 410, "sign-in-code-used")  # a code used or expired is no guess: not counted
    assert client.get(f"/api/v1/clubs/{club.id}", headers=club.auth,
                      environ_base={"REMOTE_ADDR": "192.0.2.67"}).status_code == 200


def test_a_viewer_code_the_default_label_and_who_may_make_or_read_codes(
        on_lan: Flask, calls: Calls, club: Club) -> None:
    made = phone(calls, club, {"role": "viewer"}).get_json()
    viewer = sign_in(calls, code_of(made)).get_json()
    assert (viewer["role"], viewer["label"]) == ("viewer", "phone (QR code)")
    reader = Club(club.id, viewer["token"])
    assert_problem(phone(calls, reader), 403, "forbidden")  # a viewer makes no code
    assert calls.client.get(f"/api/v1/clubs/{club.id}/phones/{made['id']}", headers=reader.auth).status_code == 200
    assert_problem(calls.client.delete(f"/api/v1/clubs/{club.id}/phones/{made['id']}", headers=reader.auth), 403)
    assert_problem(phone(calls, club, {"role": "admin"}), 422, "invalid-request")
    assert_problem(phone(calls, club, {"label": "x" * 121}), 422, "invalid-request")


def test_another_clubs_codes_are_not_found(on_lan: Flask, calls: Calls, club: Club) -> None:
    other = calls.club("Autre club")
    made = phone(calls, club).get_json()
    assert_problem(phone(calls, Club(club.id, other.token)), 404, "not-found")
    for method in ("get", "delete"):
        answer = getattr(calls.client, method)(f"/api/v1/clubs/{other.id}/phones/{made['id']}", headers=other.auth)
        assert_problem(answer, 404, "not-found")
    assert_problem(calls.client.post(f"/api/v1/clubs/{club.id}/phones", json={}), 401, "unauthorized")
    assert_problem(calls.client.get(f"/api/v1/clubs/{club.id}/phones/{made['id']}"), 401, "unauthorized")


def test_a_server_on_its_own_loopback_has_no_address_for_phones_and_says_so(calls: Calls, club: Club) -> None:
    english = assert_problem(phone(calls, club), 409, "no-phone-address")  # the test client asks http://localhost
    assert english["detail"] == ("This server listens on this machine only (localhost): no phone reaches it. Start "
                                 "it with `nj-ledger serve --lan` so that phones on this network do.")
    french = assert_problem(phone(calls, club, **FRENCH), 409, "no-phone-address")
    assert french["title"] == "Aucune adresse que les téléphones atteignent"
    assert french["detail"].startswith("Ce serveur n'écoute que sur cette machine (localhost)\u00a0:")


def test_behind_a_proxy_the_address_is_the_one_the_request_came_to(calls: Calls, club: Club) -> None:
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/phones", json={}, headers=club.auth,
                               base_url="https://club.example.org")
    assert answer.status_code == 201
    assert answer.get_json()["url"].startswith(f"https://club.example.org/signin#club={club.id}&name=")


def test_a_tables_link_uses_the_address_phones_open(on_lan: Flask, calls: Calls, club: Club) -> None:
    body = {"name": "Jeudi", "date": "2026-11-26", "rounds": 1, "starting_chips": 60,
            "players": ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo"]}
    evening = calls.client.post(f"/api/v1/clubs/{club.id}/evenings", json=body, headers=club.auth)
    assert evening.status_code == 201, evening.get_json()
    assert all(link["url"].startswith(f"{LAN}/tables/") for link in evening.get_json()["links"])


def test_the_home_page_shows_the_address_phones_open_or_why_there_is_none(on_lan: Flask, calls: Calls) -> None:
    page = calls.client.get("/").get_data(as_text=True)
    assert f'id="phones-address" class="address" href="{LAN}/">{LAN}/</a>' in page
    assert 'id="authority-fingerprint"' not in page  # no HTTPS: no certificate to check
    on_lan.config["PUBLIC_URL"] = None
    alone = calls.client.get("/").get_data(as_text=True)
    assert 'id="phone-form"' not in alone and "<code>nj-ledger serve --lan</code>" in alone


def test_plain_http_pages_carry_the_notice_and_the_installation_page_says_how_to_get_https(calls: Calls) -> None:
    page = calls.client.get("/", headers=FRENCH).get_data(as_text=True)
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


@pytest.fixture
def https(on_lan: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The settings of `serve --lan --https` (on the plain-HTTP port's server); the authority's file."""
    authority = authority_file(tmp_path / "lan")
    for key, value in {"LAN_AUTHORITY": str(authority), "LAN_INSTALL_URL": f"{LAN}/certificate",
                       "PUBLIC_URL": "https://192.0.2.2:5443/", "LAN_REDIRECT": True}.items():
        monkeypatch.setitem(on_lan.config, key, value)
    return authority


def test_with_https_the_page_and_file_give_the_authority_and_the_plain_port_sends_the_rest_to_https(
        https: Path, calls: Calls) -> None:
    lan = {"base_url": LAN}
    crt = calls.client.get("/certificate.crt", **lan)
    assert crt.status_code == 200 and crt.mimetype == "application/x-x509-ca-cert"
    assert crt.get_data() == https.read_bytes()
    assert 'filename="nain-jaune-ledger.crt"' in crt.headers["Content-Disposition"]
    page = calls.client.get("/certificate", headers=FRENCH, **lan).get_data(as_text=True)
    assert 'href="https://192.0.2.2:5443/"' in page
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


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_fingerprint_is_on_the_organisers_screen_and_the_installation_page_sends_phones_there(
        https: Path, calls: Calls, language: str) -> None:
    shown = fingerprint(https.read_bytes())
    said = {"Accept-Language": language}
    install = calls.client.get("/certificate", headers=said, base_url=LAN).get_data(as_text=True)
    assert shown not in install and 'id="fingerprint"' not in install  # a page anyone could forge proves nothing
    steps = {"en": ["compare it, pair by pair, with the fingerprint on the organiser's screen",
                    "Under Fingerprints, SHA-256 must be the one on the organiser's screen",
                    "Trusted credentials › User", "its “SHA-256 fingerprint” must be the one"],
             "fr": ["comparez-la, paire par paire, avec l'empreinte affichée sur l'écran de l'organisateur",
                    "Sous Empreintes, SHA-256 doit être celle de l'écran de l'organisateur",
                    "Identifiants de confiance › Utilisateur", "SHA-256\u00a0» doit être celle"]}[language]
    for step in steps:
        assert step in install or step.replace("'", "&#39;") in install, step
    laptop = calls.client.get("/", headers=said, base_url="http://localhost:5000").get_data(as_text=True)
    assert f'<code id="authority-fingerprint" class="fingerprint">{shown}</code>' in laptop
    phones = calls.client.get("/", headers=said, base_url="https://192.0.2.2:5443").get_data(as_text=True)
    assert shown not in phones and 'id="authority-fingerprint"' not in phones  # only the organiser's own screen


def test_with_https_a_code_carries_the_installation_pages_code_too(https: Path, calls: Calls, club: Club) -> None:
    made = phone(calls, club, base_url="http://localhost:5000").get_json()
    assert made["url"].startswith("https://192.0.2.2:5443/signin#")
    assert made["certificate_url"] == f"{LAN}/certificate" and made["certificate_qr_svg"].startswith("<svg")


def test_https_on_a_rooms_network_sends_no_hsts(on_lan: Flask, calls: Calls, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "Strict-Transport-Security" in calls.client.get("/", base_url="https://club.example.org").headers
    monkeypatch.setitem(on_lan.config, "HSTS", False)  # `serve --lan` sets it
    assert "Strict-Transport-Security" not in calls.client.get("/", base_url="https://192.0.2.2:5443").headers


def test_the_openapi_document_shows_the_sign_in_open_and_the_code_in_a_body(calls: Calls) -> None:
    spec = calls.client.get("/api/v1/openapi.json").get_json()
    signin = spec["paths"]["/api/v1/signin"]["post"]
    assert signin["security"] == [] and {"201", "404", "410", "429"} <= set(signin["responses"])
    body = signin["requestBody"]["content"]["application/json"]["schema"]
    assert body["$ref"].endswith("/SignIn") and "code" in spec["components"]["schemas"]["SignIn"]["required"]
    assert not any(p["in"] == "query" for p in signin.get("parameters", []))
    made = spec["paths"]["/api/v1/clubs/{club}/phones"]["post"]["responses"]["201"]
    schema = made["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "token" not in spec["components"]["schemas"][schema]["properties"]
    assert {"get", "delete"} <= set(spec["paths"]["/api/v1/clubs/{club}/phones/{phone}"])
