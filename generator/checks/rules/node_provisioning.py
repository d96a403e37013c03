"""Node auto-provisioning (NAP): what AKS needs of a cluster whose nodes Karpenter provisions.

AKS refuses to create or update a cluster with ``nodeProvisioningProfile.mode: Auto`` whose
network plugin is not Azure CNI (kubenet, or none), whose network policy is Calico, that has agent
pools with the cluster autoscaler, or that has Windows agent pools (Microsoft Learn, "Node
auto-provisioning" and "Node auto-provisioning networking":
https://learn.microsoft.com/azure/aks/node-autoprovision, Limitations and Unsupported features).
Azure CNI overlay with the Cilium dataplane is what those pages recommend, not what they require,
so it is not asked for here.
An ``Automatic`` SKU cluster runs NAP whether or not the manifest says so (AKS Automatic
preconfigures it: https://learn.microsoft.com/azure/aks/intro-aks-automatic), so a ManagedCluster
of that SKU with no mode counts as ``Auto``.

The settings exist only on the ASO ManagedCluster (``v1api20250801`` and later): the legacy
AzureManagedControlPlane has no field for them, so these rules read ManagedClusters and the
ManagedClustersAgentPools they own. A value not yet known (a placeholder) is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import JsonObject, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet
from generator.model.values import is_templated, known_str

AUTOMATIC_SKU = "Automatic"


def node_provisioning_mode(spec: JsonObject) -> str | None:
    """The NAP mode AKS runs the cluster with: the one written, else ``Auto`` for the Automatic
    SKU; ``None`` when that is not known here (a placeholder)."""
    written = dig(spec, "nodeProvisioningProfile", "mode")
    if written is not None:
        return known_str(written)
    sku = dig(spec, "sku", "name")
    if is_templated(sku):
        return None
    return "Auto" if sku == AUTOMATIC_SKU else "Manual"


def pools_of(ms: ManifestSet, cluster: AsoResource) -> Iterator[AsoResource]:
    """The ManagedClustersAgentPools of the set whose owner is ``cluster`` (by name and namespace:
    CAPZ's embedded pools name their ManagedCluster that way, R7)."""
    for pool in ms.resources_of(kinds.AGENT_POOL):
        owner = dig(pool.obj, "spec", "owner", "name")
        if owner == cluster.name and pool.namespace == cluster.namespace:
            yield pool


def _auto_clusters(ms: ManifestSet) -> Iterator[tuple[AsoResource, JsonObject]]:
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        if res.spec is not None and node_provisioning_mode(res.spec) == "Auto":
            yield res, res.spec


# networkProfile field and the value NAP needs.
_NETWORK = (("networkPlugin", "azure"),)
_REFUSED_POLICIES = ("calico",)

NETWORK = Rule(
    "CAPZ-NAP-NETWORK",
    "A ManagedCluster with node auto-provisioning (nodeProvisioningProfile.mode Auto, or sku.name "
    "Automatic) uses Azure CNI (networkPlugin azure, not kubenet or none) and no Calico network "
    "policy; overlay with the Cilium dataplane is recommended, not required (§4.4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses node auto-provisioning on any other network",
)


@NETWORK.checks
def _check_network(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _auto_clusters(ms):
        automatic = dig(spec, "sku", "name") == AUTOMATIC_SKU
        profile = dig(spec, "networkProfile")
        # Left out, the plugin is AKS's to choose: the Automatic SKU chooses what NAP needs, and
        # with no plugin written at all the defaults are not judged here.
        undecided = automatic or dig(profile, "networkPlugin") is None
        for field, needed in _NETWORK:
            value = dig(profile, field)
            if is_templated(value) or value == needed or (value is None and undecided):
                continue
            shown = "left out" if value is None else f"is {value!r}"
            yield NETWORK.at(
                res,
                ("spec", "networkProfile", field),
                f"{shown}; node auto-provisioning needs {needed}",
                hint="set networkPlugin azure (overlay with the Cilium dataplane is recommended)",
            )
        policy = known_str(dig(profile, "networkPolicy"))
        if policy is not None and policy.lower() in _REFUSED_POLICIES:
            yield NETWORK.at(
                res,
                ("spec", "networkProfile", "networkPolicy"),
                f"is {policy!r}; node auto-provisioning does not support Calico network policy "
                "(cilium or azure, or leave it out)",
            )


POOLS = Rule(
    "CAPZ-NAP-POOLS",
    "The agent pools of a ManagedCluster with node auto-provisioning run Linux and do not use "
    "the cluster autoscaler (enableAutoScaling; §4.9, §4.10)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses node auto-provisioning with Windows or autoscaled agent pools",
)


@POOLS.checks
def _check_pools(ms: ManifestSet) -> Iterator[Finding]:
    for res, _ in _auto_clusters(ms):
        for pool in pools_of(ms, res):
            spec = pool.spec or {}
            if spec.get("osType") == "Windows":
                yield POOLS.at(
                    pool,
                    ("spec", "osType"),
                    f"is Windows; {res.ref()} uses node auto-provisioning, which has no Windows pools",
                )
            if spec.get("enableAutoScaling") is True:
                yield POOLS.at(
                    pool,
                    ("spec", "enableAutoScaling"),
                    f"is true; {res.ref()} uses node auto-provisioning, which replaces the "
                    "cluster autoscaler",
                    hint="leave out enableAutoScaling, minCount and maxCount",
                )
