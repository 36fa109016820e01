"""What a request reaches through the app: the store, and the views of stored values as JSON."""

from __future__ import annotations

from typing import Any, cast

from flask import current_app, request, url_for

from nj_ledger.state import GameState
from nj_ledger.store import GameInfo, Record, Store

from .views import state_view
from .views import summary_view as summary_view  # a stored game as the API lists it (api.games imports it here)

EXTENSION = "nj_ledger.store"


def store() -> Store:
    return cast(Store, current_app.extensions[EXTENSION])


def game_view(game: GameInfo, state: GameState) -> dict[str, Any]:
    """The game state of SPEC §5: ``state_view`` with the game's ``id``, ``club``, ``title`` and ``date``."""
    return {"id": game.id, "club": game.club_id, "title": game.meta.get("title"), "date": game.played_on.isoformat(),
            **state_view(state)}


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


def actions_body(game: GameInfo, state: GameState, records: list[Record],
                 receipt: dict[str, Any] | None) -> dict[str, Any]:
    """The answer to an append: the new state, the records appended and the receipt of the new head."""
    return {"state": game_view(game, state), "events": records, "receipt": receipt}


def next_page(endpoint: str, more: bool, **arguments: Any) -> str | None:
    """The URL of the next page (same query, new position), or None on the last page."""
    if not more:
        return None
    values: dict[str, Any] = {key: value for key, value in request.args.items() if key not in arguments}
    values.update(request.view_args or {})
    values.update(arguments)
    return url_for(endpoint, **values)
