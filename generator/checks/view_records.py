"""The two view records of :mod:`generator.checks.views`: an AKS agent pool and an AKS
cluster's own settings, whichever CAPZ API wrote them.

Plain classes, not dataclasses, in a module of their own: compiled, each is a native class with
a native constructor (a view is built for every pool and control plane of the input, and a
compiled dataclass still constructs through the Python ``__init__`` that ``dataclasses`` writes,
one ``object.__setattr__`` per field), and no worker pays ``dataclasses`` for them at import.
Written out, their constructors would not fit in :mod:`generator.checks.views`.
"""

from __future__ import annotations

from typing import Final, final

from generator.checks.fields import Api, Field, Owner
from generator.jsontypes import Json, JsonObject
from generator.model import kinds
from generator.model.manifests import AsoResource, ClusterGroup, TopObject


class WrittenView:
    """What both views are: settings of one object, ``owner``, written in one of the two APIs
    (``api``)."""

    api: Final[Api]
    owner: Final[Owner]  # a ManagedCluster(sAgentPool) or an AzureManaged* object

    def __init__(self, api: Api, owner: Owner) -> None:
        self.api, self.owner = api, owner

    @property
    def in_template(self) -> bool:
        """Whether the settings are written in a ClusterClass template (of either API), which
        CAPZ's webhooks check with fewer rules than the objects copied from it."""
        return written_in_template(self.owner)

    def ref(self) -> str:
        """``Kind/name`` of the object that defines the settings, for messages."""
        return self.owner.ref()


@final
class AgentPool(WrittenView):
    """An AKS agent pool in either API shape."""

    machine_pool: Final[TopObject | None]  # the CAPI MachinePool whose replicas seed the node count
    name: Final[Field[str]]
    mode: Final[Field[str]]
    os_type: Final[Field[str]]
    os_sku: Final[Field[str]]
    count: Final[Field[int]]
    replicas: Final[Field[int]]
    autoscaling: Final[Field[bool]]
    min_count: Final[Field[int]]
    max_count: Final[Field[int]]
    max_pods: Final[Field[int]]
    node_labels: Final[Field[JsonObject]]
    taints: Final[Field[list[Json]]]
    priority: Final[Field[str]]
    eviction_policy: Final[Field[str]]
    spot_max_price: Final[Field[float]]
    pool_type: Final[Field[str]]
    availability_zones: Final[Field[list[Json]]]
    subnet: Final[Field[JsonObject]]  # ASO vnetSubnetReference; legacy: decided by CAPZ
    pod_subnet: Final[Field[JsonObject]]  # ASO podSubnetReference; legacy pools have none
    max_surge: Final[Field[str]]  # ASO upgradeSettings.maxSurge; legacy pools have none
    node_public_ip: Final[Field[bool]]
    public_ip_prefix: Final[Field[Json]]
    kubelet_config: Final[Field[JsonObject]]
    linux_os_config: Final[Field[JsonObject]]
    local_port_range: Final[Field[str]]

    def __init__(
        self,
        *,
        api: Api,
        owner: Owner,
        machine_pool: TopObject | None,
        name: Field[str],
        mode: Field[str],
        os_type: Field[str],
        os_sku: Field[str],
        count: Field[int],
        replicas: Field[int],
        autoscaling: Field[bool],
        min_count: Field[int],
        max_count: Field[int],
        max_pods: Field[int],
        node_labels: Field[JsonObject],
        taints: Field[list[Json]],
        priority: Field[str],
        eviction_policy: Field[str],
        spot_max_price: Field[float],
        pool_type: Field[str],
        availability_zones: Field[list[Json]],
        subnet: Field[JsonObject],
        pod_subnet: Field[JsonObject],
        max_surge: Field[str],
        node_public_ip: Field[bool],
        public_ip_prefix: Field[Json],
        kubelet_config: Field[JsonObject],
        linux_os_config: Field[JsonObject],
        local_port_range: Field[str],
    ) -> None:
        super().__init__(api, owner)
        self.machine_pool, self.name = machine_pool, name
        self.mode, self.os_type, self.os_sku, self.count = mode, os_type, os_sku, count
        self.replicas, self.autoscaling, self.min_count = replicas, autoscaling, min_count
        self.max_count, self.max_pods, self.node_labels = max_count, max_pods, node_labels
        self.taints, self.priority, self.eviction_policy = taints, priority, eviction_policy
        self.spot_max_price, self.pool_type = spot_max_price, pool_type
        self.availability_zones, self.subnet = availability_zones, subnet
        self.pod_subnet, self.max_surge = pod_subnet, max_surge
        self.node_public_ip, self.public_ip_prefix = node_public_ip, public_ip_prefix
        self.kubelet_config, self.linux_os_config = kubelet_config, linux_os_config
        self.local_port_range = local_port_range

    @property
    def is_system(self) -> bool:
        """Whether ``mode`` is ``System`` (an unknown mode is not)."""
        return self.mode.value == "System"

    @property
    def is_windows(self) -> bool:
        """Whether ``osType`` is ``Windows`` (an unknown type is not)."""
        return self.os_type.value == "Windows"


def written_in_template(owner: Owner) -> bool:
    """Whether ``owner`` is an AzureManaged*Template or an ASO resource embedded in an
    AzureASOManaged*Template."""
    if isinstance(owner, AsoResource):
        return owner.parent is not None and owner.parent.kind in kinds.TEMPLATE_KINDS
    return owner.kind in kinds.LEGACY_TEMPLATE_KINDS


@final
class ControlPlane(WrittenView):
    """The AKS cluster's own settings (network, access, identity) in either API shape."""

    group: Final[ClusterGroup | None]  # the Cluster it is "the" AKS cluster of, when in the set
    aks_name: Final[Field[str]]
    dns_prefix: Final[Field[str]]
    location: Final[Field[str]]
    network_plugin: Final[Field[str]]
    network_plugin_mode: Final[Field[str]]
    network_policy: Final[Field[str]]
    network_dataplane: Final[Field[str]]
    dns_service_ip: Final[Field[str]]
    outbound_type: Final[Field[str]]
    load_balancer: Final[Field[JsonObject]]
    service_cidrs: Final[tuple[Field[Json], ...]]  # ranges the control plane object itself writes
    pod_cidrs: Final[tuple[Field[Json], ...]]
    # node network written on the control plane (legacy)
    node_prefixes: Final[tuple[Field[Json], ...]]
    aad_managed: Final[Field[bool]]
    # aadProfile.enableAzureRBAC; legacy: CAPZ sets it to aadProfile.managed
    azure_rbac: Final[Field[bool]]
    disable_local_accounts: Final[Field[bool]]
    addon_profiles: Final[Field[Json]]  # ASO: map keyed by add-on name; legacy: list of {name, ...}
    private_cluster: Final[Field[bool]]
    private_dns_zone: Final[Field[str]]
    private_fqdn: Final[Field[bool]]
    authorized_ip_ranges: Final[Field[list[Json]]]
    identity_type: Final[Field[str]]
    oidc_issuer: Final[Field[bool]]
    workload_identity: Final[Field[bool]]

    def __init__(
        self,
        *,
        api: Api,
        owner: Owner,
        group: ClusterGroup | None,
        aks_name: Field[str],
        dns_prefix: Field[str],
        location: Field[str],
        network_plugin: Field[str],
        network_plugin_mode: Field[str],
        network_policy: Field[str],
        network_dataplane: Field[str],
        dns_service_ip: Field[str],
        outbound_type: Field[str],
        load_balancer: Field[JsonObject],
        service_cidrs: tuple[Field[Json], ...],
        pod_cidrs: tuple[Field[Json], ...],
        node_prefixes: tuple[Field[Json], ...],
        aad_managed: Field[bool],
        azure_rbac: Field[bool],
        disable_local_accounts: Field[bool],
        addon_profiles: Field[Json],
        private_cluster: Field[bool],
        private_dns_zone: Field[str],
        private_fqdn: Field[bool],
        authorized_ip_ranges: Field[list[Json]],
        identity_type: Field[str],
        oidc_issuer: Field[bool],
        workload_identity: Field[bool],
    ) -> None:
        super().__init__(api, owner)
        self.group, self.aks_name = group, aks_name
        self.dns_prefix, self.location, self.network_plugin = dns_prefix, location, network_plugin
        self.network_plugin_mode, self.network_policy = network_plugin_mode, network_policy
        self.network_dataplane, self.dns_service_ip = network_dataplane, dns_service_ip
        self.outbound_type, self.load_balancer = outbound_type, load_balancer
        self.service_cidrs, self.pod_cidrs = service_cidrs, pod_cidrs
        self.node_prefixes, self.aad_managed = node_prefixes, aad_managed
        self.azure_rbac, self.disable_local_accounts = azure_rbac, disable_local_accounts
        self.addon_profiles, self.private_cluster = addon_profiles, private_cluster
        self.private_dns_zone, self.private_fqdn = private_dns_zone, private_fqdn
        self.authorized_ip_ranges, self.identity_type = authorized_ip_ranges, identity_type
        self.oidc_issuer, self.workload_identity = oidc_issuer, workload_identity
