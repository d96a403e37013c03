"""The translation of findings to flavor variables (generator/flavors/origins.py), piece by piece."""

from __future__ import annotations

from typing import Any

import pytest

from generator.documents import Document
from generator.findings import Finding, JsonPath, Severity, Subject, format_path
from generator.flavors.origins import WILDCARD, Translator, describe, parse_origins, parse_path
from generator.flavors.render import Placeholder

ORIGINS = parse_origins(
    [
        {
            "kind": "Cluster",
            "name": "{CLUSTER_NAME}",
            "fields": {"(object)": "NODE_POOLS", "spec.clusterNetwork.services": "SERVICE_CIDR"},
        },
        {
            "kind": "AgentPool",
            "name": "{CLUSTER_NAME}-{NODE_POOLS[*].name}",
            "fields": {
                "(object)": "NODE_POOLS[*]",
                "spec.azureName": "NODE_POOLS[*].name",
                "spec.vmSize": ["NODE_POOLS[*].vmSize", "VM_SIZE"],
                "spec.replicas": ["NODE_POOLS[*].replicas", "COUNT"],
                "spec.nodeLabels": "NODE_POOLS[*].labels",
            },
        },
    ]
)
VALUES: dict[str, Any] = {
    "CLUSTER_NAME": "c",
    "SERVICE_CIDR": "",
    "VM_SIZE": "Standard_D2s_v3",
    "COUNT": 2,
    "NODE_POOLS": [
        {"name": "system", "vmSize": "Standard_D8s_v5", "replicas": 0},
        {"name": "apps", "labels": {"a.b/c": "x"}},
        {"name": "apps"},
    ],
}


def pool_document(index: int, name: str) -> Document:
    return Document(
        "<flavor>",
        index,
        {
            "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
            "kind": "AzureASOManagedMachinePool",
            "metadata": {"name": name},
            "spec": {"resources": [{"kind": "AgentPool", "metadata": {"name": name}, "spec": {}}]},
        },
    )


DOCUMENTS = [
    Document("<flavor>", 0, {"kind": "Cluster", "metadata": {"name": "c"}}),
    pool_document(1, "c-system"),
    pool_document(2, "c-apps"),
    pool_document(3, "c-apps"),
]


def finding(document: int, name: str, rel: JsonPath, rule: str = "R") -> Finding:
    embedded: JsonPath = ("spec", "resources", 0)
    return Finding(
        Severity.ERROR,
        rule,
        "message",
        Subject(
            "<flavor>", document, "AzureASOManagedMachinePool", name, embedded, "AgentPool", name
        ),
        (*embedded, *rel),
    )


def translate(item: Finding, values: dict[str, Any] = VALUES) -> str | None:
    path = Translator(ORIGINS, values, DOCUMENTS).variable(item)
    return None if path is None else format_path(path)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("spec.azureName", ("spec", "azureName")),
        ('metadata.annotations["a.b/c"]', ("metadata", "annotations", "a.b/c")),
        ("spec.items[3].name", ("spec", "items", 3, "name")),
        ("(object)", ()),
    ],
)
def test_paths_are_read_as_format_path_writes_them(text: str, parsed: JsonPath) -> None:
    assert parse_path(text) == parsed
    assert format_path(parsed) == ("" if text == "(object)" else text)


def test_variable_paths_may_bind_an_index() -> None:
    assert parse_path("NODE_POOLS[*].name", wildcard=True) == ("NODE_POOLS", WILDCARD, "name")
    with pytest.raises(ValueError, match=r"\[\*\] is only allowed"):
        parse_path("NODE_POOLS[*]")
    with pytest.raises(ValueError, match="one list only"):
        parse_origins([{"kind": "K", "name": "{A[*].x}-{B[*].y}", "fields": {"(object)": "A"}}])


def test_the_object_name_binds_the_index() -> None:
    assert translate(finding(1, "c-system", ("spec", "azureName"))) == "NODE_POOLS[0].name"


def test_objects_named_alike_bind_indices_in_order() -> None:
    assert translate(finding(2, "c-apps", ("spec", "azureName"))) == "NODE_POOLS[1].name"
    assert translate(finding(3, "c-apps", ("spec", "azureName"))) == "NODE_POOLS[2].name"


def test_the_first_variable_with_a_value_else_the_last() -> None:
    assert translate(finding(1, "c-system", ("spec", "vmSize"))) == "NODE_POOLS[0].vmSize"
    assert translate(finding(2, "c-apps", ("spec", "vmSize"))) == "VM_SIZE"
    # 0 is a value; an unset pool value falls back to the last (the template's default).
    assert translate(finding(1, "c-system", ("spec", "replicas"))) == "NODE_POOLS[0].replicas"
    assert translate(finding(2, "c-apps", ("spec", "replicas"))) == "COUNT"


def test_the_longest_field_prefix_wins_and_the_rest_follows_the_values() -> None:
    labels = ("spec", "nodeLabels", "a.b/c")
    assert translate(finding(2, "c-apps", labels)) == 'NODE_POOLS[1].labels["a.b/c"]'
    assert translate(finding(3, "c-apps", labels)) == "NODE_POOLS[2].labels"  # no such key
    assert translate(finding(2, "c-apps", ("spec", "osType"))) == "NODE_POOLS[1]"


def test_top_level_objects_and_unset_variables() -> None:
    cluster = Finding(Severity.ERROR, "R", "m", Subject("<flavor>", 0, "Cluster", "c"), ("spec",))
    assert translate(cluster) == "NODE_POOLS"
    services = Finding(
        Severity.ERROR,
        "R",
        "m",
        Subject("<flavor>", 0, "Cluster", "c"),
        ("spec", "clusterNetwork", "services"),
    )
    assert translate(services) == "SERVICE_CIDR"  # named though it is empty (a default applies)


def test_unknown_objects_are_not_translated() -> None:
    assert translate(finding(1, "other", ("spec", "azureName"))) is None
    wrong_kind = Finding(Severity.ERROR, "R", "m", Subject("<flavor>", 0, "Secret", "c"), ())
    assert translate(wrong_kind) is None


def test_placeholder_values_match_the_text_they_render_to() -> None:
    values = {**VALUES, "CLUSTER_NAME": Placeholder("${CLUSTER_NAME}")}
    documents = [pool_document(1, "${CLUSTER_NAME}-system")]
    path = Translator(ORIGINS, values, documents).variable(
        finding(1, "${CLUSTER_NAME}-system", ("spec", "azureName"))
    )
    assert path == ("NODE_POOLS", 0, "name")


def test_describe_names_variables_first_once_per_rule() -> None:
    translator = Translator(ORIGINS, {**VALUES, "NODE_POOLS": VALUES["NODE_POOLS"] * 4}, DOCUMENTS)
    findings = [
        finding(2, "c-apps", ("spec", "azureName"), rule="B"),
        finding(2, "c-apps", ("spec", "azureName"), rule="A"),
        finding(2, "c-apps", ("spec", "azureName"), rule="A"),  # the same problem again
        finding(1, "c-system", ("spec", "azureName"), rule="A"),
        finding(1, "unknown", ("spec", "azureName"), rule="A"),
    ]
    assert describe(findings, translator) == [
        "NODE_POOLS[0].name: message (A) [admission]",
        "NODE_POOLS[1].name: message (A) [admission]",
        "NODE_POOLS[1].name: message (B) [admission]",
        "AzureASOManagedMachinePool/unknown > AgentPool/unknown: spec.azureName: message (A) [admission]",
    ]
    assert describe(findings[-1:], None) == [
        "AzureASOManagedMachinePool/unknown > AgentPool/unknown: spec.azureName: message (A) [admission]"
    ]
