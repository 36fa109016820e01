"""Render the web app's PNG icons from ``api/static/icons/icon.svg`` (the header's 7♦ badge).

    python scripts/render_icons.py

Chromium (Playwright, ``/usr/bin/chromium`` or ``NJ_LEDGER_CHROMIUM``) draws the SVG at each size; the PNGs are
kept in the repository, so serving the pages needs no browser. Run it again after changing the SVG.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "api" / "static" / "icons"
SIZES = (192, 512)


def main() -> None:
    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    chromium = os.environ.get("NJ_LEDGER_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        for size in SIZES:
            page = browser.new_page(viewport={"width": size, "height": size})
            image = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
            page.set_content(f"<html><body style='margin:0;background:transparent'>"
                             f"<img src='{image}' style='display:block;width:{size}px;height:{size}px'></body></html>")
            page.screenshot(path=str(ICONS / f"icon-{size}.png"), omit_background=True,
                            clip={"x": 0, "y": 0, "width": size, "height": size})
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
