# flopfit: `make run` to use it, `make test` to check it. Both set everything up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install lock run migrate loadcatalog loadprices loadfaults demousers worker beat test test-slow fuzz lint format \
	messages validate bands bench bench-peers clean

install: $(VENV)/.installed

# Every package at the version, and with the hashes, that requirements.lock pins; then flopfit
# itself, whose dependencies the lock already holds. Runs again when the lock or pyproject.toml
# changes. The lock pins setuptools too, so flopfit is built with it, without a fetch.
$(VENV)/.installed: requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	mkdir -p var
	touch $@

# Compile the locks again from pyproject.toml after changing a dependency there. Pins already in
# a lock are kept where they still fit; LOCK_ARGS=--upgrade (or --upgrade-package NAME) moves
# them. The production and load locks are held to the versions requirements.lock pins, so the
# image runs what the tests ran.
PIP_COMPILE := $(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe \
	--no-emit-index-url --no-emit-find-links $(LOCK_ARGS)

lock: install
	$(PIP_COMPILE) --extra dev --output-file requirements.lock pyproject.toml
	$(PIP_COMPILE) --constraint requirements.lock --output-file requirements-prod.lock pyproject.toml
	$(PIP_COMPILE) --constraint requirements.lock --extra load --output-file requirements-load.lock \
		pyproject.toml

migrate: install
	$(MANAGE) migrate --no-input

loadcatalog: migrate
	$(MANAGE) loadcatalog

# The reference price list names catalog items, so it loads after them.
loadprices: loadcatalog
	$(MANAGE) loadprices

loadfaults: migrate
	$(MANAGE) loadfaults

# Role groups, and one demo user per role (passwords printed once, when created).
demousers: migrate
	$(MANAGE) setuproles
	$(MANAGE) demousers

# Web server and Celery worker side by side; Ctrl-C stops both. The worker runs Celery beat
# inside it (-B), which starts the periodic tasks (CELERY_BEAT_SCHEDULE: simulations whose task
# was lost are queued again), on the same embedded SQLite broker.
run: loadprices loadfaults demousers
	@echo "flopfit on http://$(HOST):$(PORT)/  (Ctrl-C stops the server and the worker)"
	@trap 'kill $$WORKER 2>/dev/null; wait $$WORKER 2>/dev/null' EXIT INT TERM; \
	$(BIN)/celery -A config worker -B --loglevel=INFO --concurrency=2 & WORKER=$$!; \
	$(MANAGE) runserver $(HOST):$(PORT)

# A worker alone, for more workers beside `make run` or `make beat`.
worker: install
	$(BIN)/celery -A config worker --loglevel=INFO

# The periodic tasks alone: exactly one beat per installation.
beat: install
	$(BIN)/celery -A config beat --loglevel=INFO

# The everyday suite. Tests marked `slow` (browser walks, faults at production settings, the
# long API fuzz, many writers racing) run with `make test-slow`; CI runs both.
test: install
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

test-slow: install
	$(BIN)/python -m pytest -m slow $(PYTEST_ARGS)

# schemathesis's command line over every API operation in all its phases (examples, coverage,
# fuzzing, stateful) against gunicorn on a database of its own (tests/fuzz/run.py), signed in as
# a team admin and anonymously, for FUZZ_TIME_S seconds in all; a request still running then
# gets five minutes more. tests/test_api_fuzz.py is the suite's own, smaller fuzz.
FUZZ_TIME_S ?= 600
fuzz: install
	timeout $$(( $(FUZZ_TIME_S) + 300 )) $(BIN)/python -m tests.fuzz.run --max-time $(FUZZ_TIME_S)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(MANAGE) makemigrations --check --dry-run
	$(MANAGE) spectacular --validate --fail-on-warn --file /dev/null

# Published training runs replayed through the engine: measured vs predicted, per row.
validate: install
	$(MANAGE) validate

# The uncertainty band each estimate carries, from the validation rows (planner/validation/bands.json).
bands: install
	$(MANAGE) bands

# llm-analysis, the peer the fixed-layout estimate is timed against, in an environment of its
# own (it is not a flopfit dependency); a machine without PyPI leaves that line skipped.
PEER_VENV := .venv-peers
bench-peers:
	@test -x $(PEER_VENV)/bin/python || $(PYTHON) -m venv $(PEER_VENV)
	@$(PEER_VENV)/bin/python -c "import llm_analysis" 2>/dev/null || \
		$(PEER_VENV)/bin/python -m pip install --quiet llm-analysis==0.2.2 || \
		echo "llm-analysis could not be installed: its line in the report is skipped"

bench: loadprices bench-peers
	$(BIN)/python -m pytest bench --benchmark-only -p no:cacheprovider -q
	$(BIN)/python bench/engine_search.py
	$(BIN)/python bench/speed_report.py

# Load against gunicorn and a Celery worker on loopback (PostgreSQL and Redis must be running):
# 5 minutes of the mix by default; LOAD_ARGS="--soak 600" for the 10-minute memory soak.
.PHONY: load
load: $(VENV)/.installed-load
	$(BIN)/python bench/load/run.py $(LOAD_ARGS)

# Locust and what it needs, at the versions requirements-load.lock pins (the rest is installed).
$(VENV)/.installed-load: $(VENV)/.installed requirements-load.lock
	$(BIN)/python -m pip install --quiet -r requirements-load.lock
	touch $@

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Refresh the Chinese catalogue after changing translatable text, then translate and compile.
messages: install
	$(MANAGE) makemessages --locale zh_Hans --ignore '.venv/*' --ignore 'var/*'
	$(MANAGE) compilemessages --locale zh_Hans --ignore '.venv/*'

clean:
	rm -rf var/*.sqlite3 var/staticfiles
