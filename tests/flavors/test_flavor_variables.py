"""Typed variables of the aks-shaped flavors: validation errors and the optional features."""

from __future__ import annotations

from typing import Any

import pytest

from generator.errors import FlavorError, VariableError
from generator.flavors.model import VariableSpec
from generator.flavors.values import CoercionError, coerce
from tests.flavors.flavor_testing import AKS_REQUIRED, embedded, find, render_objects, render_text

IDS = {
    "AZURE_SUBSCRIPTION_ID": "11111111-1111-1111-1111-111111111111",
    "AZURE_TENANT_ID": "22222222-2222-2222-2222-222222222222",
    "AZURE_CLIENT_ID": "33333333-3333-3333-3333-333333333333",
}


def variable_problems(flavor: str, settings: dict[str, Any]) -> list[str]:
    with pytest.raises(VariableError) as caught:
        render_text(flavor, settings)
    return list(caught.value.details)


def test_every_variable_problem_is_reported_at_once() -> None:
    problems = variable_problems(
        "aks",
        {
            "AZURE_LOCATION": "eastus",
            "KUBERNETES_VERSION": "1.33",
            "AKS_SKU_TIER": "Gold",
            "NODE_POOLS": [
                {"name": "pool0", "mode": "System", "vmsize": "Standard_D4s_v5"},
                {"name": "Pool-1", "mode": "user", "replicas": "two"},
                {
                    "name": "pool2",
                    "mode": "User",
                    "taints": ["dedicated:NoWay"],
                    "availabilityZones": [1],
                },
            ],
        },
    )
    expected = [
        "CLUSTER_NAME: required",
        "KUBERNETES_VERSION:",
        "AKS_SKU_TIER:",
        "NODE_POOLS[0].vmsize:",  # the misspelt vmSize
        "NODE_POOLS[1].name:",
        "NODE_POOLS[1].mode:",
        "NODE_POOLS[1].replicas:",
        "NODE_POOLS[2].taints[0]:",
        "NODE_POOLS[2].availabilityZones[0]:",
    ]
    for start in expected:
        assert any(p.startswith(start) for p in problems), f"no problem for {start}: {problems}"
    assert len(problems) == len(expected), problems
    assert (
        "NODE_POOLS[0].vmsize: unknown field 'vmsize'; did you mean vmSize? (from test)" in problems
    )
    assert (
        "NODE_POOLS[1].mode: 'user' is not one of System, User; did you mean User? (from test)"
        in (problems)
    )
    assert (
        "KUBERNETES_VERSION: '1.33' is not a Kubernetes version (v<major>.<minor>.<patch>, "
        "e.g. v1.33.1) (from test)" in problems
    )


def test_text_values_are_coerced_like_flags_and_environment() -> None:
    """--var and environment values arrive as text; lists, maps and numbers are parsed."""
    settings = {
        **AKS_REQUIRED,
        "WORKER_MACHINE_COUNT": "5",
        "AZURE_TAGS": "{team: platform}",
        "NODE_POOLS": "[{name: sys, mode: System}]",
    }
    objects = render_objects("aks", settings)
    (pool,) = find(objects, "MachinePool")
    assert pool["spec"]["replicas"] == 5
    assert embedded(objects, "ResourceGroup")[0]["spec"]["tags"] == {"team": "platform"}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CLUSTER_NAME", "My_Cluster"),
        ("CLUSTER_NAME", "c" * 55),
        ("AZURE_LOCATION", "East US"),
        ("ASO_CREDENTIAL_SECRET_MODE", "serviceprincipal"),
        ("AZURE_TAGS", {"bad/name": "x"}),
        ("WORKER_MACHINE_COUNT", -1),
        ("AZURE_TENANT_ID", "not-a-guid"),
        ("NODE_POOLS", []),
    ],
)
def test_bad_values_are_rejected_naming_the_variable(name: str, value: Any) -> None:
    problems = variable_problems("aks", {**AKS_REQUIRED, name: value})
    assert problems
    assert all(p.startswith(name) for p in problems), problems


def test_credential_secret_is_not_rendered_by_default() -> None:
    assert not find(render_objects("aks", AKS_REQUIRED), "Secret")


def test_credential_secret_needs_every_id() -> None:
    with pytest.raises(FlavorError) as caught:
        render_text(
            "aks",
            {
                **AKS_REQUIRED,
                "ASO_CREDENTIAL_SECRET_CREATE": "true",
                "AZURE_TENANT_ID": IDS["AZURE_TENANT_ID"],
            },
        )
    assert [line.split(":")[0] for line in caught.value.details] == [
        "AZURE_CLIENT_ID",
        "AZURE_SUBSCRIPTION_ID",
    ]
    assert caught.value.details[0].startswith("AZURE_CLIENT_ID: AZURE_CLIENT_ID is empty: ")
    assert caught.value.details[0].endswith(
        "(CAPZ-CRED-SECRET) [provisioning: ASO cannot authenticate with the Secret]"
    )


def test_credential_secret_matches_the_annotations() -> None:
    settings = {
        **AKS_REQUIRED,
        **IDS,
        "ASO_CREDENTIAL_SECRET_CREATE": True,
        "ASO_CREDENTIAL_SECRET_NAME": "team-creds",
        "ASO_CREDENTIAL_SECRET_MODE": "podidentity",
        "NAMESPACE": "team-a",
    }
    objects = render_objects("aks", settings)
    (secret,) = find(objects, "Secret", "team-creds")
    assert secret["metadata"]["namespace"] == "team-a"
    assert secret["metadata"]["labels"] == {"clusterctl.cluster.x-k8s.io/move": "true"}
    assert secret["stringData"] == {**IDS, "AUTH_MODE": "podidentity"}
    for obj in objects:
        assert obj["metadata"]["namespace"] == "team-a"
        for resource in (obj.get("spec") or {}).get("resources", []):
            assert resource["metadata"]["annotations"] == {
                "serviceoperator.azure.com/credential-from": "team-creds"
            }


def test_tags_go_on_the_resource_group_cluster_and_every_pool() -> None:
    tags = {"team": "platform", "cost-center": "4711", "on": "yes"}
    objects = render_objects("aks", {**AKS_REQUIRED, "AZURE_TAGS": tags})
    tagged = embedded(objects, "ResourceGroup") + embedded(objects, "ManagedCluster")
    tagged += embedded(objects, "ManagedClustersAgentPool")
    assert len(tagged) == 4
    assert all(resource["spec"]["tags"] == tags for resource in tagged)


def test_no_tags_field_without_tags() -> None:
    objects = render_objects("aks", AKS_REQUIRED)
    for obj in objects:
        for resource in (obj.get("spec") or {}).get("resources", []):
            assert "tags" not in resource["spec"]


@pytest.mark.parametrize("tier", ["Free", "Standard", "Premium"])
def test_sku_tier(tier: str) -> None:
    (cluster,) = embedded(
        render_objects("aks", {**AKS_REQUIRED, "AKS_SKU_TIER": tier}), "ManagedCluster"
    )
    assert cluster["spec"]["sku"] == {"name": "Base", "tier": tier}


def test_values_needing_quotes_stay_strings() -> None:
    """Scalars are written as JSON, so YAML never reinterprets them (`on`, `01`, `a: b`)."""
    tags = {"flag": "on", "code": "01", "text": "a: b # c"}
    pools = [{"name": "sys", "mode": "System", "labels": {"enabled": "true"}}]
    objects = render_objects("aks", {**AKS_REQUIRED, "AZURE_TAGS": tags, "NODE_POOLS": pools})
    assert embedded(objects, "ResourceGroup")[0]["spec"]["tags"] == tags
    assert embedded(objects, "ManagedClustersAgentPool")[0]["spec"]["nodeLabels"] == {
        "enabled": "true"
    }


# --- aks-maintenance ---------------------------------------------------------------------------


def maintenance_configurations(settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    objects = render_objects("aks-maintenance", {**AKS_REQUIRED, **settings})
    (control_plane,) = find(objects, "AzureASOManagedControlPlane")
    assert control_plane["spec"]["resources"][0]["kind"] == "ManagedCluster"
    return {r["spec"]["azureName"]: r for r in embedded(objects, "MaintenanceConfiguration")}


def test_maintenance_windows_are_owned_by_the_managed_cluster() -> None:
    configurations = maintenance_configurations({})
    assert sorted(configurations) == [
        "aksManagedAutoUpgradeSchedule",
        "aksManagedNodeOSUpgradeSchedule",
        "default",
    ]
    for azure_name, resource in configurations.items():
        assert resource["apiVersion"] == "containerservice.azure.com/v1api20240901"
        assert resource["metadata"]["name"] == f"my-cluster-{azure_name.lower()}"
        assert resource["spec"]["owner"] == {"name": "my-cluster"}


def test_empty_window_leaves_its_configuration_out() -> None:
    configurations = maintenance_configurations(
        {"AKS_MAINTENANCE_AUTO_UPGRADE": {}, "AKS_MAINTENANCE_DEFAULT": "{}"}
    )
    assert sorted(configurations) == ["aksManagedNodeOSUpgradeSchedule"]


def test_custom_window() -> None:
    window = {
        "durationHours": 6,
        "schedule": {
            "relativeMonthly": {"dayOfWeek": "Saturday", "intervalMonths": 1, "weekIndex": "First"}
        },
        "startTime": "22:00",
        "utcOffset": "+01:00",
        "startDate": "2026-01-01",
    }
    configurations = maintenance_configurations({"AKS_MAINTENANCE_NODE_OS_UPGRADE": window})
    assert configurations["aksManagedNodeOSUpgradeSchedule"]["spec"]["maintenanceWindow"] == window


def test_invalid_windows_are_reported_per_field() -> None:
    problems = variable_problems(
        "aks-maintenance",
        {
            **AKS_REQUIRED,
            "AKS_MAINTENANCE_AUTO_UPGRADE": {
                "durationHours": 2,
                "startTime": "2am",
                "schedule": {"weekly": {"dayOfWeek": "Sun", "intervalWeeks": 1}},
            },
            "AKS_MAINTENANCE_NODE_OS_UPGRADE": {"utcOffset": "+01:00"},
            "AKS_MAINTENANCE_DEFAULT": {"timeInWeek": [{"day": "Sunday", "hourSlots": [24]}]},
        },
    )
    for start in [
        "AKS_MAINTENANCE_AUTO_UPGRADE.durationHours",
        "AKS_MAINTENANCE_AUTO_UPGRADE.startTime",
        "AKS_MAINTENANCE_AUTO_UPGRADE.schedule.weekly.dayOfWeek",
        "AKS_MAINTENANCE_NODE_OS_UPGRADE",
        "AKS_MAINTENANCE_DEFAULT.timeInWeek[0].hourSlots[0]",
    ]:
        assert any(p.startswith(start) for p in problems), f"{start}: {problems}"


def spec_of(type_name: str) -> VariableSpec:
    return VariableSpec("X", {"type": type_name}, required=True, export="placeholder")


@pytest.mark.parametrize(
    ("type_name", "raw", "value"),
    [
        ("string", " as is ", " as is "),
        ("string", 5, "5"),
        ("string", 1.5, "1.5"),
        ("string", True, True),  # left for the schema check to reject
        ("integer", " -7 ", -7),
        ("integer", 7, 7),
        ("number", "+3", 3),
        ("number", "2.5e1", 25.0),
        ("boolean", " Yes ", True),
        ("boolean", "OFF", False),
        ("boolean", "0", False),
        ("array", "[1, a]", [1, "a"]),
        ("object", '{"a": 1}', {"a": 1}),
    ],
)
def test_coerce(type_name: str, raw: Any, value: Any) -> None:
    coerced = coerce(spec_of(type_name), raw)
    assert coerced == value
    assert type(coerced) is type(value)


@pytest.mark.parametrize(
    ("type_name", "raw", "message"),
    [
        ("integer", "1.5", "expected an integer, got '1.5'"),
        ("number", "many", "expected a number, got 'many'"),
        ("boolean", "maybe", "expected true or false, got 'maybe'"),
        ("array", "{a: 1}", "expected a YAML/JSON array, got '{a: 1}'"),
        ("object", "[1]", "expected a YAML/JSON object, got '[1]'"),
        ("object", "{a: [", "expected a YAML/JSON object: did not find expected node content"),
    ],
)
def test_coerce_rejects(type_name: str, raw: str, message: str) -> None:
    with pytest.raises(CoercionError) as caught:
        coerce(spec_of(type_name), raw)
    assert str(caught.value).startswith(message)
