"""Core Kubernetes kinds from kubernetes_validate: always available, lowest priority."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.schemastore.core import CoreKinds, find_schema_dir
from generator.schemastore.store import SchemaStore
from generator.schemastore.types import GroupVersionKind
from tests.schemastore.helpers import messages


@pytest.fixture
def store() -> SchemaStore:
    return SchemaStore.from_search_path()


def secret(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **fields}


def test_newest_strict_schema_dir_is_used() -> None:
    found = find_schema_dir()
    assert found is not None
    assert found.name.endswith("-local-strict")
    assert (found / "_definitions.json").is_file()


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("v1", "Secret"),
        ("v1", "ConfigMap"),
        ("v1", "Namespace"),
        ("v1", "ServiceAccount"),
        ("apps/v1", "Deployment"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ],
)
def test_core_kinds_are_available(store: SchemaStore, api_version: str, kind: str) -> None:
    handle = store.lookup(api_version, kind)
    assert handle is not None
    assert handle.gvk == GroupVersionKind.from_api_version(api_version, kind)
    assert "kubernetes-validate" in handle.source


def test_valid_secret(store: SchemaStore) -> None:
    assert (
        messages(store, secret(type="Opaque", data={"k": "dmFsdWU="}, stringData={"a": "b"})) == []
    )


def test_secret_data_of_wrong_type(store: SchemaStore) -> None:
    assert messages(store, secret(data="c2VjcmV0")) == [
        ("data", 'expected object or null, got string "c2VjcmV0"')
    ]
    assert messages(store, secret(data={"k": 1})) == [
        ("data.k", "expected string or null, got integer 1")
    ]
    assert messages(store, secret(data={"k": "not base64!"})) == [
        ("data.k", 'must be a valid base64 string (format byte) (got "not base64!")')
    ]


def test_unknown_fields_fail(store: SchemaStore) -> None:
    assert messages(store, secret(stringdata={"a": "b"})) == [
        ("stringdata", 'unknown field "stringdata"')
    ]
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "lables": {}}}
    assert messages(store, cm) == [("metadata.lables", 'unknown field "lables"')]


def test_apiversion_and_kind_are_required_and_checked(store: SchemaStore) -> None:
    handle = store.lookup("v1", "Namespace")
    assert handle is not None
    found = {(v.path, v.message) for v in handle.iter_violations({"metadata": {"name": "n"}})}
    assert found == {
        ((), 'required field "apiVersion" is missing'),
        ((), 'required field "kind" is missing'),
    }


def test_nested_core_types(store: SchemaStore) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {
                    "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": "80"}]}]
                },
            },
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
        },
    }
    assert messages(store, deployment) == [
        (
            "spec.template.spec.containers[0].ports[0].containerPort",
            'expected integer, got string "80"',
        )
    ]


def test_index_and_bundles_are_memoised(isolated_cache: Path) -> None:
    schema_dir = find_schema_dir()
    assert schema_dir is not None
    memo = isolated_cache / "core" / schema_dir.name
    first = CoreKinds(schema_dir, memo)
    secret_gvk = GroupVersionKind("", "v1", "Secret")
    bundle = first.bundle(secret_gvk)
    assert bundle is not None
    assert list(memo.rglob("index.json")) and list(memo.rglob("Secret_v1.json"))

    second = CoreKinds(schema_dir, memo)
    second._defs = lambda: pytest.fail("definitions parsed despite the memo")  # type: ignore[method-assign]
    assert second.bundle(secret_gvk) == bundle
    assert second.bundle(GroupVersionKind("", "v1", "NoSuchKind")) is None
