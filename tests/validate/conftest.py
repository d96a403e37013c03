"""Shared helpers of the validation tests: a fake schema store, YAML loading, CAPZ templates.

The real schema store is built elsewhere; these tests use tiny strict schemas compiled with
``jsonschema_rs`` so that what the engine does with a store (which schema, which path, which
subject) is checked independently of the store's own behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from generator.documents import Document
from generator.schemastore.types import GroupVersionKind, SchemaViolation

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"

# Plain values for the ${VAR}s of the released aks-aso templates.
TEMPLATE_VALUES = {
    "${CLUSTER_NAME}": "demo",
    "${CLUSTER_CLASS_NAME}": "demo-class",
    "${ASO_CREDENTIAL_SECRET_NAME}": "aso-credentials",
    "${AZURE_LOCATION}": "westeurope",
    "${KUBERNETES_VERSION}": "v1.31.1",
    "${WORKER_MACHINE_COUNT:=2}": "2",
    "${AZURE_NODE_MACHINE_TYPE}": "Standard_D2s_v3",
}


@dataclass(frozen=True)
class FakeHandle:
    gvk: GroupVersionKind
    source: str
    validator: Any

    def is_valid(self, obj: Any) -> bool:
        return bool(self.validator.is_valid(obj))

    def iter_violations(self, obj: Any) -> Iterator[SchemaViolation]:
        for error in self.validator.iter_errors(obj):
            yield SchemaViolation(path=tuple(error.instance_path), message=error.message)


class FakeStore:
    """A ``SchemaLookup`` over a dict of schemas; records every lookup for assertions."""

    def __init__(self, schemas: dict[str, Any]) -> None:
        self.handles: dict[tuple[str, str], FakeHandle] = {}
        self.lookups: list[tuple[str, str]] = []
        for key, schema in schemas.items():
            api_version, kind = key.split(" ")
            gvk = GroupVersionKind.from_api_version(api_version, kind)
            self.handles[(api_version, kind)] = FakeHandle(
                gvk, f"fake:{key}", jsonschema_rs.validator_for(schema)
            )

    def lookup(self, api_version: str, kind: str) -> FakeHandle | None:
        self.lookups.append((api_version, kind))
        return self.handles.get((api_version, kind))

    def searched(self) -> list[str]:
        return ["the fake schemas of tests/validate/fake_schemas.yaml"]


def parse_documents(text: str, source: str = "test.yaml") -> list[Document]:
    return [Document(source, index, obj) for index, obj in enumerate(yaml.safe_load_all(text))]


def substitute(text: str) -> str:
    for key, value in TEMPLATE_VALUES.items():
        text = text.replace(key, value)
    assert "${" not in text, "a template variable was left unsubstituted"
    return text


@pytest.fixture(scope="session")
def fake_schemas() -> dict[str, Any]:
    data = yaml.safe_load((HERE / "fake_schemas.yaml").read_text())
    return dict(data["schemas"])


@pytest.fixture
def fake_store(fake_schemas: dict[str, Any]) -> FakeStore:
    return FakeStore(fake_schemas)


@pytest.fixture
def make_store(fake_schemas: dict[str, Any]) -> Callable[[], FakeStore]:
    return lambda: FakeStore(fake_schemas)


@pytest.fixture
def parse() -> Callable[..., list[Document]]:
    return parse_documents


@pytest.fixture
def template_docs(corpus_dir: Path) -> Callable[[str], list[Document]]:
    """The released CAPZ template ``cluster-template-<flavor>.yaml`` with plain values."""

    def load(flavor: str) -> list[Document]:
        name = f"cluster-template-{flavor}.yaml"
        return parse_documents(substitute((corpus_dir / name).read_text()), name)

    return load
