"""Cluster networking across objects: address ranges, subnet references, outbound type (K13, K14,
§4.4, §4.5, §4.8).

AKS checks these only when it creates the cluster or a pool, long after the manifests are applied:
a service or pod CIDR inside the node network, a subnet outside its VNet or a pool naming a subnet
that never appears all end as a failed or forever-waiting ASO resource.

The cluster-level rules run on :class:`~generator.checks.views.ControlPlane` and
:class:`~generator.checks.views.AgentPool`, so they hold for both CAPZ APIs. A service or pod CIDR
that no object sets is AKS's default (10.0.0.0/16, 10.244.0.0/16) and is compared as such with the
node network the manifests create: AKS rejects it there just the same. The node network is what
the pools attach (their subnets, and those subnets' VNets) or the legacy virtualNetwork.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Iterator
from typing import Final, final

from generator.checks.fields import Api
from generator.checks.rules.base import Rule
from generator.checks.views import AgentPool, ControlPlane, is_aks_cluster, views_of
from generator.findings import Finding, Gate, JsonPath, Severity, format_path
from generator.jsontypes import Json, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, ClusterGroup, ManifestSet, TopObject
from generator.model.values import as_dict, as_list, is_templated, known_str, parse_ip_network

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# What AKS uses when neither the Cluster nor the AKS cluster sets a range (AKS API defaults).
_AKS_DEFAULTS = {
    "services": ipaddress.IPv4Network("10.0.0.0/16"),
    "pods": ipaddress.IPv4Network("10.244.0.0/16"),
}


@final
class _Range:
    """One address range and where it is written (``rel`` is relative to ``where``)."""

    label: Final[str]  # "pod CIDR", "service CIDR", "address prefix"
    network: Final[Network]
    where: Final[TopObject | AsoResource]
    rel: Final[JsonPath]
    default: Final[bool]  # AKS's default: written nowhere, ``rel`` is where it would be

    def __init__(
        self,
        label: str,
        network: Network,
        where: TopObject | AsoResource,
        rel: JsonPath,
        default: bool = False,
    ) -> None:
        self.label, self.network, self.where, self.rel = label, network, where, rel
        self.default = default

    def describe(self) -> str:
        if self.default:
            return (
                f"AKS's default {self.label} {self.network} ({self.where.ref()} sets none at "
                f"{format_path(self.rel)})"
            )
        return f"{self.label} {self.network} ({self.where.ref()} {format_path(self.rel)})"


def _overlap(a: Network, b: Network) -> bool:
    return a.version == b.version and a.overlaps(b)


def _within(inner: Network, outer: Network) -> bool:
    return inner.version == outer.version and inner.subnet_of(outer)  # type: ignore[arg-type]


def _ranges_at(
    label: str, where: TopObject | AsoResource, rel: JsonPath, value: Json
) -> list[_Range]:
    """The range at ``rel`` (a string) or every range of the list there; unknown values skipped."""
    items = as_list(value)
    if items is None:
        network = parse_ip_network(value)
        return [] if network is None else [_Range(label, network, where, rel)]
    found = []
    for index, item in enumerate(items):
        network = parse_ip_network(item)
        if network is not None:
            found.append(_Range(label, network, where, (*rel, index)))
    return found


def _unique(ranges: list[_Range]) -> list[_Range]:
    """The first place each network is written: CAPZ copies the Cluster's CIDR to the ManagedCluster."""
    seen: set[Network] = set()
    unique = []
    for item in ranges:
        if item.network not in seen:
            seen.add(item.network)
            unique.append(item)
    return unique


def _cluster_cidrs(group: ClusterGroup, cp: ControlPlane | None, block: str) -> list[_Range]:
    """The Cluster's ``block`` CIDRs and the copies the AKS cluster writes itself; AKS's default
    when nothing is written at all (and nothing unknown is)."""
    label = "pod CIDR" if block == "pods" else "service CIDR"
    path = ("spec", "clusterNetwork", block, "cidrBlocks")
    written = dig(group.cluster.obj, *path)
    ranges = _ranges_at(label, group.cluster, path, as_list(written) or [])
    own = () if cp is None else (cp.pod_cidrs if block == "pods" else cp.service_cidrs)
    for field in own:
        if field.is_set:
            ranges += _ranges_at(label, field.owner, field.rel, field.raw)
    if cp is not None and written is None and not any(field.is_set for field in own):
        ranges.append(_Range(label, _AKS_DEFAULTS[block], group.cluster, path[:-1], default=True))
    return _unique(ranges)


def pods_use_pod_cidr(cp: ControlPlane | None) -> bool:
    """kubenet and Azure CNI overlay give pods addresses from the pod CIDR; plain Azure CNI gives
    them node subnet addresses, so its pod CIDR is not used (§4.4). Unknown plugin: not judged."""
    if cp is None or cp.network_plugin.unknown or cp.network_plugin_mode.unknown:
        return False
    return cp.network_plugin.value == "kubenet" or cp.network_plugin_mode.value == "overlay"


def _subnet_prefixes(res: AsoResource) -> list[_Range]:
    spec = res.spec or {}
    return [
        *_ranges_at("address prefix", res, ("spec", "addressPrefix"), spec.get("addressPrefix")),
        *_ranges_at(
            "address prefix",
            res,
            ("spec", "addressPrefixes"),
            as_list(spec.get("addressPrefixes")) or [],
        ),
    ]


def _vnet_prefixes(res: AsoResource) -> list[_Range]:
    path = ("spec", "addressSpace", "addressPrefixes")
    return _ranges_at("address prefix", res, path, as_list(dig(res.obj, *path)) or [])


_ARM_SUBNET = re.compile(
    r"/providers/Microsoft\.Network/virtualNetworks/(?P<vnet>[^/]+)/subnets/(?P<subnet>[^/]+)/?$",
    re.IGNORECASE,
)


def _azure_name(res: AsoResource) -> str:
    """The name the resource has in Azure, lower-cased: ASO's azureName, else metadata.name."""
    return (known_str((res.spec or {}).get("azureName")) or res.name or "").lower()


def _subnet_by_arm_id(ms: ManifestSet, arm_id: str) -> AsoResource | None:
    """The subnet of the set an ARM ID names, by its and its VNet's Azure names; None for a subnet
    created elsewhere."""
    match = _ARM_SUBNET.search(arm_id)
    wanted = None if match is None else (match["vnet"].lower(), match["subnet"].lower())
    for res in ms.resources_of(kinds.SUBNET) if wanted else ():
        vnet = _subnet_vnet(ms, res)[1]
        if vnet is not None and (_azure_name(vnet), _azure_name(res)) == wanted:
            return res
    return None


def _used_subnets(ms: ManifestSet, pools: Iterable[AgentPool]) -> list[AsoResource]:
    """The subnets of the set the pools' vnetSubnetReference and podSubnetReference name (by
    group, kind and name or by ARM ID); unknown references name none."""
    used: list[AsoResource] = []
    for pool in pools:
        if pool.api is not Api.ASO:
            continue
        for field in (pool.subnet, pool.pod_subnet):
            ref = field.value or {}
            name, arm_id = known_str(ref.get("name")), known_str(ref.get("armId"))
            found = None
            if name is not None:
                found = ms.find_resource(kinds.SUBNET, name, pool.owner.namespace)
            elif arm_id is not None:
                found = _subnet_by_arm_id(ms, arm_id)
            if found is not None and all(found is not other for other in used):
                used.append(found)
    return used


def _node_network(
    ms: ManifestSet, cp: ControlPlane | None, pools: Iterable[AgentPool]
) -> list[_Range]:
    """Prefixes of the node network the cluster actually uses: the subnets its agent pools name
    (vnetSubnetReference, podSubnetReference) and their VNets, or the virtual network written on
    a legacy control plane. A VNet or subnet the manifests create but no pool attaches is not the
    cluster's (AKS compares its ranges with the subnets it deploys into); a subnet inside a VNet
    prefix found here adds nothing."""
    vnets: list[_Range] = []
    subnets: list[_Range] = []
    seen_vnets: list[AsoResource] = []
    for res in _used_subnets(ms, pools):
        subnets += _subnet_prefixes(res)
        _, vnet = _subnet_vnet(ms, res)
        if vnet is not None and all(vnet is not other for other in seen_vnets):
            seen_vnets.append(vnet)
            vnets += _vnet_prefixes(vnet)
    for field in cp.node_prefixes if cp is not None else ():
        vnets += _ranges_at("address prefix", field.owner, field.rel, field.raw)
    outside = [s for s in subnets if not any(_within(s.network, v.network) for v in vnets)]
    return [*vnets, *outside]


def _overlaps_in(
    ms: ManifestSet, group: ClusterGroup, cp: ControlPlane | None, pools: Iterable[AgentPool]
) -> Iterator[tuple[_Range, _Range, str]]:
    """(reported range, other range, why) for each overlap in one cluster."""
    node_network = _node_network(ms, cp, pools)
    pods_used = pods_use_pod_cidr(cp)
    services = _cluster_cidrs(group, cp, "services")
    pods = _cluster_cidrs(group, cp, "pods") if pods_used else []
    for pod in pods:
        for service in services:
            if _overlap(pod.network, service.network) and not (pod.default and service.default):
                yield pod, service, "pod and service addresses must be distinct"
    for service in services:
        for prefix in node_network:
            if _overlap(service.network, prefix.network):
                yield service, prefix, "the service CIDR must lie outside the cluster's VNet"
    for pod in pods:
        for prefix in node_network:
            if _overlap(pod.network, prefix.network):
                yield (
                    pod,
                    prefix,
                    "with kubenet or overlay the pod CIDR must lie outside the cluster's VNet",
                )


def _subnet_vnet(ms: ManifestSet, res: AsoResource) -> tuple[object | None, AsoResource | None]:
    """(key of the VNet the subnet belongs to, the VNet if it is in the set)."""
    owner = as_dict((res.spec or {}).get("owner")) or {}
    name = known_str(owner.get("name"))
    if name is not None:
        vnet = ms.find_resource(kinds.VIRTUAL_NETWORK, name, res.namespace)
        return (vnet if vnet is not None else (res.namespace, name)), vnet
    arm_id = known_str(owner.get("armId"))
    return (arm_id.lower() if arm_id else None), None


def _subnet_problems(ms: ManifestSet) -> Iterator[Finding]:
    """Each subnet lies inside its VNet's address space and overlaps no other subnet of that VNet."""
    seen: dict[object, list[_Range]] = {}
    for res in ms.resources_of(kinds.SUBNET):
        if ms.is_copy(res):
            continue  # a second definition of a subnet overlaps the first (CAPZ-RES-DUPLICATE's)
        prefixes = _subnet_prefixes(res)
        key, vnet = _subnet_vnet(ms, res)
        if vnet is not None:
            yield from _outside_vnet(res, prefixes, vnet)
        if key is None:
            continue
        earlier = seen.setdefault(key, [])
        for prefix in prefixes:
            for other in earlier:
                if _overlap(prefix.network, other.network):
                    yield CIDR_OVERLAP.at(
                        res,
                        prefix.rel,
                        f"{prefix.describe()} overlaps {other.describe()} in the same "
                        "VirtualNetwork",
                    )
        earlier += prefixes


def _outside_vnet(res: AsoResource, prefixes: list[_Range], vnet: AsoResource) -> Iterator[Finding]:
    """Subnet prefixes outside the VNet's address space (only when every VNet prefix is known)."""
    space = as_list(dig(vnet.obj, "spec", "addressSpace", "addressPrefixes")) or []
    known = _vnet_prefixes(vnet)
    if not known or len(known) != len(space):
        return
    text = ", ".join(str(v.network) for v in known)
    for prefix in prefixes:
        if not any(_within(prefix.network, v.network) for v in known):
            yield CIDR_OVERLAP.at(
                res,
                prefix.rel,
                f"{prefix.network} is not inside the address space of {vnet.ref()} ({text})",
            )


CIDR_OVERLAP = Rule(
    "CAPZ-NET-CIDR-OVERLAP",
    "Per cluster, pod CIDRs (kubenet/overlay), service CIDRs (AKS's defaults when unset) and the "
    "prefixes of the node network its pools use (referenced subnets and their VNets; legacy: "
    "virtualNetwork) do not overlap; subnets lie inside their VNet and do not "
    "overlap each other (K13, §4.4, §4.8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses overlapping address ranges",
)


@CIDR_OVERLAP.checks
def _check_cidr_overlap(ms: ManifestSet) -> Iterator[Finding]:
    views = views_of(ms)
    for group in ms.clusters:
        if not is_aks_cluster(group):
            continue
        cp, pools = views.control_plane_of(group), views.pools_of(group)
        for item, other, why in _overlaps_in(ms, group, cp, pools):
            yield CIDR_OVERLAP.at(
                item.where, item.rel, f"{item.describe()} overlaps {other.describe()}: {why}"
            )
    yield from _subnet_problems(ms)


POD_CIDR = Rule(
    "CAPZ-NET-POD-CIDR",
    "A pods CIDR is only set for kubenet or Azure CNI overlay: plain Azure CNI gives pods node "
    "subnet addresses (§4.4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a pods CIDR with plain Azure CNI",
)


@POD_CIDR.checks
def _check_pod_cidr(ms: ManifestSet) -> Iterator[Finding]:
    views = views_of(ms)
    for group in ms.clusters:
        cp = views.control_plane_of(group)
        if cp is None or cp.network_plugin.unknown or cp.network_plugin_mode.unknown:
            continue
        if (cp.network_plugin.value or "azure") != "azure" or cp.network_plugin_mode.is_set:
            continue
        path = ("spec", "clusterNetwork", "pods", "cidrBlocks")
        ranges = _ranges_at(
            "pod CIDR", group.cluster, path, as_list(dig(group.cluster.obj, *path)) or []
        )
        for field in cp.pod_cidrs:
            if field.is_set:
                ranges += _ranges_at("pod CIDR", field.owner, field.rel, field.raw)
        for item in _unique(ranges):
            yield POD_CIDR.at(
                item.where,
                item.rel,
                f"{item.network} is not used: Azure CNI without overlay gives pods addresses from "
                f"the node subnet ({cp.ref()} has networkPlugin azure and no networkPluginMode)",
                hint="set networkPluginMode: overlay (or networkPlugin: kubenet), or leave the pod "
                "CIDR out",
            )


_SUBNET_REFERENCES = ("vnetSubnetReference", "podSubnetReference")
_SUBNET_KIND = {"group": kinds.SUBNET[0], "kind": kinds.SUBNET[1]}


SUBNET_REF = Rule(
    "CAPZ-POOL-SUBNET-REF",
    "Agent pool vnetSubnetReference/podSubnetReference by name is network.azure.com "
    "VirtualNetworksSubnet and names one in the set (fragments skipped; the reference's form is "
    "ASO-REFERENCE's) (R13, §4.8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ASO waits for the missing subnet and never creates the pool",
)


@SUBNET_REF.checks
def _check_subnet_reference(ms: ManifestSet) -> Iterator[Finding]:
    """The kind a subnet reference names and whether it resolves; its form (armId or group, kind
    and name) is ASO-REFERENCE's."""
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = res.spec or {}
        for field in _SUBNET_REFERENCES:
            ref = as_dict(spec.get(field))
            if (
                ref is None
                or ref.get("armId")
                or not all(ref.get(k) for k in ("name", *_SUBNET_KIND))
            ):
                continue  # an existing subnet by ID, or a malformed reference
            wrong = False
            for key, expected in _SUBNET_KIND.items():
                value = ref.get(key)
                if value != expected and not is_templated(value):
                    wrong = True
                    yield SUBNET_REF.at(
                        res,
                        ("spec", field, key),
                        f"is {value!r}; a subnet reference needs {key} {expected}",
                    )
            name = known_str(ref.get("name"))
            if wrong or name is None or not ms.complete:
                continue  # a fragment's subnet may live in the running cluster
            if ms.find_resource(kinds.SUBNET, name, res.namespace) is not None:
                continue
            elsewhere = sorted(
                {
                    o.namespace or "<none>"
                    for o in ms.find_resource_any_namespace(kinds.SUBNET, name)
                }
            )
            found_in = f" (found in namespace {', '.join(elsewhere)})" if elsewhere else ""
            yield SUBNET_REF.at(
                res,
                ("spec", field, "name"),
                f"VirtualNetworksSubnet {name!r} is not in the validated set in namespace "
                f"{res.namespace or '<none>'}{found_in}",
                hint="add the VirtualNetworksSubnet or use armId for an existing subnet",
            )


# Outbound types that route egress through the node subnet's own gateway: (what, subnet field).
_BYO_SUBNET = {
    "userAssignedNATGateway": ("NAT gateway", "natGateway"),
    "userDefinedRouting": ("route table", "routeTable"),
}
_NAT_GATEWAY = ("managedNATGateway", "userAssignedNATGateway")


def _check_pool_subnets(
    ms: ManifestSet, group: ClusterGroup, cp: ControlPlane
) -> Iterator[Finding]:
    outbound = cp.outbound_type.value
    if outbound not in _BYO_SUBNET:
        return
    what, subnet_field = _BYO_SUBNET[outbound]
    for pool in views_of(ms).pools_of(group):
        if pool.subnet.unknown:
            continue
        ref = pool.subnet.value
        if ref is None:
            yield OUTBOUND.at(
                pool.subnet,
                (),
                f"is required: outboundType {outbound} of {cp.ref()} needs every pool on your own "
                f"subnet (one with its {what})",
            )
            continue
        name = known_str(ref.get("name"))
        if name is None or ref.get("armId") is not None:
            continue  # an existing subnet brings its own gateway
        subnet = ms.find_resource(kinds.SUBNET, name, pool.owner.namespace)
        if subnet is not None and dig(subnet.spec, subnet_field) is None:
            yield OUTBOUND.at(
                pool.subnet,
                (),
                f"names {subnet.ref()}, which has no {subnet_field}: outboundType {outbound} of "
                f"{cp.ref()} sends the pool's egress through its subnet's {what}",
                hint=f"give the subnet a {subnet_field} reference, or use an existing subnet "
                "(armId) that has one",
            )


OUTBOUND = Rule(
    "CAPZ-MC-OUTBOUND",
    "outboundType userAssignedNATGateway/userDefinedRouting needs every pool on its own subnet, "
    "one with a NAT gateway / route table when it is in the set; a loadBalancerProfile only with "
    "outboundType loadBalancer (§4.5)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the outbound type with these subnets",
)


@OUTBOUND.checks
def _check_outbound(ms: ManifestSet) -> Iterator[Finding]:
    views = views_of(ms)
    for group in ms.clusters:
        cp = views.control_plane_of(group)
        if cp is not None and is_aks_cluster(group):
            yield from _check_pool_subnets(ms, group, cp)
    for cp in views.control_planes:
        outbound = cp.outbound_type.value
        if outbound is not None and outbound != "loadBalancer" and cp.load_balancer.is_set:
            yield OUTBOUND.at(
                cp.load_balancer,
                (),
                f"must not be set with outboundType {outbound}: it configures outbound traffic "
                "through the load balancer"
                + (" (use natGatewayProfile)" if outbound in _NAT_GATEWAY else ""),
            )
