"""ASO ownership: ``spec.owner`` of every ASO resource (R6–R10, R13, C15, O1).

ASO resolves ``owner.name`` in the resource's own namespace and waits forever for an owner that
never appears (O10), so a dangling or mistyped owner shows up only as a cluster that never becomes
ready. Owners given as ``armId`` point at Azure resources outside Kubernetes and are not checked,
except for agent pools, whose owner CAPZ itself looks up by name.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet
from generator.model.values import as_dict, as_str, known_str


def _expected_owner(res: AsoResource, owner: dict[str, object]) -> kinds.GroupKind | None:
    """The owner's kind: explicit ``group``/``kind`` (arbitrary owners, R10) or the fixed one."""
    group, kind = as_str(owner.get("group")), as_str(owner.get("kind"))
    if group and kind:
        return group, kind
    return kinds.OWNER_KINDS.get(res.group_kind)


OWNER = Rule(
    "CAPZ-ASO-OWNER",
    "spec.owner.name of an ASO resource names a resource of the owner kind in the set "
    "(ManagedCluster→ResourceGroup, agent pool/MaintenanceConfiguration→ManagedCluster, "
    "VirtualNetwork→ResourceGroup, subnet→VirtualNetwork, FederatedIdentityCredential→"
    "UserAssignedIdentity, explicit group/kind owners ...); skipped for fragments without a Cluster or "
    "ClusterClass (R6, R7, R9, R10, R13)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ASO waits for the missing owner and never creates the resource",
)


@OWNER.checks
def _check_owner(ms: ManifestSet) -> Iterator[Finding]:
    if not ms.complete:
        return  # a fragment's owners may well live in the running cluster
    for res in ms.resources:
        owner = as_dict((res.spec or {}).get("owner"))
        if owner is None:
            continue  # required by the schema (O1)
        name = known_str(owner.get("name"))
        expected = _expected_owner(res, owner)
        if name is None or expected is None or owner.get("armId"):
            continue  # armId owner (with a name too: ASO-OWNER's), template, or unknown owner kind
        if ms.find_resource(expected, name, res.namespace) is not None:
            continue
        elsewhere = sorted(
            {
                other.namespace or "<none>"
                for other in ms.find_resource_any_namespace(expected, name)
            }
        )
        found = f" (found in namespace {', '.join(elsewhere)})" if elsewhere else ""
        finding = OWNER.at(
            res,
            ("spec", "owner", "name"),
            f"owner {expected[1]} {name!r} ({expected[0]}) is not in the validated set in namespace "
            f"{res.namespace or '<none>'}{found}",
            hint=f"add the {expected[1]} or use spec.owner.armId for an Azure resource not managed here",
        )
        if (res.group, res.kind) == kinds.FLEETS_MEMBER:
            # One Fleet hub serves many clusters and is usually applied on its own: a member that
            # names it is fine as long as it exists by then, so this is a reminder, not an error.
            finding = replace(
                finding,
                severity=Severity.WARNING,
                message=f"{finding.message}; the Fleet must exist there before ASO can create "
                "the member",
            )
        yield finding


POOL_OWNER_NAME = Rule(
    "CAPZ-POOL-OWNER-NAME",
    "The owner of a ManagedClustersAgentPool embedded in an AzureASOManagedMachinePool(Template) "
    "uses name, not only armId (R7, C15)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller cannot find the pool's ManagedCluster",
)


@POOL_OWNER_NAME.checks
def _check_pool_owner_name(ms: ManifestSet) -> Iterator[Finding]:
    """Only pools CAPZ manages: ASO itself accepts an agent pool owned by ARM ID."""
    for res in ms.resources_of(kinds.AGENT_POOL):
        if res.parent is None or res.parent.kind not in kinds.MACHINE_POOL_KINDS:
            continue
        owner = as_dict((res.spec or {}).get("owner"))
        if owner is None:
            continue
        if owner.get("name") is None and owner.get("armId") is not None:
            yield POOL_OWNER_NAME.at(
                res,
                ("spec", "owner"),
                "must name the ManagedCluster (owner.name), not only its armId: CAPZ reads the "
                "ManagedCluster by that name",
            )


POOL_OWNER_CLUSTER = Rule(
    "CAPZ-POOL-OWNER-CLUSTER",
    "An agent pool is owned by the ManagedCluster of its own Cluster's control plane (R8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller attaches the pool to another cluster, or AKS refuses it",
)


@POOL_OWNER_CLUSTER.checks
def _check_pool_owner_cluster(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        managed_cluster = group.managed_cluster
        expected = known_str(managed_cluster.name) if managed_cluster is not None else None
        if expected is None:
            continue
        for pool in group.pools:
            agent_pool = pool.agent_pool
            if agent_pool is None:
                continue
            name = known_str((as_dict((agent_pool.spec or {}).get("owner")) or {}).get("name"))
            if name is not None and name != expected:
                yield POOL_OWNER_CLUSTER.at(
                    agent_pool,
                    ("spec", "owner", "name"),
                    f"is {name!r} but the ManagedCluster of Cluster {group.cluster.name!r} is {expected!r}",
                )
