"""The recorders of the databases the ledger keeps its log in, SQLite's and PostgreSQL's, one of each.

:mod:`.sqlite` and :mod:`.postgresql` build on :class:`~.recorder.Recorder`; this module imports them and
hands their recorders to :func:`~.recorder.register`, so that :func:`~.recorder.recorder_for` knows them
while the module of the interface imports none of its implementations. The package imports this module
(``nj_ledger/store/__init__.py``): any module of the store, being imported, finds both registered.
"""

from __future__ import annotations

from .postgresql import PostgresRecorder
from .recorder import Recorder, recorder_for, register
from .sqlite import SQLiteRecorder

RECORDERS: tuple[Recorder, ...] = (SQLiteRecorder(), PostgresRecorder())
for _recorder in RECORDERS:
    register(_recorder)

__all__ = ["RECORDERS", "Recorder", "recorder_for"]
