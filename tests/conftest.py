"""Fixtures shared by every test module: the upstream test data, schema stores, and the CLI."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


# Copies of the pinned upstream files (CRDs, ASO JSON Schemas, CAPZ's released templates), laid
# out like the project's upstream mirror; tests/data/upstream/README.md gives their provenance.
# The tests need nothing outside the repository.
SHARED = REPO_ROOT / "tests" / "data" / "upstream"


@pytest.fixture(scope="session", autouse=True)
def _session_schema_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never read or write the user's schema cache; one cache is shared per session so
    converted CRDs are memoised once. Modules with their own isolation override it per test."""
    saved = {key: os.environ.get(key) for key in ("CAPZGEN_CACHE_DIR", "CAPZGEN_SCHEMA_PATH")}
    os.environ["CAPZGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("schema-cache"))
    os.environ.pop("CAPZGEN_SCHEMA_PATH", None)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The vendored upstream data (tests/data/upstream): CRDs, ASO schemas, CAPZ templates."""
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpus" / "capz-templates"


@pytest.fixture(scope="session")
def shared_schema_dirs(shared_dir: Path) -> list[Path]:
    return [
        shared_dir / "crds" / "capz-v1.26.0",
        shared_dir / "crds" / "capi-v1.13.3",
        shared_dir / "schemas",
    ]


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No clusterctl config file and no cluster variables from the machine running the tests."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in (
        "AZURE_LOCATION",
        "KUBERNETES_VERSION",
        "WORKER_MACHINE_COUNT",
        "NODE_POOLS",
        "NAME",
        "REGION",
        "COUNT",
        "A",
        "B",
        "C",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def schema_args(shared_schema_dirs: list[Path]) -> list[str]:
    """``--schema-dir`` options for the vendored upstream CRDs and ASO schemas."""
    return [arg for d in shared_schema_dirs for arg in ("--schema-dir", str(d))]


@pytest.fixture
def isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The session's schema cache, with no CAPZGEN_SCHEMA_PATH (explicit, for tests that pass
    ``env=`` to the store or run the CLI and want to name the folder)."""
    cache = Path(os.environ["CAPZGEN_CACHE_DIR"])
    monkeypatch.setenv("CAPZGEN_CACHE_DIR", str(cache))
    monkeypatch.delenv("CAPZGEN_SCHEMA_PATH", raising=False)
    return cache


@pytest.fixture
def shared_store(shared_schema_dirs: list[Path], isolated_cache: Path) -> Any:
    """A SchemaStore over the vendored upstream CRDs and ASO schemas (not the bundle)."""
    from generator.schemastore.store import SchemaStore

    return SchemaStore.from_search_path(shared_schema_dirs)


@pytest.fixture
def store(shared_store: Any) -> Any:
    return shared_store


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Call ``generator.cli.main(argv)`` in-process and capture what it prints."""
    from generator.cli import main

    def run(
        argv: Sequence[str], *, env: dict[str, str] | None = None, stdin: str | None = None
    ) -> CliResult:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        if stdin is not None:
            import io
            import sys

            monkeypatch.setattr(
                sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
            )
        capfd.readouterr()
        code = main(list(argv))
        out, err = capfd.readouterr()
        return CliResult(code, out, err)

    return run
