"""The installable web app: its manifest, its service worker and what the worker keeps for use offline."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .conftest import Table

STATIC = Path(__file__).resolve().parents[2] / "api" / "static"


def test_every_page_names_the_manifest_and_allows_the_worker(table: Table) -> None:
    for path in ("/", "/signin", f"/games/{table.game}/record", f"/games/{table.game}/replay"):
        response = table.client.get(path)
        body = response.get_data(as_text=True)
        assert '<link rel="manifest" href="/manifest.webmanifest">' in body, path
        policy = response.headers["Content-Security-Policy"]
        assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy, path


def test_the_manifest_names_icons_that_exist(table: Table) -> None:
    response = table.client.get("/manifest.webmanifest")
    assert response.mimetype == "application/manifest+json"
    manifest = json.loads(response.get_data(as_text=True))
    assert manifest["scope"] == "/" and manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512", "any"}
    for icon in manifest["icons"]:
        assert table.client.get(icon["src"]).status_code == 200, icon


def test_the_worker_keeps_every_asset_and_changes_with_them(table: Table) -> None:
    response = table.client.get("/sw.js")
    assert response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    # its own policy: it may fetch from this server (default-src 'none' would forbid its every fetch)
    assert "connect-src 'self'" in response.headers["Content-Security-Policy"]
    text = response.get_data(as_text=True)
    version = re.search(r'^const VERSION = "([0-9a-f]{16})";$', text, re.M)
    assets = json.loads(re.search(r"^const ASSETS = (\[.*\]);$", text, re.M).group(1))  # type: ignore[union-attr]
    assert version is not None
    on_disk = {f"/static/{folder}/{path.name}" for folder in ("pages", "icons")
               for path in (STATIC / folder).iterdir() if path.suffix in {".js", ".css", ".svg", ".png"}}
    assert on_disk <= set(assets) and "/manifest.webmanifest" in assets
    for asset in assets:
        assert table.client.get(asset).status_code == 200, asset
