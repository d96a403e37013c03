"""Legacy API groups CAPZ's own documentation still uses (reference §5.1).

Before CAPZ v1.0 the AKS kinds lived in ``exp.infrastructure.cluster.x-k8s.io`` (v1alpha3,
v1alpha4) and CAPI's MachinePool in ``exp.cluster.x-k8s.io``; CAPZ's managed-cluster pages kept such
examples. Their fields are those of today's v1beta1 kinds for everything the migration reads, so
they are read as the current group, and a note says so.
"""

from __future__ import annotations

from typing import Final

from generator.migrate import tables as t
from generator.migrate.plan import Item, Notes

_MOVES: Final = {
    "exp.infrastructure.cluster.x-k8s.io": t.CAPZ_GROUP,
    "exp.cluster.x-k8s.io": "cluster.x-k8s.io",
}
_OLD_VERSIONS: Final = ("v1alpha3", "v1alpha4")


def current_api_version(api_version: str) -> str | None:
    """The v1beta1 apiVersion for a legacy one, None when ``api_version`` is current."""
    group, _, version = api_version.rpartition("/")
    new_group = _MOVES.get(group, group)
    legacy_capz = group in _MOVES or (group in _MOVES.values() and version in _OLD_VERSIONS)
    if not legacy_capz:
        return None
    return f"{new_group}/v1beta1"


def read_as_current(items: list[Item], notes: Notes) -> None:
    """Move every legacy-group object to the current group in place, noting each move."""
    for item in items:
        api_version = item.obj.get("apiVersion")
        new = current_api_version(api_version) if isinstance(api_version, str) else None
        if new is None:
            continue
        item.obj["apiVersion"] = new
        notes.note(
            item,
            "apiVersion",
            f"{api_version} read as {new} (a legacy API group of CAPZ's documentation; the fields "
            "the migration reads are the same)",
        )
        spec = item.obj.get("spec")
        for ref in _refs(spec):
            ref_version = ref.get("apiVersion")
            moved = current_api_version(ref_version) if isinstance(ref_version, str) else None
            if moved is not None:
                ref["apiVersion"] = moved


def _refs(node: object) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    if isinstance(node, dict):
        if "apiVersion" in node and "kind" in node and "name" in node:
            found.append(node)
        for value in node.values():
            found += _refs(value)
    elif isinstance(node, list):
        for value in node:
            found += _refs(value)
    return found
