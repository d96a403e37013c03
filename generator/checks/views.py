"""Normalised views of AKS agent pools and cluster settings, over both CAPZ APIs.

An AKS agent pool is written either as a ManagedClustersAgentPool embedded in an
AzureASOManagedMachinePool (the ASO API) or as an AzureManagedMachinePool (the legacy API, which
CAPZ turns into the same agent pool, reference §5.4); the cluster-wide settings either in the
ManagedCluster embedded in an AzureASOManagedControlPlane or in an AzureManagedControlPlane
(§5.3). The ClusterClass templates of both APIs are views too: an AzureASOManaged*Template embeds
the same ASO resources, and an AzureManaged*Template holds under ``spec.template.spec`` the spec
every Cluster's AzureManaged* object is copied from, so its values reach AKS unchanged. AKS
enforces the same constraints whichever way they were written, so a rule is written once, against
:class:`AgentPool` or :class:`ControlPlane`, never once per API shape.

Every setting is a :class:`~generator.checks.fields.Field`: its typed value plus where it is
written (or would be), so a finding points at the user's own field in whichever shape they used. Building a view is a
projection, never a judgement: a value of the wrong type becomes ``None`` (the schema check
reports it), Go-template and ``${VAR}`` text is "unknown", and a default is filled in only where
CAPZ itself fills it in before AKS sees it (a legacy pool without ``spec.name`` is named after
its object).

Views are built once per :class:`ManifestSet` (:func:`views_of`), like the set's own indexes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, final

from generator.checks.fields import (
    UNKNOWN,
    Api,
    Field,
    FieldReader,
    Owner,
    absent,
    as_bool,
    first_set,
    inside,
    read_field,
)
from generator.checks.view_records import AgentPool, ControlPlane, written_in_template
from generator.jsontypes import Json, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, ClusterGroup, ManifestSet, TopObject
from generator.model.values import as_dict, as_int, as_list, as_number, known_str


def legacy_specs(ms: ManifestSet, kind: str) -> Iterator[tuple[TopObject, tuple[str, ...]]]:
    """The objects of the legacy ``kind`` with where their spec is (``spec``), then those of its
    ClusterClass template (``spec.template.spec``). For the rules that read a legacy field the
    views do not carry and that CAPZ's template webhook runs too."""
    for obj in ms.objects_of(kind):
        yield obj, kinds.SPEC
    for obj in ms.objects_of(kinds.LEGACY_TEMPLATE_OF[kind]):
        yield obj, kinds.TEMPLATE_SPEC


def _as_is(raw: Json) -> Json:
    """The raw value, for settings whose rules read any type (CIDR lists, add-on profiles)."""
    return raw


def embeds_raw_pool_name(res: AsoResource) -> bool:
    """Whether CAPZ reads the agent pool's ``azureName`` as written, with no ASO defaulting:
    true for the agent pools of AzureASOManagedMachinePool(Template)s (C14, R7)."""
    return res.parent is not None and res.parent.kind in kinds.MACHINE_POOL_KINDS


def _aso_pool(res: AsoResource, machine_pool: TopObject | None) -> AgentPool:
    read = FieldReader.at(res, "spec").read
    replicas: Field[int] = (
        read_field(machine_pool, ("spec", "replicas"), as_int)
        if machine_pool is not None
        else absent(res)
    )
    # ASO defaults azureName to metadata.name, but CAPZ builds the cluster's first pool list from
    # the raw azureName of the agent pools it embeds (C14), before any defaulting.
    name: Field[str] = read(known_str, "azureName")
    if not embeds_raw_pool_name(res):
        name = first_set(name, read_field(res, ("metadata", "name"), known_str))
    return AgentPool(
        api=Api.ASO,
        owner=res,
        machine_pool=machine_pool,
        name=name,
        mode=read(known_str, "mode"),
        os_type=read(known_str, "osType"),
        os_sku=read(known_str, "osSKU"),
        count=read(as_int, "count"),
        replicas=replicas,
        autoscaling=read(as_bool, "enableAutoScaling"),
        min_count=read(as_int, "minCount"),
        max_count=read(as_int, "maxCount"),
        max_pods=read(as_int, "maxPods"),
        node_labels=read(as_dict, "nodeLabels"),
        taints=read(as_list, "nodeTaints"),
        priority=read(known_str, "scaleSetPriority"),
        eviction_policy=read(known_str, "scaleSetEvictionPolicy"),
        spot_max_price=read(as_number, "spotMaxPrice"),
        pool_type=read(known_str, "type"),
        availability_zones=read(as_list, "availabilityZones"),
        subnet=read(as_dict, "vnetSubnetReference"),
        pod_subnet=read(as_dict, "podSubnetReference"),
        max_surge=read(known_str, "upgradeSettings", "maxSurge"),
        node_public_ip=read(as_bool, "enableNodePublicIP"),
        public_ip_prefix=read(_as_is, "nodePublicIPPrefixReference"),
        kubelet_config=read(as_dict, "kubeletConfig"),
        linux_os_config=read(as_dict, "linuxOSConfig"),
        local_port_range=read(known_str, "linuxOSConfig", "sysctls", "netIpv4IpLocalPortRange"),
    )


def _legacy_pool(
    obj: TopObject, machine_pool: TopObject | None, base: tuple[str, ...]
) -> AgentPool:
    """The pool an AzureManagedMachinePool (``base`` ``spec``) or its template (``base``
    ``spec.template.spec``) defines; fields the shape lacks are located where ``base`` would hold
    them."""
    read = FieldReader.at(obj, *base).read
    scaling = read(as_dict, "scaling")
    replicas: Field[int] = (
        read_field(machine_pool, ("spec", "replicas"), as_int)
        if machine_pool is not None
        else absent(obj)
    )
    return AgentPool(
        api=Api.LEGACY,
        owner=obj,
        machine_pool=machine_pool,
        # CAPZ's webhook defaults spec.name to metadata.name (§5.4); the template's webhook
        # defaults spec.template.spec.name to the template's, which every copy then carries.
        name=first_set(read(known_str, "name"), read_field(obj, ("metadata", "name"), known_str)),
        mode=read(known_str, "mode"),
        os_type=read(known_str, "osType"),
        os_sku=absent(obj, (*base, "osSKU")),
        count=absent(obj, (*base, "count")),
        replicas=replicas,
        autoscaling=Field(
            scaling.raw, True if scaling.value is not None else None, obj, scaling.rel
        ),
        min_count=read(as_int, "scaling", "minSize"),
        max_count=read(as_int, "scaling", "maxSize"),
        max_pods=read(as_int, "maxPods"),
        node_labels=read(as_dict, "nodeLabels"),
        taints=read(as_list, "taints"),
        priority=read(known_str, "scaleSetPriority"),
        eviction_policy=absent(obj, (*base, "scaleSetEvictionPolicy")),
        spot_max_price=read(as_number, "spotMaxPrice"),
        pool_type=absent(obj, (*base, "type")),
        availability_zones=read(as_list, "availabilityZones"),
        # Legacy pools use the control plane's virtual network; whether it brings its own NAT
        # gateway or route table is only known to CAPZ at run time.
        subnet=Field(UNKNOWN, None, obj, (*base, "subnetName")),
        pod_subnet=absent(obj, (*base, "podSubnetReference")),
        max_surge=absent(obj, (*base, "upgradeSettings", "maxSurge")),
        node_public_ip=read(as_bool, "enableNodePublicIP"),
        public_ip_prefix=read(_as_is, "nodePublicIPPrefixID"),
        kubelet_config=read(as_dict, "kubeletConfig"),
        linux_os_config=read(as_dict, "linuxOSConfig"),
        local_port_range=read(known_str, "linuxOSConfig", "sysctls", "netIpv4IPLocalPortRange"),
    )


def _aso_control_plane(res: AsoResource, group: ClusterGroup | None) -> ControlPlane:
    spec = FieldReader.at(res, "spec")
    read, network = spec.read, spec.below("networkProfile").read
    return ControlPlane(
        api=Api.ASO,
        owner=res,
        group=group,
        aks_name=first_set(
            read(known_str, "azureName"), read_field(res, ("metadata", "name"), known_str)
        ),
        dns_prefix=read(known_str, "dnsPrefix"),
        location=read(known_str, "location"),
        network_plugin=network(known_str, "networkPlugin"),
        network_plugin_mode=network(known_str, "networkPluginMode"),
        network_policy=network(known_str, "networkPolicy"),
        network_dataplane=network(known_str, "networkDataplane"),
        dns_service_ip=network(known_str, "dnsServiceIP"),
        outbound_type=network(known_str, "outboundType"),
        load_balancer=network(as_dict, "loadBalancerProfile"),
        service_cidrs=(
            network(_as_is, "serviceCidr"),
            network(_as_is, "serviceCidrs"),
        ),
        pod_cidrs=(network(_as_is, "podCidr"), network(_as_is, "podCidrs")),
        node_prefixes=(),
        aad_managed=read(as_bool, "aadProfile", "managed"),
        azure_rbac=read(as_bool, "aadProfile", "enableAzureRBAC"),
        **_settings_spelt_alike(spec),
    )


def _settings_spelt_alike(spec: FieldReader) -> dict[str, Field[Json]]:
    """Settings the legacy AzureManagedControlPlane spells exactly as the ManagedCluster does
    (CAPZ copied the AKS API's names there), read once for both shapes from the object's spec."""
    read, access = spec.read, spec.below("apiServerAccessProfile").read
    return {
        "disable_local_accounts": read(as_bool, "disableLocalAccounts"),
        "addon_profiles": read(_as_is, "addonProfiles"),
        "private_cluster": access(as_bool, "enablePrivateCluster"),
        "private_dns_zone": access(known_str, "privateDNSZone"),
        "private_fqdn": access(as_bool, "enablePrivateClusterPublicFQDN"),
        "authorized_ip_ranges": access(as_list, "authorizedIPRanges"),
        "identity_type": read(known_str, "identity", "type"),
        "oidc_issuer": read(as_bool, "oidcIssuerProfile", "enabled"),
        "workload_identity": read(as_bool, "securityProfile", "workloadIdentity", "enabled"),
    }


def _legacy_control_plane(
    obj: TopObject, group: ClusterGroup | None, base: tuple[str, ...]
) -> ControlPlane:
    """The cluster settings of an AzureManagedControlPlane (``base`` ``spec``) or its template
    (``base`` ``spec.template.spec``)."""
    spec = FieldReader.at(obj, *base)
    read = spec.read
    # The AKS cluster is named after the control plane. A template's copies get names of their
    # own, yet CAPZ's template webhook still checks the template's name the way it checks a
    # control plane's (validateName), so the name read is the object's own in both shapes.
    name = read_field(obj, ("metadata", "name"), known_str)
    # CAPZ defaults dnsPrefix to the control plane's name (§5.3); the template's class spec has
    # no dnsPrefix at all, each copy gets its own name's.
    dns_prefix: Field[str] = (
        absent(obj, (*base, "dnsPrefix"))
        if base == kinds.TEMPLATE_SPEC
        else first_set(read(known_str, "dnsPrefix"), name)
    )
    return ControlPlane(
        api=Api.LEGACY,
        owner=obj,
        group=group,
        aks_name=name,
        dns_prefix=dns_prefix,
        location=read(known_str, "location"),
        network_plugin=read(known_str, "networkPlugin"),
        network_plugin_mode=read(known_str, "networkPluginMode"),
        network_policy=read(known_str, "networkPolicy"),
        network_dataplane=read(known_str, "networkDataplane"),
        dns_service_ip=read(known_str, "dnsServiceIP"),
        outbound_type=read(known_str, "outboundType"),
        load_balancer=read(as_dict, "loadBalancerProfile"),
        service_cidrs=(),
        pod_cidrs=(),
        node_prefixes=(
            read(_as_is, "virtualNetwork", "cidrBlock"),
            read(_as_is, "virtualNetwork", "subnet", "cidrBlock"),
        ),
        aad_managed=read(as_bool, "aadProfile", "managed"),
        # CAPZ sends enableAzureRBAC equal to managed (§5.3).
        azure_rbac=read(as_bool, "aadProfile", "managed"),
        **_settings_spelt_alike(spec),
    )


@final
class Views:
    """Every agent pool and control plane of a manifest set, and which belong to which Cluster."""

    pools: Final[tuple[AgentPool, ...]]
    control_planes: Final[tuple[ControlPlane, ...]]
    _pools_of: Final[Mapping[ClusterGroup, tuple[AgentPool, ...]]]
    _control_plane_of: Final[Mapping[ClusterGroup, ControlPlane]]

    def __init__(
        self,
        pools: tuple[AgentPool, ...],
        control_planes: tuple[ControlPlane, ...],
        pools_of: Mapping[ClusterGroup, tuple[AgentPool, ...]],
        control_plane_of: Mapping[ClusterGroup, ControlPlane],
    ) -> None:
        self.pools, self.control_planes = pools, control_planes
        self._pools_of, self._control_plane_of = pools_of, control_plane_of

    def pools_of(self, group: ClusterGroup) -> tuple[AgentPool, ...]:
        """The pools of the Cluster's MachinePools, in MachinePool order."""
        return self._pools_of.get(group, ())

    def control_plane_of(self, group: ClusterGroup) -> ControlPlane | None:
        """The Cluster's AKS cluster: its control plane's first ManagedCluster (C4) or its
        AzureManagedControlPlane."""
        return self._control_plane_of.get(group)


def _build(ms: ManifestSet) -> Views:
    pools, by_owner = _build_pools(ms)
    control_planes, control_plane_of = _build_control_planes(ms)
    pools_of = {group: _pools_of_cluster(group, by_owner) for group in ms.clusters}
    return Views(tuple(pools), tuple(control_planes), pools_of, control_plane_of)


def _build_pools(ms: ManifestSet) -> tuple[list[AgentPool], dict[Owner, AgentPool]]:
    """Every agent pool (ASO, then legacy) and the pool of each owner object."""
    by_owner: dict[Owner, AgentPool] = {}
    pools: list[AgentPool] = []
    for res in ms.resources_of(kinds.AGENT_POOL):
        if res.spec is None:
            continue
        view = ms.pool_of.get(res.top) if res.parent is not None else None
        machine_pool = view.machine_pool if view is not None and view.agent_pool is res else None
        pool = _aso_pool(res, machine_pool)
        pools.append(pool)
        by_owner[res] = pool
    for obj, base in legacy_specs(ms, kinds.LEGACY_MACHINE_POOL):
        if as_dict(dig(obj.obj, *base)) is None:
            continue
        # A template is no Cluster's pool: MachinePools name the objects copied from it.
        view = ms.pool_of.get(obj) if base == kinds.SPEC else None
        machine_pool = view.machine_pool if view is not None and view.infra is obj else None
        pool = _legacy_pool(obj, machine_pool, base)
        pools.append(pool)
        by_owner[obj] = pool
    return pools, by_owner


def _build_control_planes(
    ms: ManifestSet,
) -> tuple[list[ControlPlane], dict[ClusterGroup, ControlPlane]]:
    """Every control plane (ASO, then legacy) and the one of each Cluster."""
    control_planes: list[ControlPlane] = []
    control_plane_of: dict[ClusterGroup, ControlPlane] = {}
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        if res.spec is None:
            continue
        group = ms.cluster_of.get(res.top) if res.parent is not None else None
        group = group if group is not None and group.managed_cluster is res else None
        control_plane = _aso_control_plane(res, group)
        control_planes.append(control_plane)
        if group is not None:
            control_plane_of[group] = control_plane
    for obj, base in legacy_specs(ms, kinds.LEGACY_CONTROL_PLANE):
        if as_dict(dig(obj.obj, *base)) is None:
            continue
        # A template is no Cluster's control plane, whatever refers to it.
        group = ms.cluster_of.get(obj) if base == kinds.SPEC else None
        group = group if group is not None and group.control_plane is obj else None
        control_plane = _legacy_control_plane(obj, group, base)
        control_planes.append(control_plane)
        if group is not None:
            control_plane_of[group] = control_plane
    return control_planes, control_plane_of


def _pools_of_cluster(
    group: ClusterGroup, by_owner: Mapping[Owner, AgentPool]
) -> tuple[AgentPool, ...]:
    """The pools of the Cluster's MachinePools, in MachinePool order."""
    members = []
    for view in group.pools:
        owner: Owner | None = view.agent_pool
        if (
            owner is None
            and view.infra is not None
            and view.infra.kind == kinds.LEGACY_MACHINE_POOL
        ):
            owner = view.infra
        if owner is not None and owner in by_owner:
            members.append(by_owner[owner])
    return tuple(members)


def views_of(ms: ManifestSet) -> Views:
    """The views of ``ms``, built on first use and shared by every rule (kept in the set's
    ``derived``, so they go when the set goes)."""
    found = ms.derived.get("views")
    if not isinstance(found, Views):
        found = ms.derived["views"] = _build(ms)
    return found


def is_aks_cluster(group: ClusterGroup) -> bool:
    """Whether the Cluster's control plane is an AKS one (either API), as its refs say."""
    ref = group.control_plane_ref
    return group.is_aso or (ref is not None and ref.kind == kinds.LEGACY_CONTROL_PLANE)


__all__ = [
    "UNKNOWN",
    "AgentPool",
    "Api",
    "ControlPlane",
    "Field",
    "Views",
    "embeds_raw_pool_name",
    "inside",
    "is_aks_cluster",
    "legacy_specs",
    "views_of",
    "written_in_template",
]
