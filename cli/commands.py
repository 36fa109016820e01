"""The ``nj-ledger`` command line: run the service, migrate, create clubs, load, move and simulate games.

The group and what its commands share are in :mod:`cli.app`; each family of commands has its module, which adds
them to the group when imported here: :mod:`cli.serve` (``serve``, ``db upgrade``), :mod:`cli.clubs` (clubs and
tokens), :mod:`cli.games` (``demo``, ``games list``, ``import``, ``export``), :mod:`cli.analyse`,
:mod:`cli.simulate` (``simulate``, ``projections rebuild``, ``bench``), :mod:`cli.keys` (``admin-token``, signing
keys, signed heads), :mod:`cli.evenings` (club evenings), :mod:`cli.members` (members' erasure), :mod:`cli.archive`
(a club's archive) and :mod:`cli.backup` (``backup``, ``restore``). The
command line speaks French when the terminal's locale is French (:mod:`cli.language`).

    $ nj-ledger db upgrade
    $ nj-ledger club create "Club de Quimper"
    $ nj-ledger serve --port 5000
"""

from __future__ import annotations

from . import analyse, archive, clubs, evenings, games, keys, members, serve, simulate  # noqa: F401 - each adds its commands
from .app import examples_folder, main
from .backup import register_backups

register_backups(main)  # nj-ledger backup FILE|FOLDER, nj-ledger restore FILE (cli/backup.py)

__all__ = ["examples_folder", "main"]
