"""AzureManagedMachinePool -> AzureASOManagedMachinePool with its ManagedClustersAgentPool
(reference §5.4). The agent pool itself is what CAPZ's legacy ``azure/services/agentpools/spec.go``
builds (:mod:`generator.capzbuild.agent_pool`, shared with the validator)."""

from __future__ import annotations

from generator.capzbuild.agent_pool import build_agent_pool
from generator.capzbuild.reader import SpecReader
from generator.migrate import tables as t
from generator.migrate.build import apply_patches, carried_metadata, report_leftovers
from generator.migrate.plan import ClusterPlan, Item, Notes, PoolPlan


def convert_machine_pool(item: Item, plan: ClusterPlan, notes: Notes) -> PoolPlan:
    """Convert an AzureManagedMachinePool to an AzureASOManagedMachinePool and its agent pool.

    The pool plan is also added to ``plan.pools``, where the MachinePool rewrite and the checklist
    find it.
    """
    r = SpecReader(item.spec(), item.origin, ["spec"])
    built = build_agent_pool(r, item.name, plan)
    for remark in built.remarks:
        notes.add(remark.category, item.kind, item.name, remark.path, remark.reason)
    pool = built.obj
    patches = r.sequence("asoManagedClustersAgentPoolPatches")
    if patches:
        pool = apply_patches(pool, patches, r, "asoManagedClustersAgentPoolPatches")
    report_leftovers(r, item, notes)
    converted = {
        "apiVersion": t.CAPZ_V1BETA1,
        "kind": t.ASO_MACHINE_POOL,
        "metadata": carried_metadata(item),
        "spec": {"resources": [pool]},
    }
    plan.legacy_aso_objects.append(("ManagedClustersAgentPool", built.object_name))
    result = PoolPlan(item, built.azure_name, built.object_name, built.autoscaled, converted)
    plan.pools.append(result)
    return result
