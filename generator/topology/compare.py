"""Two plans of the same topology compared: what a change of the class (or of the Cluster)
between two revisions does to each Cluster built from it.

Objects are matched by kind, namespace and name. Planned names are deterministic (the
:data:`~generator.topology.naming.RANDOM` stand-in), so an object CAPI keeps matches itself
across the revisions, and a renamed naming template shows as one object removed and one added,
which is what CAPI does. The per-object diff is a unified diff of the YAML as the plan writes it.
Whether the API server and the providers' webhooks accept each change is the update and delete
rules' question (:func:`generator.checks.update.validate_changes`): the topology controller
applies every changed object as an update and deletes what is gone.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from generator.jsontypes import JsonObject
from generator.topology.blueprint import name_of, namespace_of
from generator.topology.plan import Plan
from generator.yamlio.emit import dump_documents

ObjectKey = tuple[str, str, str]  # kind, namespace, name


class Status(StrEnum):
    """What happened to one planned object between the revisions."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@dataclass(frozen=True, slots=True)
class ObjectChange:
    """One object that differs, and the unified diff of its YAML."""

    key: ObjectKey
    status: Status
    diff: str

    def label(self) -> str:
        """``Kind namespace/name``."""
        kind, namespace, name = self.key
        return f"{kind} {namespace}/{name}"


def object_key(obj: JsonObject) -> ObjectKey:
    """How the API server identifies an object within the plan (the group never differs for a
    kind here)."""
    return (str(obj.get("kind") or ""), namespace_of(obj), name_of(obj) or "")


def _by_key(objects: Sequence[JsonObject]) -> dict[ObjectKey, JsonObject]:
    found: dict[ObjectKey, JsonObject] = {}
    for obj in objects:
        found.setdefault(object_key(obj), obj)
    return found


def _diff(old: JsonObject | None, new: JsonObject | None, key: ObjectKey, rev: str) -> str:
    label = "/".join(key)
    before = dump_documents([old]).splitlines(keepends=True) if old is not None else []
    after = dump_documents([new]).splitlines(keepends=True) if new is not None else []
    return "".join(difflib.unified_diff(before, after, fromfile=f"{rev}:{label}", tofile=label))


def compare_plans(old: Plan, new: Plan, rev: str) -> list[ObjectChange]:
    """Every object that differs between ``old`` (the plan at ``rev``) and ``new``: in the new
    plan's order, then the objects only the old plan has, in its order."""
    before, after = _by_key(old.objects), _by_key(new.objects)
    changes: list[ObjectChange] = []
    for key, obj in after.items():
        previous = before.get(key)
        if previous is None:
            changes.append(ObjectChange(key, Status.ADDED, _diff(None, obj, key, rev)))
        elif previous != obj:
            changes.append(ObjectChange(key, Status.CHANGED, _diff(previous, obj, key, rev)))
    changes.extend(
        ObjectChange(key, Status.REMOVED, _diff(obj, None, key, rev))
        for key, obj in before.items()
        if key not in after
    )
    return changes


def render_changes(changes: Sequence[ObjectChange]) -> str:
    """The diff as the CLI prints it: per object a ``# changed Kind namespace/name`` line, then
    its unified diff."""
    return "".join(f"# {change.status} {change.label()}\n{change.diff}" for change in changes)


def summary(changes: Sequence[ObjectChange]) -> str:
    """``2 objects changed, 1 added, 0 removed``."""
    counts = {status: sum(1 for c in changes if c.status is status) for status in Status}
    changed = counts[Status.CHANGED]
    return (
        f"{changed} object{'' if changed == 1 else 's'} changed, "
        f"{counts[Status.ADDED]} added, {counts[Status.REMOVED]} removed"
    )
