"""``topology plan``: the objects CAPI's topology controller would create or change for each
Cluster with a ``spec.topology`` among the inputs, computed offline.

For each such Cluster (in input order): its blueprint (:mod:`.blueprint`), the desired objects
before patches (:mod:`.desired`), the class's inline patches (:mod:`.patching`). The objects come
out in a stable order, per Cluster: the Cluster, the control plane, the infrastructure cluster,
then per machine pool of the topology (in its order) the MachinePool, its infrastructure machine
pool and its bootstrap config, the order of CAPZ's own non-class templates. The plan is pure:
it neither prints nor writes; the CLI validates and writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.documents import Document
from generator.findings import Finding, Severity
from generator.jsontypes import JsonObject
from generator.topology.blueprint import Blueprint, blueprints, name_of
from generator.topology.desired import desired_state
from generator.topology.patching import apply_patches
from generator.topology.variables import cluster_variables


@dataclass(frozen=True, slots=True)
class ClusterPlan:
    """What one Cluster's topology makes: ``objects`` in the plan's order."""

    cluster: str
    namespace: str
    objects: tuple[JsonObject, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """Every planned Cluster, and the patch findings (errors: the plan is not what CAPI would
    make; warnings: what it left out)."""

    clusters: tuple[ClusterPlan, ...]
    findings: tuple[Finding, ...]

    @property
    def objects(self) -> list[JsonObject]:
        """Every planned object, Cluster by Cluster."""
        return [obj for cluster in self.clusters for obj in cluster.objects]

    @property
    def has_errors(self) -> bool:
        """Whether a patch failed: then the plan is not what CAPI would make."""
        return any(finding.severity is Severity.ERROR for finding in self.findings)


def plan_cluster(blueprint: Blueprint) -> tuple[ClusterPlan, list[Finding]]:
    """One Cluster's planned objects and the findings of its class's patches."""
    desired = desired_state(blueprint)
    items = list(desired.items())
    patched, findings = apply_patches(blueprint.cluster_class, items, cluster_variables(blueprint))
    by_item = dict(zip((id(item) for item in items), patched, strict=True))
    objects: list[JsonObject] = [
        desired.cluster,
        by_item[id(desired.control_plane)],
        by_item[id(desired.infrastructure)],
    ]
    for pool in desired.pools:
        objects += [pool.pool, by_item[id(pool.infrastructure)], by_item[id(pool.bootstrap)]]
    namespace = blueprint.cluster_class.namespace
    plan = ClusterPlan(name_of(desired.cluster) or "", namespace, tuple(objects))
    return plan, findings


def plan_documents(documents: Sequence[Document]) -> Plan:
    """The plan of every Cluster with a topology among ``documents``; raises
    :class:`~generator.errors.TopologyError` for input it cannot plan."""
    clusters: list[ClusterPlan] = []
    findings: list[Finding] = []
    for blueprint in blueprints(documents):
        cluster, found = plan_cluster(blueprint)
        clusters.append(cluster)
        findings.extend(f for f in found if f not in findings)
    return Plan(tuple(clusters), tuple(findings))
