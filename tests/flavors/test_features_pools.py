"""New NODE_POOLS item fields of the aks flavor (maxPods, OS disk, osSKU, spot, subnet) next to
the existing ones, their ranges, the pool-level checks, and one fail() for every problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import FlavorError, VariableError
from generator.schemastore.store import SchemaStore
from tests.flavors.flavor_testing import (
    AKS_REQUIRED,
    agent_pool_spec,
    embedded,
    problems,
    render_objects,
    schema_problems,
    shared_schema_store,
)

POOLS: list[dict[str, Any]] = [
    {
        "name": "system",
        "mode": "System",
        "maxPods": 110,
        "osDiskSizeGB": 128,
        "osDiskType": "Ephemeral",
        "osSKU": "AzureLinux",
        "availabilityZones": ["1", "2", "3"],
        "autoscaling": {"minCount": 1, "maxCount": 3},
    },
    {
        "name": "spot",
        "mode": "User",
        "spot": {"maxPrice": 0.25, "evictionPolicy": "Deallocate"},
        "labels": {"workload": "batch"},
        "taints": ["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"],
        "autoscaling": {"minCount": 0, "maxCount": 10},
        "replicas": 0,
    },
    {"name": "cheap", "mode": "User", "spot": {}},
    {"name": "win", "mode": "User", "osType": "Windows", "osSKU": "Windows2022", "maxPods": 30},
]


@pytest.fixture(scope="module")
def store(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> SchemaStore:
    return shared_schema_store(shared_dir, tmp_path_factory.mktemp("cache"))


def render(
    pools: list[dict[str, Any]], flavor: str = "aks", **settings: Any
) -> list[dict[str, Any]]:
    return render_objects(flavor, {**AKS_REQUIRED, "NODE_POOLS": pools, **settings})


@pytest.mark.parametrize("flavor", ["aks", "aks-maintenance"])
def test_every_object_and_embedded_resource_is_schema_valid(
    store: SchemaStore, flavor: str
) -> None:
    assert schema_problems(store, render(POOLS, flavor)) == []


def test_os_disk_max_pods_and_sku() -> None:
    spec = agent_pool_spec(render(POOLS), "system")
    assert spec == {
        "availabilityZones": ["1", "2", "3"],
        "azureName": "system",
        "enableAutoScaling": True,
        "maxCount": 3,
        "maxPods": 110,
        "minCount": 1,
        "mode": "System",
        "osDiskSizeGB": 128,
        "osDiskType": "Ephemeral",
        "osSKU": "AzureLinux",
        "owner": {"name": "my-cluster"},
        "type": "VirtualMachineScaleSets",
        "vmSize": "Standard_D2s_v3",
    }


def test_spot_pool() -> None:
    spec = agent_pool_spec(render(POOLS), "spot")
    assert (spec["scaleSetPriority"], spec["scaleSetEvictionPolicy"], spec["spotMaxPrice"]) == (
        "Spot",
        "Deallocate",
        0.25,
    )
    assert spec["nodeTaints"] == ["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"]


def test_spot_pool_with_defaults() -> None:
    spec = agent_pool_spec(render(POOLS), "cheap")
    assert (spec["scaleSetPriority"], spec["scaleSetEvictionPolicy"], spec["spotMaxPrice"]) == (
        "Spot",
        "Delete",
        -1,
    )


def test_regular_pools_have_no_spot_fields() -> None:
    spec = agent_pool_spec(render(POOLS), "win")
    assert not {"scaleSetPriority", "scaleSetEvictionPolicy", "spotMaxPrice"} & set(spec)
    assert (spec["osType"], spec["osSKU"], spec["maxPods"]) == ("Windows", "Windows2022", 30)


def test_zero_disk_size_means_the_vm_default_and_is_kept() -> None:
    pools = [{"name": "system", "mode": "System", "osDiskSizeGB": 0}]
    assert agent_pool_spec(render(pools), "system")["osDiskSizeGB"] == 0


@pytest.mark.parametrize(
    "field",
    [
        {"maxPods": 9},
        {"maxPods": 251},
        {"osDiskSizeGB": 2049},
        {"osDiskType": "Premium"},
        {"osSKU": "Windows2025"},
        {"spot": {"maxPrice": 0}},
        {"spot": {"maxPrice": -2}},
        {"spot": {"evictionPolicy": "Stop"}},
        {"spot": {"priority": "Spot"}},
        {"count": 3},
    ],
    ids=[
        "max-pods-9",
        "max-pods-251",
        "disk-2049",
        "disk-type",
        "os-sku",
        "spot-price-0",
        "spot-price-minus-2",
        "eviction",
        "spot-unknown",
        "count-is-capz-owned",
    ],
)
def test_pool_fields_are_typed(field: dict[str, Any]) -> None:
    with pytest.raises(VariableError) as caught:
        render([{"name": "system", "mode": "System"}, {"name": "apps", "mode": "User", **field}])
    assert any(detail.startswith("NODE_POOLS[1]") for detail in caught.value.details)


@pytest.mark.parametrize(
    ("pools", "settings", "expected"),
    [
        pytest.param(
            [{"name": "system", "mode": "System", "spot": {}}],
            {},
            [
                "NODE_POOLS[0].spot: Spot is not allowed for a System pool: AKS runs System pools "
                "on regular VMs (CAPZ-POOL-SPOT-SYSTEM)"
            ],
            id="spot-system",
        ),
        pytest.param(
            [
                {"name": "system", "mode": "System", "osSKU": "Windows2022"},
                {"name": "win", "mode": "User", "osType": "Windows", "osSKU": "Ubuntu"},
            ],
            {},
            [
                "NODE_POOLS[0].osSKU: Windows2022 is a Windows image but the pool's osType is Linux "
                "(the default); set osType: Windows (CAPZ-POOL-OSSKU)",
                "NODE_POOLS[1].osSKU: Ubuntu is a Linux image but the pool's osType is Windows; use "
                "one of Windows2019, Windows2022 (CAPZ-POOL-OSSKU)",
            ],
            id="os-sku-mismatch",
        ),
        pytest.param(
            [{"name": "system", "mode": "System", "subnet": "nodes"}],
            {},
            [
                "NODE_POOLS[0].subnet: VirtualNetworksSubnet 'my-cluster-nodes' is not in the "
                "validated set in namespace default (CAPZ-POOL-SUBNET-REF)"
            ],
            id="subnet-without-vnet",
        ),
        pytest.param(
            [{"name": "system", "mode": "System", "subnet": "other"}],
            {
                "AKS_VNET": {
                    "name": "vnet",
                    "addressPrefixes": ["10.10.0.0/16"],
                    "subnets": [{"name": "nodes", "addressPrefix": "10.10.0.0/20"}],
                }
            },
            [
                "NODE_POOLS[0].subnet: VirtualNetworksSubnet 'my-cluster-vnet-other' is not in the "
                "validated set in namespace default (CAPZ-POOL-SUBNET-REF)"
            ],
            id="unknown-subnet",
        ),
    ],
)
def test_pool_combinations_fail(
    pools: list[dict[str, Any]], settings: dict[str, Any], expected: list[str]
) -> None:
    with pytest.raises(FlavorError) as caught:
        render(pools, **settings)
    text = problems(caught.value)
    for fragment in expected:
        assert fragment in text


def test_every_problem_is_reported_in_one_failure() -> None:
    """Pool, feature and credential problems arrive together, one a line, each naming its
    variable and rule, in variable order."""
    with pytest.raises(FlavorError) as caught:
        render(
            [{"name": "apps", "mode": "User", "spot": {}}],
            AKS_DISABLE_LOCAL_ACCOUNTS=True,
            AKS_PRIVATE_DNS_ZONE="system",
            ASO_CREDENTIAL_SECRET_CREATE=True,
        )
    assert caught.value.message == "5 problems with the values of flavor 'aks'"
    needs = "ASO needs all of AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID, AZURE_CLIENT_ID"
    cred = "(CAPZ-CRED-SECRET) [provisioning: ASO cannot authenticate with the Secret]"
    assert list(caught.value.details) == [
        "AKS_DISABLE_LOCAL_ACCOUNTS: requires AKS-managed Entra ID (aadProfile.managed: true) "
        "(CAPZ-MC-LOCAL-ACCOUNTS) [provisioning: AKS refuses disabling local accounts without managed Entra ID]",
        f"AZURE_CLIENT_ID: AZURE_CLIENT_ID is empty: {needs} {cred}",
        f"AZURE_SUBSCRIPTION_ID: AZURE_SUBSCRIPTION_ID is empty: {needs} {cred}",
        f"AZURE_TENANT_ID: AZURE_TENANT_ID is empty: {needs} {cred}",
        "NODE_POOLS: Cluster 'my-cluster' has no agent pool with mode: System (1 pool found); "
        "AKS requires at least one (CAPZ-POOL-SYSTEM) [provisioning: AKS refuses a cluster without a System pool]",
    ]


def test_windows_pool_keeps_its_name_limit() -> None:
    with pytest.raises(FlavorError) as caught:
        render(
            [
                {"name": "system", "mode": "System"},
                {"name": "windows", "mode": "User", "osType": "Windows"},
            ]
        )
    assert caught.value.details == (
        "NODE_POOLS[1].name: 'windows' is 7 characters; a Windows pool name has at most 6 "
        "(CAPZ-POOL-NAME) [provisioning: AKS refuses the pool name]",
    )


def test_capz_owned_fields_stay_unset_with_every_pool_feature() -> None:
    for pool in embedded(render(POOLS), "ManagedClustersAgentPool"):
        assert not {"count", "orchestratorVersion"} & set(pool["spec"])
