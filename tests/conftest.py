"""Fixtures shared by every test module: the upstream test data, schema stores, and the CLI."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.settings import Settings

REPO_ROOT = Path(__file__).resolve().parent.parent


# Copies of the pinned upstream files (CRDs, ASO JSON Schemas, CAPZ's released templates), laid
# out like the project's upstream mirror; tests/data/upstream/README.md gives their provenance.
# The tests need nothing outside the repository.
SHARED = REPO_ROOT / "tests" / "data" / "upstream"


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the session, so converted CRDs and compiled templates are made once."""
    return tmp_path_factory.mktemp("capzgen-cache")


@pytest.fixture
def cli_env(tmp_path: Path, session_cache: Path) -> dict[str, str]:
    """The whole environment the CLI under test sees: ``run_cli`` passes it to ``main``, and a
    test or fixture adds what it needs (a fake binary's PATH, a variable). Nothing of the
    machine's own environment leaks in but PATH, and ``os.environ`` is never patched."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "LANG": "C.UTF-8",
        "CAPZGEN_CACHE_DIR": str(session_cache),
    }


@pytest.fixture
def isolated_cache(cli_env: dict[str, str]) -> Path:
    """The cache the CLI under test uses (the session's, unless a folder's conftest gives each
    test its own)."""
    return Path(cli_env["CAPZGEN_CACHE_DIR"])


@pytest.fixture
def cached_settings(session_cache: Path) -> Settings:
    """Library-level settings with the session cache (and an empty environment)."""
    return Settings(cache_root=session_cache)


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
        # Generated ASO schemas first: its ManagedCluster v1api20240901 replaces the catalog's,
        # as in the bundle (schemas/sources.yaml).
        shared_dir / "schemas-next",
        shared_dir / "schemas",
    ]


@pytest.fixture
def schema_args(shared_schema_dirs: list[Path]) -> list[str]:
    """``--schema-dir`` options for the vendored upstream CRDs and ASO schemas."""
    return [arg for d in shared_schema_dirs for arg in ("--schema-dir", str(d))]


@pytest.fixture
def shared_store(shared_schema_dirs: list[Path], cached_settings: Settings) -> Any:
    """A SchemaStore over the vendored upstream CRDs and ASO schemas (ahead of the bundle)."""
    from generator.schemastore.store import SchemaStore

    return SchemaStore.from_search_path(shared_schema_dirs, cached_settings)


@pytest.fixture
def store(shared_store: Any) -> Any:
    return shared_store


# The main job as a user types it: `generate cluster` with the two values the aks flavor needs.
def validated_line(warnings: int = 0) -> str:
    """The closing stderr line of ``generate cluster`` on GENERATE_DEMO (7 objects, 4 embedded
    ASO resources), with today's rule count so a new rule does not break every exact check."""
    from generator.checks.rules import CHANGE_RULES, RULES

    return (
        f"validated 7 objects (4 embedded ASO resources): schemas, CEL, "
        f"{len(RULES) - len(CHANGE_RULES)} CAPZ/ASO "
        f"rules; 0 errors, {warnings} warning{'' if warnings == 1 else 's'}\n"
    )


# A fleet file of one valid cluster, the main job's values (the CI and pre-commit tests).
DEMO_FLEET = """\
defaults:
  flavor: aks
  kubernetesVersion: v1.31.1
  values: {AZURE_LOCATION: westeurope}
clusters:
  - name: east
"""
GENERATE_DEMO = [
    "generate",
    "cluster",
    "demo",
    "--var",
    "AZURE_LOCATION=westeurope",
    "--kubernetes-version",
    "v1.31.1",
]


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(
    cli_env: dict[str, str], capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CliResult]:
    """Call ``generator.cli.main(argv, environ)`` in-process with ``cli_env`` (plus ``env``) as
    its whole environment, and capture what it prints."""
    from generator.cli import main

    def run(
        argv: Sequence[str], *, env: dict[str, str] | None = None, stdin: str | None = None
    ) -> CliResult:
        if stdin is not None:
            import io
            import sys

            monkeypatch.setattr(
                sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
            )
        capfd.readouterr()
        code = main(list(argv), environ={**cli_env, **(env or {})})
        out, err = capfd.readouterr()
        return CliResult(code, out, err)

    return run


@pytest.fixture(scope="session")
def peers(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The upstream peer programs (``tests.peers``), unpacked once per test process."""
    from tests.peers import find_peers

    return find_peers(tmp_path_factory.mktemp("peers"), os.environ)


@pytest.fixture
def real_kubeconform(peers: Any, cli_env: dict[str, str]) -> None:
    """The real kubeconform first on the CLI's PATH: the peer's, else one installed; the test
    is skipped, saying why, when there is neither."""
    binary = peers.binary("kubeconform")
    if binary is not None:
        cli_env["PATH"] = f"{binary.parent}{os.pathsep}{cli_env['PATH']}"
    elif shutil.which("kubeconform", path=cli_env["PATH"]) is None:
        pytest.skip(
            f"the real kubeconform is not at hand ({peers.why_not or 'not among the peers'})"
        )
