"""Refusals of the store. Like the core's, each has a stable ``code`` and a sentence."""

from __future__ import annotations

from typing import Any


class StoreError(Exception):
    code = "store-error"

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.params = params


class NotFound(StoreError):
    """No such club, game or player, or not one the caller's club may see."""

    code = "not-found"


class VersionConflict(StoreError):
    """The game moved on since the version the caller expected."""

    code = "version-conflict"

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(
            f"The game is at version {current}, not {expected}: reload it and try again.",
            expected=expected, current=current,
        )


class IdempotencyMismatch(StoreError):
    """An ``Idempotency-Key`` reused for a different request."""

    code = "idempotency-mismatch"

    def __init__(self, key: str) -> None:
        super().__init__(
            f"The Idempotency-Key {key!r} was already used for a different request: use a new key.", key=key
        )


class PlayerExists(StoreError):
    code = "player-exists"

    def __init__(self, name: str) -> None:
        super().__init__(f"The club already has a member called {name!r}.", name=name)


class StoreBusy(StoreError):
    """The database stayed locked by other writers for too long."""

    code = "busy"
