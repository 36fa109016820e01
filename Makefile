# Two commands: `make run` and `make test`. Everything else is set up by them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

HOST   ?= 127.0.0.1
PORT   ?= 5000
ADMIN_TOKEN_FILE := instance/admin-token
# The instance folder (the embedded database, the signing key) of `make run`: the checkout's own, given as an
# absolute path so that every command finds the same one whatever folder it runs in.
export NJ_LEDGER_INSTANCE ?= $(CURDIR)/instance

CHROMIUM := /usr/bin/chromium
CATALOG  := api/translations/fr/LC_MESSAGES/messages
PYODIDE  := api/static/vendor/pyodide/VERSION

.PHONY: run test lint test-slow test-reliability-slow install clean translations

# The install builds the solver's compiled searches (nj_ledger/analysis/_maxn*.c, .h): editing them installs again,
# which rebuilds them.
# -qq: pip says only what failed (a machine's own pip settings, such as an index folder it lacks, would
# otherwise print a warning a line for every package).
$(STAMP): pyproject.toml $(wildcard nj_ledger/analysis/_maxn*.c nj_ledger/analysis/_maxn*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq -e '.[test]'
	touch $(STAMP)

install: $(STAMP) $(CATALOG).mo $(PYODIDE)

# The Pyodide runtime the scorer page runs the core in with no connection: fetched from the npm registry, its
# pinned integrity checked, only the files the page loads unpacked (scripts/vendor_pyodide.py, docs/OFFLINE.md).
$(PYODIDE): scripts/vendor_pyodide.py
	$(PYTHON) scripts/vendor_pyodide.py

# The French catalog, compiled (the app also compiles it on start when the .po is newer).
$(CATALOG).mo: $(CATALOG).po $(STAMP)
	$(BIN)/pybabel compile -d api/translations

# Bring the catalog up to date with the pages, the core's and the API's refusals and the audit's findings; lists what needs French.
# Then French typography in every French string (scripts/french_typography.py: no-break spaces, « guillemets »).
translations: install
	$(BIN)/python -m api.catalog
	$(BIN)/python scripts/french_typography.py

# The browser tests drive Debian's Chromium (Playwright never downloads a browser here).
$(CHROMIUM):
	-apt-get install -y -qq chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium) \
	  || echo "Chromium could not be installed: the browser tests will be skipped."

# The programs the tests of a club's server use as a club would (tests/deploy/, tests/lan/): Caddy (the proxy with
# HTTPS that docs/DEPLOY.md installs), NSS's certutil (a browser's trust in the test's authority) and zbar's
# zbarimg (the QR codes the server prints and the pages show, read back).
SERVER_PROGRAMS := /usr/bin/caddy /usr/bin/certutil /usr/bin/zbarimg
$(SERVER_PROGRAMS):
	apt-get install -y -qq caddy libnss3-tools zbar-tools >/dev/null 2>&1 \
	  || (apt-get update -qq && apt-get install -y -qq caddy libnss3-tools zbar-tools >/dev/null)

# Where `make run` listens: this machine only; `make run LAN=1`, also the phones of this network (`serve --lan`,
# which prints the address phones open and its QR code); `make run LAN=https`, the same over HTTPS with the
# club's own certificate authority (docs/DEPLOY.md, "In a club room: the local network").
SERVE_ON = $(if $(LAN),--lan $(if $(filter https,$(LAN)),--https),--host $(HOST))

# Migrate the embedded SQLite, load the example games into the demo club, print where to look, serve.
run: install
	@mkdir -p instance
	@test -s $(ADMIN_TOKEN_FILE) || $(BIN)/nj-ledger admin-token > $(ADMIN_TOKEN_FILE)
	$(BIN)/nj-ledger db upgrade
	$(BIN)/nj-ledger demo
	@echo
	@echo "  Pages:     http://$(HOST):$(PORT)/"
	@echo "  API docs:  http://$(HOST):$(PORT)/api/v1/docs"
	@echo "  OpenAPI:   http://$(HOST):$(PORT)/api/v1/openapi.json"
	@echo "  Admin token (creates clubs): $$(cat $(ADMIN_TOKEN_FILE))   (kept in $(ADMIN_TOKEN_FILE))"
	@echo
	NJ_LEDGER_ADMIN_TOKEN=$${NJ_LEDGER_ADMIN_TOKEN:-$$(cat $(ADMIN_TOKEN_FILE))} $(BIN)/nj-ledger serve $(SERVE_ON) --port $(PORT)

# The code's own checks, which fail `make test`: ruff (the rules chosen in pyproject.toml), mypy on every layer,
# strict on the core and its store.
lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/mypy --strict nj_ledger

# The suite on every core (pytest-xdist): each test has its own scratch schema, SQLite folder and loopback port;
# the browser tests keep to one worker (tests/conftest.py).
test: install $(CHROMIUM) $(SERVER_PROGRAMS) lint
	$(BIN)/python -m pytest -n auto --dist loadgroup

# The long runs (`.ci/run` runs them after `make test`): the tests marked `slow` (twenty kills, whole benches) and
# the `scaled` ones again at their thorough size (10,024 simulated games, 3,000 NJN round trips, 600 random games
# per property, 8 x 1,000 concurrent appends, the longer schemathesis run), on every core (pytest-xdist gives each
# worker the next test as it frees up).
SLOW := -m 'slow or scaled' --hypothesis-profile=thorough

test-slow: install
	$(BIN)/python -m pytest -n auto $(SLOW)

# The reliability suite's long runs alone.
test-reliability-slow: install
	$(BIN)/python -m pytest $(SLOW) tests/reliability

clean:
	rm -rf $(VENV) instance .pytest_cache .hypothesis
