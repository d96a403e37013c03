"""Each built-in flavor renders at least what CAPZ's released template renders with the same values.

Every CAPZ object (matched by kind and name) must be in our output, in the same order, with every
field present and equal; our objects may carry more fields (SKU tier, for instance).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.flavors.flavor_testing import (
    AKS_REQUIRED,
    capz_objects,
    first_difference,
    key,
    parse_patch_templates,
    render_objects,
)

# Values differing from every default, so a default silently used instead of a value is caught.
AKS_VALUES = {
    **AKS_REQUIRED,
    "ASO_CREDENTIAL_SECRET_NAME": "team-aso-credentials",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D4s_v5",
    "WORKER_MACHINE_COUNT": 3,
}
CLASS_VALUES = {
    "CLUSTER_CLASS_NAME": "aks-class",
    "CLUSTER_NAME": "class-templates",
    "AZURE_LOCATION": "westeurope",
    "KUBERNETES_VERSION": "v1.32.4",
    "ASO_CREDENTIAL_SECRET_NAME": "team-aso-credentials",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D4s_v5",
}
TOPOLOGY_VALUES = {
    "CLUSTER_NAME": "my-cluster",
    "CLUSTER_CLASS_NAME": "aks-class",
    "KUBERNETES_VERSION": "v1.33.1",
}

CASES = [
    pytest.param("aks", "aks-aso", AKS_VALUES, id="aks"),
    pytest.param("aks-maintenance", "aks-aso-maintenance", AKS_VALUES, id="aks-maintenance"),
    pytest.param("aks-clusterclass", "aks-aso-clusterclass", CLASS_VALUES, id="aks-clusterclass"),
    pytest.param("aks-topology", "aks-aso-topology", TOPOLOGY_VALUES, id="aks-topology"),
]


def assert_contains_capz(ours: list[dict[str, Any]], capz: list[dict[str, Any]]) -> None:
    by_key = {key(obj): obj for obj in ours}
    for expected in capz:
        assert key(expected) in by_key, f"{key(expected)} missing; we rendered {list(by_key)}"
        difference = first_difference(
            parse_patch_templates(expected), parse_patch_templates(by_key[key(expected)])
        )
        assert difference is None, f"{key(expected)}: {difference}"
    capz_keys = [key(obj) for obj in capz]
    assert [k for k in map(key, ours) if k in capz_keys] == capz_keys, (
        "objects are out of CAPZ's order"
    )


@pytest.mark.parametrize(("flavor", "template", "settings"), CASES)
def test_flavor_contains_capz_template(
    corpus_dir: Path, flavor: str, template: str, settings: dict[str, Any]
) -> None:
    assert_contains_capz(
        render_objects(flavor, settings), capz_objects(corpus_dir, template, settings)
    )


@pytest.mark.parametrize(("flavor", "template", "settings"), CASES)
def test_flavor_adds_no_objects_by_default(
    corpus_dir: Path, flavor: str, template: str, settings: dict[str, Any]
) -> None:
    """With default optional features the object list is exactly CAPZ's (no Secret, no extras)."""
    ours = [key(obj) for obj in render_objects(flavor, settings)]
    assert ours == [key(obj) for obj in capz_objects(corpus_dir, template, settings)]


def test_subset_check_reports_the_first_differing_path() -> None:
    expected = {"spec": {"resources": [{"spec": {"mode": "System", "tags": {"a": "1"}}}]}}
    same_plus_extra = {
        "spec": {"resources": [{"spec": {"mode": "System", "tags": {"a": "1"}, "x": 1}}]}
    }
    assert first_difference(expected, same_plus_extra) is None
    changed = {"spec": {"resources": [{"spec": {"mode": "User", "tags": {"a": "1"}}}]}}
    assert (
        first_difference(expected, changed)
        == "spec.resources[0].spec.mode: expected 'System', got 'User'"
    )
    assert first_difference(expected, {"spec": {"resources": []}}) is not None
    assert first_difference({"replicas": 2}, {"replicas": "2"}) == "replicas: expected 2, got '2'"
    assert first_difference({"a": {"b": 1}}, {"a": {}}) == "a.b: missing"
