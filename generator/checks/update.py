"""The update and delete checks of ``validate --against``: two revisions of a set of manifests.

Objects are matched by group, kind, namespace and name, as the API server identifies them (a
missing namespace is the same namespace in both revisions; later copies of an identity are left
out, as :class:`~generator.model.manifests.ManifestSet` does). Both revisions go through the
create admission chain first (CRD defaults, CAPZ's mutating webhook): the stored object was
defaulted when it was created, and the new one is defaulted before the update is validated. Then
every update rule of the rulebook runs on each matched object, the CRDs' transition rules with
``oldSelf`` bound to the old value (:mod:`generator.cel.transition`), and every delete rule on
each object only the old revision has. The create checks of the new revision are the caller's
(:mod:`generator.validate.against` runs them as without ``--against``).

A finding names the new place (or, for a removed object, the old one) as its subject and the
old place in ``old``: the file, document and JSON path there; lines are found by the caller, who
holds the texts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from generator.checks.admission.chain import admit_documents
from generator.checks.changes import Change, Removal
from generator.checks.context import ValidationOptions
from generator.checks.rules import CHANGE_RULES
from generator.documents import Document
from generator.findings import Finding, JsonPath, OldPlace, Operation
from generator.jsontypes import Json, dig
from generator.model.manifests import ManifestSet, TopObject
from generator.schemastore.types import SchemaLookup

if TYPE_CHECKING:
    from generator.cel.transition import Pair

Key = tuple[str, str, str, str]  # group, kind, namespace ("" when unset), name


@dataclass(frozen=True)
class Matched:
    """The two revisions indexed, and what happened to each object between them."""

    old_set: ManifestSet
    new_set: ManifestSet
    changes: tuple[Change, ...]
    removals: tuple[Removal, ...]
    added: tuple[TopObject, ...]


def _identity(obj: TopObject) -> Key | None:
    if not obj.name or not obj.kind:
        return None
    return (obj.group, obj.kind, obj.namespace or "", obj.name)


def document_identity(document: Document) -> Key | None:
    """The identity of a document as written (before admission), None without one."""
    obj = document.obj
    api_version, kind = dig(obj, "apiVersion"), dig(obj, "kind")
    name, namespace = dig(obj, "metadata", "name"), dig(obj, "metadata", "namespace")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    if not isinstance(name, str) or not name or not kind:
        return None
    space = namespace if isinstance(namespace, str) else ""
    return (api_version.rpartition("/")[0], kind, space, name)


def applied(old_manifest: Json, new_manifest: Json, live: Json) -> Json:
    """What ``kubectl apply`` of ``new_manifest`` makes of the ``live`` object last applied from
    ``old_manifest``: fields the new manifest sets win, fields the old manifest set and the new
    one dropped are removed, and everything else of the live object stays (the values the
    admission chain filled in when it was created are not computed again: a default that
    depends on another field keeps its first value). Lists are replaced whole, as a merge patch
    on a custom resource does."""
    if not isinstance(new_manifest, dict) or not isinstance(live, dict):
        return new_manifest
    before = old_manifest if isinstance(old_manifest, dict) else {}
    out = {key: value for key, value in live.items() if key in new_manifest or key not in before}
    for key, value in new_manifest.items():
        out[key] = applied(before.get(key), value, live.get(key))
    return out


def _over_live(
    new_documents: Sequence[Document], old_documents: Sequence[Document], live: Sequence[Document]
) -> list[Document]:
    """The new documents as applied over the old revision's admitted objects."""
    previous: dict[Key, tuple[Document, Document]] = {}
    for raw, admitted in zip(old_documents, live, strict=True):
        key = document_identity(raw)
        if key is not None:
            previous.setdefault(key, (raw, admitted))
    out = []
    for document in new_documents:
        key = document_identity(document)
        if key is None or key not in previous:
            out.append(document)
            continue
        raw, admitted = previous[key]
        merged = applied(raw.obj, document.obj, admitted.obj)
        out.append(Document(document.source, document.index, merged, document.start_line))
    return out


def _by_identity(ms: ManifestSet) -> dict[Key, TopObject]:
    found: dict[Key, TopObject] = {}
    for obj in ms.objects:
        key = _identity(obj)
        if key is not None and obj not in ms.duplicate_of:
            found.setdefault(key, obj)
    return found


def match(
    new_documents: Sequence[Document],
    old_documents: Sequence[Document],
    store: SchemaLookup | None,
) -> Matched:
    """Both revisions admitted and indexed, their objects matched. The old revision is what the
    API server holds (admitted when created); the new one is applied over it, then admitted."""
    live = admit_documents(old_documents, store)[0]
    old_set = ManifestSet(live)
    merged = _over_live(new_documents, old_documents, live)
    new_set = ManifestSet(admit_documents(merged, store)[0])
    before, after = _by_identity(old_set), _by_identity(new_set)
    changes = tuple(
        Change(before[key], obj, old_set, new_set) for key, obj in after.items() if key in before
    )
    removals = tuple(
        Removal(obj, old_set, new_set) for key, obj in before.items() if key not in after
    )
    added = tuple(obj for key, obj in after.items() if key not in before)
    return Matched(old_set, new_set, changes, removals, added)


def validate_changes(
    new_documents: Sequence[Document],
    old_documents: Sequence[Document],
    store: SchemaLookup | None,
    options: ValidationOptions,
) -> list[Finding]:
    """Every update and delete finding between the two revisions (without lines)."""
    store = store if options.schemas else None
    matched = match(new_documents, old_documents, store)
    findings: list[Finding] = []
    for rule_id, rule in CHANGE_RULES.items():
        if rule_id in options.disabled_rules:
            continue
        if rule.update_check is not None:
            for change in matched.changes:
                findings.extend(_placed(f, change) for f in rule.update_check(change))
        if rule.delete_check is not None:
            for removal in matched.removals:
                findings.extend(_removed(f, removal) for f in rule.delete_check(removal))
    if options.cel and store is not None and "cel" not in options.disabled_rules:
        findings.extend(_transitions(matched.changes, store, options))
    return findings


def _transitions(
    changes: Sequence[Change], store: SchemaLookup, options: ValidationOptions
) -> Iterator[Finding]:
    # lazy: the CEL machinery loads only for runs with something to compare
    from generator.cel.transition import check_transitions

    folder = options.cache_root / "cel" if options.cache_root is not None else None
    for change in changes:
        pairs: list[Pair] = [(change.old.obj, change.new)]
        # embedded resources; a top-level ASO object is ``change.new`` itself
        pairs += [(old.obj, new) for old, new in change.resource_pairs() if new.path]
        for finding in check_transitions(pairs, store, cache_folder=folder):
            yield _placed(finding, change)


def _old_path(change: Change, path: JsonPath) -> JsonPath:
    """Where ``path`` of the new object is in the old one: an embedded resource may sit at
    another index; the longest part of the path the old object has."""
    for old, new in change.resource_pairs():
        if new.path and tuple(path[: len(new.path)]) == new.path:
            path = (*old.path, *path[len(new.path) :])
            break
    while path and not _has(change.old.obj, path):
        path = path[:-1]
    return path


def _has(obj: Json, path: JsonPath) -> bool:
    """Whether ``obj`` holds something (even null) at ``path``."""
    parent = dig(obj, *path[:-1]) if len(path) > 1 else obj
    last = path[-1]
    if isinstance(parent, dict):
        return last in parent
    return isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent)


def _placed(finding: Finding, change: Change) -> Finding:
    """An update finding with the old place beside it."""
    document = change.old.document
    old = OldPlace(document.source, document.index, _old_path(change, finding.path))
    return replace(finding, operation=Operation.UPDATE, old=old)


def _removed(finding: Finding, removal: Removal) -> Finding:
    """A delete finding: on the removed object, or on a new object with the removed one beside."""
    if finding.subject == removal.old.subject:
        return replace(finding, operation=Operation.DELETE)
    document = removal.old.document
    old = OldPlace(document.source, document.index, ("metadata", "name"))
    return replace(finding, operation=Operation.DELETE, old=old)
