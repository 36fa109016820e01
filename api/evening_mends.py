"""The director's mends as the published results show them: each adjustment, game voided, withdrawal and score
awarded, with its reason and the name it was signed with (docs/EVENINGS.md).

The ranking (``GET …/ranking``) and the big screen's leaderboard (``GET …/leaderboard``) carry them, so that the
results opened by an evening's share link — which may not read the evening's log — say why a score moved and who
decided it; the leaderboard while frozen only those of the rounds it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from marshmallow import fields

from nj_ledger import evenings as core
from nj_ledger.evenings import EveningState

from .dumping import ViewSchema


class MendSchema(ViewSchema):
    seq = fields.Integer(metadata={"description": "The mend's place in the evening's log."})
    type = fields.String(metadata={"description": "score_adjusted, game_voided, player_withdrawn or score_awarded."})
    round = fields.Integer(metadata={
        "description": "The round it concerns: a game's or an award's round; for an adjustment or a withdrawal, the "
                       "rounds started when it was made."})
    player = fields.String(allow_none=True, metadata={"description": "The player adjusted, withdrawn or awarded."})
    amount = fields.Float(allow_none=True, metadata={
        "description": "An adjustment's amount, in the evening's unit (match points or chips, as `rule` says)."})
    score = fields.Float(allow_none=True, metadata={"description": "A score awarded, in the evening's unit."})
    game = fields.String(allow_none=True, metadata={"description": "The game voided."})
    table = fields.Integer(allow_none=True, metadata={"description": "The voided game's table."})
    players = fields.List(fields.String(), allow_none=True, metadata={"description": "The voided game's players."})
    reason = fields.String(metadata={"description": "Why, as the director gave it."})
    signed_by = fields.String(allow_none=True, metadata={
        "description": "The name the director signed the mend with (null: not signed)."})
    recorded_at = fields.String(allow_none=True)


def mends_view(state: EveningState, entries: Sequence[Mapping[str, Any]], through_round: int) -> list[dict[str, Any]]:
    """The mends of the rounds counted (up to ``through_round``), in the order they were made."""
    games = state.games()
    shown = []
    for item in entries:
        if item["type"] not in core.MENDS:
            continue
        data, by = item["data"], item.get("by") or {}
        if int(data.get("round", 0)) > through_round:
            continue
        seated = games.get(data.get("game", ""))
        shown.append({"seq": item["seq"], "type": item["type"], "round": data.get("round", 0),
                      "player": data.get("player"), "amount": data.get("amount"), "score": data.get("score"),
                      "game": data.get("game"), "table": data.get("table"),
                      "players": list(seated.players) if seated is not None else None,
                      "reason": data.get("reason", ""), "signed_by": by.get("signed_by"),
                      "recorded_at": item.get("recorded_at")})
    return shown
