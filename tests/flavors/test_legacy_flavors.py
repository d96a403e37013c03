"""aks-legacy and aks-multi-tenancy: CAPZ's legacy AzureManaged* API. They render what CAPZ's
cluster-template-aks.yaml renders (aks-legacy without the AzureClusterIdentity), validate against
the CAPZ v1.26.0 CRDs, map their typed options to the CRD fields and pass patches through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.clusterctl.variables import VariableStore, override_layer
from generator.errors import FlavorError, VariableError
from generator.findings import format_path
from generator.flavors import render, values
from generator.flavors.catalog import FlavorCatalog
from generator.schemastore.store import SchemaStore
from tests.flavors.flavor_testing import (
    AKS_REQUIRED,
    capz_objects,
    find,
    key,
    load_objects,
    problems,
    render_objects,
    rule_warnings,
    schema_problems,
    shared_schema_store,
)
from tests.flavors.test_flavor_equivalence import assert_contains_capz

LEGACY_REQUIRED = {
    **AKS_REQUIRED,
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000000",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
}
TENANCY_REQUIRED = {
    **LEGACY_REQUIRED,
    "AZURE_TENANT_ID": "22222222-2222-2222-2222-222222222222",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "33333333-3333-3333-3333-333333333333",
}
REQUIRED = {"aks-legacy": LEGACY_REQUIRED, "aks-multi-tenancy": TENANCY_REQUIRED}
# Values differing from every default, so a default silently used instead of a value is caught.
DIFFERENT = {"AZURE_NODE_MACHINE_TYPE": "Standard_D4s_v5", "WORKER_MACHINE_COUNT": 3}
GROUP_ID = "11111111-1111-1111-1111-111111111111"
RG_ID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/shared"
IDENTITY_ID = f"{RG_ID}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/aks-cp"
ZONE_ID = f"{RG_ID}/providers/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io"
CLUSTER_PATCHES = [
    '{"spec": {"disableLocalAccounts": true}}',
    "spec:\n  autoUpgradeProfile:\n    nodeOSUpgradeChannel: SecurityPatch\n",
]
POOL_PATCHES = ['{"spec": {"enableEncryptionAtHost": true}}']
FEATURES: dict[str, Any] = {
    "AKS_AAD": {"adminGroupObjectIDs": [GROUP_ID]},
    "AKS_SKU_TIER": "Standard",
    "AKS_NETWORK_PLUGIN_MODE": "overlay",
    "AKS_NETWORK_POLICY": "cilium",
    "AKS_NETWORK_DATAPLANE": "cilium",
    "AKS_POD_CIDR": "10.244.0.0/16",
    "AKS_SERVICE_CIDR": "172.16.0.0/16",
    "AKS_LOAD_BALANCER_PROFILE": {
        "managedOutboundIPs": 2,
        "idleTimeoutInMinutes": 10,
        "allocatedOutboundPorts": 0,
    },
    "AKS_PRIVATE_CLUSTER": True,
    "AKS_PRIVATE_DNS_ZONE": ZONE_ID,
    "AKS_PRIVATE_CLUSTER_PUBLIC_FQDN": True,
    "AKS_CONTROL_PLANE_IDENTITY_ID": IDENTITY_ID,
    "AKS_OIDC_ISSUER": False,
    "AZURE_RESOURCE_GROUP": "team-rg",
    "AZURE_SSH_PUBLIC_KEY_B64": "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUFBQkFnTUVCUVlIQ0FrS0N3d05EZzhRRVJJVEZCVVdGeGdaR2hzY0hSNGYgdXNlckBob3N0",
    "ASO_MANAGED_CLUSTER_PATCHES": CLUSTER_PATCHES,
    "NODE_POOLS": [
        {
            "name": "system",
            "mode": "System",
            "vmSize": "Standard_D8s_v5",
            "replicas": 3,
            "availabilityZones": ["1", "2"],
            "maxPods": 50,
            "osDiskSizeGB": 64,
            "osDiskType": "Ephemeral",
            "taints": [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}],
            "autoscaling": {"minCount": 1, "maxCount": 5},
        },
        {
            "name": "win",
            "mode": "User",
            "osType": "Windows",
            "labels": {"os": "windows"},
            "asoManagedClustersAgentPoolPatches": POOL_PATCHES,
        },
    ],
}


@pytest.fixture(scope="module")
def store(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> SchemaStore:
    return shared_schema_store(shared_dir, tmp_path_factory.mktemp("cache"))


def render_legacy(flavor: str = "aks-legacy", **settings: Any) -> list[dict[str, Any]]:
    return render_objects(flavor, {**REQUIRED[flavor], **settings})


def control_plane(objects: list[dict[str, Any]]) -> dict[str, Any]:
    (found,) = find(objects, "AzureManagedControlPlane")
    return found["spec"]  # type: ignore[no-any-return]


def machine_pool(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (found,) = find(objects, "AzureManagedMachinePool", f"my-cluster-{name}")
    return found["spec"]  # type: ignore[no-any-return]


def failure(flavor: str = "aks-legacy", **settings: Any) -> str:
    with pytest.raises(FlavorError) as caught:
        render_legacy(flavor, **settings)
    return problems(caught.value)


# --- equivalence with CAPZ's cluster-template-aks.yaml -------------------------------------------


@pytest.mark.parametrize(
    "extra", [{}, {"AZURE_RESOURCE_GROUP": "team-rg"}], ids=["defaults", "resource-group"]
)
def test_multi_tenancy_is_capz_legacy_template(corpus_dir: Path, extra: dict[str, Any]) -> None:
    settings = {**TENANCY_REQUIRED, **DIFFERENT, **extra}
    ours = render_objects("aks-multi-tenancy", settings)
    capz = capz_objects(corpus_dir, "aks", settings)
    assert_contains_capz(ours, capz)
    assert [key(obj) for obj in ours] == [key(obj) for obj in capz]


def test_legacy_is_capz_legacy_template_without_the_identity(corpus_dir: Path) -> None:
    ours = render_objects("aks-legacy", {**LEGACY_REQUIRED, **DIFFERENT})
    capz = [
        obj
        for obj in capz_objects(corpus_dir, "aks", {**TENANCY_REQUIRED, **DIFFERENT})
        if obj["kind"] != "AzureClusterIdentity"
    ]
    assert_contains_capz(ours, capz)
    assert [key(obj) for obj in ours] == [key(obj) for obj in capz]


def test_identity_ref_names_the_identity_multi_tenancy_renders() -> None:
    objects = render_legacy("aks-multi-tenancy")
    (identity,) = find(objects, "AzureClusterIdentity")
    reference = control_plane(objects)["identityRef"]
    assert reference == {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureClusterIdentity",
        "name": identity["metadata"]["name"],
    }
    assert identity["metadata"]["namespace"] == "default"


# --- schema validity -----------------------------------------------------------------------------


@pytest.mark.parametrize("flavor", ["aks-legacy", "aks-multi-tenancy"])
@pytest.mark.parametrize("features", [{}, FEATURES], ids=["defaults", "features"])
def test_schema_valid_against_the_capz_crds(
    store: SchemaStore, flavor: str, features: dict[str, Any]
) -> None:
    objects = render_legacy(flavor, **features)
    assert schema_problems(store, objects) == []
    for obj in objects:
        handle = store.lookup(obj["apiVersion"], obj["kind"])
        assert handle is not None and "/crds/" in handle.source, (key(obj), handle)


def test_service_principal_identity_is_schema_valid(store: SchemaStore) -> None:
    objects = render_legacy(
        "aks-multi-tenancy",
        CLUSTER_IDENTITY_TYPE="ServicePrincipal",
        AZURE_CLUSTER_IDENTITY_SECRET_NAME="sp-secret",
        CLUSTER_IDENTITY_ALLOWED_NAMESPACES={"list": ["default", "team-a"]},
    )
    assert schema_problems(store, objects) == []


# --- features ------------------------------------------------------------------------------------


def test_patches_pass_through_as_strings() -> None:
    objects = render_legacy(**FEATURES)
    assert control_plane(objects)["asoManagedClusterPatches"] == CLUSTER_PATCHES
    assert machine_pool(objects, "win")["asoManagedClustersAgentPoolPatches"] == POOL_PATCHES
    assert "asoManagedClustersAgentPoolPatches" not in machine_pool(objects, "system")
    # Still JSON / YAML that parses to the merge patch the user meant.
    assert json.loads(CLUSTER_PATCHES[0]) == {"spec": {"disableLocalAccounts": True}}
    assert yaml.safe_load(control_plane(objects)["asoManagedClusterPatches"][1]) == {
        "spec": {"autoUpgradeProfile": {"nodeOSUpgradeChannel": "SecurityPatch"}}
    }


def test_patches_must_be_strings() -> None:
    with pytest.raises(VariableError):
        render_legacy(ASO_MANAGED_CLUSTER_PATCHES=[{"spec": {}}])


def test_control_plane_options() -> None:
    spec = control_plane(render_legacy(**FEATURES))
    assert spec == {
        "aadProfile": {"managed": True, "adminGroupObjectIDs": [GROUP_ID]},
        "apiServerAccessProfile": {
            "enablePrivateCluster": True,
            "enablePrivateClusterPublicFQDN": True,
            "privateDNSZone": ZONE_ID,
        },
        "asoManagedClusterPatches": CLUSTER_PATCHES,
        "identity": {"type": "UserAssigned", "userAssignedIdentityResourceID": IDENTITY_ID},
        "identityRef": {
            "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
            "kind": "AzureClusterIdentity",
            "name": "cluster-identity",
        },
        "loadBalancerProfile": {
            "managedOutboundIPs": 2,
            "idleTimeoutInMinutes": 10,
            "allocatedOutboundPorts": 0,
        },
        "location": "eastus",
        "networkDataplane": "cilium",
        "networkPlugin": "azure",
        "networkPluginMode": "overlay",
        "networkPolicy": "cilium",
        "resourceGroupName": "team-rg",
        "sku": {"tier": "Standard"},
        "sshPublicKey": "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUFBQkFnTUVCUVlIQ0FrS0N3d05EZzhRRVJJVEZCVVdGeGdaR2hzY0hSNGYgdXNlckBob3N0",
        "subscriptionID": "00000000-0000-0000-0000-000000000000",
        "version": "v1.33.1",
    }


def test_cluster_network() -> None:
    objects = render_legacy(**FEATURES)
    (cluster,) = find(objects, "Cluster")
    assert cluster["spec"]["clusterNetwork"] == {
        "pods": {"cidrBlocks": ["10.244.0.0/16"]},
        "services": {"cidrBlocks": ["172.16.0.0/16"]},
    }
    assert cluster["spec"]["controlPlaneRef"]["kind"] == "AzureManagedControlPlane"
    assert cluster["spec"]["infrastructureRef"]["kind"] == "AzureManagedCluster"
    # Without AKS_SERVICE_CIDR AKS takes its default 10.0.0.0/16, inside the VNet CAPZ's webhook
    # defaults to (10.0.0.0/8): the rules see the admitted control plane and refuse it (which is
    # why CAPZ's template and this flavor default to 192.168.0.0/16).
    with pytest.raises(FlavorError) as refused:
        render_legacy(AKS_SERVICE_CIDR="")
    assert "CAPZ-NET-CIDR-OVERLAP" in str(refused.value.details)
    assert "10.0.0.0/8" in str(refused.value.details)
    catalog = FlavorCatalog(())
    flavor = catalog.get("aks-legacy")
    resolved, _ = values.resolve_values(
        flavor,
        VariableStore([override_layer({**REQUIRED["aks-legacy"], "AKS_SERVICE_CIDR": ""}, "test")]),
    )
    text = render.render_flavor(
        flavor,
        resolved,
        tuple(catalog.template_search_path(flavor)),
        disabled_rules=frozenset({"CAPZ-NET-CIDR-OVERLAP"}),
    )
    (cluster,) = find(load_objects(text), "Cluster")
    assert "clusterNetwork" not in cluster["spec"]


def test_machine_pools() -> None:
    objects = render_legacy(**FEATURES)
    assert machine_pool(objects, "system") == {
        "availabilityZones": ["1", "2"],
        "maxPods": 50,
        "mode": "System",
        "name": "system",
        "osDiskSizeGB": 64,
        "osDiskType": "Ephemeral",
        "scaling": {"minSize": 1, "maxSize": 5},
        "sku": "Standard_D8s_v5",
        "taints": [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}],
    }
    assert machine_pool(objects, "win") == {
        "asoManagedClustersAgentPoolPatches": POOL_PATCHES,
        "mode": "User",
        "name": "win",
        "nodeLabels": {"os": "windows"},
        "osType": "Windows",
        "sku": "Standard_D2s_v3",
    }
    (system,) = find(objects, "MachinePool", "my-cluster-system")
    assert system["spec"]["replicas"] == 3
    assert system["spec"]["template"]["spec"]["infrastructureRef"] == {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureManagedMachinePool",
        "name": "my-cluster-system",
    }


def test_cluster_identity_options() -> None:
    objects = render_legacy(
        "aks-multi-tenancy",
        CLUSTER_IDENTITY_TYPE="ManualServicePrincipal",
        AZURE_CLUSTER_IDENTITY_SECRET_NAME="sp-secret",
        CLUSTER_IDENTITY_ALLOWED_NAMESPACES={"selector": {"matchLabels": {"team": "a"}}},
    )
    (identity,) = find(objects, "AzureClusterIdentity")
    assert identity["metadata"]["labels"] == {"clusterctl.cluster.x-k8s.io/move-hierarchy": "true"}
    assert identity["spec"] == {
        "allowedNamespaces": {"selector": {"matchLabels": {"team": "a"}}},
        "clientID": "33333333-3333-3333-3333-333333333333",
        "clientSecret": {"name": "sp-secret", "namespace": "default"},
        "tenantID": "22222222-2222-2222-2222-222222222222",
        "type": "ManualServicePrincipal",
    }


@pytest.mark.parametrize(
    ("flavor", "settings", "expected"),
    [
        pytest.param(
            "aks-legacy",
            {"NODE_POOLS": [{"name": "apps", "mode": "User"}]},
            [
                "NODE_POOLS: Cluster 'my-cluster' has no agent pool with mode: System (1 pool "
                "found); AKS requires at least one (CAPZ-POOL-SYSTEM)"
            ],
            id="no-system-pool",
        ),
        pytest.param(
            "aks-legacy",
            {
                "NODE_POOLS": [
                    {"name": "system", "mode": "System", "replicas": 0},
                    {"name": "windows", "mode": "User", "osType": "Windows"},
                    {"name": "apps", "mode": "User", "autoscaling": {"minCount": 4, "maxCount": 2}},
                ]
            },
            [
                "NODE_POOLS[0].replicas: is 0; it becomes the node count of "
                "AzureManagedMachinePool/my-cluster-system, which as a System pool allows 1 to 1000 "
                "(CAPZ-POOL-SCALESET)",
                "NODE_POOLS[1].name: 'windows' is 7 characters; a Windows pool name has at most 6 "
                "(CAPZ-POOL-NAME)",
                "NODE_POOLS[2].autoscaling.minCount: 4 is above maxSize 2 (CAPZ-POOL-AUTOSCALE)",
            ],
            id="pool-rules",
        ),
        pytest.param(
            "aks-legacy",
            {
                "NODE_POOLS": [
                    {"name": "system", "mode": "System"},
                    {"name": "system", "mode": "User"},
                ]
            },
            [
                "NODE_POOLS[1].name: MachinePool 'my-cluster-system' is already defined",
                "(CAPZ-RES-DUPLICATE)",
            ],
            id="duplicate-pool",
        ),
        pytest.param(
            "aks-legacy",
            {"AKS_PRIVATE_CLUSTER": True, "AKS_PRIVATE_DNS_ZONE": ZONE_ID},
            [
                "AKS_PRIVATE_DNS_ZONE: a custom private DNS zone needs a user-assigned control-plane "
                "identity",
                "the identity is SystemAssigned (the default) (CAPZ-MC-PRIVATE-DNS-IDENTITY)",
            ],
            id="custom-zone-without-identity",
        ),
        pytest.param(
            "aks-legacy",
            {"AKS_NETWORK_PLUGIN": "kubenet", "AKS_NETWORK_PLUGIN_MODE": "overlay"},
            [
                "AKS_NETWORK_PLUGIN_MODE: overlay requires networkPlugin: azure, not kubenet "
                "(CAPZ-MC-NETWORK-PLUGIN)"
            ],
            id="overlay-kubenet",
        ),
        pytest.param(
            "aks-legacy",
            {"AKS_POD_CIDR": "10.244.0.0/16"},
            [
                "AKS_POD_CIDR: 10.244.0.0/16 is not used: Azure CNI without overlay gives pods "
                "addresses from the node subnet (AzureManagedControlPlane/my-cluster",
                "(CAPZ-NET-POD-CIDR)",
            ],
            id="pod-cidr-azure-cni",
        ),
        pytest.param(
            "aks-legacy",
            {
                "AKS_LOAD_BALANCER_PROFILE": {
                    "managedOutboundIPs": 1,
                    "outboundIPPrefixes": [
                        ZONE_ID.replace(
                            "privateDnsZones/privatelink.eastus.azmk8s.io", "publicIPPrefixes/p"
                        )
                    ],
                }
            },
            [
                "AKS_LOAD_BALANCER_PROFILE.outboundIPPrefixes: only one of managedOutboundIPs, "
                "outboundIPs, outboundIPPrefixes may be set (found managedOutboundIPs, "
                "outboundIPPrefixes) (CAPZ-MC-LOADBALANCER)"
            ],
            id="two-outbound-sources",
        ),
        pytest.param(
            "aks-multi-tenancy",
            {"CLUSTER_IDENTITY_TYPE": "ServicePrincipal"},
            [
                "AZURE_CLUSTER_IDENTITY_SECRET_NAME: is required by type ServicePrincipal: the "
                "Secret with the service principal's password or certificate (CAPZ-IDENTITY-SECRET)"
            ],
            id="service-principal-without-secret",
        ),
        pytest.param(
            "aks-multi-tenancy",
            {"AZURE_CLUSTER_IDENTITY_SECRET_NAME": "sp-secret"},
            [
                "AZURE_CLUSTER_IDENTITY_SECRET_NAME: is not used by type WorkloadIdentity; only "
                "ServicePrincipal, ManualServicePrincipal, ServicePrincipalCertificate read a Secret "
                "(CAPZ-IDENTITY-SECRET)"
            ],
            id="secret-for-workload-identity",
        ),
        pytest.param(
            "aks-multi-tenancy",
            {"CLUSTER_IDENTITY_ALLOWED_NAMESPACES": {"list": ["team-a"]}},
            [
                "CLUSTER_IDENTITY_ALLOWED_NAMESPACES.list: does not contain 'default', the namespace "
                "of AzureManagedControlPlane/my-cluster whose identityRef names this identity: CAPZ "
                "refuses it the identity (CAPZ-IDENTITY-NAMESPACE)"
            ],
            id="namespace-not-allowed",
        ),
        pytest.param(
            "aks-multi-tenancy",
            {
                "CLUSTER_IDENTITY_TYPE": "ServicePrincipal",
                "AKS_PRIVATE_DNS_ZONE": "none",
                "NODE_POOLS": [{"name": "apps", "mode": "User"}],
            },
            [
                "2 problems with the values of flavor 'aks-multi-tenancy'",
                "AZURE_CLUSTER_IDENTITY_SECRET_NAME: is required by type ServicePrincipal",
                "NODE_POOLS: Cluster 'my-cluster' has no agent pool with mode: System",
            ],
            id="all-at-once",
        ),
    ],
)
def test_invalid_combinations_fail(
    flavor: str, settings: dict[str, Any], expected: list[str]
) -> None:
    text = failure(flavor, **settings)
    for fragment in expected:
        assert fragment in text


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param({"AKS_PRIVATE_DNS_ZONE": "system"}, [], id="default-zone-on-a-public-cluster"),
        pytest.param(
            {"AKS_PRIVATE_DNS_ZONE": "none"},
            [("CAPZ-MC-PRIVATE-DNS", "spec.apiServerAccessProfile.privateDNSZone")],
            id="zone-none-on-a-public-cluster",
        ),
    ],
)
def test_settings_a_public_cluster_ignores_are_at_most_warnings(
    settings: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    """The legacy control plane gets the validator's rules like the ASO one: AKS ignores a private
    DNS zone on a public cluster, so it is a warning (CAPZ-MC-PRIVATE-DNS) or, for AKS's default
    zone, nothing; the render goes on."""
    warnings = rule_warnings("aks-legacy", {**LEGACY_REQUIRED, **settings})
    assert [(f.rule, format_path(f.path)) for f in warnings] == expected


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AKS_AAD", {"managed": True}),
        ("AKS_AAD", {"adminGroupObjectIDs": ["x"]}),
        ("AKS_SKU_TIER", "Premium"),
        ("AKS_NETWORK_POLICY", "none"),
        (
            "NODE_POOLS",
            [
                {
                    "name": "system",
                    "mode": "System",
                    "taints": [{"key": "a", "effect": "NoSchedule"}],
                }
            ],
        ),
        ("NODE_POOLS", [{"name": "system", "mode": "System", "spot": {}}]),
        ("AZURE_SUBSCRIPTION_ID", "my-subscription"),
    ],
    ids=[
        "aad-no-groups",
        "aad-bad-guid",
        "premium",
        "policy-none",
        "taint-no-value",
        "spot",
        "sub",
    ],
)
def test_legacy_variables_follow_the_crds(name: str, value: Any) -> None:
    with pytest.raises(VariableError) as caught:
        render_legacy(**{name: value})
    assert any(name in detail for detail in caught.value.details)


# --- metadata ------------------------------------------------------------------------------------


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(item) for item in schema]
    return schema


def test_multi_tenancy_extends_legacy() -> None:
    catalog = FlavorCatalog()
    legacy, tenancy = catalog.get("aks-legacy"), catalog.get("aks-multi-tenancy")
    assert tenancy.extends == "aks-legacy"
    assert {n: s.schema for n, s in legacy.variables.items()} == {
        n: tenancy.variables[n].schema for n in legacy.variables
    }
    assert sorted(set(tenancy.variables) - set(legacy.variables)) == [
        "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY",
        "AZURE_CLUSTER_IDENTITY_SECRET_NAME",
        "AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE",
        "AZURE_TENANT_ID",
        "CLUSTER_IDENTITY_ALLOWED_NAMESPACES",
        "CLUSTER_IDENTITY_TYPE",
    ]
    assert sorted(n for n, s in tenancy.variables.items() if s.required) == [
        "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY",
        "AZURE_LOCATION",
        "AZURE_SUBSCRIPTION_ID",
        "AZURE_TENANT_ID",
        "CLUSTER_IDENTITY_NAME",
        "CLUSTER_NAME",
        "KUBERNETES_VERSION",
    ]


@pytest.mark.parametrize(
    "name",
    [
        "NAMESPACE",
        "AZURE_LOCATION",
        "KUBERNETES_VERSION",
        "AZURE_NODE_MACHINE_TYPE",
        "WORKER_MACHINE_COUNT",
        "AKS_NETWORK_PLUGIN",
        "AKS_NETWORK_PLUGIN_MODE",
        "AKS_NETWORK_DATAPLANE",
        "AKS_POD_CIDR",
        "AKS_PRIVATE_CLUSTER",
        "AKS_PRIVATE_DNS_ZONE",
        "AKS_PRIVATE_CLUSTER_PUBLIC_FQDN",
        "AKS_AUTHORIZED_IP_RANGES",
        "AKS_CONTROL_PLANE_IDENTITY_ID",
        "AKS_LOAD_BALANCER_PROFILE",
    ],
)
def test_variables_shared_with_aks_mean_the_same(name: str) -> None:
    catalog = FlavorCatalog()
    aks = catalog.get("aks").variables[name].schema
    legacy = catalog.get("aks-legacy").variables[name].schema
    assert _without_descriptions(aks) == _without_descriptions(legacy)


@pytest.mark.parametrize("name", ["aks-legacy", "aks-multi-tenancy"])
def test_metadata_and_placeholder_rendering(name: str) -> None:
    """What the metadata tests check for the other built-in flavors."""
    catalog = FlavorCatalog()
    flavor = catalog.get(name)
    assert flavor.builtin and flavor.notes.strip() and "\n" not in flavor.description
    for spec in flavor.variables.values():
        assert spec.description
        if spec.has_default and spec.default in ("", [], {}):
            assert spec.export == "default", f"{spec.name}: an empty default must not be a ${{}}"
    text = render.render_flavor(
        flavor, render.placeholder_values(flavor), catalog.template_search_path(flavor)
    )
    objects = load_objects(text)
    assert "${CLUSTER_NAME}" in text and "${AZURE_SUBSCRIPTION_ID}" in text
    assert all(obj["metadata"]["namespace"] == "${NAMESPACE:=default}" for obj in objects)


@pytest.mark.parametrize("name", ["aks-legacy", "aks-multi-tenancy"])
def test_flavors_show(run_cli: Any, name: str) -> None:
    result = run_cli(["flavors", "show", name])
    assert result.exit_code == 0, result.stderr
    assert "Source: built-in" in result.stdout
    objects = [line.strip() for line in result.stdout.split("\nObjects (")[1].splitlines()[1:]]
    assert objects[:3] == [
        "Cluster/${CLUSTER_NAME}",
        "AzureManagedControlPlane/${CLUSTER_NAME}",
        "AzureManagedCluster/${CLUSTER_NAME}",
    ]
    assert ("AzureClusterIdentity/${CLUSTER_IDENTITY_NAME}" in objects) == (
        name == "aks-multi-tenancy"
    )
