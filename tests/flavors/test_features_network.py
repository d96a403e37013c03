"""aks networking features: plugin/mode/policy/dataplane, CIDRs on the Cluster, DNS service
address, outbound type and load balancer profile, a created VNet or an existing subnet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import VariableError
from generator.schemastore.store import SchemaStore
from tests.flavors.flavor_testing import (
    agent_pool_spec,
    embedded,
    find,
    managed_cluster_spec,
    schema_problems,
    shared_schema_store,
)
from tests.flavors.flavor_testing import render_aks as render
from tests.flavors.flavor_testing import render_failure as failure

RG_ID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net"
SUBNET_ID = f"{RG_ID}/providers/Microsoft.Network/virtualNetworks/hub/subnets/aks"
IP_ID = f"{RG_ID}/providers/Microsoft.Network/publicIPAddresses/egress"
PREFIX_ID = f"{RG_ID}/providers/Microsoft.Network/publicIPPrefixes/egress"
VNET = {
    "name": "vnet",
    "addressPrefixes": ["10.10.0.0/16"],
    "subnets": [
        {"name": "nodes", "addressPrefix": "10.10.0.0/20"},
        {"name": "batch", "addressPrefix": "10.10.16.0/20"},
    ],
}
OVERLAY_CILIUM = {
    "AKS_NETWORK_PLUGIN_MODE": "overlay",
    "AKS_NETWORK_POLICY": "cilium",
    "AKS_NETWORK_DATAPLANE": "cilium",
    "AKS_POD_CIDR": "192.168.0.0/16",
    "AKS_SERVICE_CIDR": "172.16.0.0/16",
    "AKS_DNS_SERVICE_IP": "172.16.0.10",
}

FEATURES: dict[str, dict[str, Any]] = {
    "overlay-cilium": OVERLAY_CILIUM,
    "kubenet-calico": {
        "AKS_NETWORK_PLUGIN": "kubenet",
        "AKS_NETWORK_POLICY": "calico",
        "AKS_POD_CIDR": "10.244.0.0/16",
    },
    "byo-cni": {"AKS_NETWORK_PLUGIN": "none"},
    "load-balancer": {
        "AKS_OUTBOUND_TYPE": "loadBalancer",
        "AKS_LOAD_BALANCER_PROFILE": {
            "managedOutboundIPs": 2,
            "idleTimeoutInMinutes": 30,
            "allocatedOutboundPorts": 1024,
        },
    },
    "outbound-ips": {"AKS_LOAD_BALANCER_PROFILE": {"outboundIPs": [IP_ID]}},
    "outbound-prefixes": {"AKS_LOAD_BALANCER_PROFILE": {"outboundIPPrefixes": [PREFIX_ID]}},
    "nat-gateway": {"AKS_OUTBOUND_TYPE": "managedNATGateway"},
    "vnet": {
        "AKS_VNET": VNET,
        "AKS_SERVICE_CIDR": "172.16.0.0/16",
        "NODE_POOLS": [
            {"name": "system", "mode": "System"},
            {"name": "batch", "mode": "User", "subnet": "batch"},
        ],
    },
    "subnet-id": {"AKS_SUBNET_ID": SUBNET_ID, "AKS_OUTBOUND_TYPE": "userDefinedRouting"},
}


@pytest.fixture(scope="module")
def store(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> SchemaStore:
    return shared_schema_store(shared_dir, tmp_path_factory.mktemp("cache"))


@pytest.mark.parametrize("flavor", ["aks", "aks-maintenance"])
@pytest.mark.parametrize("settings", FEATURES.values(), ids=FEATURES.keys())
def test_every_object_and_embedded_resource_is_schema_valid(
    store: SchemaStore, flavor: str, settings: dict[str, Any]
) -> None:
    assert schema_problems(store, render(flavor, **settings)) == []


@pytest.mark.parametrize("settings", FEATURES.values(), ids=FEATURES.keys())
def test_never_sets_the_cidrs_capz_copies(settings: dict[str, Any]) -> None:
    network = managed_cluster_spec(render(**settings))["networkProfile"]
    assert not {"podCidr", "serviceCidr", "podCidrs", "serviceCidrs"} & set(network)


def test_overlay_with_cilium() -> None:
    objects = render(**OVERLAY_CILIUM)
    assert managed_cluster_spec(objects)["networkProfile"] == {
        "networkPlugin": "azure",
        "networkPluginMode": "overlay",
        "networkPolicy": "cilium",
        "networkDataplane": "cilium",
        "dnsServiceIP": "172.16.0.10",
    }
    (cluster,) = find(objects, "Cluster")
    assert cluster["spec"]["clusterNetwork"] == {
        "pods": {"cidrBlocks": ["192.168.0.0/16"]},
        "services": {"cidrBlocks": ["172.16.0.0/16"]},
    }


def test_kubenet_with_calico() -> None:
    objects = render(**FEATURES["kubenet-calico"])
    assert managed_cluster_spec(objects)["networkProfile"] == {
        "networkPlugin": "kubenet",
        "networkPolicy": "calico",
    }
    assert find(objects, "Cluster")[0]["spec"]["clusterNetwork"] == {
        "pods": {"cidrBlocks": ["10.244.0.0/16"]}
    }


def test_service_cidr_alone() -> None:
    cluster = find(render(AKS_SERVICE_CIDR="172.16.0.0/16"), "Cluster")[0]
    assert cluster["spec"]["clusterNetwork"] == {"services": {"cidrBlocks": ["172.16.0.0/16"]}}


def test_load_balancer_profile() -> None:
    network = managed_cluster_spec(render(**FEATURES["load-balancer"]))["networkProfile"]
    assert network["outboundType"] == "loadBalancer"
    assert network["loadBalancerProfile"] == {
        "managedOutboundIPs": {"count": 2},
        "idleTimeoutInMinutes": 30,
        "allocatedOutboundPorts": 1024,
    }


def test_load_balancer_keeps_zero_ports() -> None:
    profile = {"managedOutboundIPs": 1, "allocatedOutboundPorts": 0}
    network = managed_cluster_spec(render(AKS_LOAD_BALANCER_PROFILE=profile))["networkProfile"]
    assert network["loadBalancerProfile"] == {
        "managedOutboundIPs": {"count": 1},
        "allocatedOutboundPorts": 0,
    }


def test_outbound_ips_and_prefixes_are_references() -> None:
    ips = managed_cluster_spec(render(**FEATURES["outbound-ips"]))["networkProfile"]
    assert ips["loadBalancerProfile"] == {
        "outboundIPs": {"publicIPs": [{"reference": {"armId": IP_ID}}]}
    }
    prefixes = managed_cluster_spec(render(**FEATURES["outbound-prefixes"]))["networkProfile"]
    assert prefixes["loadBalancerProfile"] == {
        "outboundIPPrefixes": {"publicIPPrefixes": [{"reference": {"armId": PREFIX_ID}}]}
    }


@pytest.mark.parametrize(
    "profile",
    [
        {"managedOutboundIPs": 0},
        {"managedOutboundIPs": 101},
        {"idleTimeoutInMinutes": 3},
        {"idleTimeoutInMinutes": 121},
        {"allocatedOutboundPorts": 64001},
        {"outboundIPs": ["egress"]},
    ],
    ids=["ips-0", "ips-101", "idle-3", "idle-121", "ports-64001", "ip-not-an-id"],
)
def test_load_balancer_ranges(profile: dict[str, Any]) -> None:
    with pytest.raises(VariableError) as caught:
        render(AKS_LOAD_BALANCER_PROFILE=profile)
    assert any("AKS_LOAD_BALANCER_PROFILE" in detail for detail in caught.value.details)


def test_created_vnet_and_subnets() -> None:
    objects = render(**FEATURES["vnet"])
    (cluster_infra,) = find(objects, "AzureASOManagedCluster")
    resources = cluster_infra["spec"]["resources"]
    assert [(r["kind"], r["metadata"]["name"]) for r in resources] == [
        ("ResourceGroup", "my-cluster"),
        ("VirtualNetwork", "my-cluster-vnet"),
        ("VirtualNetworksSubnet", "my-cluster-vnet-nodes"),
        ("VirtualNetworksSubnet", "my-cluster-vnet-batch"),
    ]
    annotation = {"serviceoperator.azure.com/credential-from": "aso-credentials"}
    assert resources[1] == {
        "apiVersion": "network.azure.com/v1api20240301",
        "kind": "VirtualNetwork",
        "metadata": {"annotations": annotation, "name": "my-cluster-vnet"},
        "spec": {
            "addressSpace": {"addressPrefixes": ["10.10.0.0/16"]},
            "azureName": "vnet",
            "location": "eastus",
            "owner": {"name": "my-cluster"},
        },
    }
    assert resources[3] == {
        "apiVersion": "network.azure.com/v1api20240301",
        "kind": "VirtualNetworksSubnet",
        "metadata": {"annotations": annotation, "name": "my-cluster-vnet-batch"},
        "spec": {
            "addressPrefix": "10.10.16.0/20",
            "azureName": "batch",
            "owner": {"name": "my-cluster-vnet"},
        },
    }


def test_pools_reference_their_subnet_or_the_first() -> None:
    objects = render(**FEATURES["vnet"])
    reference = {"group": "network.azure.com", "kind": "VirtualNetworksSubnet"}
    assert agent_pool_spec(objects, "system")["vnetSubnetReference"] == {
        **reference,
        "name": "my-cluster-vnet-nodes",
    }
    assert agent_pool_spec(objects, "batch")["vnetSubnetReference"] == {
        **reference,
        "name": "my-cluster-vnet-batch",
    }


def test_existing_subnet_by_id() -> None:
    objects = render(**FEATURES["subnet-id"])
    for pool in embedded(objects, "ManagedClustersAgentPool"):
        assert pool["spec"]["vnetSubnetReference"] == {"armId": SUBNET_ID}
    assert embedded(objects, "VirtualNetwork") == []
    assert managed_cluster_spec(objects)["networkProfile"]["outboundType"] == "userDefinedRouting"


def test_without_a_network_pools_have_no_subnet() -> None:
    for pool in embedded(render(), "ManagedClustersAgentPool"):
        assert "vnetSubnetReference" not in pool["spec"]


# Each invalid combination fails naming the variable behind the field a validator rule rejects,
# with the rule's ID: the render-time checks are the validator's rules (generator/flavors/checks.py).
@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param(
            {"AKS_NETWORK_PLUGIN": "kubenet", "AKS_NETWORK_PLUGIN_MODE": "overlay"},
            [
                "AKS_NETWORK_PLUGIN_MODE: overlay requires networkPlugin: azure, not kubenet "
                "(CAPZ-MC-NETWORK-PLUGIN)"
            ],
            id="overlay-kubenet",
        ),
        pytest.param(
            {"AKS_NETWORK_DATAPLANE": "cilium", "AKS_NETWORK_POLICY": "cilium"},
            [
                "AKS_NETWORK_DATAPLANE: cilium requires networkPluginMode: overlay and "
                "networkPolicy: cilium (CAPZ-MC-NETWORK-PLUGIN)"
            ],
            id="cilium-without-overlay",
        ),
        pytest.param(
            {"AKS_NETWORK_PLUGIN_MODE": "overlay", "AKS_NETWORK_DATAPLANE": "cilium"},
            [
                "AKS_NETWORK_DATAPLANE: cilium requires networkPluginMode: overlay and "
                "networkPolicy: cilium (CAPZ-MC-NETWORK-PLUGIN)"
            ],
            id="cilium-dataplane-without-policy",
        ),
        pytest.param(
            {"AKS_NETWORK_PLUGIN": "kubenet", "AKS_NETWORK_POLICY": "azure"},
            [
                "AKS_NETWORK_POLICY: azure (Azure Network Policy Manager) requires networkPlugin: "
                "azure, not kubenet (CAPZ-MC-NETWORK-PLUGIN)"
            ],
            id="azure-policy-kubenet",
        ),
        pytest.param(
            {"AKS_POD_CIDR": "192.168.0.0/16"},
            [
                "AKS_POD_CIDR: 192.168.0.0/16 is not used: Azure CNI without overlay gives pods "
                "addresses from the node subnet",
                "(CAPZ-NET-POD-CIDR)",
            ],
            id="pod-cidr-with-azure-cni",
        ),
        pytest.param(
            {
                "AKS_NETWORK_PLUGIN_MODE": "overlay",
                "AKS_POD_CIDR": "10.0.0.0/8",
                "AKS_SERVICE_CIDR": "10.1.0.0/16",
            },
            [
                "AKS_POD_CIDR: pod CIDR 10.0.0.0/8 (Cluster/my-cluster "
                "spec.clusterNetwork.pods.cidrBlocks[0]) overlaps service CIDR 10.1.0.0/16",
                "pod and service addresses must be distinct (CAPZ-NET-CIDR-OVERLAP)",
            ],
            id="pod-service-overlap",
        ),
        pytest.param(
            {"AKS_DNS_SERVICE_IP": "10.0.0.10"},
            [
                "AKS_DNS_SERVICE_IP: 10.0.0.10 must lie inside the service CIDR, but Cluster "
                "'my-cluster' sets none",
                "(CAPZ-MC-DNSSERVICEIP)",
            ],
            id="dns-ip-without-service-cidr",
        ),
        pytest.param(
            {"AKS_DNS_SERVICE_IP": "172.17.0.10", "AKS_SERVICE_CIDR": "172.16.0.0/16"},
            [
                "AKS_DNS_SERVICE_IP: 172.17.0.10 is outside the service CIDR 172.16.0.0/16 "
                "(CAPZ-MC-DNSSERVICEIP)"
            ],
            id="dns-ip-outside",
        ),
        pytest.param(
            {"AKS_LOAD_BALANCER_PROFILE": {"managedOutboundIPs": 1, "outboundIPs": [IP_ID]}},
            [
                "AKS_LOAD_BALANCER_PROFILE.outboundIPs: only one of managedOutboundIPs, outboundIPs, "
                "outboundIPPrefixes may be set (found managedOutboundIPs, outboundIPs) "
                "(CAPZ-MC-LOADBALANCER)"
            ],
            id="two-outbound-sources",
        ),
        pytest.param(
            {
                "AKS_OUTBOUND_TYPE": "managedNATGateway",
                "AKS_LOAD_BALANCER_PROFILE": {"idleTimeoutInMinutes": 10},
            },
            [
                "AKS_LOAD_BALANCER_PROFILE: must not be set with outboundType managedNATGateway",
                "(CAPZ-MC-OUTBOUND)",
            ],
            id="profile-with-nat-gateway",
        ),
        pytest.param(
            {"AKS_OUTBOUND_TYPE": "userDefinedRouting"},
            [
                "AKS_SUBNET_ID: is required: outboundType userDefinedRouting of "
                "ManagedCluster/my-cluster needs every pool on your own subnet (one with its route "
                "table) (CAPZ-MC-OUTBOUND)"
            ],
            id="udr-without-subnet",
        ),
        pytest.param(
            {"AKS_OUTBOUND_TYPE": "userAssignedNATGateway", "AKS_VNET": VNET},
            [
                "AKS_VNET: names VirtualNetworksSubnet/my-cluster-vnet-nodes, which has no "
                "natGateway: outboundType userAssignedNATGateway",
                "(CAPZ-MC-OUTBOUND)",
            ],
            id="nat-gateway-with-created-vnet",
        ),
        pytest.param(
            {"AKS_VNET": VNET, "AKS_SUBNET_ID": SUBNET_ID, "AKS_SERVICE_CIDR": "172.16.0.0/16"},
            [
                f"AKS_SUBNET_ID: {SUBNET_ID} is set together with name 'my-cluster-vnet-nodes'",
                "(ASO-REFERENCE)",
            ],
            id="vnet-and-subnet-id",
        ),
        pytest.param(
            {
                "AKS_SERVICE_CIDR": "172.16.0.0/16",
                "AKS_VNET": {
                    "name": "vnet",
                    "addressPrefixes": ["10.10.0.0/16"],
                    "subnets": [
                        {"name": "a", "addressPrefix": "10.10.0.0/20"},
                        {"name": "a", "addressPrefix": "10.10.8.0/24"},
                        {"name": "c", "addressPrefix": "10.20.0.0/24"},
                    ],
                },
            },
            [
                # Two definitions of one subnet: one duplicate finding, not an overlap with itself.
                "AKS_VNET.subnets[1].name: VirtualNetworksSubnet 'my-cluster-vnet-a' is already "
                "defined",
                "AKS_VNET.subnets[2].addressPrefix: 10.20.0.0/24 is not inside the address space of "
                "VirtualNetwork/my-cluster-vnet (10.10.0.0/16) (CAPZ-NET-CIDR-OVERLAP)",
            ],
            id="bad-subnets",
        ),
        pytest.param(
            {"AKS_VNET": {**VNET, "addressPrefixes": ["10.0.0.0/8"]}},
            [
                "AKS_SERVICE_CIDR: AKS's default service CIDR 10.0.0.0/16 (Cluster/my-cluster sets "
                "none at spec.clusterNetwork.services) overlaps address prefix 10.0.0.0/8",
                "(CAPZ-NET-CIDR-OVERLAP)",
            ],
            id="default-service-cidr-in-vnet",
        ),
        pytest.param(
            {
                "AKS_VNET": VNET,
                "AKS_SERVICE_CIDR": "172.16.0.0/16",
                "AKS_NETWORK_PLUGIN_MODE": "overlay",
                "AKS_POD_CIDR": "10.10.0.0/16",
            },
            [
                "AKS_POD_CIDR: pod CIDR 10.10.0.0/16 (Cluster/my-cluster "
                "spec.clusterNetwork.pods.cidrBlocks[0]) overlaps address prefix 10.10.0.0/16 "
                "(VirtualNetwork/my-cluster-vnet"
            ],
            id="pod-cidr-in-vnet",
        ),
    ],
)
def test_network_combinations_fail(settings: dict[str, Any], expected: list[str]) -> None:
    text = failure(**settings)
    assert text.startswith(("1 problem with", f"{len(text.splitlines()) - 1} problems with"))
    for fragment in expected:
        assert fragment in text


def test_cilium_policy_without_an_explicit_dataplane_is_accepted() -> None:
    """The validator follows CAPZ's webhook (K16): policy cilium needs dataplane cilium only when
    a dataplane is set. (The flavor's own Jinja check used to demand one.)"""
    network = managed_cluster_spec(
        render(AKS_NETWORK_PLUGIN_MODE="overlay", AKS_NETWORK_POLICY="cilium")
    )["networkProfile"]
    assert network["networkPolicy"] == "cilium" and "networkDataplane" not in network


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AKS_POD_CIDR", "10.0.0.0"),
        ("AKS_SERVICE_CIDR", "10.0.0.0/33"),
        ("AKS_DNS_SERVICE_IP", "10.0.0.256"),
        ("AKS_SUBNET_ID", "/subscriptions/x/resourceGroups/y"),
        ("AKS_NETWORK_POLICY", "weave"),
        ("AKS_OUTBOUND_TYPE", "none"),
        ("AKS_VNET", {"name": "vnet"}),
    ],
)
def test_network_variables_are_typed(name: str, value: Any) -> None:
    with pytest.raises(VariableError) as caught:
        render(**{name: value})
    assert any(name in detail for detail in caught.value.details)
