"""Serving the app: waitress in one process, or gunicorn's threaded workers in several.

One process serves a club's table well; a busy server (a federation, an online
table) gives it one worker per core: the workers share the database, and each
keeps its own caches (a state is always checked against the game's version in
the database before use, so a worker never serves a stale game).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from . import create_app


def serve(config: Mapping[str, Any], host: str, port: int, threads: int, workers: int) -> None:
    """Serve ``create_app(config)`` on ``host:port`` until interrupted."""
    if workers == 1:
        import waitress

        waitress.serve(create_app(config), host=host, port=port, threads=threads, ident="nj-ledger")
        return
    _run_workers(config, {
        "bind": f"{host}:{port}", "workers": workers, "worker_class": "gthread", "threads": threads,
        "accesslog": None,  # requests are not logged: a URL may name a game, a header carries a token
        "proc_name": "nj-ledger",
    })


def _run_workers(config: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """gunicorn, configured here rather than by a file (imported only here: it runs on POSIX systems only)."""
    from gunicorn.app.base import BaseApplication

    class Workers(BaseApplication):  # type: ignore[misc]
        """Each worker makes its own app, and with it its own database engine."""

        def load_config(self) -> None:
            for name, value in options.items():
                self.cfg.set(name, value)

        def load(self) -> Flask:
            return create_app(config)

    Workers().run()
