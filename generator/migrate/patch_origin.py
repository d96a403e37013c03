"""Naming the patch behind an invalid field of the migrated output.

``asoManagedClusterPatches`` and ``asoManagedClustersAgentPoolPatches`` are merged into the
generated ASO resources verbatim, so a typo in a patch (``netwrokProfile``) becomes an unknown field
of the output. The validator finds it in the output; this module points back at the patch of the
input that set it, so the user fixes the right line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from generator.capzbuild.values import normalized_name
from generator.errors import YamlError
from generator.findings import Finding, format_path
from generator.jsontypes import Json
from generator.migrate import tables as t
from generator.migrate.plan import Item
from generator.yamlio.load import load_manifest_value

_PATCH_FIELDS = {
    t.LEGACY_CONTROL_PLANE: ("asoManagedClusterPatches", "ManagedCluster"),
    t.LEGACY_MACHINE_POOL: ("asoManagedClustersAgentPoolPatches", "ManagedClustersAgentPool"),
}


@dataclass(frozen=True)
class PatchPaths:
    """The JSON paths one input patch sets, and where that patch is."""

    resource_kind: str
    resource_name: str
    where: str  # "AzureManagedControlPlane/my-cluster spec.asoManagedClusterPatches[0]"
    paths: frozenset[tuple[str, ...]]


def patch_paths(items: Sequence[Item]) -> list[PatchPaths]:
    """Every patch of the input's control planes and machine pools, with the paths it sets."""
    found = []
    for item in items:
        if item.kind not in _PATCH_FIELDS:
            continue
        field, resource_kind = _PATCH_FIELDS[item.kind]
        spec = item.obj.get("spec")
        patches = spec.get(field) if isinstance(spec, dict) else None
        for index, text in enumerate(patches if isinstance(patches, list) else []):
            try:
                patch = load_manifest_value(str(text), source=field)
            except YamlError:
                continue
            where = f"{item.kind}/{item.name} spec.{field}[{index}]"
            name = normalized_name(item.name)
            found.append(PatchPaths(resource_kind, name, where, frozenset(_paths(patch, ()))))
    return found


def explain(findings: Sequence[Finding], patches: Sequence[PatchPaths]) -> list[str]:
    """One line per error finding whose field a patch of the input set."""
    lines = []
    for finding in findings:
        if not finding.is_error:
            continue
        kind, name, path = _resource_path(finding)
        for patch in patches:
            if (kind, name) != (patch.resource_kind, patch.resource_name):
                continue
            for end in range(len(path), 0, -1):
                if path[:end] in patch.paths:
                    lines.append(
                        f"error: {kind}/{name}: {format_path(list(path[:end]))} is set by "
                        f"{patch.where}: fix the patch in the input"
                    )
                    break
    return lines


def _resource_path(finding: Finding) -> tuple[str | None, str | None, tuple[str, ...]]:
    subject = finding.subject
    path = tuple(str(p) for p in finding.path)
    if subject.embedded_path is not None:
        return subject.embedded_kind, subject.embedded_name, path[len(subject.embedded_path) :]
    return subject.kind, subject.name, path


def _paths(node: Json, prefix: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*prefix, str(key))
            yield from _paths(value, (*prefix, str(key)))
