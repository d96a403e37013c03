"""CEL transition rules (``oldSelf``) on an update: evaluated where an old value exists, with
ratcheting, through ``validate_changes``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.checks.context import ValidationOptions
from generator.checks.update import validate_changes
from generator.documents import Document
from generator.findings import Operation, Severity
from generator.schemastore.store import SchemaStore
from tests.cel.conftest import crd

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "name is immutable"}
            ],
        },
        "replicas": {
            "type": "integer",
            "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "cannot shrink"}],
        },
        "note": {
            "type": "string",
            "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "optionalOldSelf": True, "message": "optional"}
            ],
        },
        "pools": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
                "x-kubernetes-validations": [
                    {"rule": "self.size >= oldSelf.size", "message": "a pool cannot shrink"}
                ],
            },
        },
        "tags": {
            "type": "array",
            "items": {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "tag"}],
            },
        },
    },
}


def _doc(source: str, spec: dict[str, Any]) -> Document:
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": spec,
    }
    return Document(source, 0, obj)


def _findings(store: SchemaStore, old: dict[str, Any], new: dict[str, Any]) -> list[Any]:
    found = validate_changes(
        [_doc("new.yaml", new)], [_doc("HEAD~1:new.yaml", old)], store, ValidationOptions()
    )
    return [f for f in found if f.rule == "cel"]


def test_transition_rules_run_with_the_old_value(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    found = _findings(store, {"name": "a", "replicas": 3}, {"name": "b", "replicas": 2})
    assert sorted((f.message, f.path) for f in found) == [
        ("cannot shrink (rule: self >= oldSelf)", ("spec", "replicas")),
        ("name is immutable (rule: self == oldSelf)", ("spec", "name")),
    ]
    assert all(f.operation is Operation.UPDATE and f.severity is Severity.ERROR for f in found)
    assert all(f.old is not None and f.old.file == "HEAD~1:new.yaml" for f in found)


def test_no_old_value_means_no_transition(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    assert _findings(store, {}, {"name": "b", "replicas": 2}) == []


def test_optional_old_self_rules_are_not_evaluated(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    assert _findings(store, {"note": "a"}, {"note": "b"}) == []


def test_map_list_items_are_correlated_by_key(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    old = {"pools": [{"name": "a", "size": 3}, {"name": "b", "size": 3}]}
    new = {"pools": [{"name": "b", "size": 2}, {"name": "a", "size": 3}, {"name": "c", "size": 1}]}
    found = _findings(store, old, new)
    assert [(f.message, f.path) for f in found] == [
        ("a pool cannot shrink (rule: self.size >= oldSelf.size)", ("spec", "pools", 0))
    ]


def test_items_of_other_lists_are_not_correlated(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    assert _findings(store, {"tags": ["a"]}, {"tags": ["b"]}) == []


def test_unchanged_values_are_ratcheted(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    assert _findings(store, {"name": "a", "replicas": 3}, {"name": "a", "replicas": 3}) == []


def test_no_cel_turns_them_off(crd_store: Callable[..., SchemaStore]) -> None:
    store = crd_store(crd("Widget", SCHEMA))
    found = validate_changes(
        [_doc("new.yaml", {"name": "b"})],
        [_doc("old.yaml", {"name": "a"})],
        store,
        ValidationOptions(cel=False),
    )
    assert found == []
