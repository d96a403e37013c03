"""Golden outputs of every flavor through the whole pipeline (validation included).

`make snapshots` rewrites them after an intended change; any other change fails `make test`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.clusterctl.substitution import Inputs
from generator.generate.pipeline import generate_cluster
from generator.generate.request import ClusterRequest

GOLDEN = Path(__file__).parent / "golden"
BASE = {"AZURE_LOCATION": "westeurope"}
GUID = "00000000-0000-0000-0000-0000000000aa"
LEGACY = {
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
}

THREE_POOLS = [
    {"name": "system", "mode": "System", "replicas": 3, "availabilityZones": ["1", "2", "3"]},
    {"name": "user", "mode": "User", "vmSize": "Standard_D4s_v5", "labels": {"tier": "app"}},
    {"name": "batch", "mode": "User", "taints": ["dedicated=batch:NoSchedule"], "replicas": 0},
]
AUTOSCALING = [
    {"name": "pool0", "mode": "System"},
    {"name": "pool1", "mode": "User", "replicas": 2, "autoscaling": {"minCount": 1, "maxCount": 5}},
]

CASES: dict[str, dict[str, Any]] = {
    "aks": {"flavor": "aks"},
    "aks-maintenance": {"flavor": "aks-maintenance"},
    "aks-clusterclass": {"flavor": "aks-clusterclass", "vars": {"CLUSTER_CLASS_NAME": "aks-class"}},
    # The ClusterClass holds the location: aks-topology has no AZURE_LOCATION, and giving it one
    # is an unknown variable.
    "aks-topology": {
        "flavor": "aks-topology",
        "base": {},
        "vars": {"CLUSTER_CLASS_NAME": "aks-class"},
    },
    "aks-three-pools": {"flavor": "aks", "values": {"NODE_POOLS": THREE_POOLS}},
    "aks-autoscaling": {"flavor": "aks", "values": {"NODE_POOLS": AUTOSCALING}},
    "aks-namespace": {"flavor": "aks", "namespace": "team-a"},
    # One golden per AKS feature (issue: "snapshot per feature; each feature's output validates").
    "feature-entra-id": {
        "flavor": "aks",
        "values": {
            "AKS_AAD": {"enableAzureRBAC": True, "adminGroupObjectIDs": [GUID]},
            "AKS_DISABLE_LOCAL_ACCOUNTS": True,
        },
    },
    "feature-private-cluster": {
        "flavor": "aks",
        "values": {"AKS_PRIVATE_CLUSTER": True, "AKS_PRIVATE_DNS_ZONE": "none"},
    },
    "feature-authorized-ips": {
        "flavor": "aks",
        "values": {"AKS_AUTHORIZED_IP_RANGES": ["203.0.113.0/24"]},
    },
    "feature-network-overlay": {
        "flavor": "aks",
        "values": {
            "AKS_NETWORK_PLUGIN_MODE": "overlay",
            "AKS_NETWORK_POLICY": "cilium",
            "AKS_NETWORK_DATAPLANE": "cilium",
            "AKS_POD_CIDR": "192.168.0.0/16",
            "AKS_SERVICE_CIDR": "172.16.0.0/16",
            "AKS_DNS_SERVICE_IP": "172.16.0.10",
            "AKS_LOAD_BALANCER_PROFILE": {"managedOutboundIPs": 2, "idleTimeoutInMinutes": 10},
        },
    },
    "feature-byo-vnet": {
        "flavor": "aks",
        "values": {
            "AKS_VNET": {
                "name": "vnet",
                "addressPrefixes": ["10.10.0.0/16"],
                "subnets": [{"name": "nodes", "addressPrefix": "10.10.0.0/20"}],
            },
        },
    },
    "feature-existing-subnet": {
        "flavor": "aks",
        "values": {
            "AKS_SUBNET_ID": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net"
            "/providers/Microsoft.Network/virtualNetworks/hub/subnets/aks",
        },
    },
    "feature-workload-identity": {
        "flavor": "aks",
        "values": {
            "AKS_WORKLOAD_IDENTITY": True,
            "AKS_WORKLOAD_IDENTITIES": [{"name": "app", "serviceAccount": "apps/app"}],
        },
    },
    "feature-node-pools": {
        "flavor": "aks",
        "values": {
            "NODE_POOLS": [
                {
                    "name": "system",
                    "mode": "System",
                    "maxPods": 50,
                    "osDiskSizeGB": 64,
                    "osDiskType": "Ephemeral",
                },
                {
                    "name": "spot",
                    "mode": "User",
                    "spot": {"maxPrice": -1, "evictionPolicy": "Delete"},
                },
                {"name": "win", "mode": "User", "osType": "Windows", "osSKU": "Windows2022"},
            ]
        },
    },
    "feature-upgrades": {
        "flavor": "aks-maintenance",
        "values": {"AKS_UPGRADE_CHANNEL": "patch", "AKS_NODE_OS_UPGRADE_CHANNEL": "SecurityPatch"},
    },
    "feature-monitoring-sku": {
        "flavor": "aks",
        "values": {
            "AKS_SKU_TIER": "Standard",
            "AKS_MONITORING": {
                "logAnalyticsWorkspaceResourceID": "/subscriptions/00000000-0000-0000-0000-000000000001"
                "/resourceGroups/ops/providers/Microsoft.OperationalInsights/workspaces/logs",
                "prometheusMetrics": True,
            },
        },
    },
    "aks-automatic": {"flavor": "aks-automatic"},
    "aks-automatic-preview": {
        "flavor": "aks-automatic",
        "values": {"AKS_ASO_API_VERSION": "v20251002preview", "AKS_OUTBOUND_TYPE": "loadBalancer"},
    },
    "feature-aso-api-version": {
        "flavor": "aks",
        "values": {"AKS_ASO_API_VERSION": "v1api20250801"},
    },
    "feature-node-auto-provisioning": {
        "flavor": "aks",
        "values": {
            "AKS_ASO_API_VERSION": "v1api20250801",
            "AKS_NODE_AUTO_PROVISIONING": "Auto",
            "AKS_NETWORK_PLUGIN_MODE": "overlay",
            "AKS_NETWORK_DATAPLANE": "cilium",
            "AKS_NETWORK_POLICY": "cilium",
        },
    },
    "feature-fleet-member": {
        "flavor": "aks-maintenance",
        "values": {
            "AKS_FLEET_MEMBER": {
                "fleetArmId": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups"
                "/fleets/providers/Microsoft.ContainerService/fleets/hub",
                "group": "canary",
            },
        },
    },
    "aks-legacy": {"flavor": "aks-legacy", "vars": LEGACY},
    "aks-multi-tenancy": {
        "flavor": "aks-multi-tenancy",
        "vars": {
            **LEGACY,
            "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
            "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
        },
    },
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_flavor_output_matches_golden(case: str, snapshot: Any, isolated_cache: Path) -> None:
    """Validated as a user's first run validates it: the built-in bundle and nothing else, and
    every object (embedded ones included) has a schema there."""
    spec = CASES[case]
    request = ClusterRequest(
        name="golden",
        flavor=spec["flavor"],
        kubernetes_version="v1.31.1",
        target_namespace=spec.get("namespace"),
        variables={**spec.get("base", BASE), **spec.get("vars", {})},
    )
    result = generate_cluster(request, Inputs(environ={}, values_file=spec.get("values", {})))
    assert not [f for f in result.findings if f.is_error or f.rule == "no-schema"]
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.text, f"{case}.yaml")


def test_output_is_deterministic(shared_schema_dirs: list[Path]) -> None:
    request = ClusterRequest(
        name="demo", variables=BASE, kubernetes_version="v1.31.1", schema_dirs=shared_schema_dirs
    )
    first = generate_cluster(request, Inputs(environ={})).text
    assert generate_cluster(request, Inputs(environ={})).text == first
