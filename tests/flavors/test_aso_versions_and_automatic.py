"""AKS_ASO_API_VERSION, node auto-provisioning, Fleet membership and the aks-automatic flavor.

Through the CLI, as a user meets them: a setting that needs a newer ASO API version names both
its variable and AKS_ASO_API_VERSION; what node auto-provisioning and AKS Automatic refuse names
the variable and the rule; the variables aks-automatic pins refuse other values before rendering;
and every new output validates with `capzgen validate` with no finding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.flavors.flavor_testing import load_objects, render_aks
from tests.flavors.test_render_checks import generate

FLEET_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/fleets"
    "/providers/Microsoft.ContainerService/fleets/hub"
)
NAP = {
    "AKS_ASO_API_VERSION": "v1api20250801",
    "AKS_NODE_AUTO_PROVISIONING": "Auto",
    "AKS_NETWORK_PLUGIN_MODE": "overlay",
    "AKS_NETWORK_DATAPLANE": "cilium",
    "AKS_NETWORK_POLICY": "cilium",
}
SYSTEM = {"name": "system", "mode": "System"}
WARNING_FREE = "0 errors, 0 warnings"


def _problems(result: Any, flavor: str, kind: str = "values") -> list[str]:
    assert result.exit_code == 1, result.stderr
    assert result.stdout == ""  # nothing is written
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Error: ") and f"with the {kind} of flavor '{flavor}'" in lines[0]
    assert "Traceback" not in result.stderr
    return [line.strip() for line in lines[1:] if line.startswith("  ")]


def test_a_setting_of_a_newer_version_names_both_variables(run_cli: Any, tmp_path: Path) -> None:
    values = {**NAP, "AKS_ASO_API_VERSION": "v1api20240901"}
    problems = _problems(generate(run_cli, tmp_path, "aks", values), "aks")
    assert problems == [
        "AKS_ASO_API_VERSION: is containerservice.azure.com/v1api20240901, which has no "
        "spec.nodeProvisioningProfile; v1api20250801 or later has (CAPZ-MC-API-VERSION-FIELD) "
        "[provisioning: the API server refuses the ManagedCluster when CAPZ's controller creates it]",
        "AKS_NODE_AUTO_PROVISIONING: the field exists only in "
        "containerservice.azure.com/v1api20250801 and later; this ManagedCluster is v1api20240901 "
        "(CAPZ-MC-API-VERSION-FIELD) "
        "[provisioning: the API server refuses the ManagedCluster when CAPZ's controller creates it]",
    ]


@pytest.mark.parametrize(
    ("flavor", "values", "line"),
    [
        pytest.param(
            "aks",
            {**NAP, "AKS_NETWORK_POLICY": "calico"},
            "AKS_NETWORK_POLICY: is 'calico'; node auto-provisioning does not support Calico "
            "network policy (cilium or azure, or leave it out) (CAPZ-NAP-NETWORK) "
            "[provisioning: AKS refuses node auto-provisioning on any other network]",
            id="nap-policy",
        ),
        pytest.param(
            "aks",
            {**NAP, "NODE_POOLS": [SYSTEM, {"name": "win", "mode": "User", "osType": "Windows"}]},
            "NODE_POOLS[1].osType: is Windows; ManagedCluster/my-cluster uses node "
            "auto-provisioning, which has no Windows pools (CAPZ-NAP-POOLS) "
            "[provisioning: AKS refuses node auto-provisioning with Windows or autoscaled agent pools]",
            id="nap-windows",
        ),
        pytest.param(
            "aks-automatic",
            {"NODE_POOLS": [{**SYSTEM, "autoscaling": {"minCount": 1, "maxCount": 3}}]},
            "NODE_POOLS[0].autoscaling: is true; ManagedCluster/my-cluster uses node "
            "auto-provisioning, which replaces the cluster autoscaler (CAPZ-NAP-POOLS) "
            "[provisioning: AKS refuses node auto-provisioning with Windows or autoscaled agent pools]",
            id="automatic-autoscaler",
        ),
    ],
)
def test_node_auto_provisioning_requirements_name_the_variable(
    run_cli: Any, tmp_path: Path, flavor: str, values: dict[str, Any], line: str
) -> None:
    assert line in _problems(generate(run_cli, tmp_path, flavor, values), flavor)


@pytest.mark.parametrize(
    ("variable", "value", "fragment"),
    [
        ("AKS_ASO_API_VERSION", "v1api20240901", "'v1api20240901' is not one of"),
        ("AKS_NODE_AUTO_PROVISIONING", "Manual", "'Manual' is not one of"),
        ("AKS_SKU_TIER", "Free", "'Free' is not one of"),
        ("AKS_NETWORK_PLUGIN", "kubenet", "'kubenet' is not one of"),
        ("AKS_DISABLE_LOCAL_ACCOUNTS", False, "false is not one of"),
        ("AKS_AAD", {"tenantID": "00000000-0000-0000-0000-000000000002"}, "enableAzureRBAC"),
    ],
)
def test_aks_automatic_refuses_what_aks_automatic_fixes(
    run_cli: Any, tmp_path: Path, variable: str, value: Any, fragment: str
) -> None:
    problems = _problems(
        generate(run_cli, tmp_path, "aks-automatic", {variable: value}),
        "aks-automatic",
        "variables",
    )
    assert len(problems) == 1 and problems[0].startswith(f"{variable}: ")
    assert fragment in problems[0]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"group": "canary"}, "not valid under any of the schemas"),
        ({"fleet": "hub", "fleetArmId": FLEET_ID}, "valid under more than one"),
        ({"fleetArmId": "/subscriptions/x/resourceGroups/y"}, "does not match"),
        ({"fleet": "hub", "name": "x" * 51}, "longer than 50"),
    ],
)
def test_fleet_member_is_typed(run_cli: Any, tmp_path: Path, value: Any, fragment: str) -> None:
    result = generate(run_cli, tmp_path, "aks", {"AKS_FLEET_MEMBER": value})
    problems = _problems(result, "aks", "variables")
    assert len(problems) == 1 and problems[0].startswith("AKS_FLEET_MEMBER")
    assert fragment in problems[0]


def _embedded(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        res
        for obj in objects
        for res in obj.get("spec", {}).get("resources", [])
        if res["kind"] == kind
    ]


def test_the_api_version_reaches_every_containerservice_object() -> None:
    objects = render_aks("aks-maintenance", AKS_ASO_API_VERSION="v20251002preview")
    versions = {
        (res["kind"], res["apiVersion"])
        for kind in ("ManagedCluster", "ManagedClustersAgentPool", "MaintenanceConfiguration")
        for res in _embedded(objects, kind)
    }
    assert versions == {
        (kind, "containerservice.azure.com/v20251002preview")
        for kind in ("ManagedCluster", "ManagedClustersAgentPool", "MaintenanceConfiguration")
    }


def test_default_version_is_capz_release_and_writes_no_newer_field() -> None:
    objects = render_aks()
    (cluster,) = _embedded(objects, "ManagedCluster")
    assert cluster["apiVersion"] == "containerservice.azure.com/v1api20240901"
    assert "nodeProvisioningProfile" not in cluster["spec"]
    assert cluster["spec"]["sku"] == {"name": "Base", "tier": "Free"}


@pytest.mark.parametrize(
    ("member", "owner"),
    [
        ({"fleetArmId": FLEET_ID, "group": "canary"}, {"armId": FLEET_ID}),
        ({"fleet": "hub", "name": "member-a"}, {"name": "hub"}),
    ],
)
def test_fleet_member_follows_the_managed_cluster(
    run_cli: Any, tmp_path: Path, member: Any, owner: Any
) -> None:
    # A Fleet named by owner.name and managed elsewhere is a warning only (CAPZ-ASO-OWNER).
    result = generate(run_cli, tmp_path, "aks", {"AKS_FLEET_MEMBER": member})
    assert result.exit_code == 0, result.stderr
    objects = load_objects(result.stdout)
    (control_plane,) = [o for o in objects if o["kind"] == "AzureASOManagedControlPlane"]
    kinds = [res["kind"] for res in control_plane["spec"]["resources"]]
    assert kinds == ["ManagedCluster", "FleetsMember"]
    fleet_member = control_plane["spec"]["resources"][1]
    assert fleet_member["apiVersion"] == "containerservice.azure.com/v1api20250301"
    assert fleet_member["metadata"]["name"] == "my-cluster-fleet"
    assert fleet_member["spec"]["owner"] == owner
    assert fleet_member["spec"]["azureName"] == member.get("name", "my-cluster")
    assert fleet_member["spec"].get("group") == member.get("group")
    assert fleet_member["spec"]["clusterResourceReference"] == {
        "group": "containerservice.azure.com",
        "kind": "ManagedCluster",
        "name": "my-cluster",
    }


def test_a_fleet_by_name_elsewhere_is_a_reminder(run_cli: Any, tmp_path: Path) -> None:
    """One hub serves many clusters and is applied on its own: not an error, but said."""
    result = generate(run_cli, tmp_path, "aks", {"AKS_FLEET_MEMBER": {"fleet": "hub"}})
    assert result.exit_code == 0, result.stderr
    assert (
        "owner Fleet 'hub' (containerservice.azure.com) is not in the validated set in namespace "
        "default; the Fleet must exist there before ASO can create the member (CAPZ-ASO-OWNER)"
    ) in result.stderr
    strict = generate(
        run_cli, tmp_path, "aks", {"AKS_FLEET_MEMBER": {"fleet": "hub"}}, "--fail-on", "warning"
    )
    assert strict.exit_code == 1


def test_aks_automatic_renders_an_automatic_cluster_with_one_system_pool() -> None:
    objects = render_aks("aks-automatic")
    (cluster,) = _embedded(objects, "ManagedCluster")
    spec = cluster["spec"]
    assert cluster["apiVersion"] == "containerservice.azure.com/v1api20250801"
    assert spec["sku"] == {"name": "Automatic", "tier": "Standard"}
    assert spec["nodeProvisioningProfile"] == {"mode": "Auto"}
    assert spec["networkProfile"] == {
        "networkPlugin": "azure",
        "networkPluginMode": "overlay",
        "networkDataplane": "cilium",
        "networkPolicy": "cilium",
        "outboundType": "managedNATGateway",
    }
    assert spec["aadProfile"] == {"managed": True, "enableAzureRBAC": True}
    assert spec["disableLocalAccounts"] is True
    assert spec["operatorSpec"]["secrets"] == {
        "userCredentials": {"name": "my-cluster-user-kubeconfig", "key": "value"}
    }
    assert spec["securityProfile"] == {
        "imageCleaner": {"enabled": True},
        "workloadIdentity": {"enabled": True},
    }
    assert spec["oidcIssuerProfile"] == {"enabled": True}
    assert spec["autoUpgradeProfile"] == {
        "upgradeChannel": "stable",
        "nodeOSUpgradeChannel": "NodeImage",
    }
    assert spec["addonProfiles"] == {"azurepolicy": {"enabled": True}}
    pools = _embedded(objects, "ManagedClustersAgentPool")
    assert [(p["spec"]["azureName"], p["spec"]["mode"]) for p in pools] == [("system", "System")]


@pytest.mark.parametrize(
    ("flavor", "values"),
    [
        ("aks-automatic", {}),
        ("aks-automatic", {"AKS_ASO_API_VERSION": "v20251002preview"}),
        ("aks", NAP),
        ("aks", {"AKS_FLEET_MEMBER": {"fleetArmId": FLEET_ID, "group": "canary"}}),
    ],
    ids=["automatic", "automatic-preview", "node-auto-provisioning", "fleet-member"],
)
def test_new_outputs_validate_clean(
    run_cli: Any, tmp_path: Path, flavor: str, values: dict[str, Any]
) -> None:
    out = tmp_path / "cluster.yaml"
    result = generate(run_cli, tmp_path, flavor, values, "--write-to", str(out))
    assert result.exit_code == 0, result.stderr
    checked = run_cli(["validate", str(out)])
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    assert WARNING_FREE in checked.stdout + checked.stderr
