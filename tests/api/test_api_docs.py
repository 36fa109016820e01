"""The OpenAPI document, the docs page served locally, health and the security headers."""

from __future__ import annotations

import re
from pathlib import Path

import api

CDN_HOSTS = ("//cdn", "cdn.jsdelivr", "cdnjs.", "unpkg.com", "googleapis.com", "cloudflare.com")
EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.IGNORECASE)


def test_health_needs_no_token(client) -> None:
    answer = client.get("/api/v1/health")
    assert answer.status_code == 200 and answer.json == {"status": "ok"}


def test_the_openapi_document_lists_every_route_with_problem_errors(client) -> None:
    answer = client.get("/api/v1/openapi.json")
    assert answer.status_code == 200
    spec = answer.json
    assert spec["openapi"].startswith("3.") and spec["info"]["title"] == "Nain Jaune Ledger"
    assert set(spec["paths"]) == {
        "/api/v1/health", "/api/v1/ready", "/metrics", "/api/v1/clubs", "/api/v1/clubs/{club}",
        "/api/v1/clubs/{club}/tokens",
        "/api/v1/clubs/{club}/players", "/api/v1/clubs/{club}/players/look-alikes", "/api/v1/clubs/{club}/games",
        "/api/v1/clubs/{club}/imports",
        "/api/v1/games/{game}", "/api/v1/games/{game}/actions", "/api/v1/games/{game}/events",
        "/api/v1/games/{game}/deals/{number}/replay", "/api/v1/games/{game}/deals/{number}/analysis",
        "/api/v1/games/{game}/audit", "/api/v1/games/{game}/export",
        "/api/v1/clubs/{club}/scoreboard", "/api/v1/clubs/{club}/players/{player}/stats",
        "/api/v1/clubs/{club}/members/{member}/data", "/api/v1/clubs/{club}/archive",
        "/api/v1/clubs/{club}/members/{member}/erasure", "/api/v1/clubs/{club}/erasures",
        "/api/v1/clubs/{club}/seasons", "/api/v1/clubs/{club}/audit", "/api/v1/keys",
        "/api/v1/clubs/{club}/tokens/{token}", "/api/v1/clubs/{club}/tokens/{token}/rotate",
        "/api/v1/clubs/{club}/shares", "/api/v1/clubs/{club}/shares/{share}",
        "/api/v1/games/{game}/stream", "/api/v1/clubs/{club}/stream", "/api/v1/games/{game}/taps",
        "/api/v1/clubs/{club}/evenings", "/api/v1/clubs/{club}/evenings/{evening}",
        "/api/v1/clubs/{club}/evenings/{evening}/grid", "/api/v1/clubs/{club}/evenings/{evening}/ranking",
        "/api/v1/clubs/{club}/evenings/{evening}/leaderboard", "/api/v1/clubs/{club}/evenings/{evening}/rounds",
        "/api/v1/clubs/{club}/evenings/{evening}/decisions",
        "/api/v1/clubs/{club}/evenings/{evening}/confirmations", "/api/v1/clubs/{club}/evenings/{evening}/close",
        "/api/v1/clubs/{club}/evenings/{evening}/tables/{table}/links", "/api/v1/tables/{code}",
        "/api/v1/clubs/{club}/evenings/{evening}/screen", "/api/v1/clubs/{club}/evenings/{evening}/screen/links",
        "/api/v1/tables/{code}/confirmations", "/api/v1/tables/{code}/stream", "/api/v1/tables/{code}/join",
        "/api/v1/clubs/{club}/seasons/{season}/ladder",
        "/api/v1/clubs/{club}/players/{player}/evenings", "/api/v1/clubs/{club}/evenings/{evening}/stream",
        "/api/v1/clubs/{club}/seasons/{season}", "/api/v1/clubs/{club}/phones",
        "/api/v1/clubs/{club}/phones/{phone}", "/api/v1/signin",
        "/api/v1/clubs/{club}/evenings/{evening}/receipt", "/api/v1/clubs/{club}/evenings/{evening}/audit",
    }
    bearer = spec["components"]["securitySchemes"]["bearerAuth"]
    assert (bearer["type"], bearer["scheme"]) == ("http", "bearer") and "share" in bearer["description"]
    assert {"type", "title", "status", "detail", "code"} <= set(spec["components"]["schemas"]["Problem"]["properties"])
    assert spec["paths"]["/api/v1/games/{game}/actions"]["post"]["responses"]["201"]


def test_the_docs_page_loads_nothing_from_elsewhere(client) -> None:
    page = client.get("/api/v1/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert not EXTERNAL.search(html)
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(assets) == 6  # stylesheet, icon, two bundles, the starter script, the OpenAPI link
    for asset in assets:
        served = client.get(asset)
        assert served.status_code == 200, asset
        served.close()
    assert client.get("/api/v1/docs/assets/index.html").status_code == 404


def test_responses_carry_security_headers_and_no_cors(client, club) -> None:
    for answer in (client.get("/api/v1/health"), client.get(f"/api/v1/clubs/{club.id}", headers=club.auth),
                   client.get("/api/v1/missing", headers={"Origin": "https://elsewhere.example"})):
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
        assert "Access-Control-Allow-Origin" not in answer.headers


def test_no_page_or_script_of_the_app_names_a_cdn() -> None:
    folder = Path(api.__file__).parent
    for path in folder.rglob("*"):
        if path.suffix in {".py", ".html", ".js", ".css"}:
            text = path.read_text(encoding="utf-8").lower()
            assert not any(host in text for host in CDN_HOSTS), path
