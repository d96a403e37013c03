"""``migrate --adopt``: the objects of CAPZ's adoption procedure for one migrated cluster.

CAPZ migrates a legacy cluster by adopting its Azure resources from a new namespace
(``managed/asomanagedcluster.md``, "Migrating existing Clusters"; ``adopting-clusters.md``; reference
§5.7 step 4, C22, R6, R15). The user applies, in this order and waiting in between:

1. the ResourceGroup, naming the existing group by ``azureName``, with ``credential-from``;
2. the ManagedCluster, annotated ``sigs.k8s.io/cluster-api-provider-azure-adopt: "true"``, owned by
   that ResourceGroup object (R6: by name), with ``spec.agentPoolProfiles`` copied from the old
   ManagedCluster's ``.status.agentPoolProfiles`` (the legacy controller keeps them out of the spec);
3. one ManagedClustersAgentPool per pool, annotated likewise and owned by the ManagedCluster (R15).

CAPZ then scaffolds Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane and the machine
pools itself. The objects are built from the same conversion as the declarative output, so both
modes describe the cluster alike.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from generator.errors import Location, MigrationError
from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.live import LiveCluster, find_live
from generator.migrate.plan import ClusterPlan, Notes
from generator.migrate.shape import fit
from generator.schemastore.store import SchemaStore

# Fields of a ManagedClustersAgentPool spec that are not part of an agent pool profile.
_POOL_ONLY = ("azureName", "owner", "operatorSpec")
COMPUTED_PROFILES_CAVEAT = (
    "computed from the AzureManagedMachinePools (count from their MachinePools' replicas) because "
    "no --live dump was given: count, orchestratorVersion and every setting AKS defaulted (osDiskType, maxPods, osSKU, "
    "kubeletDiskType, upgradeSettings...) may differ from the live cluster; prefer "
    "`--live` with the output of `kubectl get managedcluster.containerservice.azure.com/<name> -o json`"
)


def adopt_all(
    plans: Sequence[ClusterPlan],
    namespace: str | None,
    live: Sequence[LiveCluster],
    store: SchemaStore | None,
    notes: Notes,
    where: Location,
) -> list[JsonObject]:
    """The adoption objects of every migrated cluster; ``namespace`` is required."""
    if not namespace or not plans:
        what = "a new namespace (-n)" if plans else "a legacy AzureManagedControlPlane in the input"
        msg = f"--adopt needs {what}"
        raise MigrationError(msg, location=where)
    objects: list[JsonObject] = []
    for plan in plans:
        handle = store.lookup(plan.container_service_api, "ManagedCluster") if store else None
        mc_schema = handle.schema if handle is not None else None
        found = find_live(live, plan.mc_name)
        objects += adoption_objects(plan, namespace, found, mc_schema, notes)
        _note_not_adopted(plan, notes)
    return objects


def _note_not_adopted(plan: ClusterPlan, notes: Notes) -> None:
    """CAPZ records only the ManagedCluster, its ResourceGroup and agent pools when it adopts
    (adopting-clusters.md, caveats): say which other resources the cluster had."""
    resources = plan.aso_control_plane.get("spec", {}).get("resources", [])
    others = [r for r in [*resources, *plan.infra_resources] if r.get("kind") != "ManagedCluster"]
    others = [
        r
        for r in others
        if not (
            r.get("kind") == "ResourceGroup"
            and r.get("spec", {}).get("azureName", r["metadata"]["name"]) == plan.resource_group
        )
    ]
    for resource in others:
        notes.add(
            "note",
            str(resource.get("kind")),
            str(resource["metadata"]["name"]),
            "(object)",
            "not an adoption object: CAPZ adopts only the ManagedCluster, its ResourceGroup and "
            "agent pools; add it to the scaffolded AzureASOManaged* spec.resources afterwards "
            "(the declarative output, without --adopt, has it)",
        )


def adoption_objects(
    plan: ClusterPlan,
    namespace: str,
    live: LiveCluster | None,
    mc_schema: JsonObject | None,
    notes: Notes,
) -> list[JsonObject]:
    """ResourceGroup, ManagedCluster and agent pools, in apply order, in ``namespace``."""
    resource_group = _resource_group(plan, namespace)
    managed_cluster = _managed_cluster(plan, namespace, resource_group, live, mc_schema, notes)
    pools = [_agent_pool(plan, pool.converted, namespace, notes) for pool in plan.pools]
    return [resource_group, managed_cluster, *pools]


def embedded_of(obj: JsonObject, kind: str) -> JsonObject:
    """The first resource of ``kind`` in an AzureASOManaged* object's ``spec.resources``."""
    resources = obj.get("spec", {}).get("resources", [])
    return next(copy.deepcopy(r) for r in resources if r.get("kind") == kind)


def _adopted(resource: JsonObject, namespace: str, adopt: bool) -> JsonObject:
    metadata = resource.setdefault("metadata", {})
    metadata["namespace"] = namespace
    if adopt:
        metadata.setdefault("annotations", {})[t.ADOPT_ANNOTATION] = "true"
    return resource


def _resource_group(plan: ClusterPlan, namespace: str) -> JsonObject:
    group = next(
        copy.deepcopy(r)
        for r in plan.infra_resources
        if r.get("kind") == "ResourceGroup" and _azure_name(r) == plan.resource_group
    )
    group["spec"]["azureName"] = plan.resource_group
    return _adopted(group, namespace, adopt=False)


def _azure_name(resource: JsonObject) -> str:
    spec = resource.get("spec", {})
    return str(spec.get("azureName") or resource["metadata"]["name"])


def _managed_cluster(
    plan: ClusterPlan,
    namespace: str,
    resource_group: JsonObject,
    live: LiveCluster | None,
    mc_schema: JsonObject | None,
    notes: Notes,
) -> JsonObject:
    mc = _adopted(embedded_of(plan.aso_control_plane, "ManagedCluster"), namespace, adopt=True)
    spec = mc["spec"]
    spec["owner"] = {"name": resource_group["metadata"]["name"]}
    version = plan.aso_control_plane.get("spec", {}).get("version")
    if isinstance(version, str):
        spec.setdefault("kubernetesVersion", version.removeprefix("v"))
    profile_schema = _profile_schema(mc_schema)
    if live is not None and live.agent_pool_profiles is not None:
        spec["agentPoolProfiles"] = _live_profiles(live, profile_schema, mc, notes)
    else:
        profiles = [_profile(plan, pool.converted) for pool in plan.pools]
        spec["agentPoolProfiles"] = [_subnet_by_id(p, plan, mc, notes) for p in profiles]
        notes.add(
            "note",
            "ManagedCluster",
            mc["metadata"]["name"],
            "spec.agentPoolProfiles",
            COMPUTED_PROFILES_CAVEAT,
        )
    return mc


def _profile_schema(mc_schema: JsonObject | None) -> JsonObject | None:
    node: Json = mc_schema
    for key in ("properties", "spec", "properties", "agentPoolProfiles", "items"):
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _live_profiles(
    live: LiveCluster, schema: JsonObject | None, mc: JsonObject, notes: Notes
) -> list[JsonObject]:
    """``.status.agentPoolProfiles`` as the spec takes them: read-only fields dropped, IDs as
    references (:mod:`~generator.migrate.shape`)."""
    profiles = copy.deepcopy(live.agent_pool_profiles or [])
    if schema is None:
        notes.add(
            "unmapped",
            "ManagedCluster",
            mc["metadata"]["name"],
            "spec.agentPoolProfiles",
            "no schema for the ManagedCluster's apiVersion: copied from the live status "
            "unchanged (remove read-only fields by hand)",
        )
        return profiles
    fitted = fit(profiles, {"type": "array", "items": schema}, ["status", "agentPoolProfiles"])
    for path, reason in fitted.dropped:
        notes.add(
            "note",
            "ManagedCluster",
            live.name,
            path,
            f"left out of spec.agentPoolProfiles: {reason}",
        )
    return list(fitted.value)


def _profile(plan: ClusterPlan, pool_object: JsonObject) -> JsonObject:
    """An agent pool profile from a converted pool; ``count`` from its MachinePool's replicas
    (CAPZ keeps the count there, not on the agent pool)."""
    resource = embedded_of(pool_object, "ManagedClustersAgentPool")
    spec = resource["spec"]
    profile = {"name": spec.get("azureName")}
    profile.update({k: v for k, v in spec.items() if k not in _POOL_ONLY})
    replicas = plan.pool_replicas.get(resource["metadata"]["name"])
    if replicas is not None and "count" not in profile:
        profile["count"] = replicas
    return profile


def _agent_pool(
    plan: ClusterPlan, pool_object: JsonObject, namespace: str, notes: Notes
) -> JsonObject:
    pool = _adopted(embedded_of(pool_object, "ManagedClustersAgentPool"), namespace, adopt=True)
    pool["spec"]["owner"] = {"name": plan.mc_name}
    pool["spec"] = _subnet_by_id(pool["spec"], plan, pool, notes)
    return pool


def subnet_arm_id(plan: ClusterPlan) -> str | None:
    """The ARM ID of the cluster's subnet, when the manifests give the subscription."""
    if not plan.subscription or not plan.vnet_name or not plan.subnet_name:
        return None
    return (
        f"/subscriptions/{plan.subscription}/resourceGroups/{plan.vnet_resource_group}"
        f"/providers/Microsoft.Network/virtualNetworks/{plan.vnet_name}/subnets/{plan.subnet_name}"
    )


def _subnet_by_id(
    spec: JsonObject, plan: ClusterPlan, owner: JsonObject, notes: Notes
) -> JsonObject:
    """A subnet reference by object name would point into the old namespace (the new one has
    no VirtualNetworksSubnet object): name the existing subnet by ARM ID instead."""
    ref = spec.get("vnetSubnetReference")
    if not isinstance(ref, dict) or "name" not in ref:
        return spec
    arm_id = subnet_arm_id(plan)
    where = "spec.vnetSubnetReference" if "owner" in spec else "spec.agentPoolProfiles"
    if arm_id is None:
        notes.add(
            "unmapped",
            str(owner.get("kind")),
            str(owner["metadata"]["name"]),
            where,
            "the subnet's ARM ID needs the subscription (spec.subscriptionID is not set): "
            "set vnetSubnetReference.armId by hand or pass --live",
        )
        return spec
    spec["vnetSubnetReference"] = {"armId": arm_id}
    return spec
