"""What happens to objects the new revision no longer has: the delete webhooks, and renames.

An object present only in the old revision is deleted when the new one is applied with pruning
(``kubectl apply --prune``, Flux, Argo CD). CAPZ v1.26.0's AzureManagedMachinePool(Template)
``ValidateDelete`` refuses deleting the last System pool of a Cluster that stays
(``validateLastSystemNodePool``), and AKS refuses the same for an ASO agent pool; CAPI v1.13.3's
ClusterClass ``ValidateDelete`` refuses deleting a class a Cluster still uses. A renamed Cluster,
control plane or ManagedCluster is no rename to the API server: it is a delete and a create, and
CAPZ and ASO delete the AKS cluster and create another.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from generator.checks.changes import Removal
from generator.checks.rules.base import LEGACY_POOLS, Rule
from generator.checks.rules.update_capi import uses_class
from generator.checks.views import views_of
from generator.findings import Finding, Gate, Operation, Severity
from generator.model import kinds
from generator.model.manifests import ClusterGroup, ManifestSet, TopObject

SYSTEM_POOL = Rule(
    "CAPZ-DELETE-SYSTEM-POOL",
    "on delete: the last System pool of a Cluster that stays is not deleted "
    "(CAPZ azuremanagedmachinepool_webhook.go, azuremanagedmachinepooltemplate_webhook.go:ValidateDelete, "
    "validateLastSystemNodePool; AKS for an ASO agent pool)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses deleting a cluster's last System pool",
    webhook_kinds=LEGACY_POOLS,
    operation=Operation.DELETE,
)


def _group_of(ms: ManifestSet, pool_object: TopObject) -> ClusterGroup | None:
    views = views_of(ms)
    for group in ms.clusters:
        for pool in views.pools_of(group):
            if pool.owner is pool_object or getattr(pool.owner, "top", None) is pool_object:
                return group
    return None


@SYSTEM_POOL.checks_delete
def _check_system_pool(removal: Removal) -> Iterator[Finding]:
    group = _group_of(removal.old_set, removal.old)
    if group is None:
        return
    views = views_of(removal.old_set)
    removed = [
        pool
        for pool in views.pools_of(group)
        if (pool.owner is removal.old or getattr(pool.owner, "top", None) is removal.old)
        and pool.is_system
    ]
    if not removed:
        return
    cluster = group.cluster
    stays = removal.new_set.find(kinds.CLUSTER, cluster.name or "", cluster.namespace)
    if stays is None or stays not in removal.new_set.cluster_of:
        return  # the Cluster goes too: its pools go with it
    remaining = views_of(removal.new_set).pools_of(removal.new_set.cluster_of[stays])
    if any(pool.is_system or pool.mode.unknown for pool in remaining):
        return
    yield SYSTEM_POOL.at(
        removal,
        (),
        f"deletes the last System pool of Cluster {cluster.name!r}, which stays; "
        "add another System pool first",
    )


CLASS_IN_USE = Rule(
    "CAPZ-DELETE-CLUSTERCLASS",
    "on delete: a ClusterClass is not deleted while a Cluster of the new revision uses it "
    "(CAPI internal/webhooks/clusterclass.go:ValidateDelete)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.DELETE,
)


@CLASS_IN_USE.checks_delete
def _check_class(removal: Removal) -> Iterator[Finding]:
    if removal.old.kind != kinds.CLUSTER_CLASS:
        return
    users = [
        cluster.name or "?"
        for cluster in removal.new_set.objects_of(kinds.CLUSTER)
        if uses_class(cluster, removal.old)
    ]
    if users:
        yield CLASS_IN_USE.at(
            removal, (), f"ClusterClass deleted while Cluster(s) {', '.join(users[:3])} use it"
        )


RECREATE = Rule(
    "CAPZ-RENAME-RECREATE",
    "on delete: a Cluster, AKS control plane or ManagedCluster that reappears under another name "
    "is deleted and created again, and so is its AKS cluster (the API server names objects by "
    "name; ASO v2 genruntime ValidateWriteOnceProperties keeps azureName)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ and ASO delete the old AKS cluster and create a new one",
    operation=Operation.DELETE,
)

_RENAMED_KINDS = frozenset(
    {kinds.CLUSTER, kinds.LEGACY_CONTROL_PLANE, kinds.ASO_CONTROL_PLANE, "ManagedCluster"}
)


def _renamed_to(removal: Removal) -> TopObject | None:
    """The new object the removed one reappears as: the same kind and namespace, not in the
    old revision, and equal to it once the old name is replaced by the new one (or the only
    such object)."""
    old = removal.old
    added = [
        obj
        for obj in removal.new_set.objects_of(old.kind)
        if obj.namespace == old.namespace
        and obj.group == old.group
        and obj.name
        and removal.old_set.find(old.kind, obj.name, old.namespace) is None
    ]
    text = json.dumps(old.obj, sort_keys=True)
    for obj in added:
        if old.name and json.dumps(obj.obj, sort_keys=True) == text.replace(
            old.name, obj.name or ""
        ):
            return obj
    return added[0] if len(added) == 1 else None


@RECREATE.checks_delete
def _check_recreate(removal: Removal) -> Iterator[Finding]:
    if removal.old.kind not in _RENAMED_KINDS:
        return
    new = _renamed_to(removal)
    if new is None:
        return
    yield RECREATE.at(
        new,
        ("metadata", "name"),
        f"{removal.old.kind} {removal.old.name!r} is renamed to {new.name!r}: the API server "
        "deletes the old object and creates a new one, and the AKS cluster is deleted and "
        "created again; keep the name to update it in place",
    )
