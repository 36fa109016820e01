"""The API reference page: Swagger UI served from this server (the assets come from the
``swagger-ui-bundle`` package; nothing is loaded from elsewhere)."""

from __future__ import annotations

from flask import Blueprint, Response, abort, render_template, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path

blp = Blueprint("docs", __name__, url_prefix="/api/v1/docs")

ASSETS = frozenset({
    "swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-16x16.png",
    "favicon-32x32.png",
})
DOCS_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'")


@blp.route("")
@blp.route("/")
def page() -> Response:
    response = Response(render_template("api_docs.html", spec_url=url_for("api-docs.openapi_json")))
    response.headers["Content-Security-Policy"] = DOCS_POLICY
    return response


@blp.route("/assets/<name>")
def asset(name: str) -> Response:
    if name not in ASSETS:
        abort(404)
    return send_from_directory(str(swagger_ui_path), name, max_age=86400)
