"""Fixtures for the schema store tests: an isolated cache, and stores over CRDs written on the fly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import platformdirs
import pytest

from generator.schemastore.store import SchemaStore
from tests.schemastore.helpers import Crd, write_yaml


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own cache and an empty CAPZGEN_SCHEMA_PATH (the Makefile sets one)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CAPZGEN_CACHE_DIR", str(cache))
    monkeypatch.delenv("CAPZGEN_SCHEMA_PATH", raising=False)
    # Belt and braces: even a test passing its own env= never reaches the real user cache.
    fallback = str(tmp_path / "user-cache")
    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *a, **k: fallback)
    return cache


StoreFactory = Callable[..., SchemaStore]


@pytest.fixture
def store_for(tmp_path: Path) -> StoreFactory:
    """Build a store over CRDs written into a fresh folder (plus any extra schema dirs)."""

    def build(*crds: Crd, extra_dirs: Sequence[Path] = (), use_cache: bool = True) -> SchemaStore:
        folder = tmp_path / f"crds-{len(list(tmp_path.glob('crds-*')))}"
        folder.mkdir()
        if crds:
            write_yaml(folder / "crds.yaml", *crds)
        return SchemaStore.from_search_path([folder, *extra_dirs], use_cache=use_cache)

    return build
