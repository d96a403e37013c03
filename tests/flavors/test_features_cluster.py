"""aks features on the ManagedCluster: Entra ID, local accounts, API server access, identities,
workload identity, upgrade channels, monitoring. Each renders the exact fields at the exact paths,
every object and embedded resource is schema-valid, and each invalid combination fails naming the
variables involved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import VariableError
from generator.findings import format_path
from generator.flavors.catalog import FlavorCatalog
from generator.schemastore.store import SchemaStore
from tests.flavors.flavor_testing import (
    AKS_REQUIRED,
    embedded,
    find,
    managed_cluster_spec,
    rule_warnings,
    schema_problems,
    shared_schema_store,
)
from tests.flavors.flavor_testing import render_aks as render
from tests.flavors.flavor_testing import render_failure as failure

GROUP_ID = "11111111-1111-1111-1111-111111111111"
TENANT_ID = "22222222-2222-2222-2222-222222222222"
RG_ID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/shared"
IDENTITY_ID = f"{RG_ID}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/aks-cp"
WORKSPACE_ID = f"{RG_ID}/providers/Microsoft.OperationalInsights/workspaces/logs"
ZONE_ID = f"{RG_ID}/providers/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io"
AAD = {"enableAzureRBAC": True, "adminGroupObjectIDs": [GROUP_ID], "tenantID": TENANT_ID}

# One setting per feature; FEATURES_ON turns them all on together.
FEATURES: dict[str, dict[str, Any]] = {
    "aad": {"AKS_AAD": AAD},
    "local-accounts": {"AKS_AAD": AAD, "AKS_DISABLE_LOCAL_ACCOUNTS": True},
    "private-cluster": {
        "AKS_PRIVATE_CLUSTER": True,
        "AKS_PRIVATE_DNS_ZONE": ZONE_ID,
        "AKS_PRIVATE_CLUSTER_PUBLIC_FQDN": True,
        "AKS_CONTROL_PLANE_IDENTITY_ID": IDENTITY_ID,
    },
    "authorized-ips": {"AKS_AUTHORIZED_IP_RANGES": ["203.0.113.0/24", "198.51.100.7"]},
    "control-plane-identity": {"AKS_CONTROL_PLANE_IDENTITY_ID": IDENTITY_ID},
    "oidc-issuer": {"AKS_OIDC_ISSUER": True},
    "workload-identity": {
        "AKS_WORKLOAD_IDENTITY": True,
        "AKS_WORKLOAD_IDENTITIES": [
            {"name": "app", "serviceAccount": "apps/app-sa"},
            {"name": "dns", "serviceAccount": "kube-system/external-dns"},
        ],
    },
    "upgrade-channels": {
        "AKS_UPGRADE_CHANNEL": "stable",
        "AKS_NODE_OS_UPGRADE_CHANNEL": "SecurityPatch",
    },
    "monitoring": {
        "AKS_MONITORING": {
            "logAnalyticsWorkspaceResourceID": WORKSPACE_ID,
            "prometheusMetrics": True,
        }
    },
    "sku": {"AKS_SKU_TIER": "Premium"},
}
FEATURES_ON = {name: value for settings in FEATURES.values() for name, value in settings.items()}


@pytest.fixture(scope="module")
def store(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> SchemaStore:
    return shared_schema_store(shared_dir, tmp_path_factory.mktemp("cache"))


# --- defaults and validity -----------------------------------------------------------------------


def test_defaults_render_only_capz_fields() -> None:
    """Every feature variable defaults to off: the ManagedCluster is CAPZ's plus sku."""
    objects = render()
    spec = managed_cluster_spec(objects)
    assert set(spec) == {
        "dnsPrefix",
        "identity",
        "location",
        "networkProfile",
        "owner",
        "servicePrincipalProfile",
        "sku",
    }
    assert spec["identity"] == {"type": "SystemAssigned"}
    assert spec["networkProfile"] == {"networkPlugin": "azure"}
    assert "clusterNetwork" not in find(objects, "Cluster")[0]["spec"]
    assert [r["kind"] for r in embedded(objects, "ResourceGroup")] == ["ResourceGroup"]
    (cluster_infra,) = find(objects, "AzureASOManagedCluster")
    assert [r["kind"] for r in cluster_infra["spec"]["resources"]] == ["ResourceGroup"]


@pytest.mark.parametrize("flavor", ["aks", "aks-maintenance"])
@pytest.mark.parametrize("settings", [*FEATURES.values(), FEATURES_ON], ids=[*FEATURES, "all"])
def test_every_object_and_embedded_resource_is_schema_valid(
    store: SchemaStore, flavor: str, settings: dict[str, Any]
) -> None:
    objects = render(flavor, **settings)
    assert schema_problems(store, objects) == []


def test_schema_check_is_not_vacuous(store: SchemaStore) -> None:
    objects = render(**FEATURES["aad"])
    managed_cluster_spec(objects)["aadProfile"]["bogus"] = True
    assert any("bogus" in problem for problem in schema_problems(store, objects))


def test_aks_maintenance_keeps_its_windows_next_to_the_features() -> None:
    objects = render("aks-maintenance", **FEATURES["workload-identity"])
    (control_plane,) = find(objects, "AzureASOManagedControlPlane")
    assert [r["kind"] for r in control_plane["spec"]["resources"]] == [
        "ManagedCluster",
        "FederatedIdentityCredential",
        "FederatedIdentityCredential",
        "MaintenanceConfiguration",
        "MaintenanceConfiguration",
        "MaintenanceConfiguration",
    ]


def test_new_variables_are_documented_and_exported_with_their_defaults() -> None:
    flavor = FlavorCatalog().get("aks")
    for name, spec in flavor.variables.items():
        if name.startswith("AKS_") and name != "AKS_SKU_TIER":
            assert spec.description, name
            assert name in flavor.notes, f"{name} is not in the notes"
            assert spec.export == "default", f"{name} would become a ${{}} placeholder"
            assert spec.has_default and not spec.required, name
    pool_fields = flavor.variables["NODE_POOLS"].schema["items"]["properties"]
    for field in ["maxPods", "osDiskSizeGB", "osDiskType", "osSKU", "spot", "subnet"]:
        assert field in flavor.notes and pool_fields[field]["description"], field


# --- features ------------------------------------------------------------------------------------


def test_aad() -> None:
    spec = managed_cluster_spec(render(**FEATURES["aad"]))
    assert spec["aadProfile"] == {
        "managed": True,
        "enableAzureRBAC": True,
        "adminGroupObjectIDs": [GROUP_ID],
        "tenantID": TENANT_ID,
    }
    assert "disableLocalAccounts" not in spec and "operatorSpec" not in spec


def test_aad_minimal_is_managed() -> None:
    spec = managed_cluster_spec(render(AKS_AAD={"managed": True}))
    assert spec["aadProfile"] == {"managed": True}


@pytest.mark.parametrize(
    "aad",
    [{"adminGroupObjectIDs": ["not-a-guid"]}, {"managed": False}, {"clientAppID": "x"}],
    ids=["bad-guid", "unmanaged", "legacy-aad"],
)
def test_aad_schema_rejects(aad: dict[str, Any]) -> None:
    with pytest.raises(VariableError) as caught:
        render(AKS_AAD=aad)
    assert any("AKS_AAD" in detail for detail in caught.value.details)


def test_disable_local_accounts_uses_the_user_kubeconfig() -> None:
    spec = managed_cluster_spec(render(**FEATURES["local-accounts"]))
    assert spec["disableLocalAccounts"] is True
    assert spec["operatorSpec"] == {
        "secrets": {"userCredentials": {"name": "my-cluster-user-kubeconfig", "key": "value"}}
    }
    assert spec["aadProfile"]["managed"] is True


def test_disable_local_accounts_needs_aad() -> None:
    text = failure(AKS_DISABLE_LOCAL_ACCOUNTS=True)
    assert text == (
        "1 problem with the values of flavor 'aks'\n"
        "AKS_DISABLE_LOCAL_ACCOUNTS: requires AKS-managed Entra ID (aadProfile.managed: true) "
        "(CAPZ-MC-LOCAL-ACCOUNTS) [provisioning: AKS refuses disabling local accounts without managed Entra ID]"
    )


def test_private_cluster() -> None:
    spec = managed_cluster_spec(render(**FEATURES["private-cluster"]))
    assert spec["apiServerAccessProfile"] == {
        "enablePrivateCluster": True,
        "privateDNSZone": ZONE_ID,
        "enablePrivateClusterPublicFQDN": True,
    }


@pytest.mark.parametrize("zone", ["system", "none"])
def test_private_cluster_with_builtin_zone_needs_no_identity(zone: str) -> None:
    spec = managed_cluster_spec(render(AKS_PRIVATE_CLUSTER=True, AKS_PRIVATE_DNS_ZONE=zone))
    assert spec["apiServerAccessProfile"] == {"enablePrivateCluster": True, "privateDNSZone": zone}
    assert spec["identity"] == {"type": "SystemAssigned"}


def test_authorized_ip_ranges() -> None:
    spec = managed_cluster_spec(render(**FEATURES["authorized-ips"]))
    assert spec["apiServerAccessProfile"] == {
        "authorizedIPRanges": ["203.0.113.0/24", "198.51.100.7"]
    }


def test_authorized_ip_ranges_must_be_addresses() -> None:
    with pytest.raises(VariableError):
        render(AKS_AUTHORIZED_IP_RANGES=["203.0.113.0/33"])


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param(
            {"AKS_PRIVATE_DNS_ZONE": ZONE_ID, "AKS_CONTROL_PLANE_IDENTITY_ID": IDENTITY_ID},
            [
                "AKS_PRIVATE_DNS_ZONE: a custom private DNS zone requires enablePrivateCluster: "
                "true (CAPZ-MC-APISERVER)"
            ],
            id="custom-zone-without-private-cluster",
        ),
        pytest.param(
            {"AKS_PRIVATE_CLUSTER": True, "AKS_PRIVATE_DNS_ZONE": ZONE_ID},
            [
                "AKS_PRIVATE_DNS_ZONE: a custom private DNS zone needs a user-assigned control-plane "
                "identity",
                "the identity is SystemAssigned (CAPZ-MC-PRIVATE-DNS-IDENTITY)",
            ],
            id="custom-zone-without-identity",
        ),
        pytest.param(
            {
                "AKS_PRIVATE_CLUSTER": True,
                "AKS_PRIVATE_DNS_ZONE": ZONE_ID.replace("eastus", "westeurope"),
                "AKS_CONTROL_PLANE_IDENTITY_ID": IDENTITY_ID,
            },
            [
                "AKS_PRIVATE_DNS_ZONE: '/subscriptions/",
                "privateDnsZones/privatelink.westeurope.azmk8s.io' must be system, none or the ID "
                "of a private DNS zone named [<subzone>.]private|privatelink.eastus.azmk8s.io "
                "(CAPZ-MC-APISERVER)",
            ],
            id="zone-of-another-region",
        ),
    ],
)
def test_api_server_combinations_fail(settings: dict[str, Any], expected: list[str]) -> None:
    text = failure(**settings)
    for fragment in expected:
        assert fragment in text


@pytest.mark.parametrize(
    ("settings", "path"),
    [
        pytest.param(
            {"AKS_PRIVATE_DNS_ZONE": "none"},
            "spec.resources[0].spec.apiServerAccessProfile.privateDNSZone",
            id="zone-without-private-cluster",
        ),
        pytest.param(
            {"AKS_PRIVATE_CLUSTER_PUBLIC_FQDN": True},
            "spec.resources[0].spec.apiServerAccessProfile.enablePrivateClusterPublicFQDN",
            id="fqdn-without-private-cluster",
        ),
    ],
)
def test_settings_a_public_cluster_ignores_are_warnings(
    settings: dict[str, Any], path: str
) -> None:
    """The validator's rule (CAPZ-MC-PRIVATE-DNS) warns: AKS ignores these on a public cluster.
    A warning does not stop the render (the flavor's Jinja check used to fail it)."""
    warnings = rule_warnings("aks", {**AKS_REQUIRED, **settings})
    assert [(f.rule, format_path(f.path)) for f in warnings] == [("CAPZ-MC-PRIVATE-DNS", path)]
    # AKS's default zone written on a public cluster changes nothing, so nothing is reported.
    assert rule_warnings("aks", {**AKS_REQUIRED, "AKS_PRIVATE_DNS_ZONE": "system"}) == []


def test_custom_zone_below_a_subzone_is_accepted() -> None:
    zone = ZONE_ID.replace("privatelink.eastus", "team1.privatelink.eastus")
    spec = managed_cluster_spec(
        render(
            AKS_PRIVATE_CLUSTER=True,
            AKS_PRIVATE_DNS_ZONE=zone,
            AKS_CONTROL_PLANE_IDENTITY_ID=IDENTITY_ID,
        )
    )
    assert spec["apiServerAccessProfile"]["privateDNSZone"] == zone


def test_control_plane_identity() -> None:
    spec = managed_cluster_spec(render(**FEATURES["control-plane-identity"]))
    assert spec["identity"] == {
        "type": "UserAssigned",
        "userAssignedIdentities": [{"reference": {"armId": IDENTITY_ID}}],
    }
    assert spec["servicePrincipalProfile"] == {"clientId": "msi"}


def test_oidc_issuer_alone() -> None:
    spec = managed_cluster_spec(render(**FEATURES["oidc-issuer"]))
    assert spec["oidcIssuerProfile"] == {"enabled": True}
    assert spec["operatorSpec"] == {
        "configMaps": {"oidcIssuerProfile": {"name": "my-cluster-oidc", "key": "issuer"}}
    }
    assert "securityProfile" not in spec


def test_workload_identity() -> None:
    objects = render(**FEATURES["workload-identity"])
    spec = managed_cluster_spec(objects)
    assert spec["oidcIssuerProfile"] == {"enabled": True}
    assert spec["securityProfile"] == {"workloadIdentity": {"enabled": True}}
    assert spec["operatorSpec"]["configMaps"] == {
        "oidcIssuerProfile": {"name": "my-cluster-oidc", "key": "issuer"}
    }
    (cluster_infra,) = find(objects, "AzureASOManagedCluster")
    identities = [r for r in cluster_infra["spec"]["resources"] if r["kind"] != "ResourceGroup"]
    assert identities[0] == {
        "apiVersion": "managedidentity.azure.com/v1api20230131",
        "kind": "UserAssignedIdentity",
        "metadata": {
            "annotations": {"serviceoperator.azure.com/credential-from": "aso-credentials"},
            "name": "my-cluster-app",
        },
        "spec": {
            "azureName": "app",
            "location": "eastus",
            "operatorSpec": {
                "configMaps": {
                    "clientId": {"name": "my-cluster-app", "key": "clientId"},
                    "principalId": {"name": "my-cluster-app", "key": "principalId"},
                }
            },
            "owner": {"name": "my-cluster"},
        },
    }
    assert [i["metadata"]["name"] for i in identities] == ["my-cluster-app", "my-cluster-dns"]
    credentials = embedded(
        find(objects, "AzureASOManagedControlPlane"), "FederatedIdentityCredential"
    )
    assert credentials[1] == {
        "apiVersion": "managedidentity.azure.com/v1api20230131",
        "kind": "FederatedIdentityCredential",
        "metadata": {
            "annotations": {"serviceoperator.azure.com/credential-from": "aso-credentials"},
            "name": "my-cluster-dns",
        },
        "spec": {
            "audiences": ["api://AzureADTokenExchange"],
            "issuerFromConfig": {"name": "my-cluster-oidc", "key": "issuer"},
            "owner": {"name": "my-cluster-dns"},
            "subject": "system:serviceaccount:kube-system:external-dns",
        },
    }


def test_workload_identity_tags_follow_azure_tags() -> None:
    objects = render(**FEATURES["workload-identity"], AZURE_TAGS={"team": "platform"})
    for identity in embedded(objects, "UserAssignedIdentity"):
        assert identity["spec"]["tags"] == {"team": "platform"}


def test_workload_identity_alone_renders_no_identities() -> None:
    objects = render(AKS_WORKLOAD_IDENTITY=True)
    assert embedded(objects, "UserAssignedIdentity") == []
    assert embedded(objects, "FederatedIdentityCredential") == []


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param(
            {"AKS_WORKLOAD_IDENTITIES": [{"name": "app", "serviceAccount": "apps/app"}]},
            "AKS_WORKLOAD_IDENTITIES[0]: trusts the OIDC issuer of ManagedCluster/my-cluster, which "
            "does not enable workload identity (securityProfile.workloadIdentity.enabled: true), so "
            "no pod can use the identity (CAPZ-MC-FEDERATION)",
            id="identities-without-workload-identity",
        ),
        pytest.param(
            {
                "AKS_OIDC_ISSUER": True,
                "AKS_WORKLOAD_IDENTITIES": [{"name": "app", "serviceAccount": "apps/app"}],
            },
            "AKS_WORKLOAD_IDENTITIES[0]: trusts the OIDC issuer of ManagedCluster/my-cluster, which "
            "does not enable workload identity",
            id="identities-with-only-the-issuer",
        ),
        pytest.param(
            {
                "AKS_WORKLOAD_IDENTITY": True,
                "AKS_WORKLOAD_IDENTITIES": [
                    {"name": "app", "serviceAccount": "apps/app"},
                    {"name": "app", "serviceAccount": "apps/other"},
                ],
            },
            "AKS_WORKLOAD_IDENTITIES[1].name: FederatedIdentityCredential 'my-cluster-app' is "
            "already defined",
            id="duplicate-identity",
        ),
    ],
)
def test_workload_identity_combinations_fail(settings: dict[str, Any], expected: str) -> None:
    assert expected in failure(**settings)


def test_workload_identity_service_account_needs_a_namespace() -> None:
    with pytest.raises(VariableError):
        render(
            AKS_WORKLOAD_IDENTITY=True,
            AKS_WORKLOAD_IDENTITIES=[{"name": "app", "serviceAccount": "app-sa"}],
        )


def test_upgrade_channels() -> None:
    spec = managed_cluster_spec(render(**FEATURES["upgrade-channels"]))
    assert spec["autoUpgradeProfile"] == {
        "upgradeChannel": "stable",
        "nodeOSUpgradeChannel": "SecurityPatch",
    }


def test_one_upgrade_channel_alone() -> None:
    spec = managed_cluster_spec(render(AKS_NODE_OS_UPGRADE_CHANNEL="NodeImage"))
    assert spec["autoUpgradeProfile"] == {"nodeOSUpgradeChannel": "NodeImage"}


def test_monitoring() -> None:
    spec = managed_cluster_spec(render(**FEATURES["monitoring"]))
    assert spec["addonProfiles"] == {
        "omsagent": {"enabled": True, "config": {"logAnalyticsWorkspaceResourceID": WORKSPACE_ID}}
    }
    assert spec["azureMonitorProfile"] == {"metrics": {"enabled": True}}


def test_monitoring_metrics_only() -> None:
    spec = managed_cluster_spec(render(AKS_MONITORING={"prometheusMetrics": True}))
    assert "addonProfiles" not in spec
    assert spec["azureMonitorProfile"] == {"metrics": {"enabled": True}}


def test_monitoring_needs_a_workspace_id() -> None:
    with pytest.raises(VariableError):
        render(AKS_MONITORING={"logAnalyticsWorkspaceResourceID": "logs"})


def test_sku_tier() -> None:
    assert managed_cluster_spec(render(**FEATURES["sku"]))["sku"] == {
        "name": "Base",
        "tier": "Premium",
    }
