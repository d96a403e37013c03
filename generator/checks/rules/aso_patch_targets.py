"""The legacy objects that carry option-7 patches, their patches read, and the ASO object CAPZ
would build from each (the support of :mod:`generator.checks.rules.aso_patches`).

CAPZ v1.26.0 turns an AzureManagedControlPlane into a ManagedCluster and an AzureManagedMachinePool
into a ManagedClustersAgentPool, then merges the object's patch strings into it (reference §5.3,
§5.4; ``azure/services/aso/aso.go``). The objects are built by :mod:`generator.capzbuild`, the
mapping ``capzgen migrate`` uses, at the containerservice version the bundled schemas have
(``v1api20240901``). Values that only the live cluster decides (the Cluster's name for a
template, a pool's control plane) are filled with stand-ins: the patch rules judge only what the
patches change, never the values built.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, final

from generator.capzbuild.agent_pool import AGENT_POOL_KIND, build_agent_pool
from generator.capzbuild.managed_cluster import (
    MANAGED_CLUSTER_KIND,
    build_managed_cluster,
    read_basics,
)
from generator.capzbuild.patches import PatchProblem, parse_patch
from generator.capzbuild.reader import SpecReader
from generator.capzbuild.tables import CONTAINER_SERVICE_API
from generator.findings import JsonPath, PathPart
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.manifests import ManifestSet, TopObject
from generator.model.values import as_dict, as_list, is_templated, known_str

_SPEC: JsonPath = kinds.SPEC
_TEMPLATE_SPEC: JsonPath = kinds.TEMPLATE_SPEC
_STAND_IN = "unknown"  # a name or location the manifests do not decide


@final
class Target:
    """A legacy kind with patches: where its spec is, the patch field, the ASO kind CAPZ builds,
    and the fields of that object CAPZ sets itself (path -> where CAPZ takes the value from)."""

    kind: Final[str]
    spec_path: Final[JsonPath]
    patch_field: Final[str]
    aso_kind: Final[str]
    owned: Final[dict[JsonPath, str]]

    def __init__(
        self,
        kind: str,
        spec_path: JsonPath,
        patch_field: str,
        aso_kind: str,
        owned: dict[JsonPath, str],
    ) -> None:
        self.kind, self.spec_path, self.patch_field = kind, spec_path, patch_field
        self.aso_kind, self.owned = aso_kind, owned


_MC_OWNED: dict[JsonPath, str] = {
    ("metadata", "name"): "the control plane's name",
    ("spec", "azureName"): "the control plane's name",
    ("spec", "owner"): "spec.resourceGroupName",
    ("spec", "location"): "spec.location",
    ("spec", "kubernetesVersion"): "spec.version",
    ("spec", "agentPoolProfiles"): "the AzureManagedMachinePools",
}
_POOL_OWNED: dict[JsonPath, str] = {
    ("metadata", "name"): "the pool's name",
    ("spec", "azureName"): "spec.name",
    ("spec", "owner"): "the control plane's ManagedCluster",
    ("spec", "orchestratorVersion"): "the MachinePool's spec.template.spec.version",
    ("spec", "count"): "the MachinePool's spec.replicas",
}
_MC_PATCHES = "asoManagedClusterPatches"
_POOL_PATCHES = "asoManagedClustersAgentPoolPatches"
TARGETS = (
    Target(kinds.LEGACY_CONTROL_PLANE, _SPEC, _MC_PATCHES, MANAGED_CLUSTER_KIND, _MC_OWNED),
    Target(
        kinds.LEGACY_CONTROL_PLANE_TEMPLATE,
        _TEMPLATE_SPEC,
        _MC_PATCHES,
        MANAGED_CLUSTER_KIND,
        _MC_OWNED,
    ),
    Target(kinds.LEGACY_MACHINE_POOL, _SPEC, _POOL_PATCHES, AGENT_POOL_KIND, _POOL_OWNED),
    Target(
        kinds.LEGACY_MACHINE_POOL_TEMPLATE,
        _TEMPLATE_SPEC,
        _POOL_PATCHES,
        AGENT_POOL_KIND,
        _POOL_OWNED,
    ),
)


@final
class Patch:
    """One entry of a patch list: its index, its path in the document, and what it holds."""

    index: Final[int]
    path: Final[JsonPath]
    value: Final[JsonObject | PatchProblem]

    def __init__(self, index: int, path: JsonPath, value: JsonObject | PatchProblem) -> None:
        self.index, self.path, self.value = index, path, value


@final
class Patched:
    """A legacy object with patches (only the string entries; the CRD schema reports others)."""

    obj: Final[TopObject]
    target: Final[Target]
    spec: Final[JsonObject]
    patches: Final[tuple[Patch, ...]]

    def __init__(
        self, obj: TopObject, target: Target, spec: JsonObject, patches: tuple[Patch, ...]
    ) -> None:
        self.obj, self.target, self.spec, self.patches = obj, target, spec, patches

    @property
    def merge_patches(self) -> list[Patch]:
        """The entries that are merge patches (the ones CAPZ could apply)."""
        return [p for p in self.patches if isinstance(p.value, dict)]


def patched_objects(ms: ManifestSet) -> Iterator[Patched]:
    """Every legacy object of :data:`TARGETS` with at least one patch string, in input order."""
    for target in TARGETS:
        for obj in ms.objects_of(target.kind):
            spec = as_dict(dig(obj.obj, *target.spec_path))
            entries = as_list(dig(spec, target.patch_field)) if spec is not None else None
            if spec is None or not entries:
                continue
            base = (*target.spec_path, target.patch_field)
            patches = tuple(
                _read(obj, index, text, (*base, index)) for index, text in _strings(entries)
            )
            if patches:
                yield Patched(obj, target, spec, patches)


def _strings(entries: list[Json]) -> Iterator[tuple[int, str]]:
    for index, text in enumerate(entries):
        if isinstance(text, str):
            yield index, text


def _read(obj: TopObject, index: int, text: str, path: JsonPath) -> Patch:
    value = parse_patch(text, source=f"{obj.ref()} patch {index}")
    if isinstance(value, PatchProblem) and is_templated(text):
        value = {}  # a placeholder (``${PATCHES}``) that is decided later: nothing to judge yet
    return Patch(index, path, value)


@dataclass(frozen=True)
class _Cluster:
    """The cluster around a built object (the settings both builders' protocols ask for)."""

    cluster_name: str
    location: str = _STAND_IN
    resource_group: str = _STAND_IN
    mc_name: str = _STAND_IN
    credential_secret: str = f"{_STAND_IN}-aso-credentials"
    preview: bool = False
    container_service_api: str = CONTAINER_SERVICE_API
    subscription: str | None = None
    vnet_name: str = _STAND_IN
    vnet_resource_group: str = _STAND_IN
    subnet_name: str = _STAND_IN
    subnet_ref: JsonObject = field(
        default_factory=lambda: {
            "group": kinds.NETWORK,
            "kind": "VirtualNetworksSubnet",
            "name": _STAND_IN,
        }
    )


class Unbuildable(Exception):
    """A legacy field of the wrong shape: the object is not built (its CRD schema reports it)."""


class _Origin:
    """The reader's error source: errors become :class:`Unbuildable`."""

    def error(self, message: str, path: Sequence[PathPart] = ()) -> Exception:
        return Unbuildable(message)


def build(ms: ManifestSet, patched: Patched) -> JsonObject:
    """The ASO object CAPZ would build for ``patched`` (patches not applied).

    Raises :class:`Unbuildable` when a legacy field has the wrong shape.
    """
    name = patched.obj.name or _STAND_IN
    if patched.target.aso_kind == AGENT_POOL_KIND:
        reader = SpecReader(patched.spec, _Origin(), list(patched.target.spec_path))
        return build_agent_pool(reader, name, _Cluster(cluster_name=_STAND_IN)).obj
    return _managed_cluster(ms, patched, name)


def _managed_cluster(ms: ManifestSet, patched: Patched, name: str) -> JsonObject:
    cluster = next((g.cluster for g in ms.clusters if g.control_plane is patched.obj), None)
    cluster_name = (cluster.name if cluster is not None else None) or name
    spec = patched.spec
    if known_str(spec.get("location")) is None:  # a template's, or a placeholder
        spec = {**spec, "location": _STAND_IN}
    reader = SpecReader(spec, _Origin(), list(patched.target.spec_path))
    basics = read_basics(reader, name, cluster_name)
    settings = _Cluster(
        cluster_name=cluster_name,
        location=basics.location,
        resource_group=basics.resource_group,
        mc_name=basics.mc_name,
        credential_secret=f"{cluster_name}-aso-credentials",
        subscription=basics.subscription,
    )
    network = dig(cluster.obj, "spec", "clusterNetwork") if cluster is not None else None
    services = as_list(dig(network, "services", "cidrBlocks"))
    tags = as_dict(spec.get("additionalTags"))
    return build_managed_cluster(reader, settings, name, services or [], tags).obj
