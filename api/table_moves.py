"""Where a table's players sit in the round just drawn: a part of a table's view (``GET /tables/{code}``).

When the director starts a round, the players who sat at a table in the round before look at that table's phone
(or at their own, which joined the table by its code) to learn where they go: for each of them, their table in
the round just started, with its code (a phone opens that table's page with it), or none when they no longer
play. Only what the table's token may read: the names of its own players and the tables' numbers and codes.

The codes of other tables are given on purpose, though a code joins its table (docs/EVENINGS.md, "Your next
table"): the table's players need to find their next table, and the big screen shows every code in the room.
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from nj_ledger.evenings import EveningState

from .dumping import ViewSchema


class MoveSchema(ViewSchema):
    name = fields.String(metadata={"description": "A player of this table in the round before."})
    table = fields.Integer(allow_none=True, metadata={
        "description": "Their table in the round just started (null: they do not play in it)."})
    code = fields.String(allow_none=True, metadata={"description": "That table's code (its page: /tables/{code})."})
    stays = fields.Boolean(metadata={"description": "They stay at this table."})


class MovesSchema(ViewSchema):
    round = fields.Integer(metadata={"description": "The round just started."})
    players = fields.List(fields.Nested(MoveSchema), metadata={
        "description": "This table's players of the round before, in their seat order then."})


def moves(state: EveningState, table: int, codes: dict[int, str]) -> dict[str, Any] | None:
    """Where the players of ``table`` in the round before the latest one sit in the latest one; None before the
    second round starts, or when the table had no game in the round before."""
    if state.current_round < 2:
        return None
    before = next((seated for seated in state.started[-2] if seated.table == table), None)
    if before is None:
        return None
    now = {name: seated.table for seated in state.started[-1] for name in seated.players}
    return {"round": state.current_round, "players": [
        {"name": name, "table": now.get(name), "code": codes.get(now[name]) if name in now else None,
         "stays": now.get(name) == table} for name in before.players]}
