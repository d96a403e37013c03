"""Fixtures of the CEL tests: a schema store over the vendored upstream data, and stores over synthetic CRDs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.schemastore.store import SchemaStore
from tests.schemastore.helpers import make_crd


def crd(
    kind: str,
    spec_schema: dict[str, Any],
    *,
    group: str = "example.com",
    version: str = "v1",
) -> dict[str, Any]:
    """A CustomResourceDefinition whose ``spec`` has ``spec_schema``."""
    root = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec_schema,
        },
    }
    return make_crd(root, group=group, kind=kind, versions=((version, True),))


@pytest.fixture
def crd_store(tmp_path: Path, isolated_cache: Path) -> Callable[..., SchemaStore]:
    """``crd_store(crd, ...)``: a store whose first source holds exactly these CRDs."""

    def make(*crds: dict[str, Any]) -> SchemaStore:
        folder = tmp_path / "crds"
        folder.mkdir(exist_ok=True)
        for index, item in enumerate(crds):
            (folder / f"crd-{index}.yaml").write_text(yaml.safe_dump(item))
        return SchemaStore.from_search_path([folder])

    return make
