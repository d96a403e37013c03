"""The placeholder data patch templates are rendered with, and which templates a selector picks."""

from __future__ import annotations

from typing import Any

import pytest

from generator.checks.clusterclass.placeholders import (
    MAX_SCHEMA_DEPTH,
    Role,
    builtins,
    placeholder,
    variables,
)
from generator.checks.clusterclass.targets import class_targets, matches


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "string", "default": "d", "example": "e"}, "d"),
        ({"type": "string", "example": "e"}, "e"),
        ({"type": "integer", "default": 3}, 3.0),
        ({"type": "string", "enum": ["b", "a"]}, "b"),
        ({"type": "string"}, "placeholder"),
        ({"x-kubernetes-int-or-string": True}, 1.0),
        ({"type": "integer", "minimum": 5}, 5.0),
        ({"type": "integer", "minimum": 10**400}, float("inf")),
        ({"type": "integer", "default": -(10**400)}, float("-inf")),
        ({"type": "number"}, 1.0),
        ({"type": "boolean"}, True),
        ({"type": "array", "items": {"type": "integer"}}, [1.0]),
        ({"type": "array"}, []),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"default": [1, True]}},
            },
            {"a": "placeholder", "b": [1.0, True]},
        ),
        ({"properties": {"x": "not a schema"}}, {"x": "placeholder"}),
    ],
)
def test_placeholder(schema: dict[str, Any], value: Any) -> None:
    assert placeholder(schema) == value


def test_placeholder_nesting_is_bounded() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_SCHEMA_DEPTH + 5):
        schema = {"type": "object", "properties": {"a": schema}}
    value = placeholder(schema)
    depth = 0
    while isinstance(value, dict):
        value, depth = value["a"], depth + 1
    assert (depth, value) == (MAX_SCHEMA_DEPTH + 1, None)


def test_variables_of_both_api_versions() -> None:
    obj = {
        "spec": {
            "variables": [
                {
                    "name": "location",
                    "schema": {"openAPIV3Schema": {"type": "string", "example": "x"}},
                },
                {"name": "count", "schema": {"openAPIV3Schema": {"type": "integer"}}},
                {"name": "builtin", "schema": {"openAPIV3Schema": {"type": "string"}}},
                {"name": "noschema"},
                "junk",
            ]
        }
    }
    assert variables(obj) == {"location": "x", "count": 1.0, "noschema": "placeholder"}
    assert variables({"spec": "junk"}) == {}


def test_builtins_follow_the_role() -> None:
    infra = builtins(Role("infrastructureCluster"), "cls")
    assert set(infra) == {"cluster"}
    assert infra["cluster"]["topology"]["class"] == "cls"
    assert set(builtins(Role("controlPlane"), None)) == {"cluster", "controlPlane"}
    pool = builtins(Role("machinePool", "workers", 2), "cls")
    assert pool["machinePool"]["topologyName"] == "pool2"
    assert pool["machinePool"]["class"] == "workers"
    deployment = builtins(Role("machineDeployment", "md", 0), "cls")
    assert deployment["machineDeployment"]["name"] == "my-cluster-pool0"


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"apiVersion": "x.io/v1", "kind": kind, "name": name}


CLASS = {
    "spec": {
        "infrastructure": {"ref": _ref("Infra", "i")},
        "controlPlane": {
            "templateRef": _ref("Cp", "c"),
            "machineInfrastructure": {"ref": _ref("Machine", "m")},
        },
        "workers": {
            "machinePools": [
                {
                    "class": "default-system",
                    "template": {"infrastructure": {"ref": _ref("Pool", "p0")}},
                },
                {"class": "user", "infrastructure": {"templateRef": _ref("Pool", "p1")}},
            ],
            "machineDeployments": [
                {"class": "md-worker", "bootstrap": {"templateRef": _ref("Boot", "b")}}
            ],
        },
    }
}


def test_class_targets() -> None:
    found = [
        (t.role.kind, t.role.worker_class, t.role.index, t.label()) for t in class_targets(CLASS)
    ]
    assert found == [
        ("infrastructureCluster", None, 0, "Infra/i"),
        ("controlPlane", None, 0, "Cp/c"),
        ("controlPlane", None, 0, "Machine/m"),
        ("machinePool", "default-system", 0, "Pool/p0"),
        ("machinePool", "user", 1, "Pool/p1"),
        ("machineDeployment", "md-worker", 0, "Boot/b"),
    ]
    assert class_targets({"spec": {"workers": {"machinePools": "junk"}}}) == []


@pytest.mark.parametrize(
    ("kind", "resources", "selected"),
    [
        ("Infra", {"infrastructureCluster": True}, ["Infra/i"]),
        ("Infra", {"controlPlane": True}, []),
        ("Machine", {"controlPlane": True}, ["Machine/m"]),
        ("Pool", {"machinePoolClass": {"names": ["*"]}}, ["Pool/p0", "Pool/p1"]),
        ("Pool", {"machinePoolClass": {"names": ["default-*"]}}, ["Pool/p0"]),
        ("Pool", {"machinePoolClass": {"names": ["*-system"]}}, ["Pool/p0"]),
        ("Pool", {"machinePoolClass": {"names": ["user", 3]}}, ["Pool/p1"]),
        ("Pool", {"machineDeploymentClass": {"names": ["*"]}}, []),
        ("Boot", {"machineDeploymentClass": {"names": ["md-*"]}}, ["Boot/b"]),
    ],
)
def test_selector_matches(kind: str, resources: dict[str, Any], selected: list[str]) -> None:
    selector = {"apiVersion": "x.io/v1", "kind": kind, "matchResources": resources}
    assert [t.label() for t in class_targets(CLASS) if matches(selector, t)] == selected
    wrong_version = {**selector, "apiVersion": "x.io/v2"}
    assert not any(matches(wrong_version, t) for t in class_targets(CLASS))
