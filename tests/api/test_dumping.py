"""The response schemas' fast dump (api.dumping) gives marshmallow's own answer, and views hold exactly the
declared fields: nothing a view builds is dropped, nothing a schema declares is missing."""

from __future__ import annotations

from typing import Any

import pytest
from core.helpers import PROFILE_NAMES
from marshmallow import Schema, fields, post_dump

from api.dumping import ViewSchema
from api.games import AppendedSchema
from api.replay import StepSchema
from api.schemas import GameStateSchema, RecordSchema
from api.views import state_view
from nj_ledger.chain import chain_events
from nj_ledger.reducer import replay
from nj_ledger.simulator import simulate


def marshmallow_dump(schema: Schema, value: Any) -> Any:
    return Schema.dump(schema, value)


def states(profile: str, seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(record, game view) after every event of a simulated game."""
    players = (3, 5)[seed % 2] if profile == "avantcoureur-1760" else 3 + seed % 4
    game = simulate(seed, profile, players, info="full" if seed % 2 else "partial", deals=2)
    records = chain_events("0" * 64, 0, game.events, "2026-11-24T10:00:00.000000Z")
    out = []
    for k in range(1, len(records) + 1, 3):
        view = {"id": "g", "club": "c", **state_view(replay(game.events[:k]))}
        out.append((records[k - 1], view))
    return out


@pytest.mark.parametrize("profile", [*PROFILE_NAMES, "avantcoureur-1760"])
def test_the_fast_dump_is_marshmallows_and_views_hold_exactly_the_declared_fields(profile: str) -> None:
    state_schema, record_schema, step_schema = GameStateSchema(), RecordSchema(), StepSchema()
    appended = AppendedSchema()
    for seed in range(4):
        for record, view in states(profile, seed):
            assert state_schema.dump(view) == marshmallow_dump(state_schema, view) == view
            assert record_schema.dump(record) == marshmallow_dump(record_schema, record) == record
            step = {"seq": record["seq"], "event": record, "state": view}
            assert step_schema.dump(step) == marshmallow_dump(step_schema, step) == step
            body = {"state": view, "events": [record], "receipt": None}
            assert appended.dump(body) == marshmallow_dump(appended, body) == body


def test_a_stored_row_changed_outside_the_ledger_is_dumped_as_it_stands() -> None:
    record = {"seq": "7; DROP", "deal": None, "type": 3, "data": "not json", "v": 1, "recorded_at": "x",
              "hash": "0"}
    assert RecordSchema().dump(record) == record


def test_a_schema_that_formats_or_computes_is_dumped_by_marshmallow() -> None:
    class Hooked(ViewSchema):
        day = fields.Date()

    class Computed(ViewSchema):
        n = fields.Integer()

        @post_dump
        def doubled(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
            return {"n": data["n"] * 2}

    import datetime

    assert Hooked().dump({"day": datetime.date(2026, 11, 24)}) == {"day": "2026-11-24"}
    assert Computed().dump({"n": 2}) == {"n": 4}
    assert Computed(many=True).dump([{"n": 1}]) == [{"n": 2}]


def test_a_view_that_is_its_own_dump_is_not_copied_and_no_view_is_changed() -> None:
    class Seat(ViewSchema):
        seat = fields.Integer()
        mean = fields.Float()

    class Table(ViewSchema):
        seats = fields.List(fields.Nested(Seat))
        hands = fields.List(fields.List(fields.String()))

    exact = {"seats": [{"seat": 0, "mean": 1.5}], "hands": [["7D"]]}
    assert Table().dump(exact) is exact
    wider = {"seats": [{"seat": 0, "mean": 2, "cards": ["7D"]}], "hands": [["7D"]], "secret": 1}
    dumped = Table().dump(wider)
    assert dumped == {"seats": [{"seat": 0, "mean": 2.0}], "hands": [["7D"]]}
    assert isinstance(dumped["seats"][0]["mean"], float)
    assert wider == {"seats": [{"seat": 0, "mean": 2, "cards": ["7D"]}], "hands": [["7D"]], "secret": 1}
    assert dumped == Schema.dump(Table(), wider)
