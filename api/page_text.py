"""The sentences the pages' scripts show, translated on the server and handed to the page as JSON.

Placeholders are ``{name}``, filled in by the script (``t("settle.pays", {...})``).
The catalog holds them like every other string, so one ``.po`` file translates
the whole site. The game's calls ("sans 10", "J'arrête !") are not here: they
stay French in every language.

The sentences of each family of pages are kept in a module of their own: a game's pages
(:mod:`api.page_text_game`), the records (:mod:`api.page_text_records`), the club evenings
(:mod:`api.page_text_evening`, :mod:`api.page_text_director`); this one holds the header's, the
sign-in's, the home page's and the new game's, and gathers them all in :data:`MESSAGES`.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

from .page_text_director import DIRECTOR_MESSAGES
from .page_text_evening import EVENING_MESSAGES
from .page_text_game import GAME_MESSAGES
from .page_text_records import RECORD_MESSAGES

MESSAGES = {
    # the header, errors, notices
    "error.http": _l("The server answered with status {status}."),
    "error.offline": _l("No answer from the server: nothing is lost. Check the connection and press Retry."),
    "error.unexpected": _l("Something went wrong in this page; reload it to try again."),
    "saving": _l("Recording…"),
    "retrying": _l("No answer yet: trying again ({attempt})…"),
    "signin.refused": _l("This club id and token do not match: check both and try again."),
    # the sign-in page opened by a phone's QR code (api/lan.py)
    "signin.switch": _l("This phone is signed in to “{current}”: sign in to “{next}” instead?"),
    "signin.switch_yes": _l("Sign in to “{next}”"),
    "signin.switch_no": _l("Stay with “{current}”"),
    "signin.signing": _l("Signing in…"),
    # a shared device: signing out, or another club signing in, forgets what the first club left (forget.js)
    "signout.unsent": _l("{count} actions tapped on this device have not reached the server yet: signing out "
                         "forgets them. To send them, stay signed in and open their game with a connection."),
    "signout.unsent_one": _l("{count} action tapped on this device has not reached the server yet: signing out forgets "
                             "it. To send it, stay signed in and open its game with a connection."),
    "signin.unsent": _l("{count} actions tapped on this device have not reached the server yet: signing in to "
                        "“{next}” forgets them. To send them first, sign in again to their own club."),
    "signin.unsent_one": _l("{count} action tapped on this device has not reached the server yet: signing in to "
                            "“{next}” forgets it. To send it first, sign in again to its own club."),
    "signin.unsent_yes": _l("Sign in to “{next}” anyway"),
    "signin.unsent_no": _l("Cancel"),
    # the home page's phones (api/lan.py)
    "phones.label": _l("phone (QR code), {when}"),
    "phones.expires": _l("This code signs one phone in, to record games, for {time} more."),
    "phones.expires_viewer": _l("This code signs one phone in, to read only, for {time} more."),
    "phones.joined": _l("A phone signed in (“{label}”): the next one scans the new code."),
    "phones.signed_in": _l("{count} phones signed in here, each with a token of its own: nj-ledger tokens list shows "
                           "them, nj-ledger tokens revoke ends one."),
    "phones.signed_in_one": _l("{count} phone signed in here, with a token of its own: nj-ledger tokens list shows it, "
                               "nj-ledger tokens revoke ends it."),
    # home
    "home.no_live": _l("No game in progress."),
    "home.no_games": _l("No game yet: start one above."),
    "home.none_found": _l("No game matches these filters."),
    "home.shown": _l("{count} games shown: all of them."),
    "home.shown_one": _l("{count} game shown: all of them."),
    "home.shown_more": _l("{count} games shown."),
    "home.shown_more_one": _l("{count} game shown."),
    "link.record": _l("Score"),
    "link.replay": _l("Replay"),
    "link.audit": _l("Audit"),
    "deals_played": _l("deals: {count}"),
    "status.ready": _l("between deals"),
    "status.playing": _l("deal in progress"),
    "status.revealing": _l("waiting for hands"),
    "status.ended": _l("finished"),
    "profile.classic": _l("classic"),
    "profile.cards": _l("one chip per card"),
    "profile.skip": _l("skip the missing card"),
    "profile.hearts": _l("hearts board"),
    "profile.avantcoureur-1760": _l("rules of 1760"),
    # games in and out: NJN and JSON files
    "link.sheet": _l("Result sheet"),
    "export.label": _l("Download:"),
    "export.njn": _l("Download NJN"),
    "export.json": _l("Download JSON"),
    "import.sending": _l("Importing {file}…"),
    "import.done": _l("{file} is imported as a new game: {players}, {deals} deals."),
    "import.done_one": _l("{file} is imported as a new game: {players}, {deals} deal."),
    "import.refused": _l("{file} is not imported; nothing is stored:"),
    "import.error_at": _l("Line {line}, column {column}: {message}"),
    "import.error_line": _l("Line {line}: {message}"),
    "import.action_at": _l("Action {n}: {message}"),
    "import.not_json": _l("This file is not valid JSON."),
    "import.empty": _l("This file is empty."),
    # new game
    "player_n": _l("Player {n}"),
    "remove": _l("Remove"),
    # a name that looks like a member's, asked about before the game starts (api/lookalikes.py)
    "lookalike.ask": _l("{name} looks like {other}: the same person?"),
    "lookalike.same": _l("Yes: {other}"),
    "lookalike.other": _l("No, another player"),
    # the table
    "board": _l("The board"),
    "chips": _l("Chips"),
    # a number with its unit, singular or plural as the language says (Intl.PluralRules: French 0 and 1 are one)
    "unit.chip.one": _l("{n} chip"),
    "unit.chip.other": _l("{n} chips"),
    "unit.card.one": _l("{n} card"),
    "unit.card.other": _l("{n} cards"),
    "unit.point.one": _l("{n} point"),
    "unit.point.other": _l("{n} points"),
    "cards_in_hand": _l("{count} in hand"),
    "dealer": _l("Dealer"),
    "mark.dealer": _l("dealer"),
    "mark.turn": _l("to play"),
    "mark.passed": _l("passed"),
    "mark.winner": _l("out"),
    "run": _l("The run on the table"),
    "run.empty": _l("No run on the table"),
    "expected": _l("Next card wanted: {rank}"),
    "box_of": _l("the {card} box"),
    "player": _l("Player"),
    "net": _l("Net"),
    **GAME_MESSAGES,
    **RECORD_MESSAGES,
    **EVENING_MESSAGES,
    **DIRECTOR_MESSAGES,
}


def page_messages() -> dict[str, str]:
    """Every message in the language of the request."""
    return {key: str(text) for key, text in MESSAGES.items()}
