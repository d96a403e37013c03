"""CAPI object references between the top-level objects (R1–R5, C1–C3, §6.1).

CAPZ follows references, not names, so a reference that does not resolve, or resolves to the
wrong kind, leaves the cluster stuck with a terminal error. A reference to a CAPZ kind absent from
the validated set is an error: CAPZ objects are generated together with their Cluster.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, final

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ClusterGroup, ManifestSet, Ref, TopObject
from generator.model.values import as_dict, as_list, as_str, is_templated


def _where_else(ms: ManifestSet, kind: str, name: str) -> str:
    """ " (found in namespace x)" when the object exists only in other namespaces."""
    others = sorted({obj.namespace or "<none>" for obj in ms.find_any_namespace(kind, name)})
    return f" (found in namespace {', '.join(others)})" if others else ""


def _not_found(rule: Rule, ms: ManifestSet, owner: TopObject, ref: Ref) -> Finding:
    namespace = owner.namespace or "<none>"
    return rule.at(
        owner,
        (*ref.path, "name"),
        f"{ref.kind} {ref.name!r} is not in the validated set in namespace {namespace}"
        + _where_else(ms, ref.kind, ref.name),
        hint="references resolve by kind and name in the referring object's namespace",
    )


def _check_ref(
    rule: Rule,
    ms: ManifestSet,
    owner: TopObject,
    ref: Ref,
    expected_kind: str,
    target: TopObject | None,
) -> Iterator[Finding]:
    """Kind, group and presence of the object ``ref`` names (``target``: what it resolved to)."""
    if ref.kind != expected_kind:
        yield rule.at(
            owner,
            (*ref.path, "kind"),
            f"must reference kind {expected_kind}, not {ref.kind}",
        )
        return
    if ref.group is not None and ref.group != kinds.CAPZ_GROUP:
        field = "apiVersion" if ref.api_version is not None else "apiGroup"
        yield rule.at(
            owner,
            (*ref.path, field),
            f"{expected_kind} lives in group {kinds.CAPZ_GROUP}, not {ref.group}",
            hint=f"use apiVersion: {kinds.CAPZ_API_VERSION}",
        )
    if target is None and not is_templated(ref.name):
        yield _not_found(rule, ms, owner, ref)


@final
class _RefPair:
    """One of the two Cluster refs, the kind it must name, and the other ref that makes it required."""

    field: Final[str]
    expected: Final[str]
    other_kind: Final[str]

    def __init__(self, field: str, expected: str, other_kind: str) -> None:
        self.field, self.expected, self.other_kind = field, expected, other_kind


_INFRA_PAIR = _RefPair("infrastructureRef", kinds.ASO_CLUSTER, kinds.ASO_CONTROL_PLANE)
_CONTROL_PLANE_PAIR = _RefPair("controlPlaneRef", kinds.ASO_CONTROL_PLANE, kinds.ASO_CLUSTER)


INFRA = Rule(
    "CAPZ-REF-INFRA",
    "Cluster.spec.infrastructureRef of an ASO cluster names an AzureASOManagedCluster "
    "(group infrastructure.cluster.x-k8s.io) present in the set (R1, C2)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPI's Cluster controller waits for the referenced object for ever",
)


@INFRA.checks
def _check_infra(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        yield from _cluster_ref_check(ms, INFRA, group, _INFRA_PAIR)


CONTROL_PLANE = Rule(
    "CAPZ-REF-CONTROLPLANE",
    "Cluster.spec.controlPlaneRef of an ASO cluster names an AzureASOManagedControlPlane "
    "(group infrastructure.cluster.x-k8s.io, not controlplane.*) present in the set (R2, C1, C3)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPI's Cluster controller waits for the referenced object for ever",
)


@CONTROL_PLANE.checks
def _check_control_plane(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        yield from _cluster_ref_check(ms, CONTROL_PLANE, group, _CONTROL_PLANE_PAIR)


def _cluster_ref_check(
    ms: ManifestSet, rule: Rule, group: ClusterGroup, pair: _RefPair
) -> Iterator[Finding]:
    cluster = group.cluster
    spec = cluster.spec or {}
    infra = pair is _INFRA_PAIR
    ref, other_ref = (
        (group.infra_ref, group.control_plane_ref)
        if infra
        else (group.control_plane_ref, group.infra_ref)
    )
    other = other_ref.kind if other_ref is not None else None
    if ref is None:
        # Topology clusters get their refs from the ClusterClass; otherwise the ref is needed as
        # soon as the other one makes this an ASO cluster. A malformed ref is the schema's.
        if (
            other == pair.other_kind
            and spec.get("topology") is None
            and spec.get(pair.field) is None
        ):
            yield rule.at(
                cluster,
                ("spec",),
                f"Cluster references a {pair.other_kind} but has no spec.{pair.field}; "
                f"it must reference a {pair.expected}",
            )
        return
    if (
        ref.kind != pair.expected
        and other != pair.other_kind
        and not ref.kind.startswith("AzureASOManaged")
    ):
        return  # not an ASO cluster (legacy API or another provider): out of scope
    target = group.infra if infra else group.control_plane
    yield from _check_ref(rule, ms, cluster, ref, pair.expected, target)


MACHINE_POOL_REF = Rule(
    "CAPZ-REF-MACHINEPOOL",
    "MachinePool.spec.template.spec.infrastructureRef names an AzureASOManagedMachinePool present "
    "in the set (R4, C3)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPI's MachinePool controller waits for the referenced object for ever",
)


@MACHINE_POOL_REF.checks
def _check_machine_pool(ms: ManifestSet) -> Iterator[Finding]:
    for view in ms.pools:
        ref = view.infra_ref
        if ref is None:
            continue  # required by the MachinePool schema
        if ref.kind != kinds.ASO_MACHINE_POOL and not ref.kind.startswith("AzureASOManaged"):
            group = ms.cluster_of.get(view.machine_pool)
            if group is None or not group.is_aso:
                continue  # not an ASO pool
        yield from _check_ref(
            MACHINE_POOL_REF, ms, view.machine_pool, ref, kinds.ASO_MACHINE_POOL, view.infra
        )


CLUSTER_NAME = Rule(
    "CAPZ-REF-CLUSTERNAME",
    "MachinePool spec.clusterName and spec.template.spec.clusterName agree and name a Cluster in the "
    "set (skipped for fragments without a Cluster or ClusterClass) (R3, C3)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPI's MachinePool controller finds no Cluster to join",
)


@CLUSTER_NAME.checks
def _check_cluster_name(ms: ManifestSet) -> Iterator[Finding]:
    for mp in ms.objects_of(kinds.MACHINE_POOL):
        name = as_str(dig(mp.spec, "clusterName"))
        template_path = ("spec", "template", "spec", "clusterName")
        template_name = as_str(dig(mp.spec, "template", "spec", "clusterName"))
        if name is not None and template_name is not None and name != template_name:
            yield CLUSTER_NAME.at(
                mp,
                template_path,
                f"is {template_name!r} but spec.clusterName is {name!r}; both must name the Cluster",
            )
        if name is None or is_templated(name) or not ms.complete or mp in ms.cluster_of:
            continue  # a fragment (no Cluster) may add a pool to a running cluster
        if ms.find(kinds.CLUSTER, name, mp.namespace) is None:
            yield CLUSTER_NAME.at(
                mp,
                ("spec", "clusterName"),
                f"Cluster {name!r} is not in the validated set in namespace {mp.namespace or '<none>'}"
                + _where_else(ms, kinds.CLUSTER, name),
            )


BOOTSTRAP = Rule(
    "CAPZ-MP-BOOTSTRAP",
    'An AKS MachinePool\'s bootstrap has dataSecretName (normally "") or a configRef (R5, P2)',
    Severity.ERROR,
    Gate.ADMISSION,
)


@BOOTSTRAP.checks
def _check_bootstrap(ms: ManifestSet) -> Iterator[Finding]:
    for mp in ms.objects_of(kinds.MACHINE_POOL):
        if (
            as_str(dig(mp.obj, "spec", "template", "spec", "infrastructureRef", "kind"))
            != kinds.ASO_MACHINE_POOL
        ):
            continue
        path = ("spec", "template", "spec", "bootstrap")
        bootstrap = as_dict(dig(mp.obj, *path))
        if bootstrap is None:
            continue  # required by the MachinePool schema
        if bootstrap.get("configRef") is None and not isinstance(
            bootstrap.get("dataSecretName"), str
        ):
            yield BOOTSTRAP.at(
                mp,
                path,
                'needs dataSecretName: "" (AKS nodes take no bootstrap data) or a configRef',
            )


_CLASS_KINDS = {
    "infrastructure": kinds.ASO_CLUSTER_TEMPLATE,
    "controlPlane": kinds.ASO_CONTROL_PLANE_TEMPLATE,
}
_RESOLVABLE = frozenset({*kinds.TEMPLATE_KINDS, "KubeadmConfigTemplate"})


def _class_refs(cc: TopObject) -> Iterator[tuple[Ref, str | None]]:
    """Every template ref of a ClusterClass with the ASO kind it must have (v1beta1 and v1beta2)."""
    for section, kind in _CLASS_KINDS.items():
        for field in ("ref", "templateRef"):
            ref = Ref.parse(dig(cc.obj, "spec", section, field), ("spec", section, field))
            if ref is not None:
                yield ref, kind
    for index, pool in enumerate(as_list(dig(cc.obj, "spec", "workers", "machinePools")) or ()):
        base: JsonPath = ("spec", "workers", "machinePools", index)
        parts: tuple[tuple[str, str | None], ...] = (
            ("infrastructure", kinds.ASO_MACHINE_POOL_TEMPLATE),
            ("bootstrap", None),
        )
        for part, expected in parts:
            for sub in (("template", part, "ref"), (part, "templateRef")):
                ref = Ref.parse(dig(pool, *sub), (*base, *sub))
                if ref is not None:
                    yield ref, expected


CLASS_REF = Rule(
    "CAPZ-REF-CLASS",
    "ClusterClass template refs of an ASO class pair the AzureASOManaged*Template kinds and resolve "
    "in the set (R1, R2, R4 for templates; §6.1, P3)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPI's topology controller cannot build the Cluster's objects",
)


@CLASS_REF.checks
def _check_class(ms: ManifestSet) -> Iterator[Finding]:
    for cc in ms.objects_of(kinds.CLUSTER_CLASS):
        refs = list(_class_refs(cc))
        is_aso = any(ref.kind in kinds.TEMPLATE_KINDS for ref, _ in refs)
        for ref, expected in refs:
            if is_aso and expected is not None and ref.kind != expected:
                yield CLASS_REF.at(
                    cc, (*ref.path, "kind"), f"must reference kind {expected}, not {ref.kind}"
                )
                continue
            if ref.kind not in _RESOLVABLE or is_templated(ref.name):
                continue
            if ms.find(ref.kind, ref.name, cc.namespace) is None:
                yield _not_found(CLASS_REF, ms, cc, ref)


_REFERENCED_KINDS = (kinds.ASO_CLUSTER, kinds.ASO_CONTROL_PLANE, kinds.ASO_MACHINE_POOL)


UNREFERENCED = Rule(
    "CAPZ-REF-UNREFERENCED",
    "Every AzureASOManaged* object (and *Template) is referenced by a Cluster, MachinePool or "
    "ClusterClass of the set (§1.1 ownership)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="no controller reconciles an object nothing references",
)


@UNREFERENCED.checks
def _check_unreferenced(ms: ManifestSet) -> Iterator[Finding]:
    if ms.has_kind(kinds.CLUSTER):
        referenced = set(ms.cluster_of) | set(ms.pool_of)
        for obj in ms.objects_of(*_REFERENCED_KINDS):
            if obj not in referenced and obj not in ms.duplicate_of:
                yield UNREFERENCED.at(
                    obj,
                    ("metadata", "name"),
                    f"no {'MachinePool' if obj.kind == kinds.ASO_MACHINE_POOL else 'Cluster'} in the set references this "
                    f"{obj.kind}; CAPZ does nothing until one does",
                )
    if ms.has_kind(kinds.CLUSTER_CLASS):
        used = {
            (ref.kind, ref.name)
            for cc in ms.objects_of(kinds.CLUSTER_CLASS)
            for ref, _ in _class_refs(cc)
        }
        for obj in ms.objects_of(*sorted(kinds.TEMPLATE_KINDS)):
            if (obj.kind, obj.name) not in used:
                yield UNREFERENCED.at(
                    obj,
                    ("metadata", "name"),
                    f"no ClusterClass in the set references this {obj.kind}",
                )
