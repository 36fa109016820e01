"""Phones on a club room's network (``nj-ledger serve --lan``, docs/DEPLOY.md "In a club room: the local network").

- ``POST /api/v1/clubs/{club}/phones``: signs a phone in with nothing to type. It makes a token for the phone (a
  club token like any other: labelled, listed, revoked at ``/clubs/{club}/tokens``) and answers the link that
  signs in with it, ``<address phones open>/signin#club=…&token=…``, and its QR code, which the home page shows:
  the phone's camera opens it. The token rides in the fragment, which a browser never sends to a server: it
  reaches no access log, no proxy and no Referer (as a share's secret: docs/SHARES.md).
- ``GET /certificate``: the page that installs the club's certificate authority on a phone, step by step for
  Android and iPhone, and ``GET /certificate.crt``, the authority itself (``cli.lan_tls``). Without HTTPS, the
  page says how to turn it on.
- On the plain-HTTP port of ``serve --lan --https`` (``LAN_REDIRECT``), every other page is sent to HTTPS, so a
  phone's pages, its outbox and its session live at one address. The installation page, its assets and the
  authority stay on plain HTTP (a phone that does not trust the authority yet meets a warning on every HTTPS
  page), and so does the machine's own loopback (``http://localhost`` is a secure page already).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from flask import Blueprint as PageBlueprint
from flask import Flask, Response, current_app, g, redirect, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from nj_ledger.store import ROLES, iso

from .addresses import is_loopback_host, public_base, qr_svg, qr_uri
from .auth import own_club, writer
from .context import store
from .i18n import N_
from .pages import render_page
from .problems import Problem

blp = Blueprint("phones", __name__, url_prefix="/api/v1", description="Signing a phone in with a QR code.")
pages = PageBlueprint("lan", __name__)

NO_STORE = {"Cache-Control": "no-store"}  # the answer carries a token's secret
DEFAULT_LABEL = "phone (QR code)"
CERTIFICATE_FILE = "nain-jaune-ledger.crt"  # the name a phone keeps the downloaded authority under
# What the plain-HTTP port of `serve --lan --https` serves itself: the installation page and what it loads.
PLAIN_PATHS = ("/certificate", "/certificate.crt", "/manifest.webmanifest")
PLAIN_PREFIXES = ("/static/",)
NO_ADDRESS = N_("This server listens on this machine only ({host}): no phone reaches it. Start it with "
                "`nj-ledger serve --lan` so that phones on this network do.")


class NewPhoneSchema(Schema):
    role = fields.String(load_default="scorer", validate=validate.OneOf(ROLES), metadata={
        "description": "`scorer` (records games; the default) or `viewer` (reads only)."})
    label = fields.String(load_default="", validate=validate.Length(max=120), metadata={
        "description": "Whose phone, as the club's tokens list it (default: \"phone (QR code)\")."})


class PhoneSchema(Schema):
    id = fields.Integer(metadata={"description": "The token's id: DELETE /clubs/{club}/tokens/{id} revokes it."})
    role = fields.String()
    label = fields.String()
    created_at = fields.String()
    token = fields.String(metadata={"description": "The phone's token; shown once, it is in the link."})
    url = fields.String(metadata={"description": "The link that signs a phone in: the sign-in page at the address "
                                                 "phones open, the club and the token in the fragment."})
    qr_svg = fields.String(metadata={"description": "The link's QR code, an SVG document."})
    certificate_url = fields.String(allow_none=True, metadata={
        "description": "With HTTPS on a room's network: the plain-HTTP page that installs the club's certificate "
                       "on a phone, once, before it opens the link; null otherwise."})
    certificate_qr_svg = fields.String(allow_none=True, metadata={"description": "That page's QR code, or null."})


@blp.route("/clubs/<club>/phones")
class Phones(MethodView):
    @blp.arguments(NewPhoneSchema())
    @blp.response(201, PhoneSchema)
    @blp.alt_response(409, description="No address phones reach (no-phone-address): the server listens on its "
                                       "own machine only; `nj-ledger serve --lan` makes it reachable.")
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Sign a phone in with a QR code: a new token for it (scorer by default), the link that signs in with it
        (the token in the link's fragment, never sent to a server) and its QR code. Revoke it as any token."""
        own_club(writer(), club)
        base = public_base()
        if base is None:
            raise Problem(409, "no-phone-address", NO_ADDRESS, params={"host": request.host})
        made = store().create_token(club, payload["role"], payload["label"].strip() or DEFAULT_LABEL)
        url = f"{base}/signin#club={club}&token={made.secret}"
        install = current_app.config.get("LAN_INSTALL_URL") if current_app.config.get("LAN_AUTHORITY") else None
        body = {"id": made.id, "role": made.role, "label": made.label, "created_at": iso(made.created_at),
                "token": made.secret, "url": url, "qr_svg": qr_svg(url),
                "certificate_url": install, "certificate_qr_svg": qr_svg(install) if install else None}
        return body, 201, NO_STORE


def authority() -> bytes | None:
    """The club's certificate authority (PEM), when this server serves HTTPS on a room's network."""
    path = current_app.config.get("LAN_AUTHORITY")
    try:
        return Path(path).read_bytes() if path else None
    except OSError:
        return None


def fingerprint(pem: bytes) -> str:
    """A certificate's SHA-256 fingerprint as phones and browsers show it: pairs of hexadecimal digits."""
    digest = hashlib.sha256(x509.load_pem_x509_certificate(pem).public_bytes(Encoding.DER)).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


@pages.route("/certificate")
def certificate() -> Response:
    """The installation page of the club's certificate, for phones (plain HTTP: they do not trust it yet); with
    the address to open once it is installed, and that address's QR code for the next phone."""
    pem = authority()
    secure = f"{public_base() or request.host_url.rstrip('/')}/" if pem else ""
    g.lan_qr = qr_uri(secure) if pem else ""  # read by the template (a data-* attribute would be the whole image)
    return render_page("certificate.html", "certificate.js", https=secure,
                       fingerprint=fingerprint(pem) if pem else "")


@pages.route("/certificate.crt")
def certificate_file() -> Response:
    """The club's certificate authority, as phones install it (Android's installer and iOS's profiles both take
    ``application/x-x509-ca-cert``)."""
    pem = authority()
    if pem is None:
        raise Problem(404, "not-found", "This server has no certificate of its own: it serves no HTTPS on this "
                                        "network (`nj-ledger serve --lan --https`).")
    return Response(pem, mimetype="application/x-x509-ca-cert", headers={
        "Content-Disposition": f'attachment; filename="{CERTIFICATE_FILE}"', "Cache-Control": "no-cache"})


def to_https() -> Response | None:
    """On the plain-HTTP port of ``serve --lan --https``: every page but the installation page's, and the machine's
    own loopback, goes to the same path over HTTPS (308 keeps a request's method and body)."""
    if not current_app.config.get("LAN_REDIRECT") or is_loopback_host(request.host):
        return None
    if request.path in PLAIN_PATHS or request.path.startswith(PLAIN_PREFIXES):
        return None
    query = request.query_string.decode("latin-1")
    return redirect(f"{public_base()}{request.path}{'?' + query if query else ''}", 308)  # type: ignore[return-value]


def init_app(app: Flask) -> None:
    app.register_blueprint(pages)
    app.before_request(to_https)
