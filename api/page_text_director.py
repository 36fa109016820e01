"""The sentences of the director's evening page and of the published results that the scripts show: the questions
asked in the page (closing, a forced round, new scorer links, revoking a share), what each table waits for, the
standings, and the director's name that signs the decisions. Part of :data:`api.page_text.MESSAGES`."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

DIRECTOR_MESSAGES = {
    # what each table of the round waits for (evening_grid.js)
    "evening.wait.title": _l("Round {round}: what each table waits for"),
    "evening.wait.ready": _l("Not dealt yet: the table is about to start"),
    "evening.wait.playing": _l("Being played: waiting for the game to end"),
    "evening.wait.confirm": _l("Ended: waiting for a player of the table ({players}) to confirm the result"),
    "evening.wait.confirmed": _l("Confirmed by {player}: it counts"),
    "evening.wait.counted": _l("Ended: it counts"),
    "evening.wait.voided": _l("Voided: it does not count"),
    "evening.wait.never_ended": _l("Never ended: it does not count"),
    "evening.wait.never_confirmed": _l("Never confirmed: it does not count"),
    "evening.pairs_best": _l("no seating can do better"),
    # the questions asked in the page (dialog.js)
    "evening.links_title": _l("New scorer links for every table?"),
    "evening.links_yes": _l("Make new links"),
    "evening.links_no": _l("Keep the links as they are"),
    "evening.force_title": _l("Start round {round} before every game has ended?"),
    "evening.force_yes": _l("Start round {round} now"),
    "evening.force_no": _l("Wait for the games to end"),
    "evening.close_title": _l("Close the evening?"),
    "evening.close_not_counted": _l("Some games do not count yet (not ended: {missing}; waiting for a "
                                    "confirmation: {unconfirmed}). Once the evening is closed they never will."),
    "evening.close_explain": _l("Nothing more can be recorded in a closed evening: its results become final."),
    "evening.close_yes": _l("Close the evening"),
    "evening.close_no": _l("Keep the evening open"),
    "evening.close_note": _l("A note for the record (optional)"),
    "evening.close_note_hint": _l("for example: the hall closed early"),
    "evening.closed_notice": _l("The evening is closed: its results are final."),
    "share.revoke_title": _l("Revoke the link “{label}”?"),
    "share.revoke_yes": _l("Revoke the link"),
    "share.revoke_no": _l("Keep the link"),
    # the standings (evening_close.js, results.js)
    "evening.standings": _l("Standings so far"),
    "evening.see_results": _l("See the results page"),
    "results.no_result": _l("no result yet"),
    # the director's name, asked once on a device, and the mends' units (evening_mends.js)
    "mend.signer": _l("Your name (signs the decision)"),
    "mend.signer_hint": _l("for example: Marie"),
    "mend.signed_as": _l("Signed by {name}"),
    "mend.signer_change": _l("Change the name"),
    "mend.signer_title": _l("Who signs the decisions?"),
    "mend.signer_explain": _l("The decisions made on this device are signed with this name, on the director's page "
                              "and on the published results."),
    "mend.signer_yes": _l("Sign with this name"),
    "mend.signer_keep": _l("Keep “{name}”"),
    "mend.by": _l("by {name}"),
    "mend.amount_points": _l("Points (+ or −)"),
    "mend.amount_chips": _l("Chips (+ or −)"),
    "mend.score_points": _l("Match points awarded (0 to 100)"),
    "mend.score_chips": _l("Chips awarded"),
}
