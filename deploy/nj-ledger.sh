#!/bin/sh
# nj-ledger's commands as its service runs them: as its user, with its settings (docs/DEPLOY.md). Installed as
# /usr/local/bin/nj-ledger, so that `nj-ledger club create "…"` or `nj-ledger backup …` typed by the operator
# reach the server's database and key, never a folder of their own.
set -eu
set -a
. /etc/nj-ledger/nj-ledger.env
set +a
if [ "$(id -u)" = 0 ]; then
	exec runuser -u nj-ledger -- /opt/nj-ledger/bin/nj-ledger "$@"
fi
exec /opt/nj-ledger/bin/nj-ledger "$@"
