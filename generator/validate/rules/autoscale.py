"""Autoscaling and MachinePool replicas (§4.9, C12, C13).

With ``enableAutoScaling: true`` AKS owns the node count and CAPZ copies it back into the
MachinePool, marking it with ``cluster.x-k8s.io/replicas-managed-by: aks``; a different value of
that annotation blocks reconciliation (C13).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.findings import Finding, Severity
from generator.validate import kinds
from generator.validate.model import ManifestSet
from generator.validate.rules.base import Rule
from generator.validate.values import as_dict, as_int, dig


def _check_range(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = res.spec or {}
        low, high = as_int(spec.get("minCount")), as_int(spec.get("maxCount"))
        if low is not None and high is not None and low > high:
            yield RANGE.at(res, ("spec", "minCount"), f"{low} is above maxCount {high}")


def _check_replicas(ms: ManifestSet) -> Iterator[Finding]:
    for view in ms.pools:
        agent_pool = view.agent_pool
        if agent_pool is None:
            continue
        spec = agent_pool.spec or {}
        if spec.get("enableAutoScaling") is not True:
            continue
        low, high = as_int(spec.get("minCount")), as_int(spec.get("maxCount"))
        if low is None or high is None:
            missing = " and ".join(
                key for key, value in (("minCount", low), ("maxCount", high)) if value is None
            )
            yield REPLICAS.at(
                agent_pool,
                ("spec",),
                f"enableAutoScaling: true without {missing}; AKS expects both",
            )
            continue
        replicas = as_int(dig(view.machine_pool.obj, "spec", "replicas"))
        if replicas is not None and low <= high and not low <= replicas <= high:
            yield REPLICAS.at(
                view.machine_pool,
                ("spec", "replicas"),
                f"is {replicas}, outside the autoscaling range {low}-{high} of {agent_pool.ref()}; "
                "AKS will scale it into the range",
            )


def _check_managed_by(ms: ManifestSet) -> Iterator[Finding]:
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


RANGE = Rule(
    "CAPZ-POOL-AUTOSCALE",
    "Agent pool minCount <= maxCount (§4.9)",
    Severity.ERROR,
    _check_range,
)
REPLICAS = Rule(
    "CAPZ-POOL-AUTOSCALE-REPLICAS",
    "An autoscaled pool sets minCount and maxCount, and its MachinePool replicas lie within them (§4.9, C12)",
    Severity.WARNING,
    _check_replicas,
)
MANAGED_BY = Rule(
    "CAPZ-MP-REPLICAS-MANAGED-BY",
    "An autoscaled pool's MachinePool has no cluster.x-k8s.io/replicas-managed-by annotation other than "
    "'aks' (C13)",
    Severity.ERROR,
    _check_managed_by,
)

RULES = (RANGE, REPLICAS, MANAGED_BY)
