"""What the audit of a game's log finds: each reason to doubt the record, and what one event adds to the report.

Each finding is a :class:`Finding`: its ``severity``, the ``seq`` it is about,
and what it says as a :class:`~nj_ledger.messages.Message` (a code, a template,
raw parameters), written out by the API in the language of the request. The
differences of the re-computation are findings too::

    >>> finding("error", 4, "not-conserved", "After event {seq} the chips add up to {total}, not {expected}.",
    ...          seq=4, total=99, expected=100).said.params
    {'seq': 4, 'total': 99, 'expected': 100}

The checks that make them are :mod:`nj_ledger.audit`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .cards import parse_cards
from .events import Event
from .messages import Listed, Message, Player, phrase
from .state import ENDED, GameState

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Finding:
    """A reason to doubt the record (``error``), or to look at it (``warning``, ``info``)."""

    severity: Severity
    seq: int | None
    said: Message

    @property
    def code(self) -> str:
        return self.said.code


def finding(severity: Severity, seq: int | None, code: str, template: str, /, **params: Any) -> Finding:
    """A finding of ``severity`` about event ``seq`` (None: the whole log), saying ``template`` with ``params``."""
    return Finding(severity, seq, Message(code, template, params))


def difference(seq: int, template: str, /, **params: Any) -> Finding:
    """Where the re-computation and the record part: an error at ``seq``."""
    return finding("error", seq, "recomputation-differs", template, **params)


def withdrawal_of(state: GameState | None) -> dict[str, Any] | None:
    """What an undo folded onto ``state`` withdraws: ``{withdrew, settlement, game_end}`` (the table action, the
    number of the deal whose settlement goes with it or None, whether the game's end goes too)."""
    deal = None if state is None else state.deal
    if state is None or deal is None or deal.undo_to is None or deal.undo_action is None:
        return None
    kind, data = deal.undo_action
    return {"withdrew": {"type": kind, **data}, "settlement": deal.number if deal.ended else None,
            "game_end": state.status == ENDED}


def _seat(state: GameState, seat: Any) -> Any:
    """A seat as the audit names it: its player (a seat the game does not have, as it was recorded)."""
    return Player(seat, state.players[seat]) if isinstance(seat, int) and 0 <= seat < state.n else seat


def _account(state: GameState, text: str) -> Any:
    """An account (``seat:1``, ``box:7D``) as the audit names it: the player, or the honour's box."""
    kind, _, key = text.partition(":")
    if kind == "seat" and key.isdigit():
        return _seat(state, int(key))
    if kind == "box":
        return phrase("the {card} box", card=key)
    return text


def _action_said(state: GameState, action: Mapping[str, Any]) -> Message:
    """A withdrawn play, pass or reveal in words: "Ben's play of 9S, 10S"."""
    player = _seat(state, action.get("seat"))
    if action["type"] == "play":
        return phrase("{player}'s play of {cards}", player=player, cards=Listed(tuple(action.get("cards", ()))))
    if action["type"] == "pass":
        return phrase("{player}'s pass", player=player)
    if action.get("cards"):
        return phrase("{player}'s reveal of {cards}", player=player, cards=Listed(tuple(action["cards"])))
    if "count" in action and "points" in action:  # a hand settled by count
        return phrase("{player}'s count of {count} cards making {points} points", player=player,
                      count=action["count"], points=action["points"])
    return phrase("{player}'s reveal", player=player)


def _undo_finding(seq: int, state: GameState, reason: Any, withdrawal: Mapping[str, Any]) -> Finding:
    why = phrase("reason: {reason}", reason=reason) if reason else phrase("no reason given")
    withdrew = withdrawal["withdrew"]
    action = phrase("an action") if withdrew is None else _action_said(state, withdrew)
    deal = withdrawal["settlement"]
    if deal is None:
        return finding("info", seq, "undo", "Taken back: {action} — {why}.", seq=seq, action=action, why=why)
    return finding(
        "info", seq, "undo",
        "Taken back: {action}, with the settlement of deal {deal} and the end of the game — {why}."
        if withdrawal["game_end"] else
        "Taken back: {action}, with the settlement of deal {deal} — {why}.",
        seq=seq, action=action, deal=deal, why=why,
    )


def count_event(event: Event, seq: int, state: GameState, transfers: list[dict[str, Any]],
           totals: dict[str, dict[str, int]], corrections: list[dict[str, Any]],
           findings: list[Finding], withdrawal: Mapping[str, Any] | None = None) -> None:
    """What one folded event adds to the audit: its transfer, its correction, its findings (``withdrawal``:
    what an undo withdrew, :func:`withdrawal_of` of the state before it)."""
    if event.type == "transfer":
        d = event.data
        transfers.append({"seq": seq, "deal": event.deal, "from": d["from"], "to": d["to"],
                          "amount": d["amount"], "reason": d["reason"]})
        for account, sign in ((d["from"], -1), (d["to"], 1)):
            row = totals.setdefault(account, {"in": 0, "out": 0, "net": 0})
            row["in" if sign > 0 else "out"] += d["amount"]
            row["net"] += sign * d["amount"]
    elif event.type == "undo":
        withdrawal = withdrawal or {"withdrew": None, "settlement": None, "game_end": False}
        corrections.append({"seq": seq, "deal": event.deal, "type": "undo", "reason": event.data.get("reason", ""),
                            **withdrawal})
        findings.append(_undo_finding(seq, state, event.data.get("reason"), withdrawal))
    elif event.type == "adjust":
        d = event.data
        corrections.append({"seq": seq, "deal": event.deal, "type": "adjust", "from": d["from"], "to": d["to"],
                            "amount": d["amount"], "reason": d.get("reason", "")})
        moved = {"amount": d["amount"], "source": _account(state, d["from"]), "target": _account(state, d["to"])}
        findings.append(
            finding("warning", seq, "adjustment", "{amount} chips moved by agreement from {source} to {target} "
                     "({reason}).", **moved, reason=d["reason"]) if d.get("reason") else
            finding("warning", seq, "adjustment", "{amount} chips moved by agreement from {source} to {target} "
                     "(no reason given).", **moved)
        )
    elif event.type == "deal_ended":
        counted = state.deal.counted if state.deal is not None else ()
        if counted:  # the cards of these hands were never shown: the table told their count and points
            findings.append(finding(
                "info", seq, "settled-by-count",
                "Deal {deal} was settled by count for {players}: the cards left were told, not shown.",
                deal=event.data["number"], players=Listed(tuple(Player(c.seat, state.players[c.seat])
                                                                for c in counted)),
            ))
        for shortfall in event.data.get("shortfalls", []):
            findings.append(finding(
                "warning", seq, "shortfall",
                "Deal {deal}: {player} owed {owed} chips ({transfer_reason}) and could pay only {paid}.",
                deal=event.data["number"], player=_seat(state, shortfall["seat"]), owed=shortfall["owed"],
                transfer_reason=shortfall["reason"], paid=shortfall["paid"],
            ))
    elif event.type == "play":
        rules = state.rules
        forgotten = [c for c in parse_cards(event.data["cards"])
                     if rules.announceable(c) and c not in event.data.get("announced", [])]
        for uncalled in forgotten:  # what was lost depends on what the card is: an honour, a hoc, or both
            boxed, hoc = uncalled in rules.board, rules.is_hoc(uncalled)
            findings.append(finding(
                "info", seq, "not-announced",
                "{card} was played without being announced: its box stays on the board and no hoc chips were "
                "paid." if boxed and hoc else
                "{card} was played without being announced: its box stays on the board." if boxed else
                "{card} was played without being announced: no hoc chips were paid.",
                card=uncalled,
            ))


def redactions_told(redacted: Mapping[int, Mapping[str, Any]],
                    log: Literal["game", "evening"] = "game") -> tuple[list[dict[str, Any]], list[Finding]]:
    """The records of a log (a game's events, an evening's decisions) a member's erasure redacted (by seq, each with
    its erasure's number), as an audit lists them (``{seq, erasure}``, in log order) and tells them (an info finding
    ``redacted`` each)."""
    listed = [{"seq": seq, "erasure": redaction.get("erasure")} for seq, redaction in sorted(redacted.items())]
    return listed, [_redacted(log, seq, redaction.get("erasure")) for seq, redaction in sorted(redacted.items())]


def _redacted(log: str, seq: int, erasure: Any) -> Finding:
    if log == "game":
        return finding("info", seq, "redacted", "Event {seq} names a member who was erased (erasure {erasure}): "
                       "their name was replaced by a pseudonym; the event's hash is the one written, vouched for by "
                       "the erasure.", seq=seq, erasure=erasure)
    return finding("info", seq, "redacted", "Decision {seq} names a member who was erased (erasure {erasure}): "
                   "their name was replaced by a pseudonym; the decision's hash is the one written, vouched for by "
                   "the erasure.", seq=seq, erasure=erasure)
