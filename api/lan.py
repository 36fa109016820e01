"""Phones on a club room's network (``nj-ledger serve --lan``, docs/DEPLOY.md "In a club room: the local network").

- ``POST /api/v1/clubs/{club}/phones``: signs a phone in with nothing to type. It makes a one-time sign-in code
  (:mod:`nj_ledger.store.phones`: one phone, once, within two minutes) and answers the link that signs in with
  it, ``<address phones open>/signin#club=…&name=…&code=…``, and its QR code, which the organiser's screen shows:
  the phone's camera opens it. The code rides in the fragment, which a browser never sends to a server: it
  reaches no access log, no proxy and no Referer (as a share's secret: docs/SHARES.md). ``GET`` on the code
  tells the organiser's screen once a phone used it (then it shows the next code), ``DELETE`` ends it unused.
- ``POST /api/v1/signin``: the sign-in page sends the code (in the body, never in an address) and gets the
  phone's own token, an ordinary one (labelled, listed, revoked at ``/clubs/{club}/tokens``). No token is needed;
  a code that is no code counts as a wrong token from that address (:mod:`api.auth`).
- ``GET /certificate``: the page that installs the club's certificate authority on a phone, step by step for
  Android and iPhone, with how to check it on the phone (:mod:`api.authority`), and ``GET /certificate.crt``, the
  authority itself (``cli.lan_tls``). Without HTTPS, the page says how to turn it on.
- On the plain-HTTP port of ``serve --lan --https`` (``LAN_REDIRECT``), every other page is sent to HTTPS, so a
  phone's pages, its outbox and its session live at one address. The installation page, its assets and the
  authority stay on plain HTTP (a phone that does not trust the authority yet meets a warning on every HTTPS
  page), and so does the machine's own loopback (``http://localhost`` is a secure page already).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from flask import Blueprint as PageBlueprint
from flask import Flask, Response, current_app, g, redirect, request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from nj_ledger.store import PHONE_ROLES, NewSignInCode, SignInCodeInfo, iso
from nj_ledger.store.errors import SignInCodeUnknown

from .addresses import is_loopback_host, public_base, qr_svg, qr_uri
from .auth import check_guesses, wrong_guess
from .authority import authority
from .context import store
from .dumping import ViewSchema
from .i18n import N_
from .inputs import Blueprint
from .pages import render_page
from .problems import Problem
from .schemas import MAX_INT

blp = Blueprint("phones", __name__, url_prefix="/api/v1", description="Signing a phone in with a QR code.")
pages = PageBlueprint("lan", __name__)

NO_STORE = {"Cache-Control": "no-store"}  # the answer carries a code or a token's secret
DEFAULT_LABEL = "phone (QR code)"
CERTIFICATE_FILE = "nain-jaune-ledger.crt"  # the name a phone keeps the downloaded authority under
PHONE_ID = f"<int(max={MAX_INT}):phone>"
# What the plain-HTTP port of `serve --lan --https` serves itself: the installation page and what it loads.
PLAIN_PATHS = ("/certificate", "/certificate.crt", "/manifest.webmanifest")
PLAIN_PREFIXES = ("/static/",)
NO_ADDRESS = N_("This server listens on this machine only ({host}): no phone reaches it. Start it with "
                "`nj-ledger serve --lan` so that phones on this network do.")
STATUS = ("waiting", "used", "expired")


class NewPhoneSchema(Schema):
    role = fields.String(load_default="scorer", validate=validate.OneOf(PHONE_ROLES), metadata={
        "description": "`scorer` (records games; the default) or `viewer` (reads only): the phone's token's."})
    label = fields.String(load_default="", validate=validate.Length(max=120), metadata={
        "description": "Whose phone, as the club's tokens will list its token (default: \"phone (QR code)\")."})


class SignInCodeSchema(ViewSchema):
    id = fields.Integer(metadata={"description": "The code's id, never the code: GET and DELETE "
                                                 "/clubs/{club}/phones/{id} follow it and end it."})
    role = fields.String(metadata={"description": "The role of the token the phone gets."})
    label = fields.String()
    created_at = fields.String()
    expires_at = fields.String(metadata={"description": "Until when a phone may sign in with it (two minutes)."})
    used_at = fields.String(allow_none=True, metadata={"description": "When a phone signed in with it; null until "
                                                                      "then."})
    status = fields.String(validate=validate.OneOf(STATUS), metadata={
        "description": "`waiting` (for its phone), `used` (a phone signed in: show the next code) or `expired`."})
    token_id = fields.Integer(allow_none=True, metadata={
        "description": "The token the phone got, once used: DELETE /clubs/{club}/tokens/{id} revokes it."})


class NewSignInCodeSchema(SignInCodeSchema):
    url = fields.String(metadata={"description": "The link that signs one phone in: the sign-in page at the address "
                                                 "phones open, the club, its name and the code in the fragment "
                                                 "(never sent to a server). Shown once."})
    qr_svg = fields.String(metadata={"description": "The link's QR code, an SVG document."})
    certificate_url = fields.String(allow_none=True, metadata={
        "description": "With HTTPS on a room's network: the plain-HTTP page that installs the club's certificate "
                       "on a phone, once, before it opens the link; null otherwise."})
    certificate_qr_svg = fields.String(allow_none=True, metadata={"description": "That page's QR code, or null."})


class SignInSchema(Schema):
    code = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata={
        "description": "The code of the link's fragment (`#…&code=…`)."})


class SignedInSchema(ViewSchema):
    club = fields.String(metadata={"description": "The club's id."})
    name = fields.String(metadata={"description": "The club's name."})
    token = fields.String(metadata={"description": "The phone's own token (Authorization: Bearer …); shown once."})
    id = fields.Integer(metadata={"description": "The token's id, as the club's tokens list it."})
    role = fields.String()
    label = fields.String()


def _code(code: SignInCodeInfo | NewSignInCode) -> dict[str, Any]:
    info = code if isinstance(code, SignInCodeInfo) else SignInCodeInfo(
        code.id, code.club_id, code.role, code.label, code.created_at, code.expires_at, None, None)
    return {"id": info.id, "role": info.role, "label": info.label, "created_at": iso(info.created_at),
            "expires_at": iso(info.expires_at), "used_at": None if info.used_at is None else iso(info.used_at),
            "status": info.status(), "token_id": info.token_id}


@blp.route("/clubs/<club>/phones")
class Phones(MethodView):
    @blp.arguments(NewPhoneSchema(), required=False)  # no body: a scorer's phone
    @blp.response(201, NewSignInCodeSchema)
    @blp.alt_response(409, description="No address phones reach (no-phone-address): the server listens on its "
                                       "own machine only; `nj-ledger serve --lan` makes it reachable.")
    def post(self, payload: dict[str, Any], club: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Sign a phone in with a QR code: a one-time code (one phone, within two minutes), the link that signs in
        with it (the code in the link's fragment, never sent to a server) and its QR code. The phone that uses it
        gets a token of its own (`POST /signin`)."""
        base = public_base()
        if base is None:
            raise Problem(409, "no-phone-address", NO_ADDRESS, params={"host": request.host})
        name = store().clubs.club(club).name
        made = store().phones.create_sign_in_code(club, payload["role"], payload["label"].strip() or DEFAULT_LABEL)
        url = f"{base}/signin#{urlencode({'club': club, 'name': name, 'code': made.secret}, quote_via=quote)}"
        install = current_app.config.get("LAN_INSTALL_URL") if current_app.config.get("LAN_AUTHORITY") else None
        body = {**_code(made), "url": url, "qr_svg": qr_svg(url),
                "certificate_url": install, "certificate_qr_svg": qr_svg(install) if install else None}
        return body, 201, NO_STORE


@blp.route(f"/clubs/<club>/phones/{PHONE_ID}")
class Phone(MethodView):
    @blp.response(200, SignInCodeSchema)
    def get(self, club: str, phone: int) -> dict[str, Any]:
        """A sign-in code as it stands: waiting for its phone, used (a phone signed in: the organiser's screen shows
        the next code), or expired. Never the code itself."""
        return _code(store().phones.sign_in_code(club, phone))

    @blp.response(204)
    def delete(self, club: str, phone: int) -> Response:
        """End a code no phone used yet, at once (the organiser is done with the panel). A used code's phone keeps
        its token: revoke that at /clubs/{club}/tokens."""
        store().phones.withdraw_sign_in_code(club, phone)
        return Response(status=204)


@blp.route("/signin")
class SignIn(MethodView):
    @blp.arguments(SignInSchema())
    @blp.response(201, SignedInSchema)
    @blp.alt_response(404, description="A code this ledger never made (sign-in-code-unknown); it counts as a "
                                       "wrong token from the caller's address.")
    @blp.alt_response(410, description="A code already used (sign-in-code-used) or expired (sign-in-code-expired).")
    @blp.alt_response(429, description="Too many wrong tokens or codes from this address lately (too-many-requests).")
    @blp.doc(security=[])
    def post(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """A phone signs in with the one-time code of its QR code (no token needed): its own token (shown once),
        for the club that made the code, with the code's role and label. A code signs one phone in, once."""
        check_guesses()
        try:
            phone = store().phones.sign_in_with_code(payload["code"].strip())
        except SignInCodeUnknown:
            wrong_guess()
            raise
        made = phone.token
        return ({"club": phone.club.id, "name": phone.club.name, "token": made.secret, "id": made.id,
                 "role": made.role, "label": made.label}, 201, NO_STORE)


@pages.route("/certificate")
def certificate() -> Response:
    """The installation page of the club's certificate, for phones (plain HTTP: they do not trust it yet); with
    the address to open once it is installed, and that address's QR code for the next phone."""
    pem = authority()
    secure = f"{public_base() or request.host_url.rstrip('/')}/" if pem else ""
    g.lan_qr = qr_uri(secure) if pem else ""  # read by the template (a data-* attribute would be the whole image)
    return render_page("certificate.html", "certificate.js", https=secure)


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
