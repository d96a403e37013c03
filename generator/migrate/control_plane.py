"""AzureManagedControlPlane -> AzureASOManagedControlPlane with its ManagedCluster (reference
§5.3). The ManagedCluster itself is what CAPZ's legacy ``azure/services/managedclusters/spec.go``
builds (:mod:`generator.capzbuild.managed_cluster`, shared with the validator); this module plans
the cluster around it, applies the control plane's patches and turns remarks into notes.
"""

from __future__ import annotations

from generator.capzbuild.managed_cluster import build_managed_cluster, read_basics
from generator.capzbuild.reader import SpecReader
from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.build import apply_patches, carried_metadata, report_leftovers
from generator.migrate.cluster import infrastructure
from generator.migrate.extensions import extensions, fleets_member
from generator.migrate.plan import ClusterPlan, Item, Notes
from generator.names import with_v_prefix


def plan_cluster(
    cp: Item, cluster: Item | None, credential_secret: str | None, notes: Notes
) -> ClusterPlan:
    """Convert an AzureManagedControlPlane: the AzureASOManagedControlPlane with its ManagedCluster
    (and FleetsMember, Extensions), plus the infrastructure the AzureASOManagedCluster will embed."""
    r = SpecReader(cp.spec(), cp.origin, ["spec"])
    plan = _new_plan(cp, cluster, credential_secret, r, notes)
    tags = r.mapping("additionalTags")
    resources = [_managed_cluster(r, plan, cp, cluster, notes, tags)]
    resources += fleets_member(r, plan, cp, notes, tags)
    resources += extensions(r, plan, cp, notes)
    plan.infra_resources = infrastructure(r, plan, cp, notes, tags)
    version = r.text("version")
    aso_spec: JsonObject = {"resources": resources}
    if version is not None:
        aso_spec["version"] = with_v_prefix(version)
    plan.aso_control_plane = {
        "apiVersion": t.CAPZ_V1BETA1,
        "kind": t.ASO_CONTROL_PLANE,
        "metadata": carried_metadata(cp),
        "spec": aso_spec,
    }
    plan.legacy_aso_objects.append(("ManagedCluster", plan.mc_name))
    report_leftovers(r, cp, notes)
    return plan


def _new_plan(
    cp: Item, cluster: Item | None, credential_secret: str | None, r: SpecReader, notes: Notes
) -> ClusterPlan:
    """The names and settings every other conversion of this cluster reads."""
    cluster_name = cluster.name if cluster is not None else cp.name
    if cluster is None:
        notes.note(
            cp,
            "(object)",
            f"no Cluster in the input names this control plane; using {cluster_name!r} as the Cluster name",
        )
    plan = ClusterPlan(
        control_plane=cp,
        cluster=cluster,
        cluster_name=cluster_name,
        credential_secret=credential_secret or f"{cluster_name}-aso-credentials",
    )
    basics = read_basics(r, cp.name, cluster_name)
    plan.subscription = basics.subscription
    plan.location = basics.location
    plan.preview = basics.preview
    plan.resource_group = basics.resource_group
    plan.mc_name = basics.mc_name
    return plan


def _managed_cluster(
    r: SpecReader,
    plan: ClusterPlan,
    cp: Item,
    cluster: Item | None,
    notes: Notes,
    tags: JsonObject | None,
) -> JsonObject:
    """The embedded ManagedCluster, with the control plane's asoManagedClusterPatches applied."""
    built = build_managed_cluster(r, plan, cp.name, _cluster_cidrs(cluster, "services"), tags)
    for remark in built.remarks:
        notes.add(remark.category, cp.kind, cp.name, remark.path, remark.reason)
    managed_cluster = built.obj
    patches = r.sequence("asoManagedClusterPatches")
    if patches:
        managed_cluster = apply_patches(managed_cluster, patches, r, "asoManagedClusterPatches")
    return managed_cluster


def _cluster_cidrs(cluster: Item | None, which: str) -> list[Json]:
    if cluster is None:
        return []
    network = cluster.spec().get("clusterNetwork")
    blocks = network.get(which, {}).get("cidrBlocks") if isinstance(network, dict) else None
    return blocks if isinstance(blocks, list) else []
