"""User patches over rendered objects: RFC 7386 JSON merge patch and RFC 6902 JSON Patch.

A patch file (``--patch FILE``) holds one or more YAML documents, each::

    target: {kind: K, name: N, apiVersion: V, namespace: NS, embedded: {kind: K, name: N}}
    clusters: [names]        # optional: only these clusters (fleets)
    patch: {...}             # RFC 7386 merge patch, or
    jsonPatch: [{op: ..., path: ...}]   # RFC 6902 operations

Only ``target.kind`` is required; ``name`` may contain ``{cluster}`` (the cluster's name). With
``embedded`` the patch applies to the matching ASO resources inside the target's
``spec.resources`` and JSON pointers are relative to them. Patches run after rendering (and after
``--target-namespace``) and before validation, so a patched object is checked like any other.

The RFC algorithms live in :mod:`generator.jsonpatch` (pure functions that never modify their
arguments); :func:`apply_patches` ties them to targets and turns every failure into a
:class:`PatchError` naming the patch file, the document and the target.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import jsonschema_rs

from generator.errors import Location, PatchError
from generator.findings import JsonPath, PatchRef, format_path
from generator.generate.provenance import PatchChange, changed_paths
from generator.jsonpatch import PatchFailure, apply_json_patch, json_type_name, merge_patch
from generator.jsontypes import Json
from generator.resources import builtin_schemas_dir
from generator.yamlio.load import load_documents, read_source

CLUSTER_TOKEN = "{cluster}"


# --- model ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EmbeddedTarget:
    """The ``target.embedded`` selector: ASO resources inside the target's ``spec.resources``.

    ``None`` fields match anything; ``name`` may contain ``{cluster}``.
    """

    kind: str
    name: str | None = None
    api_version: str | None = None


@dataclass(frozen=True, slots=True)
class PatchTarget:
    """Which rendered objects a patch changes; ``None`` fields match anything.

    ``name`` may contain ``{cluster}``. With ``embedded`` the patch changes the matching ASO
    resources inside each matched object instead of the object itself.
    """

    kind: str
    name: str | None = None
    api_version: str | None = None
    namespace: str | None = None
    embedded: EmbeddedTarget | None = None

    def label(self, cluster: str | None = None) -> str:
        """``Kind/name > EmbeddedKind/name`` (``*`` for any name), as findings label objects."""
        text = f"{self.kind}/{_resolve_name(self.name, cluster) or '*'}"
        if self.embedded is not None:
            text += f" > {self.embedded.kind}/{_resolve_name(self.embedded.name, cluster) or '*'}"
        return text


@dataclass(frozen=True, slots=True)
class PatchDocument:
    """One patch: where it came from, what it targets, and either a merge patch or operations."""

    source: str  # the patch (or fleet) file
    index: int | None  # 0-based YAML document index in ``source``
    target: PatchTarget
    merge: Mapping[str, Json] | None = None
    operations: tuple[Mapping[str, Json], ...] | None = None
    clusters: frozenset[str] | None = None
    where: str | None = None  # JSON path inside ``source`` (fleet overrides)

    def applies_to(self, cluster: str) -> bool:
        """Whether the patch is for ``cluster``; without a ``clusters`` list it is for all."""
        return self.clusters is None or cluster in self.clusters

    def reference(self) -> PatchRef:
        """How findings on fields this patch changed name it."""
        return PatchRef(self.source, self.index, self.where)

    def location(self) -> Location:
        """Where errors about this patch point: its file, document, target and (fleets) path."""
        return Location(
            file=self.source,
            document=self.index,
            kind=self.target.kind,
            name=self.target.name or "*",
            path=self.where,
        )


# --- reading patch files -------------------------------------------------------------------------


@cache
def _validator() -> jsonschema_rs.Validator:
    schema = json.loads((builtin_schemas_dir() / "patch.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def schema_problems(data: Json, prefix: Sequence[str | int] = ()) -> list[str]:
    """Every way ``data`` breaks ``schemas/patch.schema.json``, as ``path: message`` lines."""
    problems = []
    for error in _validator().iter_errors(data):
        path = format_path([*prefix, *error.instance_path]) or "(top level)"
        if list(error.schema_path) == ["oneOf"]:
            message = "needs exactly one of `patch` (merge patch) or `jsonPatch` (JSON Patch)"
        else:
            message = error.message
        problems.append(f"{path}: {message}")
    return problems


def patch_from_data(
    data: Mapping[str, Json], *, source: str, index: int | None, where: str | None = None
) -> PatchDocument:
    """A PatchDocument from an already schema-checked mapping."""
    raw_target = data["target"]
    raw_embedded = raw_target.get("embedded")
    embedded = (
        EmbeddedTarget(
            kind=raw_embedded["kind"],
            name=raw_embedded.get("name"),
            api_version=raw_embedded.get("apiVersion"),
        )
        if raw_embedded is not None
        else None
    )
    target = PatchTarget(
        kind=raw_target["kind"],
        name=raw_target.get("name"),
        api_version=raw_target.get("apiVersion"),
        namespace=raw_target.get("namespace"),
        embedded=embedded,
    )
    clusters = data.get("clusters")
    operations = data.get("jsonPatch")
    return PatchDocument(
        source=source,
        index=index,
        target=target,
        merge=data.get("patch"),
        operations=tuple(operations) if operations is not None else None,
        clusters=frozenset(clusters) if clusters is not None else None,
        where=where,
    )


def parse_patch_text(text: str, *, source: str) -> list[PatchDocument]:
    """Every patch document of a YAML text; all schema problems of all documents at once."""
    documents = [d for d in load_documents(text, source=source) if d.obj is not None]
    if not documents:
        msg = "patch file holds no patch documents"
        raise PatchError(msg, location=Location(file=source))
    problems = []
    for document in documents:
        for problem in schema_problems(document.obj):
            problems.append(f"document {document.index + 1}: {problem}")
    if problems:
        msg = "invalid patch file"
        raise PatchError(
            msg,
            location=Location(file=source),
            details=problems,
            hint="see docs/flavors-and-variables.md, Patches, for the format",
        )
    return [patch_from_data(d.obj, source=source, index=d.index) for d in documents]


def load_patch_files(paths: Sequence[str]) -> tuple[PatchDocument, ...]:
    """Patch documents of ``--patch`` files, in command-line then document order."""
    patches: list[PatchDocument] = []
    for path in paths:
        source = "<stdin>" if path == "-" else path
        patches.extend(parse_patch_text(read_source(path), source=source))
    return tuple(patches)


# --- applying patches to objects -----------------------------------------------------------------


def apply_patches(
    objects: Sequence[Json],
    patches: Sequence[PatchDocument],
    *,
    cluster: str,
    changes: list[PatchChange] | None = None,
) -> list[Json]:
    """Apply every patch that applies to ``cluster``, in order; the inputs are left untouched.

    A patch changes every object its target matches; one that matches nothing raises PatchError.
    With ``changes``, every field each patch changed is appended to it (see
    :mod:`generator.generate.provenance`), so findings on those fields can name the patch.
    """
    applicable = [p for p in patches if p.applies_to(cluster)]
    if not applicable:
        return list(objects)
    result = copy.deepcopy(list(objects))
    for patch in applicable:
        if _apply_one(result, patch, cluster, changes) == 0:
            msg = f"patch target {patch.target.label(cluster)} matches no object"
            raise PatchError(
                msg,
                location=patch.location(),
                hint=_available(result, patch.target),
            )
    return result


def _record(
    changes: list[PatchChange] | None,
    patch: PatchDocument,
    where: tuple[int, JsonPath],
    before: Json,
    after: Json,
) -> None:
    if changes is None:
        return
    document, prefix = where
    ref = patch.reference()
    changes.extend(
        PatchChange(document, path, ref) for path in changed_paths(before, after, prefix)
    )


def _apply_one(
    objects: list[Json], patch: PatchDocument, cluster: str, changes: list[PatchChange] | None
) -> int:
    target = patch.target
    matched = 0
    for position, obj in enumerate(objects):
        if not _matches(obj, target.kind, target.name, target.api_version, cluster):
            continue
        if target.namespace is not None and _metadata(obj).get("namespace") != target.namespace:
            continue
        if target.embedded is None:
            patched = _patched(obj, patch, cluster)
            if not isinstance(patched, dict):
                msg = f"the patch turns {target.label(cluster)} into a {json_type_name(patched)}"
                raise PatchError(
                    msg,
                    location=patch.location(),
                )
            _record(changes, patch, (position, ()), obj, patched)
            objects[position] = patched
            matched += 1
            continue
        resources = (
            obj.get("spec", {}).get("resources") if isinstance(obj.get("spec"), dict) else None
        )
        if not isinstance(resources, list):
            continue
        embedded = target.embedded
        for index, resource in enumerate(resources):
            if _matches(resource, embedded.kind, embedded.name, embedded.api_version, cluster):
                patched = _patched(resource, patch, cluster)
                where = (position, ("spec", "resources", index))
                _record(changes, patch, where, resource, patched)
                resources[index] = patched
                matched += 1
    return matched


def _patched(obj: Json, patch: PatchDocument, cluster: str) -> Json:
    if patch.merge is not None:
        return merge_patch(obj, patch.merge)
    try:
        return apply_json_patch(obj, patch.operations or ())
    except PatchFailure as failure:
        operation = (patch.operations or ())[failure.operation or 0]
        where = f"jsonPatch[{failure.operation}] ({operation.get('op')} {operation.get('path')!r})"
        msg = f"{where} on {patch.target.label(cluster)}: {failure.message}"
        raise PatchError(
            msg,
            location=patch.location(),
        ) from None


def _matches(obj: Json, kind: str, name: str | None, api_version: str | None, cluster: str) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") != kind:
        return False
    if api_version is not None and obj.get("apiVersion") != api_version:
        return False
    return name is None or _metadata(obj).get("name") == _resolve_name(name, cluster)


def _metadata(obj: Mapping[str, Json]) -> Mapping[str, Json]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _resolve_name(name: str | None, cluster: str | None) -> str | None:
    if name is None or cluster is None:
        return name
    return name.replace(CLUSTER_TOKEN, cluster)


def _available(objects: Sequence[Json], target: PatchTarget) -> str:
    """A hint listing the objects of the target's kind (or the kinds present)."""
    names = []
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        if target.embedded is None:
            if obj.get("kind") == target.kind:
                names.append(f"{target.kind}/{_metadata(obj).get('name')}")
            continue
        if obj.get("kind") != target.kind:
            continue
        spec = obj.get("spec")
        for resource in (spec.get("resources") if isinstance(spec, dict) else None) or []:
            if isinstance(resource, dict):
                names.append(
                    f"{target.kind}/{_metadata(obj).get('name')} > "
                    f"{resource.get('kind')}/{_metadata(resource).get('name')}"
                )
    if names:
        return "candidates: " + ", ".join(names)
    kinds = sorted({str(o.get("kind")) for o in objects if isinstance(o, dict)})
    return "kinds rendered: " + ", ".join(kinds)
