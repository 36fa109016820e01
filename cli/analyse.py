"""``nj-ledger analyse``: each decision of a settled deal, reviewed by the solver.

    $ nj-ledger analyse 9c1e… --deal 2
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .app import _an_id, _refusal, _store, main
from .language import N_, _, french, say

MARK_WORDS = (N_("best"), N_("inaccuracy"), N_("mistake"), N_("blunder"))  # the marks, as the table shows them


@main.command()
@click.argument("game", callback=_an_id)
@click.option("--deal", "deal_number", type=click.IntRange(1), help="Only this deal (default: every settled deal).")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="Positions searched at most for each decision point (default: the ledger's budget).")
@click.option("--json", "as_json", is_flag=True, help="The analysis as the API gives it.")
def analyse(game: str, deal_number: int | None, limit: int | None, as_json: bool) -> None:
    """Each decision of a settled deal, reviewed by the solver: the best move, the chips lost, the mark."""
    from nj_ledger.application import DealNotSettled, NoSuchDeal, current_game, game_owner, settled_deal
    from nj_ledger.deal_analysis import DEFAULT_LIMIT, analyse_deal
    from nj_ledger.store import StoreError

    store = _store()
    club_id = game_owner(store, game)
    if club_id is None:
        raise click.ClickException(say("There is no game {game!r}.", game=game))
    try:
        now = current_game(store, club_id, game).state
    except StoreError as error:  # a log that cannot be replayed (changed outside the ledger)
        raise _refusal(error) from None
    last = now.deal.number if now.deal is not None else 0
    numbers = [deal_number] if deal_number is not None else list(range(1, last + 1))
    answers = []
    for number in numbers:
        try:
            deal = settled_deal(store, club_id, game, number)
        except NoSuchDeal:
            raise click.ClickException(say("Game {game!r} has no deal {number}.", game=game, number=number)) from None
        except DealNotSettled:
            if deal_number is not None:
                raise click.ClickException(say("Deal {number} of game {game!r} is not settled yet.", number=number,
                                               game=game)) from None
            continue
        except StoreError as error:  # a log that cannot be replayed (changed outside the ledger)
            raise _refusal(error) from None
        label = say("Deal {number}: decision points", number=number)
        with click.progressbar(length=1, label=label, file=sys.stderr) as bar:
            def step(done: int, total: int, bar: Any = bar) -> None:
                bar.length = total
                bar.update(done - bar.pos)

            analysis = analyse_deal(deal.start, deal.events, limit or DEFAULT_LIMIT, progress=step)
        answers.append({"game": game, "deal": number, **analysis})
        if not as_json:
            _print_analysis(number, analysis)
    if as_json:
        click.echo(json.dumps(answers if deal_number is None else answers[0], ensure_ascii=False, indent=2))


def _print_analysis(number: int, analysis: dict[str, Any]) -> None:
    from api.sentences import french_card

    players = analysis["players"]
    in_french = french()

    def said(action: dict[str, Any]) -> str:
        if action["type"] != "play":
            return _("pass")
        return " ".join(map(french_card, action["cards"]) if in_french else action["cards"])  # "V♥" in French

    status = {"done": _("searched to the end"),
              "partial": say("from event {seq} on (the earlier positions are past the budget)",
                             seq=analysis["from_seq"]),
              "too-large": _("too large for the budget: no decision reviewed"),
              "hands-unknown": _("recorded without every hand and no consistent deal could be drawn: not analysed")
              }[analysis["status"]]
    sampled = analysis.get("sampled")
    if sampled is not None:
        among = say("the {deals:,}", deals=sampled["deals"]) if sampled["deals"] is not None else _("those")
        status += say(". Some cards were never seen: means over {samples} deals drawn among {among} consistent "
                      "with the record (seed {seed})", samples=sampled["samples"], among=among, seed=sampled["seed"])
    marks = analysis["thresholds"]
    click.echo(say("Deal {number}: {status}. Marks: inaccuracy from {inaccuracy}, mistake from {mistake}, blunder "
                   "from {blunder} chips lost.", number=number, status=status, **marks))
    if not analysis["decisions"]:
        return
    click.echo(say("{seq:>5}  {player:<12} {played:<14} {best:<14} {lost:>5}  {mark:<19} on what they saw",
                   seq="seq", player=_("player"), played=_("played"), best=_("best"), lost=_("lost"),
                   mark=_("mark")))
    for d in analysis["decisions"]:
        best = said(d["best"][0]) if d["best"] else ""
        mark = _(d["mark"]) + (_(" (forced)") if d["forced"] else "")
        fair = d.get("fair")
        seen = say("{mark}, {lost} lost ({samples} deals)", **{**fair, "mark": _(fair["mark"])}) if fair else "-"
        click.echo(f"{d['seq']:>5}  {players[d['seat']]:<12} {said(d['action']):<14} {best:<14} {d['lost']:>5}  "
                   f"{mark:<19} {seen}")
    click.echo(_("Expected chips: ") + " · ".join(
        f"{name} {value}" for name, value in zip(players, analysis["expected"][-1]["values"], strict=True)))

