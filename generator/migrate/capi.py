"""CAPI objects that reference the legacy kinds: Cluster and MachinePool references move to the
AzureASOManaged* kinds, and a MachinePool gets the annotations the ASO API expects."""

from __future__ import annotations

import copy

from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.build import strip_server_fields
from generator.migrate.plan import Item, Notes, PoolPlan


def rewrite_ref(ref: Json, kinds: dict[str, str], namespace: str | None) -> bool:
    """Point a v1beta1 ``{apiVersion, kind, name}`` (or v1beta2 ``{apiGroup, kind, name}``) reference
    at the ASO kind; returns whether it changed."""
    if not isinstance(ref, dict) or ref.get("kind") not in kinds:
        return False
    group = ref.get("apiGroup")
    api_version = ref.get("apiVersion")
    if group is None and api_version is None:
        return False
    if group is not None and group != t.CAPZ_GROUP:
        return False
    if isinstance(api_version, str) and not api_version.startswith(f"{t.CAPZ_GROUP}/"):
        return False
    ref["kind"] = kinds[ref["kind"]]
    if api_version is not None:
        ref["apiVersion"] = t.CAPZ_V1BETA1
    if namespace and ref.get("namespace"):
        ref["namespace"] = namespace
    return True


def rewrite_machine_pool(
    item: Item, pool: PoolPlan | None, namespace: str | None, notes: Notes
) -> JsonObject:
    """A copy of a CAPI MachinePool fitted to its converted pool (``pool``, None if none).

    Server fields are dropped, ``infrastructureRef`` points at the ASO kind, a missing bootstrap is
    set to an empty ``dataSecretName``, and the ``replicas-managed-by`` annotation is set to ``aks``
    for an autoscaled pool and removed otherwise; each change is noted.
    """
    obj = copy.deepcopy(item.obj)
    strip_server_fields(obj)
    ref = obj.get("spec", {}).get("template", {}).get("spec", {}).get("infrastructureRef")
    rewrite_ref(ref, {t.LEGACY_MACHINE_POOL: t.ASO_MACHINE_POOL}, namespace)
    template_spec = obj["spec"]["template"]["spec"]
    if template_spec.get("bootstrap") is None:
        template_spec["bootstrap"] = {"dataSecretName": ""}
        notes.note(
            item,
            "spec.template.spec.bootstrap",
            'missing: set to {dataSecretName: ""} (CAPI requires a bootstrap; AKS has no bootstrap data)',
        )
    metadata = obj.setdefault("metadata", {})
    annotations = (
        metadata.get("annotations") if isinstance(metadata.get("annotations"), dict) else {}
    )
    managed_by = annotations.get(t.REPLICAS_MANAGED_BY)
    autoscaled = pool is not None and pool.autoscaled
    if autoscaled and managed_by != "aks":
        annotations[t.REPLICAS_MANAGED_BY] = "aks"
        metadata["annotations"] = annotations
        if managed_by is not None:
            notes.note(
                item,
                ["metadata", "annotations", t.REPLICAS_MANAGED_BY],
                f"{managed_by!r} -> 'aks': CAPZ's ASO API refuses other values on an autoscaled pool",
            )
    elif not autoscaled and managed_by is not None:
        annotations.pop(t.REPLICAS_MANAGED_BY)
        if not annotations:
            metadata.pop("annotations", None)
        notes.note(
            item,
            ["metadata", "annotations", t.REPLICAS_MANAGED_BY],
            f"removed ({managed_by!r}): the pool does not autoscale, and while the annotation is set "
            "CAPZ stops copying replicas to the agent pool count (C12)",
        )
    return obj
