# capzgen developer entry points. `make demo` and `make test` do all set-up themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED ?= $(abspath ../shared)
# Schemas the demo and the tests validate against (the upstream CRDs and ASO JSON Schemas beside the repo).
SCHEMA_PATH := $(SHARED)/crds/capz-v1.26.0:$(SHARED)/crds/capi-v1.13.3:$(SHARED)/schemas
export CAPZGEN_SHARED := $(SHARED)

.PHONY: demo test lint bench snapshots install install-test clean

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
	CAPZGEN_SCHEMA_PATH="$(SCHEMA_PATH)" $(BIN)/capzgen generate cluster demo --flavor aks \
		--var AZURE_LOCATION=westeurope --kubernetes-version v1.31.1 --target-namespace demo

test: install-test
	CAPZGEN_SCHEMA_PATH="$(SCHEMA_PATH)" $(BIN)/python -m pytest -q

lint: install-test
	$(BIN)/ruff check generator tests
	$(BIN)/ruff format --check generator tests
	$(BIN)/mypy --strict

snapshots: install-test
	CAPZGEN_SCHEMA_PATH="$(SCHEMA_PATH)" $(BIN)/python -m pytest -q --snapshot-update tests

bench: install-test
	CAPZGEN_SCHEMA_PATH="$(SCHEMA_PATH)" $(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) dist build .mypy_cache .ruff_cache .pytest_cache
