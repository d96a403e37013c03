"""Fields CAPZ owns inside embedded resources (§2.3, C5–C12, C17).

CAPZ server-side-applies these fields with forced ownership and rejects a user value that differs
from its own with a terminal "Incompatible" error, so they must be absent or equal to what CAPZ
derives from the Cluster, the control plane and the MachinePool.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import JsonObject, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet, TopObject
from generator.model.values import as_dict, as_int, as_list, known_str
from generator.names import strip_v


def _control_plane_version(cp: TopObject) -> str | None:
    if cp.kind == kinds.ASO_CONTROL_PLANE_TEMPLATE:
        return known_str(dig(cp.obj, "spec", "template", "spec", "version"))
    return known_str(dig(cp.obj, "spec", "version"))


def _first_managed_clusters(ms: ManifestSet) -> Iterator[tuple[TopObject, AsoResource]]:
    """(control plane, its first ManagedCluster): the one CAPZ mutates (C4)."""
    for cp in ms.objects_of(*sorted(kinds.CONTROL_PLANE_KINDS)):
        for res in cp.resources:
            if res.group_kind == kinds.MANAGED_CLUSTER:
                yield cp, res
                break


AGENT_POOL_PROFILES = Rule(
    "CAPZ-OWNED-AGENTPOOLPROFILES",
    "A ManagedCluster embedded in an AzureASOManagedControlPlane(Template) has no "
    "spec.agentPoolProfiles (C5)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller refuses a ManagedCluster with agentPoolProfiles",
)


@AGENT_POOL_PROFILES.checks
def _check_agent_pool_profiles(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        if res.parent is None or res.parent.kind not in kinds.CONTROL_PLANE_KINDS:
            continue  # a standalone ManagedCluster lists its pools itself; CAPZ builds none
        if (res.spec or {}).get("agentPoolProfiles") is not None:
            yield AGENT_POOL_PROFILES.at(
                res,
                ("spec", "agentPoolProfiles"),
                "must not be set: CAPZ builds it from the AzureASOManagedMachinePools",
                hint="declare each pool as an AzureASOManagedMachinePool with a ManagedClustersAgentPool",
            )


KUBERNETES_VERSION = Rule(
    "CAPZ-OWNED-K8S-VERSION",
    "ManagedCluster spec.kubernetesVersion is absent or equals the control plane spec.version without "
    "a leading v (C6)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller overwrites it with the control plane's version",
)


@KUBERNETES_VERSION.checks
def _check_kubernetes_version(ms: ManifestSet) -> Iterator[Finding]:
    for cp, mc in _first_managed_clusters(ms):
        wanted = _control_plane_version(cp)
        value = (mc.spec or {}).get("kubernetesVersion")
        if wanted is None or value is None or known_str(value) is None:
            continue
        if value != strip_v(wanted):
            yield KUBERNETES_VERSION.at(
                mc,
                ("spec", "kubernetesVersion"),
                f"is {value!r} but CAPZ sets it to {strip_v(wanted)!r} from the control plane's version "
                f"{wanted!r}; leave it out",
            )


_CIDRS = (("services", "serviceCidr"), ("pods", "podCidr"))


CIDR = Rule(
    "CAPZ-OWNED-CIDR",
    "ManagedCluster networkProfile.serviceCidr/podCidr are absent or equal the Cluster's "
    "clusterNetwork services/pods cidrBlocks[0] (C7, C8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller overwrites it with the Cluster's CIDRs",
)


@CIDR.checks
def _check_cidrs(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        mc = group.managed_cluster
        if mc is None:
            continue
        for block, field in _CIDRS:
            blocks = as_list(dig(group.cluster.obj, "spec", "clusterNetwork", block, "cidrBlocks"))
            wanted = known_str(blocks[0]) if blocks else None
            value = known_str(dig(mc.spec, "networkProfile", field))
            if wanted is not None and value is not None and value != wanted:
                yield CIDR.at(
                    mc,
                    ("spec", "networkProfile", field),
                    f"is {value!r} but CAPZ sets it to {wanted!r} from Cluster "
                    f"spec.clusterNetwork.{block}.cidrBlocks[0]; leave it out",
                )


def _pool_pairs(ms: ManifestSet) -> Iterator[tuple[TopObject, AsoResource]]:
    for view in ms.pools:
        agent_pool = view.agent_pool
        if agent_pool is not None:
            yield view.machine_pool, agent_pool


POOL_COUNT = Rule(
    "CAPZ-OWNED-POOL-COUNT",
    "Agent pool spec.count is absent or equals MachinePool spec.replicas, unless autoscaling (C12)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller overwrites it with the MachinePool's replicas",
)


@POOL_COUNT.checks
def _check_pool_count(ms: ManifestSet) -> Iterator[Finding]:
    for mp, pool in _pool_pairs(ms):
        spec: JsonObject = pool.spec or {}
        count, replicas = as_int(spec.get("count")), as_int(dig(mp.obj, "spec", "replicas"))
        if spec.get("enableAutoScaling") is True or count is None or replicas is None:
            continue
        if count != replicas:
            yield POOL_COUNT.at(
                pool,
                ("spec", "count"),
                f"is {count} but CAPZ sets it from MachinePool {mp.name!r} spec.replicas ({replicas}); leave it out",
            )


POOL_VERSION = Rule(
    "CAPZ-OWNED-POOL-VERSION",
    "Agent pool spec.orchestratorVersion is absent or equals the MachinePool version without a leading v (C11)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller overwrites it with the MachinePool's version",
)


@POOL_VERSION.checks
def _check_pool_version(ms: ManifestSet) -> Iterator[Finding]:
    for mp, pool in _pool_pairs(ms):
        wanted = known_str(dig(mp.obj, "spec", "template", "spec", "version"))
        value = (pool.spec or {}).get("orchestratorVersion")
        if wanted is None or known_str(value) is None:
            continue
        if value != strip_v(wanted):
            yield POOL_VERSION.at(
                pool,
                ("spec", "orchestratorVersion"),
                f"is {value!r} but CAPZ sets it to {strip_v(wanted)!r} from MachinePool {mp.name!r} "
                "spec.template.spec.version; leave it out",
            )


_CAPZ_MANAGED = {
    kinds.ASO_CLUSTER: ("spec", "controlPlaneEndpoint"),
    kinds.ASO_MACHINE_POOL: ("spec", "providerIDList"),
}


CAPZ_FIELDS = Rule(
    "CAPZ-OWNED-CAPZ-FIELDS",
    "AzureASOManagedCluster spec.controlPlaneEndpoint and AzureASOManagedMachinePool spec.providerIDList "
    "are left to CAPZ (§2.3)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ's controller sets these fields itself",
)


@CAPZ_FIELDS.checks
def _check_capz_fields(ms: ManifestSet) -> Iterator[Finding]:
    for kind, path in _CAPZ_MANAGED.items():
        for obj in ms.objects_of(kind):
            value = dig(obj.obj, *path)
            if value:  # an empty endpoint or list is what CAPZ starts from
                yield CAPZ_FIELDS.at(obj, path, f"is written by CAPZ; do not set it in a {kind}")


KUBECONFIG_SECRET = Rule(
    "CAPZ-OWNED-KUBECONFIG",
    "With disableLocalAccounts: true the ManagedCluster uses userCredentials (no adminCredentials) "
    "named other than <Cluster>-kubeconfig (C9, C17, §4.2)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller gets no usable kubeconfig for the cluster",
)


@KUBECONFIG_SECRET.checks
def _check_kubeconfig_secret(ms: ManifestSet) -> Iterator[Finding]:
    for cp, mc in _first_managed_clusters(ms):
        spec = mc.spec or {}
        if spec.get("disableLocalAccounts") is not True:
            continue
        secrets = as_dict(dig(spec, "operatorSpec", "secrets")) or {}
        if secrets.get("adminCredentials") is not None:
            yield KUBECONFIG_SECRET.at(
                mc,
                ("spec", "operatorSpec", "secrets", "adminCredentials"),
                "admin credentials do not exist with disableLocalAccounts: true; use userCredentials",
            )
            continue
        user = secrets.get("userCredentials")
        if user is None:
            yield KUBECONFIG_SECRET.at(
                mc,
                ("spec", "disableLocalAccounts"),
                "needs operatorSpec.secrets.userCredentials: otherwise CAPZ requests admin credentials, which "
                "do not exist without local accounts",
            )
            continue
        group = ms.cluster_of.get(cp)
        cluster_name = group.cluster.name if group is not None else None
        name = known_str(dig(user, "name"))
        if cluster_name is not None and name == f"{cluster_name}-kubeconfig":
            yield KUBECONFIG_SECRET.at(
                mc,
                ("spec", "operatorSpec", "secrets", "userCredentials", "name"),
                f"must not be {name!r}: CAPZ writes that Secret itself when local accounts are disabled",
            )
