"""The networking rules (CAPZ-NET-CIDR-OVERLAP, CAPZ-POOL-SUBNET-REF, CAPZ-MC-OUTBOUND) and their
neighbours CAPZ-POOL-SPOT-SYSTEM and CAPZ-MC-PRIVATE-DNS: what the example folders do not show well
(plugin modes, dual stack, namespaces, fragments, Go templates, wrong types) and that the aks
flavor's own network features never trip them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.findings import Finding, format_path
from tests.flavors import test_features_cluster as cluster_features
from tests.flavors import test_features_network as network_features
from tests.flavors import test_features_pools as pool_features
from tests.flavors.flavor_testing import AKS_REQUIRED, render_text

Load = Callable[[str], list[Document]]
RULES_ONLY = ValidationOptions(schemas=False)
NEW_RULES = frozenset(
    {
        "CAPZ-POOL-SPOT-SYSTEM",
        "CAPZ-NET-CIDR-OVERLAP",
        "CAPZ-POOL-SUBNET-REF",
        "CAPZ-MC-PRIVATE-DNS",
        "CAPZ-MC-OUTBOUND",
    }
)
SUBNET_ID = network_features.SUBNET_ID
TEMPLATED = "{{ .builtin.cluster.name }}"


def _findings(docs: list[Document], rule: str | None = None) -> list[Finding]:
    found = validate_documents(docs, None, RULES_ONLY)
    return [f for f in found if f.rule == rule] if rule else found


def _where(findings: list[Finding]) -> list[tuple[str, str, str | None]]:
    return [(f.rule, format_path(f.path), f.subject.name) for f in findings]


def _flavor_docs(flavor: str = "aks", **settings: Any) -> list[Document]:
    text = render_text(flavor, {**AKS_REQUIRED, **settings})
    objs = [obj for obj in yaml.safe_load_all(text) if obj is not None]
    return [Document(f"{flavor}.yaml", index, obj) for index, obj in enumerate(objs)]


def _kind(docs: list[Document], kind: str, nth: int = 0) -> dict[str, Any]:
    obj: dict[str, Any] = [doc.obj for doc in docs if doc.kind == kind][nth]
    return obj


def _mc(docs: list[Document]) -> dict[str, Any]:
    spec: dict[str, Any] = _kind(docs, "AzureASOManagedControlPlane")["spec"]["resources"][0][
        "spec"
    ]
    return spec


def _pool(docs: list[Document], nth: int = 0) -> dict[str, Any]:
    spec: dict[str, Any] = _kind(docs, "AzureASOManagedMachinePool", nth)["spec"]["resources"][0][
        "spec"
    ]
    return spec


def _infra_resources(docs: list[Document]) -> list[dict[str, Any]]:
    resources: list[dict[str, Any]] = _kind(docs, "AzureASOManagedCluster")["spec"]["resources"]
    return resources


def _vnet_docs(**settings: Any) -> list[Document]:
    """The aks flavor with a created VNet (10.10.0.0/16; subnets 10.10.0.0/20, 10.10.16.0/20)."""
    return _flavor_docs(**{**network_features.FEATURES["vnet"], **settings})


def _cidr(docs: list[Document], block: str, cidr: str) -> list[Document]:
    """Set a Cluster CIDR after rendering (the flavor itself refuses overlapping ones)."""
    network = _kind(docs, "Cluster")["spec"].setdefault("clusterNetwork", {})
    network[block] = {"cidrBlocks": [cidr]}
    return docs


# --- the aks flavor never trips the rules --------------------------------------------------------

KUBENET_VNET = {
    **network_features.FEATURES["vnet"],
    "AKS_NETWORK_PLUGIN": "kubenet",
    "AKS_NETWORK_POLICY": "calico",
    "AKS_POD_CIDR": "192.168.0.0/16",
    "AKS_DNS_SERVICE_IP": "172.16.0.10",
}
FLAVOR_CASES: dict[str, dict[str, Any]] = {
    **{f"network-{name}": settings for name, settings in network_features.FEATURES.items()},
    "cluster-all": cluster_features.FEATURES_ON,
    "pools": {"NODE_POOLS": pool_features.POOLS},
    "kubenet-vnet-all": {**cluster_features.FEATURES_ON, **KUBENET_VNET},
    "overlay-vnet": {
        **network_features.OVERLAY_CILIUM,
        "AKS_VNET": network_features.VNET,
        "NODE_POOLS": [
            {"name": "system", "mode": "System"},
            {"name": "batch", "mode": "User", "subnet": "batch"},
            *pool_features.POOLS[1:],
        ],
    },
    "subnet-id-pools": {
        **network_features.FEATURES["subnet-id"],
        "NODE_POOLS": pool_features.POOLS,
    },
}


@pytest.mark.parametrize("flavor", ["aks", "aks-maintenance"])
@pytest.mark.parametrize("settings", FLAVOR_CASES.values(), ids=FLAVOR_CASES.keys())
def test_flavor_features_trip_no_network_rule(flavor: str, settings: dict[str, Any]) -> None:
    found = [f for f in _findings(_flavor_docs(flavor, **settings)) if f.rule in NEW_RULES]
    assert found == []


def test_kubenet_vnet_render_is_clean() -> None:
    assert _findings(_flavor_docs(**KUBENET_VNET)) == []


# --- CAPZ-POOL-SPOT-SYSTEM -------------------------------------------------------------------------


def test_spot_system_pool_in_a_template(template_docs: Load) -> None:
    docs = template_docs("aks-aso")
    _pool(docs).update(scaleSetPriority="Spot")
    assert _where(_findings(docs, "CAPZ-POOL-SPOT-SYSTEM")) == [
        ("CAPZ-POOL-SPOT-SYSTEM", "spec.resources[0].spec.scaleSetPriority", "demo-pool0")
    ]
    _pool(docs).update(mode=TEMPLATED)
    assert _findings(docs, "CAPZ-POOL-SPOT-SYSTEM") == []


# --- CAPZ-NET-CIDR-OVERLAP -------------------------------------------------------------------------


def test_pod_cidr_in_the_vnet_counts_only_where_pods_use_it() -> None:
    docs = _cidr(_vnet_docs(AKS_NETWORK_PLUGIN="kubenet"), "pods", "10.10.0.0/16")
    found = _findings(docs, "CAPZ-NET-CIDR-OVERLAP")
    assert _where(found) == [
        ("CAPZ-NET-CIDR-OVERLAP", "spec.clusterNetwork.pods.cidrBlocks[0]", "my-cluster")
    ]
    assert (
        "overlaps address prefix 10.10.0.0/16 (VirtualNetwork/my-cluster-vnet" in found[0].message
    )
    _mc(docs)["networkProfile"]["networkPlugin"] = "azure"  # plain Azure CNI: pod CIDR unused
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []
    _mc(docs)["networkProfile"]["networkPluginMode"] = "overlay"
    assert len(_findings(docs, "CAPZ-NET-CIDR-OVERLAP")) == 1
    _mc(docs)["networkProfile"]["networkPluginMode"] = TEMPLATED  # unknown: not judged
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []


def test_service_cidr_in_the_vnet_whatever_the_plugin() -> None:
    docs = _cidr(_vnet_docs(), "services", "10.10.128.0/24")
    found = _findings(docs, "CAPZ-NET-CIDR-OVERLAP")
    assert _where(found) == [
        ("CAPZ-NET-CIDR-OVERLAP", "spec.clusterNetwork.services.cidrBlocks[0]", "my-cluster")
    ]
    assert found[0].message.startswith(
        "service CIDR 10.10.128.0/24 (Cluster/my-cluster spec.clusterNetwork.services.cidrBlocks[0])"
    )


def test_a_cidr_copied_to_the_managed_cluster_is_reported_once() -> None:
    docs = _cidr(_vnet_docs(), "services", "10.10.128.0/24")
    _mc(docs)["networkProfile"]["serviceCidr"] = "10.10.128.0/24"  # what CAPZ writes (C7)
    assert len(_findings(docs, "CAPZ-NET-CIDR-OVERLAP")) == 1
    _mc(docs)["networkProfile"]["serviceCidrs"] = ["10.10.129.0/24"]  # a second, different range
    assert _where(_findings(docs, "CAPZ-NET-CIDR-OVERLAP"))[1] == (
        "CAPZ-NET-CIDR-OVERLAP",
        "spec.resources[0].spec.networkProfile.serviceCidrs[0]",
        "my-cluster",
    )


def test_dual_stack_compares_like_with_like() -> None:
    docs = _vnet_docs(AKS_NETWORK_PLUGIN_MODE="overlay", AKS_SERVICE_CIDR="172.16.0.0/16")
    _infra_resources(docs)[1]["spec"]["addressSpace"]["addressPrefixes"].append("fd00:10::/48")
    _mc(docs)["networkProfile"].update(
        podCidrs=["192.168.0.0/16", "fd00:100::/64"],
        serviceCidrs=["172.16.0.0/16", "fd00:200::/108"],
    )
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []
    _mc(docs)["networkProfile"]["serviceCidrs"][1] = "fd00:10:0:1::/108"
    assert _where(_findings(docs, "CAPZ-NET-CIDR-OVERLAP")) == [
        (
            "CAPZ-NET-CIDR-OVERLAP",
            "spec.resources[0].spec.networkProfile.serviceCidrs[1]",
            "my-cluster",
        )
    ]


def test_templated_and_mistyped_ranges_are_unknown() -> None:
    docs = _cidr(_vnet_docs(AKS_NETWORK_PLUGIN="kubenet"), "pods", "10.10.0.0/16")
    assert len(_findings(docs, "CAPZ-NET-CIDR-OVERLAP")) == 1
    cluster = _kind(docs, "Cluster")
    cluster["spec"]["clusterNetwork"]["pods"]["cidrBlocks"] = [TEMPLATED]
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []
    cluster["spec"]["clusterNetwork"]["pods"]["cidrBlocks"] = "10.10.0.0/16"  # the schema's
    _infra_resources(docs)[1]["spec"]["addressSpace"] = {"addressPrefixes": "10.10.0.0/16"}
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []


def test_subnets_of_different_vnets_may_overlap() -> None:
    docs = _vnet_docs()
    resources = _infra_resources(docs)
    other_vnet = copy.deepcopy(resources[1])
    other_vnet["metadata"]["name"] = "hub"
    other_subnet = copy.deepcopy(resources[2])
    other_subnet["metadata"]["name"] = "hub-nodes"
    other_subnet["spec"]["owner"]["name"] = "hub"
    resources += [other_vnet, other_subnet]
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []
    other_subnet["spec"]["owner"]["name"] = "my-cluster-vnet"
    assert _where(_findings(docs, "CAPZ-NET-CIDR-OVERLAP")) == [
        ("CAPZ-NET-CIDR-OVERLAP", "spec.resources[5].spec.addressPrefix", "my-cluster")
    ]


def test_subnet_containment_needs_every_vnet_prefix_known() -> None:
    docs = _vnet_docs()
    resources = _infra_resources(docs)
    resources[3]["spec"]["addressPrefix"] = "10.20.0.0/24"
    assert "is not inside the address space of VirtualNetwork/my-cluster-vnet (10.10.0.0/16)" in (
        _findings(docs, "CAPZ-NET-CIDR-OVERLAP")[0].message
    )
    resources[1]["spec"]["addressSpace"]["addressPrefixes"].append(TEMPLATED)
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []


def test_subnets_of_an_arm_id_vnet_are_compared_with_each_other() -> None:
    docs = _vnet_docs()
    resources = _infra_resources(docs)
    vnet_id = "/subscriptions/0/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/hub"
    for subnet in resources[2:]:
        subnet["spec"]["owner"] = {"armId": vnet_id}
    resources[3]["spec"]["addressPrefix"] = "10.10.8.0/24"
    assert _where(_findings(docs, "CAPZ-NET-CIDR-OVERLAP")) == [
        ("CAPZ-NET-CIDR-OVERLAP", "spec.resources[3].spec.addressPrefix", "my-cluster")
    ]


def test_topology_cluster_has_nothing_to_compare(template_docs: Load) -> None:
    docs = template_docs("aks-aso-topology")
    _kind(docs, "Cluster")["spec"]["clusterNetwork"] = {
        "pods": {"cidrBlocks": ["10.0.0.0/8"]},
        "services": {"cidrBlocks": ["10.0.0.0/16"]},
    }
    assert _findings(docs, "CAPZ-NET-CIDR-OVERLAP") == []


# --- CAPZ-POOL-SUBNET-REF --------------------------------------------------------------------------


def test_subnet_reference_resolution() -> None:
    docs = _vnet_docs()
    _pool(docs, 1)["vnetSubnetReference"]["name"] = "missing"
    assert _where(_findings(docs, "CAPZ-POOL-SUBNET-REF")) == [
        (
            "CAPZ-POOL-SUBNET-REF",
            "spec.resources[0].spec.vnetSubnetReference.name",
            "my-cluster-batch",
        )
    ]
    _pool(docs, 1)["vnetSubnetReference"] = {"armId": SUBNET_ID}
    _pool(docs, 0)["vnetSubnetReference"]["name"] = TEMPLATED
    _pool(docs, 0)["podSubnetReference"] = {
        "group": TEMPLATED,
        "kind": "VirtualNetworksSubnet",
        "name": "my-cluster-vnet-batch",
    }
    assert _findings(docs, "CAPZ-POOL-SUBNET-REF") == []


def test_subnet_reference_without_namespace_resolves() -> None:
    docs = _vnet_docs()
    for doc in docs:
        doc.obj["metadata"].pop("namespace", None)
    assert _findings(docs) == []


def test_fragment_pool_names_a_subnet_outside_the_set() -> None:
    docs = [
        doc for doc in _vnet_docs() if doc.kind in ("MachinePool", "AzureASOManagedMachinePool")
    ]
    _pool(docs)["vnetSubnetReference"]["name"] = "running-cluster-subnet"
    assert _findings(docs, "CAPZ-POOL-SUBNET-REF") == []
    _pool(docs)["vnetSubnetReference"]["kind"] = "Subnet"  # checked without the set
    assert _where(_findings(docs, "CAPZ-POOL-SUBNET-REF")) == [
        (
            "CAPZ-POOL-SUBNET-REF",
            "spec.resources[0].spec.vnetSubnetReference.kind",
            "my-cluster-system",
        )
    ]


# --- CAPZ-MC-PRIVATE-DNS ---------------------------------------------------------------------------


def test_private_dns_on_a_public_cluster(template_docs: Load) -> None:
    docs = template_docs("aks-aso")
    profile: dict[str, Any] = {"privateDNSZone": "System", "enablePrivateCluster": False}
    _mc(docs)["apiServerAccessProfile"] = profile
    assert _findings(docs) == []  # AKS's default zone: writing it changes nothing
    profile["privateDNSZone"] = "NONE"
    found = _findings(docs, "CAPZ-MC-PRIVATE-DNS")
    assert [(f.severity.value, format_path(f.path)) for f in found] == [
        ("warning", "spec.resources[0].spec.apiServerAccessProfile.privateDNSZone")
    ]
    profile["enablePrivateCluster"] = TEMPLATED
    profile["enablePrivateClusterPublicFQDN"] = True
    assert _findings(docs, "CAPZ-MC-PRIVATE-DNS") == []
    profile["enablePrivateCluster"] = True
    assert _findings(docs) == []


# --- CAPZ-MC-OUTBOUND ------------------------------------------------------------------------------


def test_byo_subnet_outbound_types() -> None:
    docs = _flavor_docs(**network_features.FEATURES["subnet-id"])
    assert _findings(docs) == []
    del _pool(docs, 1)["vnetSubnetReference"]
    _mc(docs)["networkProfile"]["outboundType"] = "userAssignedNATGateway"
    found = _findings(docs, "CAPZ-MC-OUTBOUND")
    assert _where(found) == [
        ("CAPZ-MC-OUTBOUND", "spec.resources[0].spec.vnetSubnetReference", "my-cluster-pool1")
    ]
    assert "(one with its NAT gateway)" in found[0].message
    for outbound in ("managedNATGateway", "loadBalancer", TEMPLATED):
        _mc(docs)["networkProfile"]["outboundType"] = outbound
        assert _findings(docs, "CAPZ-MC-OUTBOUND") == []


def test_load_balancer_profile_with_a_nat_gateway_in_a_class(template_docs: Load) -> None:
    docs = template_docs("aks-aso-clusterclass")
    template = _kind(docs, "AzureASOManagedControlPlaneTemplate")
    mc = copy.deepcopy(_kind(template_docs("aks-aso"), "AzureASOManagedControlPlane"))
    mc = mc["spec"]["resources"][0]
    mc["spec"]["networkProfile"] = {
        "outboundType": "userAssignedNATGateway",
        "loadBalancerProfile": {"idleTimeoutInMinutes": 10},
    }
    template["spec"]["template"]["spec"]["resources"] = [mc]
    assert _where(_findings(docs, "CAPZ-MC-OUTBOUND")) == [
        (
            "CAPZ-MC-OUTBOUND",
            "spec.template.spec.resources[0].spec.networkProfile.loadBalancerProfile",
            template["metadata"]["name"],
        )
    ]


# --- robustness ------------------------------------------------------------------------------------

WRONG = [None, True, 7, "x", TEMPLATED, "10.0.0.0/33", [], {}, ["10.0.0.0/8", 3, None], {"a": 1}]
FIELDS: list[tuple[str, Callable[[list[Document]], dict[str, Any]], str]] = [
    ("Cluster", lambda d: _kind(d, "Cluster")["spec"]["clusterNetwork"], "pods"),
    ("Cluster", lambda d: _kind(d, "Cluster")["spec"]["clusterNetwork"]["services"], "cidrBlocks"),
    ("MC", lambda d: _mc(d), "networkProfile"),
    ("MC", lambda d: _mc(d)["networkProfile"], "podCidr"),
    ("MC", lambda d: _mc(d)["networkProfile"], "serviceCidrs"),
    ("MC", lambda d: _mc(d)["networkProfile"], "networkPlugin"),
    ("MC", lambda d: _mc(d)["networkProfile"], "outboundType"),
    ("MC", lambda d: _mc(d)["networkProfile"], "loadBalancerProfile"),
    ("MC", lambda d: _mc(d), "apiServerAccessProfile"),
    ("VNet", lambda d: _infra_resources(d)[1], "spec"),
    ("VNet", lambda d: _infra_resources(d)[1]["spec"], "addressSpace"),
    ("Subnet", lambda d: _infra_resources(d)[2]["spec"], "addressPrefix"),
    ("Subnet", lambda d: _infra_resources(d)[2]["spec"], "addressPrefixes"),
    ("Subnet", lambda d: _infra_resources(d)[2]["spec"], "owner"),
    ("Subnet", lambda d: _infra_resources(d)[2]["spec"]["owner"], "name"),
    ("Pool", lambda d: _pool(d), "vnetSubnetReference"),
    ("Pool", lambda d: _pool(d)["vnetSubnetReference"], "name"),
    ("Pool", lambda d: _pool(d)["vnetSubnetReference"], "group"),
    ("Pool", lambda d: _pool(d), "podSubnetReference"),
    ("Pool", lambda d: _pool(d), "scaleSetPriority"),
]


@pytest.mark.parametrize(
    ("_label", "parent", "key"), FIELDS, ids=[f"{f[0]}-{f[2]}" for f in FIELDS]
)
def test_wrong_types_never_raise(
    _label: str, parent: Callable[[list[Document]], dict[str, Any]], key: str
) -> None:
    base = _vnet_docs(
        AKS_NETWORK_PLUGIN="kubenet",
        AKS_POD_CIDR="192.168.0.0/16",
        AKS_SERVICE_CIDR="172.16.0.0/16",
        AKS_OUTBOUND_TYPE="managedNATGateway",
    )
    for value in WRONG:
        docs = [Document(d.source, d.index, copy.deepcopy(d.obj)) for d in base]
        parent(docs)[key] = value
        for finding in _findings(docs):
            assert finding.message
