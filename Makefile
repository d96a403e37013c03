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

.PHONY: demo test test-compiled lint bench snapshots schemas-bundle install install-test clean

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

# The same code compiled with mypyc (hatch_build.py): the wheel is built from this checkout with
# what .venv has (CAPZGEN_MYPYC=1: a failed compile fails), installed into a scratch folder, and a
# slice of the suite that drives the compiled modules runs against it instead of the sources.
COMPILED := build/compiled
COMPILED_SLICE ?= tests/validate tests/core/test_compiled.py tests/migrate tests/yamlio/test_block_cases.py \
	tests/yamlio/test_block_equivalence.py tests/yamlio/test_block_cutting.py
test-compiled: install-test
	rm -rf $(COMPILED)
	CAPZGEN_MYPYC=1 $(BIN)/python -m pip wheel --quiet --no-build-isolation --no-deps -w $(COMPILED)/dist .
	$(BIN)/python -m pip install --quiet --no-deps --target $(COMPILED)/site $(COMPILED)/dist/*.whl
	cp -r tests docs README.md pyproject.toml $(COMPILED)/
	cd $(COMPILED) && PYTHONPATH=site CAPZGEN_EXPECT_COMPILED=1 $(abspath $(BIN))/python -m pytest \
		-q -n 2 -p no:cacheprovider $(COMPILED_SLICE)

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
