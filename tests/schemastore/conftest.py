"""Fixtures for the schema store tests: an isolated cache, and stores over CRDs written on the fly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from generator.schemastore.store import SchemaStore
from generator.settings import Settings
from tests.schemastore.helpers import Crd, write_yaml


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, cli_env: dict[str, str]) -> Path:
    """Every test gets its own cache (the CLI's, through ``cli_env``)."""
    cache = tmp_path / "cache"
    cli_env["CAPZGEN_CACHE_DIR"] = str(cache)
    return cache


@pytest.fixture
def settings(isolated_cache: Path) -> Settings:
    """Library-level settings with the test's own cache."""
    return Settings(cache_root=isolated_cache)


StoreFactory = Callable[..., SchemaStore]


@pytest.fixture
def store_for(tmp_path: Path, settings: Settings) -> StoreFactory:
    """Build a store over CRDs written into a fresh folder (plus any extra schema dirs), with the
    test's cache unless ``use_cache=False``."""

    def build(*crds: Crd, extra_dirs: Sequence[Path] = (), use_cache: bool = True) -> SchemaStore:
        folder = tmp_path / f"crds-{len(list(tmp_path.glob('crds-*')))}"
        folder.mkdir()
        if crds:
            write_yaml(folder / "crds.yaml", *crds)
        chosen = settings if use_cache else Settings()
        return SchemaStore.from_search_path([folder, *extra_dirs], chosen)

    return build
