"""API tests: the app on SQLite and on PostgreSQL, clubs made through the API, small helpers."""

from __future__ import annotations

from support.apps import app, calls, client, club, problem  # noqa: F401 - fixtures of every HTTP test
from support.backends import backend, database_url, store  # noqa: F401 - fixtures of every database test


