# capzgen developer entry points. `make demo` and `make test` do all set-up themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Upstream copies the built-in schema bundle is built from (`make schemas-bundle`); nothing else
# reads them. The demo and the tests use only what the repository ships.
SHARED ?= $(abspath ../shared)
# The tests and the demo must not see a developer's own schema settings.
unexport CAPZGEN_SCHEMA_PATH CAPZGEN_CACHE_DIR

.PHONY: demo test lint bench snapshots schemas-bundle install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: install
	$(BIN)/capzgen generate cluster demo --flavor aks \
		--var AZURE_LOCATION=westeurope --kubernetes-version v1.31.1 --target-namespace demo

# The suite runs under coverage, on every core (pytest-xdist); below the floor in pyproject.toml
# it fails. No test depends on wall-clock speed, so a loaded machine only makes it slower.
test: install-test
	$(BIN)/python -m pytest -q -n auto --cov --cov-report=

lint: install-test
	$(BIN)/ruff check generator tests benchmarks
	$(BIN)/ruff format --check generator tests benchmarks
	$(BIN)/mypy --strict

snapshots: install-test
	$(BIN)/python -m pytest -q --snapshot-update tests

bench: install-test
	$(BIN)/python -m benchmarks.run

# Rebuild schemas/bundle from the pinned upstream files (schemas/sources.yaml). Source folders
# laid out like ../shared: `make schemas-bundle SOURCES="dir1 dir2"`; tests/data/upstream is one.
# ../shared has no Flux CRDs; the first folder holding a pinned file wins, so the vendored copies
# fill the gap.
SOURCES ?= $(SHARED) tests/data/upstream
schemas-bundle: install
	$(BIN)/python -m generator.schemastore.bundle_build $(SOURCES)

clean:
	rm -rf $(VENV) dist build .mypy_cache .ruff_cache .pytest_cache
