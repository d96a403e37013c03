"""Which patch changed what: findings on patched fields name the patch document.

A finding is found on the rendered output, so its file and line point there (``<generated>:36``).
When the field was set or removed by a ``--patch`` document (or a fleet override), the mistake is
in that document, so the finding also names it. :func:`changed_paths` compares an object before
and after one patch; :func:`attribute_findings` gives each finding the last patch that changed its
path, a path inside it, or a path above it (a missing required field is reported on its parent).
The finding keeps its file and line in the rendered output, where the changed object can be seen.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from generator.findings import Finding, JsonPath, PatchRef
from generator.jsontypes import Json


@dataclass(frozen=True, slots=True)
class PatchChange:
    """One field a patch document changed: the rendered document's index, the field's absolute
    JSON path in it, and the patch document."""

    document: int
    path: JsonPath
    patch: PatchRef


def changed_paths(before: Json, after: Json, prefix: JsonPath = ()) -> Iterator[JsonPath]:
    """The deepest paths at which ``after`` differs from ``before`` (added, removed or changed).

    Mappings are compared key by key and lists of equal length item by item; a list whose length
    changed is one change at the list's path.
    """
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in (*before, *(k for k in after if k not in before)):
            if key not in before or key not in after:
                yield (*prefix, key)
            else:
                yield from changed_paths(before[key], after[key], (*prefix, key))
        return
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from changed_paths(old, new, (*prefix, index))
        return
    if before != after or type(before) is not type(after):
        yield prefix


def _related(finding: JsonPath, changed: JsonPath) -> bool:
    """Whether one path lies inside the other (or they are the same). A finding on the whole
    object (an empty path, as cross-object rules report) is related only to a top-level key the
    patch added or removed: a patched label does not explain a missing reference."""
    if not finding and len(changed) > 1:
        return False
    shorter = min(len(finding), len(changed))
    return tuple(finding[:shorter]) == tuple(changed[:shorter])


def attribute_findings(
    findings: Sequence[Finding], changes: Sequence[PatchChange]
) -> list[Finding]:
    """``findings`` with :attr:`Finding.patch` set where a patch changed the field (the last
    patch that did, since its value is the one in the output)."""
    if not changes:
        return list(findings)
    by_document: dict[int, list[PatchChange]] = {}
    for change in changes:
        by_document.setdefault(change.document, []).append(change)
    attributed = []
    for finding in findings:
        document = finding.subject.document
        candidates = by_document.get(document, []) if document is not None else []
        match = next((c for c in reversed(candidates) if _related(finding.path, c.path)), None)
        attributed.append(finding if match is None else replace(finding, patch=match.patch))
    return attributed
