"""The side-by-side benchmark of SPEC §9: ``nj-ledger bench`` runs it.

Each workload measures the ledger (``ours``), the same work done by the
``eventsourcing`` library (``peer``) and the raw limit of the database or of
``hashlib`` (``raw``) in one run, on simulated games. :mod:`benchmarks.runner`
runs them all and prints the table; the JSON written by ``--json`` is
``{machine, workloads: [{name, unit, ours, peer, raw, ratio_peer, ratio_raw,
target, met}]}``.
"""
