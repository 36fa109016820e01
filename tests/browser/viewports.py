"""Pages opened at a given screen size and language, signed in, with their script errors collected."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, Page, ViewportSize

from .conftest import PageErrors, sign_in
from .server import LiveServer

PHONE: ViewportSize = {"width": 390, "height": 844}
LAPTOP: ViewportSize = {"width": 1366, "height": 768}
LOCALES = {"en": "en-GB", "fr": "fr-FR"}


@contextmanager
def opened(browser: Browser, server: LiveServer, language: str, viewport: ViewportSize = PHONE,
           signed_in: bool = True, downloads: bool = False) -> Iterator[Page]:
    """A page in ``language`` ("en" or "fr") at ``viewport`` (a phone's by default); no script error may occur."""
    phone = viewport["width"] < 600
    context = browser.new_context(locale=LOCALES[language], viewport=viewport, has_touch=phone, is_mobile=phone,
                                  accept_downloads=downloads)
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        errors = PageErrors(page)
        if signed_in:
            sign_in(page, server)
        yield page
        assert errors.errors == []
    finally:
        context.close()
