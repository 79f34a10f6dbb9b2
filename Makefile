# flopfit: `make run` to use it, `make test` to check it. Both set everything up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run migrate loadcatalog loadprices demousers worker test lint format messages validate bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	mkdir -p var
	touch $@

migrate: install
	$(MANAGE) migrate --no-input

loadcatalog: migrate
	$(MANAGE) loadcatalog

# The reference price list names catalog items, so it loads after them.
loadprices: loadcatalog
	$(MANAGE) loadprices

# Role groups, and one demo user per role (passwords printed once, when created).
demousers: migrate
	$(MANAGE) setuproles
	$(MANAGE) demousers

# Web server and Celery worker side by side; Ctrl-C stops both.
run: loadprices demousers
	@echo "flopfit on http://$(HOST):$(PORT)/  (Ctrl-C stops the server and the worker)"
	@trap 'kill $$WORKER 2>/dev/null; wait $$WORKER 2>/dev/null' EXIT INT TERM; \
	$(BIN)/celery -A config worker --loglevel=INFO --concurrency=2 & WORKER=$$!; \
	$(MANAGE) runserver $(HOST):$(PORT)

worker: install
	$(BIN)/celery -A config worker --loglevel=INFO

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

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

bench: install
	$(BIN)/python -m pytest bench --benchmark-only -p no:cacheprovider -q
	$(BIN)/python bench/engine_search.py

# Load against gunicorn and a Celery worker on loopback (PostgreSQL and Redis must be running):
# 5 minutes of the mix by default; LOAD_ARGS="--soak 600" for the 10-minute memory soak.
.PHONY: load
load: $(VENV)/.installed-load
	$(BIN)/python bench/load/run.py $(LOAD_ARGS)

$(VENV)/.installed-load: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[dev,load]'
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
