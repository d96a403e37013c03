"""Unit tests of the admission chain's pieces (the cases are in test_admission_cases.py)."""

from __future__ import annotations

import copy
from typing import Any

from generator.checks.admission.chain import admit
from generator.checks.admission.defaults import apply_defaults, build_plan
from generator.checks.admission.mutating import MUTATIONS, apply_mutations
from generator.checks.admission.parity import (
    TOTAL_ANNOTATION_SIZE,
    list_map_problems,
    metadata_problems,
)
from generator.findings import format_path

SCHEMA: Any = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "default": "a"},
                "nested": {
                    "type": "object",
                    "default": {},
                    "properties": {"inner": {"type": "integer", "default": 3}},
                },
                "nullable": {"type": ["string", "null"], "default": "x"},
                "items": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {"flag": {"type": "boolean", "default": False}},
                    },
                },
            },
        }
    },
}


def test_defaults_are_set_where_the_parent_exists_and_recursively() -> None:
    plan = build_plan(SCHEMA)
    obj: Any = {"spec": {"nullable": None, "items": [{"name": "a"}, {"name": "b", "flag": True}]}}
    before = copy.deepcopy(obj)
    applied: list[Any] = []
    out = apply_defaults(obj, plan, applied)
    assert obj == before  # the caller's object is never changed
    assert out == {
        "spec": {
            "mode": "a",
            "nested": {"inner": 3},
            "nullable": None,  # null is a value where the schema allows it
            "items": [{"name": "a", "flag": False}, {"name": "b", "flag": True}],
        }
    }
    assert [format_path(a.path) for a in applied] == [
        "spec.mode",
        "spec.nested",
        "spec.nested.inner",
        "spec.items[0].flag",
    ]
    assert apply_defaults({}, plan, []) == {}  # no spec: nothing to default under it


def test_nothing_set_returns_the_same_object() -> None:
    obj: Any = {"kind": "ConfigMap", "metadata": {"name": "x"}}
    assert admit(obj, None) == (obj, [])
    assert admit(obj, None)[0] is obj


def test_every_mutation_names_its_upstream() -> None:
    for row in MUTATIONS:
        assert row.source.startswith(("internal/", "Go JSON encoding")), row


def test_placeholders_are_left_alone() -> None:
    obj: Any = {
        "kind": "AzureManagedControlPlane",
        "metadata": {"name": "${CLUSTER_NAME}"},
        "spec": {"version": "${KUBERNETES_VERSION}"},
    }
    out = apply_mutations(obj, [])
    assert out["spec"]["version"] == "${KUBERNETES_VERSION}"
    assert out["spec"]["dnsPrefix"] == "${CLUSTER_NAME}"


def test_overlay_cidrs_and_paid_sku() -> None:
    obj: Any = {
        "kind": "AzureManagedControlPlane",
        "metadata": {"name": "cp", "labels": {"cluster.x-k8s.io/cluster-name": "demo"}},
        "spec": {"networkPluginMode": "overlay", "sku": {"tier": "Paid"}, "location": "l"},
    }
    out = apply_mutations(obj, [])
    spec = out["spec"]
    assert spec["virtualNetwork"]["cidrBlock"] == "10.224.0.0/12"
    assert spec["virtualNetwork"]["subnet"]["cidrBlock"] == "10.224.0.0/16"
    assert spec["sku"] == {"tier": "Standard"}
    assert spec["resourceGroupName"] == "demo"
    assert spec["nodeResourceGroupName"] == "MC_demo_cp_l"


def test_list_map_duplicates_skip_placeholders() -> None:
    plan = build_plan(SCHEMA)
    items = [{"name": "a"}, {"name": "a"}, {"name": "${X}"}, {"name": "${X}"}]
    problems = list(list_map_problems({"spec": {"items": items}}, plan))
    assert [(format_path(path), message[:26]) for path, message in problems] == [
        ("spec.items[1]", 'Duplicate value: {"name":"')
    ]


def test_metadata_limits() -> None:
    long_value = "x" * TOTAL_ANNOTATION_SIZE
    obj: Any = {
        "metadata": {
            "name": "a" * 254,
            "generateName": "pool-",
            "namespace": "Not_A_Label",
            "labels": {"k": "v" * 64, "example.com/" + "n" * 64: ""},
            "annotations": {"big": long_value},
        }
    }
    found = {format_path(path): message for path, message in metadata_problems(obj)}
    assert "253 characters" in found["metadata.name"]
    assert "metadata.generateName" not in found  # a prefix may end in '-'
    assert "RFC 1123 label" in found["metadata.namespace"]
    assert "63 characters" in found["metadata.labels.k"]
    assert (
        "name part must be no more than 63" in found[f'metadata.labels["example.com/{"n" * 64}"]']
    )
    assert "at most 262144 bytes" in found["metadata.annotations"]
