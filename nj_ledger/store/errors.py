"""Refusals of the store. Like the core's, each has a stable ``code`` and says what it is as a
:class:`~nj_ledger.messages.Message`: an English ``template`` and raw ``params``, written out by the API
in the caller's language (and by the CLI in English)::

    >>> missing = NotFound("There is no club {club!r}.", club="x")
    >>> missing.said
    Message(code='not-found', template='There is no club {club!r}.', params={'club': 'x'})
"""

from __future__ import annotations

from typing import Any

from ..messages import Message


class StoreError(Exception):
    code = "store-error"

    def __init__(self, template: str, **params: Any) -> None:
        super().__init__(template)
        self.template = template
        self.params = params

    @property
    def said(self) -> Message:
        return Message(self.code, self.template, dict(self.params))

    def __str__(self) -> str:  # for logs and tracebacks; what a person reads is written by the API or the CLI
        return f"{self.code}: {self.template} {self.params!r}" if self.params else f"{self.code}: {self.template}"


class NotFound(StoreError):
    """No such club, game or player, or not one the caller's club may see."""

    code = "not-found"


class VersionConflict(StoreError):
    """The game moved on since the version the caller expected."""

    code = "version-conflict"

    def __init__(self, expected: int, current: int) -> None:
        super().__init__("The game is at version {current}, not {expected}: reload it and try again.",
                         expected=expected, current=current)


class EveningMoved(StoreError):
    """The evening moved on (another decision was recorded) since the version the caller expected."""

    code = "version-conflict"

    def __init__(self, expected: int, current: int) -> None:
        super().__init__("The evening is at version {current}, not {expected}: reload it and decide again.",
                         expected=expected, current=current)


class IdempotencyMismatch(StoreError):
    """An ``Idempotency-Key`` reused for a different request."""

    code = "idempotency-mismatch"

    def __init__(self, key: str) -> None:
        super().__init__("The Idempotency-Key {key!r} was already used for a different request: use a new key.",
                         key=key)


class PlayerExists(StoreError):
    code = "player-exists"

    def __init__(self, name: str) -> None:
        super().__init__("The club already has a member called {name!r}.", name=name)


class StoreBusy(StoreError):
    """The database stayed locked by other writers for too long."""

    code = "busy"


class LogDamaged(StoreError):
    """A game's stored log disagrees with its summary: events were removed or added outside the ledger."""

    code = "log-damaged"


class LastScorerToken(StoreError):
    """Revoking this token would leave the club without a token that may write."""

    code = "last-scorer-token"

    def __init__(self, token: int) -> None:
        super().__init__("Token {token} is the club's last token that may write: make another scorer token "
                         "before revoking it, or rotate it instead.", token=token)


class DirectorsOnly(StoreError):
    """A director's token is made, revoked or rotated by a director (or by the server's operator), never by a
    scorer: a scorer could otherwise make themselves the club's director."""

    code = "forbidden"

    def __init__(self) -> None:
        super().__init__("Only the club's director makes, revokes or rotates a director's token (or the server's "
                         "operator: nj-ledger tokens create CLUB --role director).")


class SignInCodeUnknown(StoreError):
    """A phone's sign-in code that this ledger never made (a code misread, or guessed)."""

    code = "sign-in-code-unknown"

    def __init__(self) -> None:
        super().__init__("This sign-in code is not one this ledger made: scan the code on the organiser's screen "
                         "again.")


class SignInCodeUsed(StoreError):
    """A phone's sign-in code that already signed a phone in: each signs one phone in, once."""

    code = "sign-in-code-used"

    def __init__(self) -> None:
        super().__init__("This sign-in code was already used: each code signs one phone in. Scan the new code on "
                         "the organiser's screen.")


class SignInCodeExpired(StoreError):
    """A phone's sign-in code past its minutes (or withdrawn by the organiser)."""

    code = "sign-in-code-expired"

    def __init__(self) -> None:
        super().__init__("This sign-in code has expired (a code lasts two minutes): scan the new code on the "
                         "organiser's screen.")


class SettingError(StoreError):
    """A setting of the environment that cannot be used as it is."""

    code = "setting"


def unreplayable(game: str, number: int) -> LogDamaged:
    """The refusal of a deal whose stored events cannot be replayed."""
    return LogDamaged("The log of game {game!r} cannot be replayed at deal {number}: events were removed or changed "
                      "outside the ledger. Its audit shows what changed.", game=game, number=number)


class DirectorsDecide(StoreError):
    """A decision only the club's director takes (a member's erasure), asked by a scorer or a viewer."""

    code = "forbidden"

    def __init__(self) -> None:
        super().__init__("Only the club's director erases a member (or the server's operator: nj-ledger members "
                         "erase CLUB MEMBER --reason TEXT).")


class AlreadyErased(StoreError):
    """The member was erased already: an erasure is decided once."""

    code = "already-erased"

    def __init__(self, pseudonym: str, number: int) -> None:
        super().__init__("This member was erased already (erasure {number}): they are {pseudonym} now.",
                         pseudonym=pseudonym, number=number)


class AmbiguousMember(StoreError):
    """A member asked for by a text that is one member's name and another's id: an erasure is not decided on a
    guess."""

    code = "member-ambiguous"

    def __init__(self, who: str) -> None:
        super().__init__("{who!r} is the name of one member and the id of another: name the member by the other "
                         "(their name if you meant the id, or their id if you meant the name).", who=who)


class ErasedName(StoreError):
    """A name typed for a player that is an erased member's pseudonym: a new player is not the member erased."""

    code = "name-erased"

    def __init__(self, pseudonym: str) -> None:
        super().__init__("{pseudonym} is the pseudonym of an erased member: a player cannot be seated under it. "
                         "Give the player another name.", pseudonym=pseudonym)


class ErasureRefused(StoreError):
    """An erasure that would change a log's facts, not only the member's name: the name is also a word the log
    uses for something else, or writing it out would change another player's name."""

    code = "erasure-refused"

    def __init__(self, game: str, name: str, evening: bool = False, seats: bool = False) -> None:
        if evening:
            super().__init__("The name {name!r} is also a word the log of evening {evening!r} uses for something "
                             "else: writing it out would change the evening, so the erasure is refused and nothing "
                             "changed.", name=name, evening=game)
        elif seats:
            super().__init__("Writing the name {name!r} out of game {game!r} would change another player's name too, "
                             "so the erasure is refused and nothing changed.", name=name, game=game)
        else:
            super().__init__("The name {name!r} is also a word the log of game {game!r} uses for something else: "
                             "writing it out would change the game, so the erasure is refused and nothing changed.",
                             name=name, game=game)
