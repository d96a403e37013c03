"""Autoscaling and MachinePool replicas (§4.9, C12, C13, K23).

With autoscaling on, AKS owns the node count and CAPZ copies it back into the MachinePool (ASO
API: marking it ``cluster.x-k8s.io/replicas-managed-by: aks``; a different value of that
annotation blocks reconciliation, C13). The bounds rules run on
:class:`~generator.checks.views.AgentPool`, so they hold for ASO agent pools
(enableAutoScaling, minCount, maxCount) and legacy AzureManagedMachinePools (scaling.minSize,
scaling.maxSize) alike.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.checks.views import views_of
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import as_dict

RANGE = Rule(
    "CAPZ-POOL-AUTOSCALE",
    "Agent pool autoscaling minimum <= maximum, and a System pool's minimum is at least 1 "
    "(§4.9, K23)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the autoscaling bounds",
)


@RANGE.checks
def _check_range(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        low, high = pool.min_count.value, pool.max_count.value
        if low is not None and high is not None and low > high:
            yield RANGE.at(pool.min_count, (), f"{low} is above {pool.max_count.name} {high}")
        if low is not None and low < 1 and pool.is_system and pool.autoscaling.value is True:
            yield RANGE.at(
                pool.min_count,
                (),
                f"is {low}; a System pool keeps at least 1 node, so autoscaling starts at 1",
            )


REPLICAS = Rule(
    "CAPZ-POOL-AUTOSCALE-REPLICAS",
    "An autoscaled pool sets both bounds, and its MachinePool replicas lie within them (§4.9, C12)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="the autoscaler or AKS overrides the replicas",
)


@REPLICAS.checks
def _check_replicas(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        if pool.autoscaling.value is not True:
            continue
        low, high = pool.min_count.value, pool.max_count.value
        if low is None or high is None:
            missing = " and ".join(
                field.name for field in (pool.min_count, pool.max_count) if field.value is None
            )
            yield REPLICAS.at(
                pool.autoscaling.owner,
                pool.autoscaling.rel[:-1],
                f"{pool.autoscaling.name} without {missing}; AKS expects both",
            )
            continue
        replicas = pool.replicas.value
        if replicas is not None and low <= high and not low <= replicas <= high:
            yield REPLICAS.at(
                pool.replicas,
                (),
                f"is {replicas}, outside the autoscaling range {low}-{high} of {pool.ref()}; "
                "AKS will scale it into the range",
            )


MANAGED_BY = Rule(
    "CAPZ-MP-REPLICAS-MANAGED-BY",
    "An autoscaled pool's MachinePool has no cluster.x-k8s.io/replicas-managed-by annotation other than "
    "'aks' (C13)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's and another controller fight over the replicas",
)


@MANAGED_BY.checks
def _check_managed_by(ms: ManifestSet) -> Iterator[Finding]:
    """ASO API only: the legacy controller writes its own value ("true") itself (§5.2)."""
    for view in ms.pools:
        agent_pool = view.agent_pool
        if agent_pool is None:
            continue
        if (agent_pool.spec or {}).get("enableAutoScaling") is not True:
            continue
        annotations = as_dict(dig(view.machine_pool.obj, "metadata", "annotations")) or {}
        key = kinds.REPLICAS_MANAGED_BY_ANNOTATION
        if key in annotations and annotations[key] != "aks":
            yield MANAGED_BY.at(
                view.machine_pool,
                ("metadata", "annotations", key),
                f"is {annotations[key]!r}; with autoscaling CAPZ needs 'aks' (or no annotation) and fails otherwise",
                hint="drop the annotation; CAPZ adds it",
            )
