"""Cluster networking across objects: address ranges, subnet references, outbound type (K13, K14,
§4.4, §4.5, §4.8).

AKS checks these only when it creates the cluster or a pool, long after the manifests are applied:
a service or pod CIDR inside the node network, a subnet outside its VNet or a pool naming a subnet
that never appears all end as a failed or forever-waiting ASO resource.

Only ranges written in the manifests are compared; the defaults AKS applies to an unset service or
pod CIDR are not assumed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from generator.findings import Finding, JsonPath, Severity, format_path
from generator.validate import kinds
from generator.validate.model import AsoResource, ClusterGroup, ManifestSet, TopObject
from generator.validate.rules.base import Rule
from generator.validate.values import (
    as_dict,
    as_list,
    dig,
    is_templated,
    known_str,
    parse_ip_network,
)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class _Range:
    """One address range and where it is written (``rel`` is relative to ``where``)."""

    label: str  # "pod CIDR", "service CIDR", "address prefix"
    network: Network
    where: TopObject | AsoResource
    rel: JsonPath

    def describe(self) -> str:
        return f"{self.label} {self.network} ({self.where.ref()} {format_path(self.rel)})"


def _overlap(a: Network, b: Network) -> bool:
    return a.version == b.version and a.overlaps(b)


def _within(inner: Network, outer: Network) -> bool:
    return inner.version == outer.version and inner.subnet_of(outer)  # type: ignore[arg-type]


def _ranges_at(
    label: str, where: TopObject | AsoResource, rel: JsonPath, value: Any
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


def _network_profile(group: ClusterGroup) -> dict[str, Any]:
    mc = group.managed_cluster
    return (as_dict(dig(mc.spec, "networkProfile")) if mc is not None else None) or {}


def _cluster_cidrs(group: ClusterGroup, block: str, single: str, plural: str) -> list[_Range]:
    label = "pod CIDR" if block == "pods" else "service CIDR"
    path = ("spec", "clusterNetwork", block, "cidrBlocks")
    ranges = _ranges_at(label, group.cluster, path, as_list(dig(group.cluster.obj, *path)) or [])
    mc = group.managed_cluster
    if mc is not None:
        profile = _network_profile(group)
        for key in (single, plural):
            if profile.get(key) is not None:
                ranges += _ranges_at(label, mc, ("spec", "networkProfile", key), profile[key])
    return _unique(ranges)


def _pods_use_pod_cidr(group: ClusterGroup) -> bool:
    """kubenet and Azure CNI overlay give pods addresses from the pod CIDR; plain Azure CNI gives
    them node subnet addresses, so its pod CIDR is not used (§4.4). Unknown plugin: not judged."""
    profile = _network_profile(group)
    plugin, mode = profile.get("networkPlugin"), profile.get("networkPluginMode")
    if group.managed_cluster is None or is_templated(plugin) or is_templated(mode):
        return False
    return plugin == "kubenet" or mode == "overlay"


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


def _node_network(group: ClusterGroup) -> list[_Range]:
    """Prefixes of the VNets and subnets embedded in the cluster's objects (the AzureASOManagedCluster
    normally); a subnet inside a VNet prefix found here adds nothing."""
    vnets: list[_Range] = []
    subnets: list[_Range] = []
    for res in group.resources():
        if res.group_kind == kinds.VIRTUAL_NETWORK:
            vnets += _vnet_prefixes(res)
        elif res.group_kind == kinds.SUBNET:
            subnets += _subnet_prefixes(res)
    outside = [s for s in subnets if not any(_within(s.network, v.network) for v in vnets)]
    return [*vnets, *outside]


def _overlaps_in(group: ClusterGroup) -> Iterator[tuple[_Range, _Range, str]]:
    """(reported range, other range, why) for each overlap in one cluster."""
    pods = _cluster_cidrs(group, "pods", "podCidr", "podCidrs")
    services = _cluster_cidrs(group, "services", "serviceCidr", "serviceCidrs")
    node_network = _node_network(group)
    pods_used = _pods_use_pod_cidr(group)
    if pods_used:
        for pod in pods:
            for service in services:
                if _overlap(pod.network, service.network):
                    yield pod, service, "pod and service addresses must be distinct"
    for service in services:
        for prefix in node_network:
            if _overlap(service.network, prefix.network):
                yield service, prefix, "the service CIDR must lie outside the cluster's VNet"
    if pods_used:
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
        prefixes = _subnet_prefixes(res)
        key, vnet = _subnet_vnet(ms, res)
        if vnet is not None:
            space = as_list(dig(vnet.obj, "spec", "addressSpace", "addressPrefixes")) or []
            known = _vnet_prefixes(vnet)
            if known and len(known) == len(space):  # every prefix of the VNet is known
                text = ", ".join(str(v.network) for v in known)
                for prefix in prefixes:
                    if not any(_within(prefix.network, v.network) for v in known):
                        yield CIDR_OVERLAP.at(
                            res,
                            prefix.rel,
                            f"{prefix.network} is not inside the address space of "
                            f"{vnet.ref()} ({text})",
                        )
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


def _check_cidr_overlap(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        if not group.is_aso:
            continue
        for item, other, why in _overlaps_in(group):
            yield CIDR_OVERLAP.at(
                item.where, item.rel, f"{item.describe()} overlaps {other.describe()}: {why}"
            )
    yield from _subnet_problems(ms)


_SUBNET_REFERENCES = ("vnetSubnetReference", "podSubnetReference")
_SUBNET_KIND = {"group": kinds.SUBNET[0], "kind": kinds.SUBNET[1]}


def _check_subnet_reference(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = res.spec or {}
        for field in _SUBNET_REFERENCES:
            ref = as_dict(spec.get(field))
            if ref is None or ref.get("armId") is not None or ref.get("name") is None:
                continue  # an existing subnet by ID; an empty reference is the schema's
            wrong = False
            for key, expected in _SUBNET_KIND.items():
                value = ref.get(key)
                if value != expected and not is_templated(value):
                    wrong = True
                    found = "is missing" if value is None else f"is {value!r}"
                    yield SUBNET_REF.at(
                        res,
                        ("spec", field, key),
                        f"{found}; a subnet reference needs {key} {expected}",
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


_BYO_SUBNET = {"userAssignedNATGateway": "NAT gateway", "userDefinedRouting": "route table"}
_NAT_GATEWAY = ("managedNATGateway", "userAssignedNATGateway")


def _check_outbound(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        mc = group.managed_cluster
        if not group.is_aso or mc is None:
            continue
        outbound = known_str(dig(mc.spec, "networkProfile", "outboundType"))
        if outbound not in _BYO_SUBNET:
            continue
        for pool in group.pools:
            agent_pool = pool.agent_pool
            if agent_pool is None or (agent_pool.spec or {}).get("vnetSubnetReference") is not None:
                continue
            yield OUTBOUND.at(
                agent_pool,
                ("spec", "vnetSubnetReference"),
                f"is required: outboundType {outbound} of {mc.ref()} needs every pool on your own "
                f"subnet (one with its {_BYO_SUBNET[outbound]})",
            )
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        profile = as_dict(dig(res.spec, "networkProfile")) or {}
        outbound = known_str(profile.get("outboundType"))
        if outbound in _NAT_GATEWAY and profile.get("loadBalancerProfile") is not None:
            yield OUTBOUND.at(
                res,
                ("spec", "networkProfile", "loadBalancerProfile"),
                f"must not be set with outboundType {outbound}: it configures outbound traffic "
                "through the load balancer (use natGatewayProfile)",
            )


CIDR_OVERLAP = Rule(
    "CAPZ-NET-CIDR-OVERLAP",
    "Per cluster, pod CIDRs (kubenet/overlay), service CIDRs and the cluster's VNet/subnet prefixes "
    "do not overlap; subnets lie inside their VNet and do not overlap each other (K13, §4.4, §4.8)",
    Severity.ERROR,
    _check_cidr_overlap,
)
SUBNET_REF = Rule(
    "CAPZ-POOL-SUBNET-REF",
    "Agent pool vnetSubnetReference/podSubnetReference by name is network.azure.com "
    "VirtualNetworksSubnet and names one in the set (armId skipped; fragments skipped) (R13, §4.8)",
    Severity.ERROR,
    _check_subnet_reference,
)
OUTBOUND = Rule(
    "CAPZ-MC-OUTBOUND",
    "outboundType userAssignedNATGateway/userDefinedRouting needs vnetSubnetReference on every pool; "
    "NAT gateway outbound types take no loadBalancerProfile (§4.5)",
    Severity.ERROR,
    _check_outbound,
)

RULES = (CIDR_OVERLAP, SUBNET_REF, OUTBOUND)
