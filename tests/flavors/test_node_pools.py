"""NODE_POOLS variants of the aks flavor render the expected fields and nothing CAPZ owns."""

from __future__ import annotations

from typing import Any

import pytest

from generator.errors import FlavorError
from tests.flavors.flavor_testing import (
    AKS_REQUIRED,
    embedded,
    find,
    problems,
    render_objects,
    rule_warnings,
)

# Fields CAPZ writes itself and rejects when a user sets another value (reference §2.3).
CAPZ_OWNED_POOL_FIELDS = {"count", "orchestratorVersion"}
CAPZ_OWNED_CLUSTER_FIELDS = {"agentPoolProfiles", "kubernetesVersion"}


def render_pools(pools: list[dict[str, Any]], **extra: Any) -> list[dict[str, Any]]:
    return render_objects("aks", {**AKS_REQUIRED, "NODE_POOLS": pools, **extra})


def agent_pool(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (pool,) = [
        p for p in embedded(objects, "ManagedClustersAgentPool") if p["spec"]["azureName"] == name
    ]
    return pool["spec"]  # type: ignore[no-any-return]


def machine_pool(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (pool,) = find(objects, "MachinePool", f"my-cluster-{name}")
    return pool  # type: ignore[no-any-return]


VARIANTS: dict[str, list[dict[str, Any]]] = {
    "three pools": [
        {"name": "system", "mode": "System"},
        {"name": "apps", "mode": "User", "vmSize": "Standard_D8s_v5", "replicas": 5},
        {"name": "batch", "mode": "User", "replicas": 0},
    ],
    "autoscaling": [
        {"name": "system", "mode": "System", "autoscaling": {"minCount": 1, "maxCount": 3}},
        {
            "name": "apps",
            "mode": "User",
            "replicas": 4,
            "autoscaling": {"minCount": 2, "maxCount": 10},
        },
    ],
    "windows": [
        {"name": "system", "mode": "System"},
        {"name": "win", "mode": "User", "osType": "Windows", "replicas": 1},
    ],
    "labels and taints": [
        {"name": "system", "mode": "System", "taints": ["CriticalAddonsOnly=true:NoSchedule"]},
        {
            "name": "shared",
            "mode": "User",
            "labels": {"type": "shared", "example.com/tier": "gold"},
            "taints": [
                "type=shared:NoSchedule",
                {"key": "dedicated", "effect": "NoExecute"},
                {"key": "example.com/gpu", "value": "a100", "effect": "PreferNoSchedule"},
            ],
        },
    ],
    "zones": [
        {"name": "system", "mode": "System", "availabilityZones": ["1", "2", "3"]},
        {"name": "apps", "mode": "User", "availabilityZones": ["2"]},
    ],
}


@pytest.mark.parametrize("pools", VARIANTS.values(), ids=VARIANTS.keys())
def test_one_machine_pool_and_agent_pool_per_item(pools: list[dict[str, Any]]) -> None:
    objects = render_pools(pools)
    for pool in pools:
        name = f"my-cluster-{pool['name']}"
        mp = machine_pool(objects, pool["name"])
        (infra,) = find(objects, "AzureASOManagedMachinePool", name)
        assert mp["spec"]["template"]["spec"]["infrastructureRef"]["name"] == name
        (resource,) = infra["spec"]["resources"]
        assert resource["metadata"]["name"] == name
        assert resource["spec"]["owner"] == {"name": "my-cluster"}
        assert resource["metadata"]["annotations"] == {
            "serviceoperator.azure.com/credential-from": "aso-credentials"
        }


@pytest.mark.parametrize("pools", VARIANTS.values(), ids=VARIANTS.keys())
def test_never_sets_fields_capz_owns(pools: list[dict[str, Any]]) -> None:
    objects = render_pools(pools)
    for pool in embedded(objects, "ManagedClustersAgentPool"):
        assert not CAPZ_OWNED_POOL_FIELDS & set(pool["spec"]), pool["metadata"]["name"]
    (cluster,) = embedded(objects, "ManagedCluster")
    assert not CAPZ_OWNED_CLUSTER_FIELDS & set(cluster["spec"])
    assert not {"serviceCidr", "podCidr"} & set(cluster["spec"]["networkProfile"])
    for resource in embedded(objects, "ManagedCluster") + embedded(objects, "ResourceGroup"):
        assert "namespace" not in resource["metadata"]


def test_three_pools_take_their_own_size_and_replicas_or_the_defaults() -> None:
    objects = render_pools(
        VARIANTS["three pools"], WORKER_MACHINE_COUNT=4, AZURE_NODE_MACHINE_TYPE="Standard_E4s_v5"
    )
    assert [mp["metadata"]["name"] for mp in find(objects, "MachinePool")] == [
        "my-cluster-system",
        "my-cluster-apps",
        "my-cluster-batch",
    ]
    assert machine_pool(objects, "system")["spec"]["replicas"] == 4
    assert machine_pool(objects, "apps")["spec"]["replicas"] == 5
    assert machine_pool(objects, "batch")["spec"]["replicas"] == 0
    assert agent_pool(objects, "system")["vmSize"] == "Standard_E4s_v5"
    assert agent_pool(objects, "apps")["vmSize"] == "Standard_D8s_v5"
    assert agent_pool(objects, "batch")["mode"] == "User"


def test_autoscaling_sets_bounds_and_keeps_replicas_as_seed() -> None:
    objects = render_pools(VARIANTS["autoscaling"])
    apps = agent_pool(objects, "apps")
    assert (apps["enableAutoScaling"], apps["minCount"], apps["maxCount"]) == (True, 2, 10)
    assert machine_pool(objects, "apps")["spec"]["replicas"] == 4
    assert machine_pool(objects, "system")["spec"]["replicas"] == 2  # WORKER_MACHINE_COUNT


def test_pool_without_autoscaling_has_no_autoscaler_fields() -> None:
    spec = agent_pool(render_pools(VARIANTS["three pools"]), "apps")
    assert not {"enableAutoScaling", "minCount", "maxCount"} & set(spec)


def test_windows_pool() -> None:
    objects = render_pools(VARIANTS["windows"])
    assert agent_pool(objects, "win")["osType"] == "Windows"
    # Linux pools leave osType to AKS's default, like CAPZ's template.
    assert "osType" not in agent_pool(objects, "system")


def test_labels_and_taints() -> None:
    objects = render_pools(VARIANTS["labels and taints"])
    shared = agent_pool(objects, "shared")
    assert shared["nodeLabels"] == {"type": "shared", "example.com/tier": "gold"}
    assert shared["nodeTaints"] == [
        "type=shared:NoSchedule",
        "dedicated:NoExecute",
        "example.com/gpu=a100:PreferNoSchedule",
    ]
    assert agent_pool(objects, "system")["nodeTaints"] == ["CriticalAddonsOnly=true:NoSchedule"]
    assert "nodeLabels" not in agent_pool(objects, "system")


def test_availability_zones_are_strings() -> None:
    objects = render_pools(VARIANTS["zones"])
    assert agent_pool(objects, "system")["availabilityZones"] == ["1", "2", "3"]
    assert agent_pool(objects, "apps")["availabilityZones"] == ["2"]


@pytest.mark.parametrize(
    ("pools", "messages"),
    [
        pytest.param(
            [{"name": "apps", "mode": "User"}],
            [
                "NODE_POOLS: Cluster 'my-cluster' has no agent pool with mode: System (1 pool "
                "found); AKS requires at least one (CAPZ-POOL-SYSTEM)"
            ],
            id="no-system-pool",
        ),
        pytest.param(
            [{"name": "system", "mode": "System"}, {"name": "system", "mode": "User"}],
            [
                "NODE_POOLS[1].name: MachinePool 'my-cluster-system' is already defined "
                "(MachinePool/my-cluster-system)",
                "(CAPZ-RES-DUPLICATE)",
            ],
            id="duplicate-name",
        ),
        pytest.param(
            [
                {"name": "win", "mode": "System", "osType": "Windows"},
                {"name": "windows", "mode": "User", "osType": "Windows"},
            ],
            [
                "NODE_POOLS[0].osType: a System pool must run Linux, not Windows "
                "(CAPZ-POOL-SYSTEM-LINUX)",
                "NODE_POOLS[1].name: 'windows' is 7 characters; a Windows pool name has at most 6 "
                "(CAPZ-POOL-NAME)",
            ],
            id="windows-rules",
        ),
        pytest.param(
            [
                {"name": "system", "mode": "System", "autoscaling": {"minCount": 0, "maxCount": 3}},
                {"name": "apps", "mode": "User", "autoscaling": {"minCount": 5, "maxCount": 3}},
                {
                    "name": "batch",
                    "mode": "User",
                    "replicas": 9,
                    "autoscaling": {"minCount": 1, "maxCount": 3},
                },
            ],
            [
                "NODE_POOLS[0].autoscaling.minCount: is 0; a System pool keeps at least 1 node, so "
                "autoscaling starts at 1 (CAPZ-POOL-AUTOSCALE)",
                "NODE_POOLS[1].autoscaling.minCount: 5 is above maxCount 3 (CAPZ-POOL-AUTOSCALE)",
            ],
            id="autoscaling-bounds",
        ),
        pytest.param(
            [{"name": "system", "mode": "System", "replicas": 0}],
            [
                "NODE_POOLS[0].replicas: is 0; it becomes the node count of "
                "ManagedClustersAgentPool/my-cluster-system, which as a System pool allows 1 to "
                "1000 (CAPZ-POOL-SCALESET)"
            ],
            id="empty-system-pool",
        ),
    ],
)
def test_invalid_pool_combinations_fail_with_every_problem(
    pools: list[dict[str, Any]], messages: list[str]
) -> None:
    with pytest.raises(FlavorError) as caught:
        render_pools(pools)
    text = problems(caught.value)
    for message in messages:
        assert message in text


def test_replicas_outside_the_autoscaling_range_are_a_warning() -> None:
    """AKS scales such a pool into its range (CAPZ-POOL-AUTOSCALE-REPLICAS is a warning), so the
    render goes on; the flavor's own Jinja check used to refuse it."""
    pools = [
        {"name": "system", "mode": "System"},
        {
            "name": "batch",
            "mode": "User",
            "replicas": 9,
            "autoscaling": {"minCount": 1, "maxCount": 3},
        },
    ]
    warnings = rule_warnings("aks", {**AKS_REQUIRED, "NODE_POOLS": pools})
    assert [(f.rule, f.subject.name, f.message) for f in warnings] == [
        (
            "CAPZ-POOL-AUTOSCALE-REPLICAS",
            "my-cluster-batch",
            "is 9, outside the autoscaling range 1-3 of ManagedClustersAgentPool/my-cluster-batch; "
            "AKS will scale it into the range",
        )
    ]
