"""CAPI's update checks of a Cluster and a ClusterClass, as far as a manifest shows them.

CAPI v1.13.3, ``internal/webhooks/cluster.go`` (``Cluster.validate`` and ``validateTopology`` with
an old Cluster) and ``internal/webhooks/clusterclass.go`` (``ClusterClass.validate`` with an old
ClusterClass, ``internal/topology/check/compatibility.go``). What needs the live cluster (the
state of the control plane and machine pools during an upgrade, pending lifecycle hooks) is not
judged; what needs the ClusterClass is judged when the ClusterClass is in the new revision.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.changes import Change
from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Operation, Severity
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.manifests import ManifestSet, TopObject
from generator.names import parse_kubernetes_version

UNSAFE_CLASS = "unsafe.topology.cluster.x-k8s.io/disable-update-class-name-check"
UNSAFE_VERSION = "unsafe.topology.cluster.x-k8s.io/disable-update-version-check"

CLUSTER_UPDATE = Rule(
    "CAPZ-UPDATE-CAPI-CLUSTER",
    "on update: a Cluster keeps its infrastructureRef, controlPlaneRef and topology, gets no class "
    "it did not have, does not lower spec.topology.version or raise it by two minors, and moves "
    "only to a compatible ClusterClass (CAPI internal/webhooks/cluster.go:validate, validateTopology)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.UPDATE,
)


def class_name(cluster: JsonObject) -> str | None:
    """The ClusterClass a Cluster's topology names (v1beta2 ``classRef.name``, v1beta1 ``class``)."""
    topology = dig(cluster, "spec", "topology")
    value = dig(topology, "classRef", "name") or dig(topology, "class")
    return value if isinstance(value, str) and value else None


def uses_class(cluster: TopObject, cluster_class: TopObject) -> bool:
    """Whether ``cluster``'s topology names ``cluster_class``: by name and by namespace, the
    reference's (v1beta2 ``classRef.namespace``, v1beta1 ``classNamespace``) or else the
    Cluster's own, as CAPI resolves it. A namespace left out of a file is the one it is applied
    to, so it matches any."""
    if class_name(cluster.obj) != cluster_class.name:
        return False
    topology = dig(cluster.obj, "spec", "topology")
    named = dig(topology, "classRef", "namespace") or dig(topology, "classNamespace")
    namespace = named if isinstance(named, str) and named else cluster.namespace
    return namespace is None or cluster_class.namespace in (None, namespace)


@CLUSTER_UPDATE.checks_update
def _check_cluster(change: Change) -> Iterator[Finding]:
    if change.new.kind != kinds.CLUSTER:
        return
    old, new = change.old.obj, change.new.obj
    for ref in ("infrastructureRef", "controlPlaneRef"):
        if dig(old, "spec", ref) is not None and dig(new, "spec", ref) is None:
            yield CLUSTER_UPDATE.at(change, ("spec", ref), f"spec.{ref} cannot be removed")
    old_topology, new_topology = dig(old, "spec", "topology"), dig(new, "spec", "topology")
    if old_topology is not None and new_topology is None:
        yield CLUSTER_UPDATE.at(change, ("spec", "topology"), "the topology cannot be removed")
    if new_topology is None:
        return
    yield from _topology(change, old, new)


def _topology(change: Change, old: JsonObject, new: JsonObject) -> Iterator[Finding]:
    path: JsonPath = ("spec", "topology")
    annotations = dig(new, "metadata", "annotations")
    unsafe = annotations if isinstance(annotations, dict) else {}
    before, after = class_name(old), class_name(new)
    if before is None:
        if UNSAFE_CLASS not in unsafe:
            yield CLUSTER_UPDATE.at(
                change, (*path, "classRef"), "a class cannot be set on an existing Cluster"
            )
        return
    if UNSAFE_VERSION not in unsafe:
        problem = _version_problem(
            dig(old, *path, "version"), dig(new, *path, "version"), change.new_set, after
        )
        if problem is not None:
            yield CLUSTER_UPDATE.at(change, (*path, "version"), problem)
    if after is not None and after != before:
        was = change.old_set.find(kinds.CLUSTER_CLASS, before, change.old.namespace)
        now = change.new_set.find(kinds.CLUSTER_CLASS, after, change.new.namespace)
        if isinstance(was, TopObject) and isinstance(now, TopObject):
            for _where, message in incompatible(was.obj, now.obj):
                yield CLUSTER_UPDATE.at(
                    change,
                    (*path, "classRef"),
                    f"ClusterClass {after!r} is not compatible with {before!r}: {message}",
                )


def _version_problem(old: Json, new: Json, ms: ManifestSet, class_: str | None) -> str | None:
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    before, after = parse_kubernetes_version(old), parse_kubernetes_version(new)
    if before is None or after is None or before == after:
        return None
    if (after[0], after[1], after[2] or 0) < (before[0], before[1], before[2] or 0):
        return f"version cannot be lowered from {old} to {new}"
    cc = ms.find(kinds.CLUSTER_CLASS, class_, None) if class_ else None
    versions = dig(cc.obj, "spec", "kubernetesVersions") if isinstance(cc, TopObject) else None
    upgrade_plan = (
        dig(cc.obj, "spec", "upgrade", "external", "generateUpgradePlanExtension")
        if isinstance(cc, TopObject)
        else None
    )
    if not versions and not upgrade_plan and (after[0], after[1]) >= (before[0], before[1] + 2):
        return f"version cannot be raised from {old} to {new} in one step (one minor at a time)"
    return None


def _template_refs(cc: JsonObject) -> dict[JsonPath, Json]:
    """The template references of a ClusterClass CAPI compares, by path (v1beta2 ``templateRef``
    or v1beta1 ``ref``)."""
    refs: dict[JsonPath, Json] = {}
    parts: tuple[JsonPath, ...] = (
        ("infrastructure",),
        ("controlPlane",),
        ("controlPlane", "machineInfrastructure"),
    )
    for part in parts:
        for key in ("templateRef", "ref"):
            value = dig(cc, "spec", *part, key)
            if value is not None:
                refs[part] = value
    for workers in ("machineDeployments", "machinePools"):
        for item in dig(cc, "spec", "workers", workers) or []:
            name = dig(item, "class") or dig(item, "name")
            for sub in (("infrastructure", "templateRef"), ("template", "infrastructure", "ref")):
                value = dig(item, *sub)
                if value is not None and isinstance(name, str):
                    refs[(workers, name)] = value
    return refs


def _group_kind(ref: Json) -> tuple[str, str]:
    api_version, kind = dig(ref, "apiVersion"), dig(ref, "kind")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return group, kind if isinstance(kind, str) else ""


def incompatible(old_cc: JsonObject, new_cc: JsonObject) -> Iterator[tuple[JsonPath, str]]:
    """Template references whose group or kind changed (``ClusterClassesAreCompatible``)."""
    before = _template_refs(old_cc)
    for where, ref in _template_refs(new_cc).items():
        if where in before and _group_kind(before[where]) != _group_kind(ref):
            was, now = _group_kind(before[where]), _group_kind(ref)
            shown = ".".join(str(part) for part in where)
            yield where, f"{shown} changes from {'/'.join(was)} to {'/'.join(now)}"


CLASS_UPDATE = Rule(
    "CAPZ-UPDATE-CLUSTERCLASS",
    "on update: a ClusterClass keeps the group and kind of its template references and keeps the "
    "machine deployment and pool classes Clusters of the set use "
    "(CAPI internal/webhooks/clusterclass.go:validate, check.ClusterClassesAreCompatible)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.UPDATE,
)


@CLASS_UPDATE.checks_update
def _check_class(change: Change) -> Iterator[Finding]:
    if change.new.kind != kinds.CLUSTER_CLASS:
        return
    for _where, message in incompatible(change.old.obj, change.new.obj):
        yield CLASS_UPDATE.at(change, ("spec",), f"{message} (incompatible with Clusters using it)")
    for workers in ("machineDeployments", "machinePools"):
        kept = {
            dig(item, "class") or dig(item, "name")
            for item in dig(change.new.obj, "spec", "workers", workers) or []
        }
        for cluster in change.new_set.objects_of(kinds.CLUSTER):
            if not uses_class(cluster, change.new):
                continue
            for item in dig(cluster.obj, "spec", "topology", "workers", workers) or []:
                used = dig(item, "class")
                if isinstance(used, str) and used not in kept:
                    yield CLASS_UPDATE.at(
                        change,
                        ("spec", "workers", workers),
                        f"class {used!r} cannot be removed: Cluster {cluster.name!r} uses it",
                    )
