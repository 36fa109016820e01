"""schemathesis against the app's own OpenAPI document: no server error, every response as documented, and the
document saying exactly what the server takes.

Each operation is called with cases generated from its schema, valid ones and
invalid ones (wrong types, missing fields, values out of range), with a scorer
token of a seeded club, on that club and on a game with a deal in progress (the
admin token for creating clubs). Every answer must be below 500 and match the
document: a documented status, its content type, its schema and its headers.

The request side too: an invalid case is refused with a 4xx
(``negative_data_rejection``), and a valid one is never refused as ill-formed
(``positive_data_acceptance``, and :func:`valid_data_passes_the_door`): a
case the document calls valid may be refused by the rules of the game or by
the state of things (a 409, a 422 with a code of its own: ``invalid-players``,
``evening-closed``…), never with a 400, a 415, or a 422 ``invalid-request``,
which would say the document allows what the server refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import schemathesis
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from support.http import ADMIN_TOKEN, Calls
from support.scale import scaled, sized

# The codes of a refusal at the door: the request is ill-formed, whatever the state of the club or the game.
ILL_FORMED = frozenset({"invalid-request", "invalid-json", "invalid-header", "unsupported-media-type"})


@schemathesis.check
def valid_data_passes_the_door(ctx: Any, response: Any, case: Any) -> bool | None:
    """A case the document calls valid is not refused as ill-formed (see the module's docstring)."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code not in (400, 415, 422):
        return None
    code = response.json().get("code") if "json" in response.headers.get("content-type", [""])[0] else None
    if code in ILL_FORMED:
        raise AssertionError(f"The document calls this case valid, and the server refused it as ill-formed "
                             f"({response.status_code} {code}): {response.text[:500]}")
    return None


CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]
POSITIVE_CHECKS = [*CHECKS, positive_data_acceptance, valid_data_passes_the_door]  # valid data passes the door
NEGATIVE_CHECKS = [*CHECKS, negative_data_rejection]  # invalid data is refused with a 4xx
CONFIG = schemathesis.Config.from_dict({
    # NUL is refused in every text the server reads, by one rule (api.inputs); the document says so of every
    # string field (api.schemas.NO_NUL, the names' patterns: tests/api/test_names.py), but OpenAPI 3.0 cannot say
    # it of the free-form JSON a table action or a game document is (no propertyNames): cases leave NUL out.
    "generation": {"allow-x00": False},
    "checks": {
        # 413 refuses invalid data too: an array past its maxItems can also be past the body's size limit.
        "negative_data_rejection": {
            "expected-statuses": ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]},
        # Valid data may still be refused by the rules or the state (409, 410 a used sign-in code, 422 with a code
        # of its own); a 422 that says the request is ill-formed is valid_data_passes_the_door's to catch.
        "positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "410", "413", "422", "429", "503"]},
    },
})


@dataclass
class Seed:
    club: str
    game: str
    auth: dict[str, str]
    evening: str
    code: str


def seed(app: Flask) -> Seed:
    calls = Calls(app.test_client())
    club = calls.club("Les Fuzzeurs")
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    ended = calls.game(club)["id"]
    assert calls.act(club, ended, {"type": "end"}).status_code == 201
    players = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]
    evening = calls.client.post(f"/api/v1/clubs/{club.id}/evenings", json={
        "name": "Jeudi", "players": players, "rounds": 2, "starting_chips": 60, "confirmation": True},
        headers=club.auth)
    assert evening.status_code == 201, evening.get_json()
    assert calls.client.post(f"/api/v1/clubs/{club.id}/evenings/{evening.json['id']}/rounds", json={},
                             headers=club.auth).status_code == 201
    return Seed(club.id, game, club.auth, evening.json["id"], evening.json["tables"][0]["code"])


def calls(strategy: Any, checks: list[Any], max_examples: int) -> Any:
    """A hypothesis test calling the app with the cases of ``strategy`` and validating each answer."""

    @settings(max_examples=max_examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def call(case: Any) -> None:
        case.call_and_validate(checks=checks)

    return call


def fuzz(app: Flask, max_examples: int) -> list[str]:
    """Run every operation of the document through schemathesis; the failures found, one text each."""
    place = seed(app)
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app, config=CONFIG)
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 13
    for operation in operations:
        names = {parameter.name for parameter in operation.path_parameters}
        fixed = {name: value for name, value in (("club", place.club), ("game", place.game),
                                                 ("evening", place.evening), ("code", place.code), ("table", 1))
                 if name in names}
        headers: dict[str, Any] = dict(place.auth)
        if operation.label == "POST /api/v1/clubs":
            headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        for mode, checks in ((GenerationMode.POSITIVE, POSITIVE_CHECKS), (GenerationMode.NEGATIVE, NEGATIVE_CHECKS)):
            strategy = operation.as_strategy(generation_mode=mode, headers=headers, path_parameters=fixed)
            try:
                calls(strategy, checks, max_examples)()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing of this operation can be made invalid
            except (Exception, FailureGroup) as failure:  # noqa: BLE001 - every failure is listed below
                failures.append(f"{operation.label} ({mode.value}):\n{str(failure)[:4000]}")  # bodies can be huge
    return failures


@scaled
def test_schemathesis_finds_no_server_error_and_no_undocumented_answer(app: Flask) -> None:
    lifetime = app.config["STREAM_LIFETIME"]
    app.config["STREAM_LIFETIME"] = 0.05  # the streams end soon after their backlog, so that each call ends
    try:
        failures = fuzz(app, max_examples=sized(5, 25))
    finally:
        app.config["STREAM_LIFETIME"] = lifetime
    assert not failures, "\n\n".join(failures)
