"""Writing NJN: a game's log in, its one canonical text out.

Every resolved rule option is written as a tag of its own, so reading the text
back gives the very same ``game_started`` event whatever the profiles become.
The calls a player makes ("sans 8", "Dame qui prend", "J'arrête"), each deal's
settlement and the final standings are written as comments: derived, and so
ignored when read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..calls import GRAND_OPERA, OUT, RESTARTS, TAKES, WANTS, play_calls
from ..cards import DECK, RANK_NAMES_FR, Card
from ..errors import InvalidInput
from ..events import Event, event_from_dict
from ..exchange import META_FIELDS, document_meta, load_game
from ..reducer import fold
from ..rules import OPTION_NAMES
from ..state import GameState
from .tags import join_players, option_tag

_SUITS_FR = {"C": "trèfle", "D": "carreau", "H": "cœur", "S": "pique"}
_ENDINGS = {
    "agreed": "the table agreed to stop",
    "max_deals": "the last deal was played",
    "cannot_ante": "a player cannot stake the board",
    "shortfall": "a player could not pay in full",
}


def write_njn(game: Mapping[str, Any] | Sequence[Mapping[str, Any] | Event],
              meta: Mapping[str, Any] | None = None) -> str:
    """The NJN text of a game: a game document, or its log (stored records or :class:`Event` objects).

    ``meta`` may give ``club``, ``title``, ``date`` (``YYYY-MM-DD``), ``table``
    and ``notes``; a document's own details are used when it has them. The
    same game always gives the same text, byte for byte.

    >>> from nj_ledger import new_game
    >>> print(write_njn([new_game(["Ana", "Ben"], "cards", 30)], {"title": "Dimanche"}).split("[Board")[0])
    [Title "Dimanche"]
    [Players "Ana; Ben"]
    [StartingChips "30"]
    [Dealer "1"]
    [Rules "cards"]
    <BLANKLINE>
    """
    if isinstance(game, Mapping):
        events, _ = load_game(game)
        details: dict[str, Any] = {**document_meta(game), **(meta or {})}
    else:
        events = [record if isinstance(record, Event) else event_from_dict(record) for record in game]
        details = dict(meta or {})
    club = details.pop("club", None)
    if club is not None and not isinstance(club, str):
        raise InvalidInput("invalid-document", "{field}: must be a text, not {value!r}.", field="club", value=club)
    unknown = sorted(set(details) - set(META_FIELDS))
    if unknown:
        raise InvalidInput("invalid-document", "{field}: is not a document detail; they are: {fields}.",
                           field=unknown[0], fields=", ".join(("club", *META_FIELDS)))
    details = document_meta(details)
    if not events or events[0].type != "game_started":
        raise InvalidInput("invalid-document", "events: a game's log starts with its game_started event.",
                           field="events")
    blocks = [_tags(events[0].data, details, club), *_paragraphs(events)]
    return "\n\n".join("\n".join(lines) for lines in blocks) + "\n"


def _reason(data: Mapping[str, Any]) -> str:
    """An action's reason, in quotes on one line, or nothing when there is none."""
    reason = data.get("reason")
    return f" {json.dumps(reason, ensure_ascii=False)}" if reason else ""


def _tag_text(value: str) -> str:
    """A tag's text in quotes, its line breaks kept as they are (long [Notes] stay readable)."""
    return '"' + "\n".join(json.dumps(line, ensure_ascii=False)[1:-1] for line in value.split("\n")) + '"'


def _tags(started: Mapping[str, Any], details: Mapping[str, str], club: str | None) -> list[str]:
    lines = []
    if club is not None:
        lines.append(f"[Club {_tag_text(club)}]")
    for name in ("title", "date", "table"):
        if name in details:
            value = details[name].replace("-", ".") if name == "date" else details[name]
            lines.append(f"[{name.capitalize()} {_tag_text(value)}]")
    players = started["players"]
    rules = started["rules"]
    lines += [
        f"[Players {_tag_text(join_players(players))}]",
        f"[StartingChips \"{started['starting_chips']}\"]",
        f"[Dealer \"{started.get('dealer', len(players) - 1)}\"]",
        f"[Rules {_tag_text(rules.get('profile', 'classic'))}]",
    ]
    # A fixed order, whatever order the stored dict has: one game, one text.
    order = [option for option in OPTION_NAMES if option in rules] + sorted(set(rules) - {*OPTION_NAMES, "profile"})
    lines += [f"[{option_tag(option)} {json.dumps(rules[option], ensure_ascii=False)}]" for option in order]
    if "notes" in details:
        lines.append(f"[Notes {_tag_text(details['notes'])}]")
    return lines


def _comment(text: str) -> str:
    return "{" + text.replace("{", "(").replace("}", ")") + "}"


def _paragraphs(events: Sequence[Event]) -> list[list[str]]:
    """The deals and what happens between them, a paragraph each."""
    state = fold(None, events[0])
    players = state.players
    paragraphs: list[list[str]] = [[]]
    in_deal = False
    for event in events[1:]:
        fold(state, event)
        kind, data = event.type, event.data
        if kind == "deal" or (in_deal and kind in ("adjust", "end")):
            in_deal = kind == "deal"
            if paragraphs[-1]:
                paragraphs.append([])
        lines = paragraphs[-1]
        if kind == "deal":
            lines.append(f"Deal {event.deal} dealer {data['dealer']}")
            lines += [f"Hand {seat}: {' '.join(hand)}" for seat, hand in enumerate(data.get("hands") or ())]
            if data.get("talon") is not None and data["talon"] != _rest_of_deck(data.get("hands")):
                lines.append(f"Talon: {' '.join(data['talon'])}")
        elif kind == "play":
            cards = " ".join(card + "!" if card in data["announced"] else card for card in data["cards"])
            lines.append(f"{data['seat']}: {cards} {_comment(_calls(state, data))}")
        elif kind == "pass" and not data.get("inferred"):
            lines.append(f"{data['seat']}: pass")
        elif kind == "reveal" and "count" in data:  # settled by count
            count, points, honours = data["count"], data["points"], data.get("honours") or []
            lines.append(f"Reveal {data['seat']}: {count} card{'s' if count != 1 else ''} "
                         f"{points} point{'s' if points != 1 else ''}"
                         + (f" honours {' '.join(honours)}" if honours else ""))
        elif kind == "reveal":
            lines.append(f"Reveal {data['seat']}: {' '.join(data['cards'])}".rstrip())
        elif kind in ("undo", "end"):
            lines.append(kind.capitalize() + _reason(data))
        elif kind == "adjust":
            lines.append(f"Adjust {data['amount']} from {data['from']} to {data['to']}{_reason(data)}")
        elif kind == "deal_ended":
            lines.append(_comment(_settlement(data, players)))
        elif kind == "game_ended":
            lines.append(_comment(_game_over(data)))
    return [p for p in paragraphs if p]


def _rest_of_deck(hands: Sequence[Sequence[str]] | None) -> list[str] | None:
    """The talon the engine works out from the hands: it need not be written."""
    if not hands:
        return None
    dealt = {card for hand in hands for card in hand}
    return [card for card in DECK if card not in dealt]


def _call_name(card: Card) -> str:
    if card == "7D":
        return "Nain Jaune"
    return "Dix" if card.rank == 10 else RANK_NAMES_FR[card.rank]


def _calls(state: GameState, play: Mapping[str, Any]) -> str:
    """What the player says, as the table hears it: "Dame qui prend, Roi et je recommence, sans 5"."""
    deal = state.deal
    assert deal is not None
    said = []
    for call in play_calls(state, play):
        if call.kind == TAKES and call.card is not None:
            said.append(f"{_call_name(call.card)} qui prend")
        elif call.kind == RESTARTS and call.card is not None:
            said.append(f"{_call_name(call.card)} et je recommence")
        elif call.kind == OUT:
            said.append("J'arrête")
        elif call.kind == GRAND_OPERA:
            said.append("Grand Opéra")
        elif call.kind == WANTS and deal.expected is not None:
            suit = f" de {_SUITS_FR[deal.expected_suit]}" if deal.expected_suit else ""
            said.append(f"sans {RANK_NAMES_FR[deal.expected]}{suit}")
    return ", ".join(said)


def _settlement(data: Mapping[str, Any], players: Sequence[str]) -> str:
    winner = players[data["winner"]]
    parts = [f"{winner} wins deal {data['number']}" + (" by Grand Opéra" if data["grand_opera"] else "")]
    payments = [f"{players[p['seat']]} pays {p['paid']}" + (f" of {p['amount']}" if p["paid"] != p["amount"] else "")
                for p in data["payments"]]
    if payments:
        parts.append(", ".join(payments))
    parts += [f"bête: {players[b['seat']]} pays {b['paid']} into {b['card']}" for b in data["betes"]]
    return "; ".join(parts)


def _game_over(data: Mapping[str, Any]) -> str:
    standings = ", ".join(f"{row['rank']}. {row['name']} {row['chips']}" for row in data["standings"])
    left = ", ".join(f"{card} {chips}" for card, chips in data["board_left"].items() if chips)
    board = f"; left on the board: {left}" if left else ""
    return f"Game over, {_ENDINGS.get(data['reason'], data['reason'])}: {standings}{board}"
