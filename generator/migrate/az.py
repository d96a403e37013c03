"""``capzgen adopt --from-az``: an AKS cluster CAPZ never managed -> CAPZ's adoption objects.

Input is what ``az aks show`` prints (and, optionally, ``az aks nodepool list``): the Azure REST
API's ManagedCluster and AgentPool resources. The Azure CLI flattens ``properties`` into the top
level; the REST shape keeps them under ``properties``; both are read. Every field is fitted onto
the spec schema of ASO's ManagedCluster / ManagedClustersAgentPool v1api20240901 taken from the
schema store (:mod:`~generator.migrate.shape`), so the mapping follows the schema rather than a
hand-written list: read-only fields are dropped and listed, IDs become ARM references.

The output is the same three steps as ``migrate --adopt`` (adopting-clusters.md, "Option 1"):
the ResourceGroup, the ManagedCluster annotated ``sigs.k8s.io/cluster-api-provider-azure-adopt``
with its ``agentPoolProfiles``, and one adopted ManagedClustersAgentPool per pool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from generator.capzbuild.values import normalized_name
from generator.errors import Location, MigrationError
from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.model import NOTE, UNMAPPED, Checklist, MigrationResult, Note
from generator.migrate.shape import READ_ONLY_REASON, fit
from generator.schemastore.store import SchemaStore

CONTAINER_SERVICE_API: Final = "containerservice.azure.com/v1api20240901"
RESOURCE_GROUP_API: Final = "resources.azure.com/v1api20200601"
# Fields Azure sets itself (the REST API marks them readOnly): dropped without being "unmapped".
READ_ONLY: Final = frozenset(
    {
        "provisioningState", "powerState", "maxAgentPools", "currentKubernetesVersion", "fqdn",
        "privateFQDN", "privateFqdn", "azurePortalFQDN", "azurePortalFqdn", "resourceUID",
        "resourceUid", "currentOrchestratorVersion", "nodeImageVersion", "effectiveOutboundIPs",
        "principalId", "issuerURL", "issuerUrl", "eTag", "etag", "resourceGroup", "systemData",
    }
)  # fmt: skip
AKS_LABEL_PREFIX: Final = "kubernetes.azure.com/"
# Top-level keys that are not ManagedCluster settings at all.
_ENVELOPE: Final = ("id", "name", "type", "resourceGroup", "systemData", "properties")


@dataclass(frozen=True)
class AzInput:
    """The parsed ``az`` JSON: the cluster and, when given, its node pools."""

    cluster: JsonObject
    pools: list[JsonObject] | None
    source: str
    pools_source: str = ""


def flatten(resource: Mapping[str, Json]) -> JsonObject:
    """An ARM resource with ``properties`` merged into the top level (the ``az`` CLI shape)."""
    merged = {k: v for k, v in resource.items() if k != "properties"}
    properties = resource.get("properties")
    if isinstance(properties, dict):
        merged.update(properties)
    return merged


def adopt_from_az(
    given: AzInput, store: SchemaStore, namespace: str, credential_secret: str | None
) -> MigrationResult:
    """The adoption objects of one AKS cluster, with notes for every field not carried over."""
    cluster = flatten(given.cluster)
    name, group = cluster.get("name"), cluster.get("resourceGroup")
    if not isinstance(name, str) or not name or not isinstance(group, str) or not group:
        msg = "not the output of `az aks show`: name and resourceGroup must be strings"
        raise MigrationError(msg, location=Location(file=given.source))
    mc_name = normalized_name(name)
    secret = credential_secret or f"{mc_name}-aso-credentials"
    notes: list[Note] = []
    rg = _resource_group(group, cluster, namespace, secret, notes)
    mc = _managed_cluster(cluster, mc_name, rg, namespace, secret, store, notes)
    pool_inputs = given.pools if given.pools is not None else cluster.get("agentPoolProfiles", [])
    pools = [
        _agent_pool(flatten(p), mc_name, namespace, secret, store, notes)
        for p in pool_inputs or []
        if isinstance(p, dict)
    ]
    result = MigrationResult(objects=[rg, mc, *pools], notes=notes)
    unmapped = sum(1 for n in notes if n.category == UNMAPPED)
    result.summary = (
        f"adopt: AKS cluster {group}/{name} -> ResourceGroup, ManagedCluster and "
        f"{len(pools)} agent pool{'s' if len(pools) != 1 else ''} in namespace {namespace}"
        + (
            f"; {unmapped} field{'s' if unmapped != 1 else ''} not mapped (listed below)"
            if unmapped
            else ""
        )
    )
    result.checklists.append(_checklist(cluster, rg, mc, pools, namespace, secret))
    return result


def _spec_schema(store: SchemaStore, kind: str) -> JsonObject:
    handle = store.lookup(CONTAINER_SERVICE_API, kind)
    spec = handle.schema.get("properties", {}).get("spec") if handle is not None else None
    if not isinstance(spec, dict):
        msg = f"no schema for {CONTAINER_SERVICE_API} {kind}: cannot map the az output"
        raise MigrationError(msg, hint="run `capzgen schemas list` to see the schema search path")
    return spec


def _metadata(name: str, namespace: str, secret: str, adopt: bool) -> JsonObject:
    annotations = {t.CREDENTIAL_ANNOTATION: secret}
    if adopt:
        annotations[t.ADOPT_ANNOTATION] = "true"
    return {"annotations": annotations, "name": name, "namespace": namespace}


def _resource_group(
    group: str, cluster: JsonObject, namespace: str, secret: str, notes: list[Note]
) -> JsonObject:
    name = normalized_name(group)
    notes.append(
        Note(NOTE, "ResourceGroup", name, "spec.location",
             "az aks show does not give the resource group's location; the cluster's is used "
             "(check with `az group show`: ASO cannot move a resource group)")
    )  # fmt: skip
    return {
        "apiVersion": RESOURCE_GROUP_API,
        "kind": "ResourceGroup",
        "metadata": _metadata(name, namespace, secret, adopt=False),
        "spec": {"azureName": group, "location": cluster.get("location")},
    }


def _managed_cluster(
    cluster: JsonObject,
    mc_name: str,
    rg: JsonObject,
    namespace: str,
    secret: str,
    store: SchemaStore,
    notes: list[Note],
) -> JsonObject:
    schema = _spec_schema(store, "ManagedCluster")
    settings = {k: v for k, v in cluster.items() if k not in _ENVELOPE}
    _identity_list(settings)
    fitted = fit(settings, schema, read_only=READ_ONLY)
    _report(fitted.dropped, "ManagedCluster", mc_name, notes)
    spec = dict(fitted.value or {})
    for index, profile in enumerate(spec.get("agentPoolProfiles", [])):
        where = f"agentPoolProfiles[{index}]."
        _drop_aks_labels(profile, "ManagedCluster", mc_name, where, notes)
    spec["azureName"] = cluster["name"]
    spec["owner"] = {"name": rg["metadata"]["name"]}
    return {
        "apiVersion": CONTAINER_SERVICE_API,
        "kind": "ManagedCluster",
        "metadata": _metadata(mc_name, namespace, secret, adopt=True),
        "spec": spec,
    }


def _identity_list(settings: JsonObject) -> None:
    """Azure keys user-assigned identities by ID; ASO lists references to them."""
    identity = settings.get("identity")
    assigned = identity.get("userAssignedIdentities") if isinstance(identity, dict) else None
    if isinstance(identity, dict) and isinstance(assigned, dict):
        identity["userAssignedIdentities"] = [{"reference": {"armId": k}} for k in assigned]


def _agent_pool(
    pool: JsonObject,
    mc_name: str,
    namespace: str,
    secret: str,
    store: SchemaStore,
    notes: list[Note],
) -> JsonObject:
    azure_name = str(pool.get("name", ""))
    object_name = normalized_name(f"{mc_name}-{azure_name}")
    settings = {k: v for k, v in pool.items() if k not in _ENVELOPE}
    fitted = fit(settings, _spec_schema(store, "ManagedClustersAgentPool"), read_only=READ_ONLY)
    _report(fitted.dropped, "ManagedClustersAgentPool", object_name, notes)
    spec = dict(fitted.value or {})
    _drop_aks_labels(spec, "ManagedClustersAgentPool", object_name, "", notes)
    spec["azureName"] = azure_name
    spec["owner"] = {"name": mc_name}
    return {
        "apiVersion": CONTAINER_SERVICE_API,
        "kind": "ManagedClustersAgentPool",
        "metadata": _metadata(object_name, namespace, secret, adopt=True),
        "spec": spec,
    }


def _drop_aks_labels(pool: JsonObject, kind: str, name: str, where: str, notes: list[Note]) -> None:
    """AKS labels its nodes under ``kubernetes.azure.com/`` itself (a spot pool's
    ``scalesetpriority``) and ``az`` reports them, but a pool may not set them (CAPZ refuses the
    reserved prefix)."""
    labels = pool.get("nodeLabels")
    if not isinstance(labels, dict):
        return
    for key in [k for k in labels if k.startswith(AKS_LABEL_PREFIX)]:
        del labels[key]
        notes.append(
            Note(NOTE, kind, name, f'{where}nodeLabels["{key}"]', "set by AKS itself: dropped")
        )
    if not labels:
        del pool["nodeLabels"]


def _report(dropped: list[tuple[str, str]], kind: str, name: str, notes: list[Note]) -> None:
    for path, reason in dropped:
        category = NOTE if reason == READ_ONLY_REASON else UNMAPPED
        notes.append(Note(category, kind, name, path, reason))


def _checklist(
    cluster: JsonObject,
    rg: JsonObject,
    mc: JsonObject,
    pools: list[JsonObject],
    namespace: str,
    secret: str,
) -> Checklist:
    kubectl = f"kubectl -n {namespace}"
    mc_name = mc["metadata"]["name"]
    rg_name = rg["metadata"]["name"]
    subscription = str(cluster.get("id", "")).split("/")[2:3] or ["<subscription>"]
    checklist = Checklist(
        f"Adoption checklist for AKS cluster {cluster['resourceGroup']}/{cluster['name']} "
        "(capzgen changed nothing; run these against the management cluster):"
    )
    checklist.steps += [
        f"Create the namespace: kubectl create namespace {namespace}",
        f"Create the ASO credential Secret {secret} in {namespace} with AZURE_SUBSCRIPTION_ID="
        f"{subscription[0]}, AZURE_TENANT_ID, AZURE_CLIENT_ID and AUTH_MODE (or "
        "AZURE_CLIENT_SECRET), as ASO's credential format describes.",
        f"Apply ResourceGroup {rg_name} alone and wait until it is Ready:\n"
        f"{kubectl} wait resourcegroup/{rg_name} --for=condition=Ready --timeout=10m",
        f'Apply ManagedCluster {mc_name} (annotation {t.ADOPT_ANNOTATION}: "true") and wait until '
        "CAPZ has created Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane:\n"
        f"{kubectl} wait azureasomanagedcontrolplane/{mc_name} --for=create --timeout=10m",
        "Apply the agent pools ("
        + (" ".join(f"managedclustersagentpool/{p['metadata']['name']}" for p in pools) or "none")
        + f") and wait until their MachinePools report AVAILABLE=True:\n{kubectl} get machinepools",
        f"Wait until the Cluster is Available: {kubectl} wait cluster/{mc_name} "
        "--for=condition=Available --timeout=30m",
        "Stop managing the cluster by other means (scripts, Terraform, the portal) so that nothing "
        "fights CAPZ's reconciliation.",
    ]
    return checklist
