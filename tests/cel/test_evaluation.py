"""How rules are applied to objects: where (lists, maps, embedded resources, only present values),
what is reported (message, messageExpression, fieldPath, reason), and what is not evaluated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from generator.cel.rules import CelRule
from generator.cel.tree import build_tree
from generator.cel.validate import check_cel, parse_field_path
from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.findings import Finding, Gate, Severity
from generator.model.manifests import ManifestSet
from generator.schemastore.store import SchemaStore
from tests.cel.conftest import crd

StoreFactory = Callable[..., SchemaStore]


def rule(text: str, **extra: Any) -> dict[str, Any]:
    return {"rule": text, **extra}


def widget_store(crd_store: StoreFactory, spec_schema: dict[str, Any]) -> SchemaStore:
    return crd_store(crd("Widget", spec_schema))


def widget(spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": spec,
    }


def cel(store: SchemaStore, *objects: Any) -> list[Finding]:
    documents = [Document("w.yaml", i, obj) for i, obj in enumerate(objects)]
    return [f for f in validate_documents(documents, store, ValidationOptions()) if f.rule == "cel"]


def test_rules_apply_to_every_list_item_and_map_value(crd_store: StoreFactory) -> None:
    store = widget_store(
        crd_store,
        {
            "type": "object",
            "properties": {
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "integer",
                        "x-kubernetes-validations": [rule("self < 1024", message="low port")],
                    },
                },
                "labels": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "string",
                        "x-kubernetes-validations": [rule("self != ''", message="empty label")],
                    },
                },
            },
        },
    )
    findings = cel(store, widget({"ports": [80, 8080, 9090], "labels": {"a": "x", "b": ""}}))
    assert [(f.path, f.message.split(" (")[0]) for f in findings] == [
        (("spec", "labels", "b"), "empty label"),
        (("spec", "ports", 1), "low port"),
        (("spec", "ports", 2), "low port"),
    ]


def test_rules_apply_only_to_present_non_null_values_of_the_right_type(
    crd_store: StoreFactory,
) -> None:
    store = widget_store(
        crd_store,
        {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "nullable": True,
                    "x-kubernetes-validations": [rule("self.startsWith('w-')")],
                }
            },
        },
    )
    assert cel(store, widget({})) == []
    assert cel(store, widget({"name": None})) == []
    assert cel(store, widget({"name": 7})) == [], "the schema check reports the type"
    (finding,) = cel(store, widget({"name": "x"}))
    assert finding.message == "failed rule: self.startsWith('w-')"


def test_message_expression_field_path_and_reason(crd_store: StoreFactory) -> None:
    store = widget_store(
        crd_store,
        {
            "type": "object",
            "x-kubernetes-validations": [
                rule(
                    "self.min <= self.max",
                    message="min must not exceed max",
                    messageExpression="'min ' + string(self.min) + ' exceeds max ' + string(self.max)",
                    fieldPath=".min",
                    reason="FieldValueInvalid",
                ),
                rule(
                    "self.max < 100",
                    message="max too large",
                    messageExpression="self.nope",  # fails: message is used
                    fieldPath="['max']",
                ),
            ],
            "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}},
        },
    )
    second, first = cel(store, widget({"min": 200, "max": 150}))  # sorted by path
    assert first.path == ("spec", "min")
    assert first.message == "min 200 exceeds max 150 (rule: self.min <= self.max)"
    assert first.hint == "reason: FieldValueInvalid"
    assert second.path == ("spec", "max")
    assert second.message == "max too large (rule: self.max < 100)"


def test_runtime_error_is_a_warning_naming_the_rule(crd_store: StoreFactory) -> None:
    store = widget_store(
        crd_store,
        {
            "type": "object",
            "x-kubernetes-validations": [
                rule("self.size > 0", message="needs size"),  # no has(): fails when absent
                rule("self.count", message="not a bool"),
            ],
            "properties": {"size": {"type": "integer"}, "count": {"type": "integer"}},
        },
    )
    findings = cel(store, widget({"count": 3}))
    assert [f.severity for f in findings] == [Severity.WARNING, Severity.WARNING]
    messages = sorted(f.message for f in findings)
    assert "no such member" in messages[0] and "(rule: self.size > 0)" in messages[0]
    assert "returned" in messages[1] and "not a bool" in messages[1]
    assert all(f.path == ("spec",) and f.origin == "cel" for f in findings)


def test_unsupported_and_transition_rules_are_not_evaluated(
    crd_store: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    store = widget_store(
        crd_store,
        {
            "type": "string",
            "x-kubernetes-validations": [
                rule("self.isURL()", message="must be a URL"),
                rule("self == oldSelf", message="immutable"),
                rule("self.size() < 3", message="short"),
            ],
        },
    )
    with caplog.at_level("INFO", logger="generator.cel"):
        findings = cel(store, widget("not a url"))
    assert [f.message for f in findings] == ["short (rule: self.size() < 3)"]
    assert "unsupported function isURL" in caplog.text
    assert "transition rule" in caplog.text


def test_embedded_resource_rules_land_on_the_embedded_subject(crd_store: StoreFactory) -> None:
    aso = crd(
        "ManagedCluster",
        {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "x-kubernetes-validations": [
                        rule("self == self.lowerAscii()", message="lower")
                    ],
                }
            },
        },
        group="containerservice.azure.com",
        version="v1api20240901",
    )
    store = crd_store(aso)
    control_plane = {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureASOManagedControlPlane",
        "metadata": {"name": "cp"},
        "spec": {
            "resources": [
                {
                    "apiVersion": "containerservice.azure.com/v1api20240901",
                    "kind": "ManagedCluster",
                    "metadata": {"name": "mc"},
                    "spec": {"location": "WestEurope"},
                }
            ]
        },
    }
    documents = [Document("cp.yaml", 0, control_plane)]
    options = ValidationOptions(ignore_missing_schemas=True)
    (finding,) = [f for f in validate_documents(documents, store, options) if f.rule == "cel"]
    assert finding.path == ("spec", "resources", 0, "spec", "location")
    assert finding.subject.embedded_kind == "ManagedCluster"
    assert finding.display_path == "spec.location"


def test_go_template_values_in_capz_templates_are_not_given_to_rules(
    crd_store: StoreFactory,
) -> None:
    aso = crd(
        "ManagedCluster",
        {
            "type": "object",
            "properties": {
                "dnsPrefix": {
                    "type": "string",
                    "x-kubernetes-validations": [rule("self.matches('^[a-z]+$')")],
                }
            },
        },
        group="containerservice.azure.com",
        version="v1api20240901",
    )
    store = crd_store(aso)
    template = {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureASOManagedControlPlaneTemplate",
        "metadata": {"name": "t"},
        "spec": {
            "template": {
                "spec": {
                    "resources": [
                        {
                            "apiVersion": "containerservice.azure.com/v1api20240901",
                            "kind": "ManagedCluster",
                            "metadata": {"name": "mc"},
                            "spec": {"dnsPrefix": "{{ .builtin.cluster.name }}"},
                        }
                    ]
                }
            }
        },
    }
    documents = [Document("t.yaml", 0, template)]
    findings = validate_documents(documents, store, ValidationOptions(ignore_missing_schemas=True))
    assert [f for f in findings if f.rule == "cel"] == []


def test_rule_tree_follows_local_refs_and_survives_recursion() -> None:
    node_rule = {"rule": "self.size() > 0"}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "x-kubernetes-validations": [node_rule],
                "properties": {"child": {"$ref": "#/$defs/Node"}},
            }
        },
    }
    tree = build_tree(schema)
    assert tree is not None
    root = tree.properties["root"]
    assert [r.rule for r in root.rules] == [CelRule("self.size() > 0")]


def test_schema_without_rules_has_no_tree() -> None:
    assert build_tree({"type": "object", "properties": {"a": {"type": "string"}}}) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (".spec.foo", ("spec", "foo")),
        (".testMap['foo.34$']", ("testMap", "foo.34$")),
        ('.a["b c"][2]', ("a", "b c", 2)),
        ("['x']", ("x",)),
        ("spec", None),
        ("", None),
        (".a..b", None),
    ],
)
def test_parse_field_path(text: str, expected: tuple[Any, ...] | None) -> None:
    assert parse_field_path(text) == expected


def test_each_kind_is_looked_up_once_per_run(crd_store: StoreFactory) -> None:
    """Thousands of objects of a handful of kinds: the schema and rule tree of each apiVersion and
    kind are found once per run; objects with an invalid apiVersion are not looked up at all."""
    store = widget_store(
        crd_store, {"type": "object", "properties": {"size": {"type": "integer"}}, **positive()}
    )
    asked: list[tuple[str, str]] = []

    class Counting:
        def lookup(self, api_version: str, kind: str) -> Any:
            asked.append((api_version, kind))
            return store.lookup(api_version, kind)

        def searched(self) -> list[str]:
            return store.searched()

    objects = [widget({"size": size}) for size in (1, -1, 2, -2)]
    objects += [{**widget({"size": -3}), "apiVersion": "example.com/ v1"}]
    objects += [{**widget({}), "kind": "Gadget"}, {**widget({}), "kind": "Gadget"}]
    documents = [Document("w.yaml", i, obj) for i, obj in enumerate(objects)]
    findings = check_cel(ManifestSet(documents), Counting())
    assert [(f.subject.document, f.path) for f in findings] == [(1, ("spec",)), (3, ("spec",))]
    assert sorted(asked) == [("example.com/v1", "Gadget"), ("example.com/v1", "Widget")]


def positive() -> dict[str, Any]:
    return {"x-kubernetes-validations": [rule("!has(self.size) || self.size > 0")]}


def test_cel_findings_stand_for_admission(crd_store: StoreFactory) -> None:
    """The API server evaluates the CRD's CEL rules when the object is applied."""
    store = widget_store(
        crd_store,
        {
            "type": "object",
            "x-kubernetes-validations": [rule("self.size < 10", message="too big")],
            "properties": {"size": {"type": "integer"}},
        },
    )
    findings = cel(store, widget({"size": 20}))
    assert findings and {(f.gate, f.why) for f in findings} == {(Gate.ADMISSION, None)}
