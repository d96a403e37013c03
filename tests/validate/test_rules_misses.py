"""What CAPZ v1.26.0's webhooks refuse that capzgen once let through (issue 25, item 5), measured
with the capz-oracle: the AzureManagedControlPlane's version without a patch, a bare IP address in
its authorizedIPRanges and a Cluster with two service or pod CIDRs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions, validate_documents
from generator.checks.rules.versions import webhook_accepts_version
from generator.documents import Document
from generator.findings import format_path
from generator.model.values import parse_go_cidr

Parse = Callable[..., list[Document]]


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("v1.33.1", True),
        ("1.33.1", True),  # CAPZ's mutating webhook adds the "v"
        ("v1.33.1-rc.1+build.2", True),
        ("v1.33", False),
        ("1.33", False),
        ("v01.33.1", False),
        ("V1.33.1", False),  # "V" is not "v": NormalizeVersion makes it "vV1.33.1"
        ("", False),
        ("v1.33.1 ", False),
    ],
)
def test_webhook_accepts_version_like_validate_version(text: str, accepted: bool) -> None:
    assert webhook_accepts_version(text) is accepted


@pytest.mark.parametrize(
    ("text", "network"),
    [
        ("1.2.3.4/32", "1.2.3.4/32"),
        ("10.1.2.3/8", "10.0.0.0/8"),  # host bits are allowed, as in Go
        ("10.0.0.0/08", "10.0.0.0/8"),  # Go's dtoi reads leading zeros
        ("fd00::/64", "fd00::/64"),
        ("1.2.3.4", None),
        ("1.2.3.4/", None),
        ("1.2.3.4/33", None),
        ("1.2.3.4/255.255.255.0", None),  # a netmask is not a prefix length to Go
        ("1.2.3.4/+8", None),
        ("01.2.3.4/32", None),
        ("fe80::1%eth0/64", None),
        ("1.2.3.4/٣", None),  # a non-ASCII digit
        ("${RANGE}", None),
    ],
)
def test_parse_go_cidr_reads_like_net_parse_cidr(text: str, network: str | None) -> None:
    parsed = parse_go_cidr(text)
    assert (None if parsed is None else str(parsed)) == network


# --- CAPZ-CLUSTER-CIDRS on the control plane CAPZ refuses ------------------------------------------

_EXAMPLES = Path(__file__).resolve().parent / "examples" / "invalid"
_LEGACY_CIDRS = (_EXAMPLES / "CAPZ-CLUSTER-CIDRS" / "legacy.yaml").read_text()


def _cidr_findings(docs: list[Document]) -> list[tuple[str, str, str | None]]:
    found = validate_documents(docs, None, ValidationOptions(schemas=False))
    return [
        (f.subject.kind or "", format_path(f.path), f.subject.name)
        for f in found
        if f.rule == "CAPZ-CLUSTER-CIDRS"
    ]


def _objects(docs: list[Document], kind: str, name: str) -> dict[str, Any]:
    obj: dict[str, Any] = next(
        d.obj for d in docs if d.kind == kind and d.obj["metadata"]["name"] == name
    )
    return obj


def test_legacy_control_plane_without_the_label_is_judged_by_its_cluster(parse: Parse) -> None:
    """CAPZ skips the check at create time without the label, but CAPI then labels the control
    plane and the update webhook runs the same check: the control plane is still the one refused."""
    docs = parse(_LEGACY_CIDRS)
    del _objects(docs, "AzureManagedControlPlane", "bad-legacy")["metadata"]["labels"]
    assert _cidr_findings(docs) == [("AzureManagedControlPlane", "", "bad-legacy")] * 2


def test_legacy_control_plane_label_decides_which_cluster_is_read(parse: Parse) -> None:
    docs = parse(_LEGACY_CIDRS)
    labels = _objects(docs, "AzureManagedControlPlane", "good-legacy")["metadata"]["labels"]
    labels["cluster.x-k8s.io/cluster-name"] = "bad-legacy"
    assert [name for _, _, name in _cidr_findings(docs)] == ["bad-legacy"] * 2 + ["good-legacy"] * 2
    labels["cluster.x-k8s.io/cluster-name"] = "elsewhere"  # not in the set: unknown
    assert [name for _, _, name in _cidr_findings(docs)] == ["bad-legacy"] * 2
    labels["cluster.x-k8s.io/cluster-name"] = "${CLUSTER_NAME}"
    assert [name for _, _, name in _cidr_findings(docs)] == ["bad-legacy"] * 2


def test_legacy_cluster_without_its_control_plane_is_reported_on_the_cluster(parse: Parse) -> None:
    docs = [d for d in parse(_LEGACY_CIDRS) if d.kind != "AzureManagedControlPlane"]
    assert _cidr_findings(docs) == [
        ("Cluster", "spec.clusterNetwork.pods.cidrBlocks", "bad-legacy"),
        ("Cluster", "spec.clusterNetwork.services.cidrBlocks", "bad-legacy"),
    ]


# --- CAPZ-NET-CIDR-OVERLAP compares only the node network the pools use ---------------------------

_UNATTACHED = (_EXAMPLES.parent / "valid" / "unattached-vnet.yaml").read_text()
_SPARE_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/demo/providers/"
    "Microsoft.Network/virtualNetworks/demo-spare-vnet/subnets/demo-spare-vnet-default"
)


def _overlaps(docs: list[Document]) -> list[str]:
    found = validate_documents(docs, None, ValidationOptions(schemas=False))
    return [f.message for f in found if f.rule == "CAPZ-NET-CIDR-OVERLAP"]


def _agent_pool(docs: list[Document], name: str) -> dict[str, Any]:
    spec: dict[str, Any] = _objects(docs, "AzureASOManagedMachinePool", name)["spec"]["resources"][
        0
    ]["spec"]
    return spec


def _by_name(name: str) -> dict[str, str]:
    return {"group": "network.azure.com", "kind": "VirtualNetworksSubnet", "name": name}


def test_a_vnet_no_pool_attaches_is_not_the_clusters(parse: Parse) -> None:
    docs = parse(_UNATTACHED)
    assert _overlaps(docs) == []
    _agent_pool(docs, "demo-pool1")["vnetSubnetReference"] = _by_name("demo-spare-vnet-default")
    assert [m.split(":")[0] for m in _overlaps(docs)] == [
        "AKS's default service CIDR 10.0.0.0/16 (Cluster/demo sets none at "
        "spec.clusterNetwork.services) overlaps address prefix 10.0.0.0/16 "
        "(VirtualNetwork/demo-spare-vnet spec.addressSpace.addressPrefixes[0])"
    ]


@pytest.mark.parametrize(
    ("field", "reference", "reported"),
    [
        ("podSubnetReference", _by_name("demo-spare-vnet-default"), True),
        ("vnetSubnetReference", {"armId": _SPARE_ID}, True),
        ("vnetSubnetReference", {"armId": _SPARE_ID.replace("/demo-spare-vnet/", "/hub/")}, False),
        ("vnetSubnetReference", _by_name("{{ .builtin.cluster.name }}-subnet"), False),
        ("vnetSubnetReference", _by_name("not-in-the-set"), False),
    ],
)
def test_which_references_attach_a_subnet(
    parse: Parse, field: str, reference: dict[str, str], reported: bool
) -> None:
    docs = parse(_UNATTACHED)
    _agent_pool(docs, "demo-pool0")[field] = reference
    assert bool(_overlaps(docs)) is reported


def test_a_used_subnet_outside_any_vnet_of_the_set_counts_alone(parse: Parse) -> None:
    docs = parse(_UNATTACHED)
    infra = _objects(docs, "AzureASOManagedCluster", "demo")["spec"]["resources"]
    del infra[1]  # the VNet itself: the subnet's owner is elsewhere
    infra[1]["spec"]["addressPrefix"] = "10.0.200.0/24"
    _agent_pool(docs, "demo-pool0")["vnetSubnetReference"] = _by_name("demo-spare-vnet-default")
    assert [m.split(" (")[0] for m in _overlaps(docs)] == ["AKS's default service CIDR 10.0.0.0/16"]
    assert (
        "address prefix 10.0.200.0/24 (VirtualNetworksSubnet/demo-spare-vnet-default"
        in (_overlaps(docs)[0])
    )
