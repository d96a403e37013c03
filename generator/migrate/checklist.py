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


def adoption_checklist(
    plan: ClusterPlan, new_namespace: str | None, output: str, *, adopt: bool = False
) -> Checklist:
    """CAPZ's migration procedure for one cluster, in the doc's order, with its own names.

    ``adopt``: ``output`` holds the adoption objects (``migrate --adopt``); otherwise it holds the
    declarative AzureASOManaged* manifests, applied once CAPZ has adopted the cluster.
    """
    old_ns = plan.namespace or "default"
    new_ns = new_namespace or "<new-namespace>"
    title = (
        f"Migration checklist for Cluster {old_ns}/{plan.cluster_name} "
        "(capzgen changed nothing on the live cluster; run these against the management cluster):"
    )
    checklist = Checklist(title)
    checklist.steps += [
        *_pause(plan, old_ns),
        _disarm(plan, old_ns),
        f"Create the new namespace: kubectl create namespace {new_ns}",
        _copy_secret(plan, old_ns, new_ns),
        *_adopt(plan, old_ns, new_ns, output, adopt),
        f"Wait until the new Cluster is Available: kubectl -n {new_ns} wait "
        f"cluster/{plan.mc_name} --for=condition=Available --timeout=30m",
    ]
    if not adopt:
        checklist.steps.append(_apply(plan, new_ns, output))
    checklist.steps += [_delete(plan, old_ns), _verify(plan, old_ns)]
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
        f"(namespace {old_ns}):\n"
        f"kubectl -n {old_ns} get {' '.join(waited)} -o jsonpath='{{..metadata.annotations}}'",
    ]


def _disarm(plan: ClusterPlan, old_ns: str) -> str:
    kubectl_old = f"kubectl -n {old_ns}"
    old_objects = sorted(plan.legacy_aso_objects, key=lambda o: (_DISARM_ORDER.index(o[0]), o[1]))
    listed = " ".join(f"{kind.lower()}/{name}" for kind, name in old_objects)
    return (
        f"Before creating anything new, stop ASO from acting on the old objects in {old_ns} "
        "(also any Extension objects of the cluster):\n"
        f"{kubectl_old} annotate {listed} serviceoperator.azure.com/reconcile-policy=skip --overwrite\n"
        f"{kubectl_old} patch {listed} --type merge "
        """-p '{"metadata":{"finalizers":null}}'"""
    )


def _copy_secret(plan: ClusterPlan, old_ns: str, new_ns: str) -> str:
    secret = plan.credential_secret
    return (
        f"Copy the ASO credential Secret {secret} into {new_ns}, keeping its name (keys listed "
        "above):\n"
        f"kubectl -n {old_ns} get secret {secret} -o json | jq 'del(.metadata.namespace, "
        ".metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, "
        f".metadata.ownerReferences, .metadata.managedFields)' | kubectl -n {new_ns} apply -f -"
    )


def _adopt(plan: ClusterPlan, old_ns: str, new_ns: str, output: str, adopt: bool) -> list[str]:
    rg_name = next(name for kind, name in plan.legacy_aso_objects if kind == "ResourceGroup")
    pools = " ".join(f"managedclustersagentpool/{pool.object_name}" for pool in plan.pools)
    kubectl = f"kubectl -n {new_ns}"
    source = (
        f"the objects of {output} in this order"
        if adopt
        else (
            "the adoption objects (`capzgen migrate --adopt`; the file given here is for your "
            "GitOps repository)"
        )
    )
    return [
        f"Apply ResourceGroup {rg_name} from {source}, alone, and wait until it is Ready:\n"
        f"{kubectl} wait resourcegroup/{rg_name} --for=condition=Ready --timeout=10m",
        f'Apply ManagedCluster {plan.mc_name} (annotation {t.ADOPT_ANNOTATION}: "true", '
        "spec.agentPoolProfiles from the old object's status), then wait until CAPZ has created "
        f"Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane {plan.mc_name}:\n"
        f"{kubectl} wait azureasomanagedcontrolplane/{plan.mc_name} --for=create --timeout=10m",
        f"Apply the agent pools ({pools or 'none'}) with the same annotation and wait until "
        f"their MachinePools report AVAILABLE=True:\n{kubectl} get machinepools",
    ]


def _verify(plan: ClusterPlan, old_ns: str) -> str:
    old = " ".join(sorted({kind.lower() for kind, _ in plan.legacy_aso_objects}))
    return (
        f"Verify: the old ASO objects are gone from {old_ns} and the Azure resources remain:\n"
        f"kubectl -n {old_ns} get {old.replace(' ', ',')}\n"
        f"az aks show --resource-group {plan.resource_group} --name {plan.control_plane.name} "
        "--query provisioningState"
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
    """The doc's forced deletion: delete without waiting (CAPI ignores paused objects), then drop
    finalizers pools first, control plane, and the Cluster last."""
    kubectl_old = f"kubectl -n {old_ns}"
    pools = " ".join(pool.item.name for pool in plan.pools)
    machine_pools = " ".join(plan.machine_pool_names)
    null = """--type merge -p '{"metadata":{"finalizers":null}}'"""
    lines = [
        f"Force-delete the old objects in {old_ns} (the Azure resources stay):",
        f"{kubectl_old} delete cluster {plan.cluster_name} --wait=false",
    ]
    if plan.legacy_infra_name:
        lines.append(
            f"{kubectl_old} delete azuremanagedcluster {plan.legacy_infra_name} --wait=false"
        )
    lines.append(
        f"{kubectl_old} delete azuremanagedcontrolplane {plan.control_plane.name} --wait=false"
    )
    if machine_pools:
        lines.append(f"{kubectl_old} delete machinepool {machine_pools} --wait=false")
    if pools:
        lines += [
            f"{kubectl_old} delete azuremanagedmachinepool {pools} --wait=false",
            f"{kubectl_old} patch azuremanagedmachinepool {pools} {null}",
        ]
    if machine_pools:
        lines.append(f"{kubectl_old} patch machinepool {machine_pools} {null}")
    lines += [
        f"{kubectl_old} patch azuremanagedcontrolplane {plan.control_plane.name} {null}",
        f"{kubectl_old} patch cluster {plan.cluster_name} {null}",
    ]
    return "\n".join(lines)


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
