"""What ``--live FILE`` tells the migration about the running cluster (reference §5.7 step 4).

The file is the output of ``kubectl get managedcluster.containerservice.azure.com/NAME -o json``
(or ``kubectl get ... -o json`` of several old ASO objects: a ``List``). Two facts are taken from
it: the ManagedCluster's ``.status.agentPoolProfiles``, which CAPZ's procedure copies into the
adopted ManagedCluster's spec (the legacy controller keeps them out of the spec), and the name of
the credential Secret in the ``serviceoperator.azure.com/credential-from`` annotation, which the
migration keeps so that the Secret is copied, not renamed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.errors import Location, MigrationError
from generator.jsontypes import JsonObject
from generator.migrate import tables as t
from generator.migrate.plan import Item

CONTAINER_SERVICE_GROUP = "containerservice.azure.com"


@dataclass(frozen=True)
class LiveCluster:
    """One ManagedCluster of the live dump: its name, credential Secret and status profiles."""

    name: str
    azure_name: str
    credential_secret: str | None
    agent_pool_profiles: list[JsonObject] | None  # None: the status has none
    source: str


def read_live(items: Sequence[Item], source: str) -> list[LiveCluster]:
    """The ManagedClusters of a live dump; raises :class:`MigrationError` when there is none."""
    secrets = [_credential(item) for item in items]
    shared = next((s for s in secrets if s), None)
    clusters = []
    for item, secret in zip(items, secrets, strict=True):
        if not _is_managed_cluster(item):
            continue
        spec = item.obj.get("spec")
        azure_name = spec.get("azureName") if isinstance(spec, dict) else None
        clusters.append(
            LiveCluster(
                name=item.name,
                azure_name=azure_name if isinstance(azure_name, str) else item.name,
                credential_secret=secret or shared,
                agent_pool_profiles=_profiles(item),
                source=source,
            )
        )
    if not clusters:
        msg = "no containerservice.azure.com ManagedCluster in the live dump"
        raise MigrationError(
            msg,
            location=Location(file=source),
            hint="give the output of `kubectl -n <old-namespace> get "
            "managedcluster.containerservice.azure.com/<name> -o json`",
        )
    return clusters


def find_live(clusters: Sequence[LiveCluster], mc_name: str) -> LiveCluster | None:
    """The live ManagedCluster named ``mc_name`` (object or Azure name), or the only one."""
    for cluster in clusters:
        if mc_name in (cluster.name, cluster.azure_name):
            return cluster
    return clusters[0] if len(clusters) == 1 else None


def _is_managed_cluster(item: Item) -> bool:
    api_version = item.obj.get("apiVersion")
    return (
        item.kind == "ManagedCluster"
        and isinstance(api_version, str)
        and api_version.startswith(f"{CONTAINER_SERVICE_GROUP}/")
    )


def _credential(item: Item) -> str | None:
    metadata = item.obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    value = annotations.get(t.CREDENTIAL_ANNOTATION) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) and value else None


def _profiles(item: Item) -> list[JsonObject] | None:
    status = item.obj.get("status")
    profiles = status.get("agentPoolProfiles") if isinstance(status, dict) else None
    if profiles is None:
        return None
    if not isinstance(profiles, list) or not all(isinstance(p, dict) for p in profiles):
        msg = "status.agentPoolProfiles is not a list of mappings"
        raise item.origin.error(msg, ["status", "agentPoolProfiles"])
    return profiles
