"""What a user must still do on the live management cluster (reference §5.7, §5.1).

The migration only rewrites manifests. Moving a running cluster to the ASO API is CAPZ's adoption
procedure (``managed/asomanagedcluster.md``): pause, disarm the ASO objects legacy CAPZ created,
adopt the AKS resources from a new namespace, then remove the old objects. The steps below name the
user's actual objects; they are printed, never executed.
"""

from __future__ import annotations

from generator.migrate import tables as t
from generator.migrate.model import Checklist
from generator.migrate.plan import ClusterPlan

_UNPAUSE_WAIT = "clusterctl.cluster.x-k8s.io/block-move"


_DISARM_ORDER = (
    "ManagedClustersAgentPool",
    "FleetsMember",
    "ManagedCluster",
    "PrivateEndpoint",
    "VirtualNetworksSubnet",
    "VirtualNetwork",
    "ResourceGroup",
)


def adoption_checklist(plan: ClusterPlan, new_namespace: str | None, output: str) -> Checklist:
    """CAPZ's adoption procedure for one migrated cluster, step by step, with its own names."""
    old_ns = plan.namespace or "default"
    new_ns = new_namespace or "<new-namespace>"
    title = (
        f"Adoption checklist for Cluster {old_ns}/{plan.cluster_name} "
        "(capzgen changed nothing on the live cluster; run these against the management cluster):"
    )
    checklist = Checklist(title)
    checklist.steps += [
        *_pause(plan, old_ns),
        _disarm(plan, old_ns),
        f"Create namespace {new_ns} and in it the ASO credential Secret {plan.credential_secret} "
        f"(keys listed above; copy them from Secret {old_ns}/{plan.cluster_name}-aso-secret).",
        _adopt(plan, old_ns, new_ns, output),
        _apply(plan, new_ns, output),
        _delete(plan, old_ns),
    ]
    return checklist


def _pause(plan: ClusterPlan, old_ns: str) -> list[str]:
    waited = [
        f"azuremanagedcontrolplane/{plan.control_plane.name}",
        *(f"azuremanagedmachinepool/{pool.item.name}" for pool in plan.pools),
    ]
    return [
        f"Pause the Cluster: kubectl -n {old_ns} patch cluster {plan.cluster_name} --type merge "
        """-p '{"spec":{"paused":true}}'""",
        f"Wait until the annotation {_UNPAUSE_WAIT} is gone from {', '.join(waited)} "
        f"(namespace {old_ns}).",
    ]


def _disarm(plan: ClusterPlan, old_ns: str) -> str:
    kubectl_old = f"kubectl -n {old_ns}"
    old_objects = sorted(plan.legacy_aso_objects, key=lambda o: (_DISARM_ORDER.index(o[0]), o[1]))
    listed = ", ".join(f"{kind.lower()}/{name}" for kind, name in old_objects)
    return (
        f"Disarm the ASO objects legacy CAPZ created in namespace {old_ns}, before creating anything "
        f"new ({listed}; also any Extension objects of the cluster):\n"
        f"{kubectl_old} annotate <kind>/<name> serviceoperator.azure.com/reconcile-policy=skip --overwrite\n"
        f"""{kubectl_old} patch <kind>/<name> --type merge -p '{{"metadata":{{"finalizers":null}}}}'"""
    )


def _adopt(plan: ClusterPlan, old_ns: str, new_ns: str, output: str) -> str:
    rg_name = next(name for kind, name in plan.legacy_aso_objects if kind == "ResourceGroup")
    agent_pools = [pool.object_name for pool in plan.pools]
    return (
        f"Adopt the AKS resources into {new_ns}, in this order, using the objects embedded in "
        f"{output}:\n"
        f"a) apply ResourceGroup {rg_name} (and the other objects of AzureASOManagedCluster "
        f"{plan.aso_cluster_name or plan.cluster_name}) alone and wait until it is Ready;\n"
        f'b) apply ManagedCluster {plan.mc_name} with annotation {t.ADOPT_ANNOTATION}: "true" and '
        f"spec.agentPoolProfiles copied from\n"
        f"   kubectl -n {old_ns} get managedcluster {plan.mc_name} -o jsonpath='{{.status.agentPoolProfiles}}'\n"
        f"   then wait until CAPZ has created Cluster, AzureASOManagedCluster and "
        f"AzureASOManagedControlPlane {plan.mc_name};\n"
        f"c) apply ManagedClustersAgentPool {', '.join(agent_pools) or '(none)'} with the same "
        "annotation and wait until their MachinePools report AVAILABLE=True."
    )


def _apply(plan: ClusterPlan, new_ns: str, output: str) -> str:
    renamed = [
        f"{kind} {name}"
        for kind, name in (
            ("Cluster", plan.cluster_name),
            ("AzureASOManagedControlPlane", plan.control_plane.name),
            ("AzureASOManagedCluster", plan.aso_cluster_name or plan.cluster_name),
        )
        if name != plan.mc_name
    ]
    caveat = (
        f"\nCAPZ names the adopted objects after the ManagedCluster ({plan.mc_name}); the manifests "
        f"use other names for {', '.join(renamed)}: rename them in the file (or delete the adopted "
        "copies first) so that nothing is created twice."
        if renamed
        else ""
    )
    return (
        f"Bring the adopted objects to the migrated spec: kubectl -n {new_ns} apply --server-side "
        f"-f {output}{caveat}"
    )


def _delete(plan: ClusterPlan, old_ns: str) -> str:
    kubectl_old = f"kubectl -n {old_ns}"
    deleted = [
        f"cluster/{plan.cluster_name}",
        *([f"azuremanagedcluster/{plan.legacy_infra_name}"] if plan.legacy_infra_name else []),
        f"azuremanagedcontrolplane/{plan.control_plane.name}",
        *(f"machinepool/{name}" for name in plan.machine_pool_names),
        *(f"azuremanagedmachinepool/{pool.item.name}" for pool in plan.pools),
    ]
    return (
        f"Force-delete the old objects in {old_ns} (the Azure resources stay):\n"
        f"{kubectl_old} delete {' '.join(deleted)} --wait=false\n"
        f"then remove the finalizers of each of them: {kubectl_old} patch <kind>/<name> --type merge "
        """-p '{"metadata":{"finalizers":null}}'\n"""
        f"and check that the old ASO objects in {old_ns} are gone while the Azure resources remain."
    )


def version_checklist(alpha: int, bumped: int) -> Checklist:
    """For inputs that only needed apiVersion moves (reference §5.1)."""
    checklist = Checklist("Steps for the live management cluster:")
    checklist.steps.append(
        "Upgrade CAPZ with `clusterctl upgrade`, one minor release at a time up to v1.26.0 (the "
        "bundled ASO moves one minor at a time); CAPZ and ASO migrate the stored objects themselves."
    )
    if alpha:
        checklist.steps.append(
            "Apply the rewritten manifests: v1beta1 and v1alpha1 AzureASOManaged* are the same "
            "schema, so only the apiVersions (and the references to them) change."
        )
    if bumped:
        checklist.steps.append(
            "Apply the manifests with the moved ASO apiVersions: CAPZ identifies embedded resources "
            "by group, kind and name, so changing only the apiVersion keeps the Azure resources "
            "(renaming one would delete and recreate it)."
        )
    return checklist
