"""The templates a ClusterClass references, and which of them a patch selector matches.

CAPI matches a patch definition's ``selector`` against each template of a Cluster's topology
(``internal/controllers/topology/cluster/patches/inline`` ``matchesSelector``): the template's
apiVersion and kind must equal the selector's, and ``matchResources`` must name the place the
template is referenced from: ``infrastructureCluster`` (``spec.infrastructure``),
``controlPlane`` (``spec.controlPlane`` and its ``machineInfrastructure``), or the class names of
``machinePoolClass`` / ``machineDeploymentClass`` (``*`` alone, or as a prefix or suffix, is a
wildcard). Both ClusterClass API versions are read: v1beta1 ``ref`` and v1beta2 ``templateRef``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from generator.checks.clusterclass.placeholders import Role
from generator.findings import JsonPath
from generator.jsontypes import Json, JsonObject, dig
from generator.model.manifests import Ref
from generator.model.values import as_dict, as_list, as_str


@dataclass(frozen=True, slots=True)
class Target:
    """A template reference of the class and the role it is referenced in."""

    role: Role
    ref: Ref

    def label(self) -> str:
        """``Kind/name`` for messages."""
        return f"{self.ref.kind}/{self.ref.name}"


_REF_FIELDS = ("ref", "templateRef")
_WORKER_REFS: tuple[tuple[str, ...], ...] = (
    ("template", "infrastructure", "ref"),
    ("template", "bootstrap", "ref"),
    ("infrastructure", "templateRef"),
    ("bootstrap", "templateRef"),
)
_WORKERS = (("machinePools", "machinePool"), ("machineDeployments", "machineDeployment"))


def _refs(value: Json, base: JsonPath, paths: tuple[tuple[str, ...], ...]) -> Iterator[Ref]:
    for path in paths:
        ref = Ref.parse(dig(value, *path), (*base, *path))
        if ref is not None:
            yield ref


def class_targets(class_obj: JsonObject) -> list[Target]:
    """Every template reference of the ClusterClass, in document order."""
    targets: list[Target] = []
    single = tuple((name,) for name in _REF_FIELDS)
    infra: JsonPath = ("spec", "infrastructure")
    targets.extend(
        Target(Role("infrastructureCluster"), ref)
        for ref in _refs(dig(class_obj, *infra), infra, single)
    )
    control_plane = (
        *single,
        *(("machineInfrastructure", name) for name in _REF_FIELDS),
    )
    base: JsonPath = ("spec", "controlPlane")
    section = dig(class_obj, *base)
    targets.extend(Target(Role("controlPlane"), ref) for ref in _refs(section, base, control_plane))
    for key, kind in _WORKERS:
        for index, worker in enumerate(as_list(dig(class_obj, "spec", "workers", key)) or ()):
            name = as_str((as_dict(worker) or {}).get("class"))
            role = Role(kind, name, index)
            path: JsonPath = ("spec", "workers", key, index)
            targets.extend(Target(role, ref) for ref in _refs(worker, path, _WORKER_REFS))
    return targets


def _class_matches(pattern: Json, name: str | None) -> bool:
    if not isinstance(pattern, str) or name is None:
        return False
    if pattern == "*" or pattern == name:
        return True
    if pattern.startswith("*") and name.endswith(pattern[1:]):
        return True
    return pattern.endswith("*") and name.startswith(pattern[:-1])


def matches(selector: Json, target: Target) -> bool:
    """Whether a definition's ``selector`` selects ``target`` (CAPI ``matchesSelector``)."""
    selector = as_dict(selector) or {}
    if (
        selector.get("apiVersion") != target.ref.api_version
        or selector.get("kind") != target.ref.kind
    ):
        return False
    resources = as_dict(selector.get("matchResources")) or {}
    role = target.role.kind
    if role in ("infrastructureCluster", "controlPlane"):
        return resources.get(role) is True
    names = as_list(dig(resources, f"{role}Class", "names")) or []
    return any(_class_matches(pattern, target.role.worker_class) for pattern in names)
