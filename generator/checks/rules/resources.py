"""What each CAPZ object must embed (C4, C10), where ASO resources belong (§1.1), and that each
is defined once (§1.8).

CAPZ mutates and reads only the first ManagedCluster of a control plane and the first agent pool
of a machine pool; further copies would be applied verbatim and fight CAPZ, so the tool demands
exactly one.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet, TopObject


def _exactly_one(rule: Rule, obj: TopObject, group_kind: kinds.GroupKind) -> Iterator[Finding]:
    prefix, items = obj.items_path, obj.items
    if items is None and obj.kind in kinds.TEMPLATE_KINDS:
        return  # ClusterClass patches fill template resources in (§6.1)
    matches = [res for res in obj.resources if res.group_kind == group_kind]
    if not matches:
        yield rule.at(
            obj,
            prefix if items is not None else prefix[:-1],
            f"must contain a {group_kind[1]} ({group_kind[0]}); CAPZ cannot reconcile without one",
        )
        return
    for extra in matches[1:]:
        yield rule.at(
            extra,
            (),
            f"a second {group_kind[1]} in one {obj.kind}: CAPZ manages only the first "
            f"({matches[0].name or '?'}) and applies this one verbatim",
        )


MANAGED_CLUSTER = Rule(
    "CAPZ-CP-MANAGEDCLUSTER",
    "Each AzureASOManagedControlPlane(Template) embeds exactly one containerservice.azure.com "
    "ManagedCluster (C4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller finds no single ManagedCluster to manage",
)


@MANAGED_CLUSTER.checks
def _check_control_plane(ms: ManifestSet) -> Iterator[Finding]:
    for obj in ms.objects_of(*sorted(kinds.CONTROL_PLANE_KINDS)):
        yield from _exactly_one(MANAGED_CLUSTER, obj, kinds.MANAGED_CLUSTER)


AGENT_POOL = Rule(
    "CAPZ-MP-AGENTPOOL",
    "Each AzureASOManagedMachinePool(Template) embeds exactly one ManagedClustersAgentPool (C10)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller finds no single agent pool to manage",
)


@AGENT_POOL.checks
def _check_machine_pool(ms: ManifestSet) -> Iterator[Finding]:
    for obj in ms.objects_of(*sorted(kinds.MACHINE_POOL_KINDS)):
        yield from _exactly_one(AGENT_POOL, obj, kinds.AGENT_POOL)


# Kind -> the CAPZ kinds it belongs in.
_HOMES: dict[kinds.GroupKind, frozenset[str]] = {
    kinds.MANAGED_CLUSTER: kinds.CONTROL_PLANE_KINDS,
    kinds.AGENT_POOL: kinds.MACHINE_POOL_KINDS,
}


PLACEMENT = Rule(
    "CAPZ-RES-PLACEMENT",
    "ManagedCluster is embedded in the control plane and ManagedClustersAgentPool in a machine pool, "
    "where CAPZ manages them (§1.1, C4, C10)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ does not manage the resource where it is",
)


@PLACEMENT.checks
def _check_placement(ms: ManifestSet) -> Iterator[Finding]:
    for group_kind, homes in _HOMES.items():
        for res in ms.resources_of(group_kind):
            if res.parent is None or res.parent.kind in homes:
                continue
            home = " or ".join(sorted(homes))
            yield PLACEMENT.at(
                res,
                ("kind",),
                f"a {res.kind} inside {res.parent.kind} is not managed by CAPZ; it belongs in {home}",
            )


DUPLICATE = Rule(
    "CAPZ-RES-DUPLICATE",
    "No two objects or embedded ASO resources of one namespace share group, kind and metadata.name "
    "(§1.8: CAPZ, ASO and the API server identify objects by them)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="the apply overwrites one with the other, or two objects fight over one resource",
)


@DUPLICATE.checks
def _check_duplicates(ms: ManifestSet) -> Iterator[Finding]:
    """Objects are identified by group, kind, namespace and name (:meth:`ManifestSet.duplicate_of`):
    two definitions with one identity are one object, the later silently replacing the earlier.
    One finding per copy: the resources embedded in a copied object are part of that copy."""
    for obj, first in ms.duplicate_of.items():
        if isinstance(obj, AsoResource) and obj.top in ms.duplicate_of:
            continue
        top = obj.top if isinstance(obj, AsoResource) else obj
        first_top = first.top if isinstance(first, AsoResource) else first
        where = first.subject.label()
        if first_top.document.source != top.document.source:
            where += f" in {first_top.document.source}"
        yield DUPLICATE.at(
            obj,
            ("metadata", "name"),
            f"{obj.kind} {obj.name!r} is already defined ({where}): objects are identified by "
            "group, kind, namespace and name, so one would silently replace the other",
        )
