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

The RFC algorithms are small pure functions (:func:`merge_patch`, :func:`apply_json_patch`) that
never modify their arguments; :func:`apply_patches` ties them to targets and turns every failure
into a :class:`PatchError` naming the patch file, the document and the target.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema_rs

from generator.errors import Location, PatchError
from generator.findings import format_path
from generator.resources import builtin_schemas_dir
from generator.yamlio.load import load_documents, read_source

CLUSTER_TOKEN = "{cluster}"
_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


class PatchFailure(ValueError):
    """An RFC 6902 operation or a JSON pointer failed (turned into a PatchError with context)."""

    def __init__(self, message: str, *, operation: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.operation = operation


# --- model ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EmbeddedTarget:
    kind: str
    name: str | None = None
    api_version: str | None = None


@dataclass(frozen=True, slots=True)
class PatchTarget:
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
    merge: Mapping[str, Any] | None = None
    operations: tuple[Mapping[str, Any], ...] | None = None
    clusters: frozenset[str] | None = None
    where: str | None = None  # JSON path inside ``source`` (fleet overrides)

    def applies_to(self, cluster: str) -> bool:
        return self.clusters is None or cluster in self.clusters

    def location(self) -> Location:
        return Location(
            file=self.source,
            document=self.index,
            kind=self.target.kind,
            name=self.target.name or "*",
            path=self.where,
        )


# --- reading patch files -------------------------------------------------------------------------


@cache
def _validator() -> Any:
    schema = json.loads((builtin_schemas_dir() / "patch.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def schema_problems(data: Any, prefix: Sequence[str | int] = ()) -> list[str]:
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
    data: Mapping[str, Any], *, source: str, index: int | None, where: str | None = None
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
        raise PatchError("patch file holds no patch documents", location=Location(file=source))
    problems = []
    for document in documents:
        for problem in schema_problems(document.obj):
            problems.append(f"document {document.index + 1}: {problem}")
    if problems:
        raise PatchError(
            "invalid patch file",
            location=Location(file=source),
            details=problems,
            hint="see the Patches section of the README for the format",
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
    objects: Sequence[Any], patches: Sequence[PatchDocument], *, cluster: str
) -> list[Any]:
    """Apply every patch that applies to ``cluster``, in order; the inputs are left untouched.

    A patch changes every object its target matches; one that matches nothing raises PatchError.
    """
    applicable = [p for p in patches if p.applies_to(cluster)]
    if not applicable:
        return list(objects)
    result = copy.deepcopy(list(objects))
    for patch in applicable:
        if _apply_one(result, patch, cluster) == 0:
            raise PatchError(
                f"patch target {patch.target.label(cluster)} matches no object",
                location=patch.location(),
                hint=_available(result, patch.target),
            )
    return result


def _apply_one(objects: list[Any], patch: PatchDocument, cluster: str) -> int:
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
                raise PatchError(
                    f"the patch turns {target.label(cluster)} into a {_type_name(patched)}",
                    location=patch.location(),
                )
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
                resources[index] = _patched(resource, patch, cluster)
                matched += 1
    return matched


def _patched(obj: Any, patch: PatchDocument, cluster: str) -> Any:
    if patch.merge is not None:
        return merge_patch(obj, patch.merge)
    try:
        return apply_json_patch(obj, patch.operations or ())
    except PatchFailure as failure:
        operation = (patch.operations or ())[failure.operation or 0]
        where = f"jsonPatch[{failure.operation}] ({operation.get('op')} {operation.get('path')!r})"
        raise PatchError(
            f"{where} on {patch.target.label(cluster)}: {failure.message}",
            location=patch.location(),
        ) from None


def _matches(obj: Any, kind: str, name: str | None, api_version: str | None, cluster: str) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") != kind:
        return False
    if api_version is not None and obj.get("apiVersion") != api_version:
        return False
    return name is None or _metadata(obj).get("name") == _resolve_name(name, cluster)


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _resolve_name(name: str | None, cluster: str | None) -> str | None:
    if name is None or cluster is None:
        return name
    return name.replace(CLUSTER_TOKEN, cluster)


def _available(objects: Sequence[Any], target: PatchTarget) -> str:
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


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "mapping" if isinstance(value, dict) else type(value).__name__


# --- RFC 7386 ------------------------------------------------------------------------------------


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 MergePatch(target, patch); neither argument is modified.

    A mapping patch merges key by key (``null`` removes the key); any other patch value, lists
    included, replaces the target.
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# --- RFC 6901 / RFC 6902 -------------------------------------------------------------------------


def parse_pointer(pointer: str) -> list[str]:
    """RFC 6901 reference tokens: ``""`` -> ``[]``, ``"/a~1b/~0c"`` -> ``["a/b", "~c"]``."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchFailure(f"JSON pointer {pointer!r} must be empty or start with '/'")
    tokens = pointer[1:].split("/")
    for token in tokens:
        if re.search(r"~(?![01])", token):
            raise PatchFailure(
                f"JSON pointer {pointer!r} has an invalid escape ('~' must be ~0 or ~1)"
            )
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def _pointer(tokens: Sequence[str]) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def _index(token: str, length: int, *, pointer: Sequence[str], allow_end: bool) -> int:
    if not _INDEX.match(token):
        raise PatchFailure(f"{_pointer(pointer)!r}: {token!r} is not a list index")
    index = int(token)
    limit = length if allow_end else length - 1
    if index > limit:
        raise PatchFailure(
            f"{_pointer(pointer)!r}: index {index} is out of range (the list has {length} items)"
        )
    return index


def _get(document: Any, tokens: Sequence[str]) -> Any:
    current = document
    for depth, token in enumerate(tokens):
        seen = tokens[: depth + 1]
        if isinstance(current, dict):
            if token not in current:
                raise PatchFailure(f"{_pointer(seen)!r} does not exist")
            current = current[token]
        elif isinstance(current, list):
            current = current[_index(token, len(current), pointer=seen, allow_end=False)]
        else:
            parent = repr(_pointer(tokens[:depth])) if depth else "the object"
            raise PatchFailure(
                f"{_pointer(seen)!r} does not exist: {parent} is a {_type_name(current)}"
            )
    return current


def _container(document: Any, tokens: Sequence[str]) -> Any:
    parent = _get(document, tokens[:-1])
    if not isinstance(parent, dict | list):
        raise PatchFailure(
            f"{_pointer(tokens)!r}: the parent is a {_type_name(parent)}, not a mapping or list"
        )
    return parent


def _add(document: Any, tokens: Sequence[str], value: Any) -> Any:
    if not tokens:
        return value
    parent, token = _container(document, tokens), tokens[-1]
    if isinstance(parent, dict):
        parent[token] = value
    elif token == "-":
        parent.append(value)
    else:
        parent.insert(_index(token, len(parent), pointer=tokens, allow_end=True), value)
    return document


def _remove(document: Any, tokens: Sequence[str]) -> tuple[Any, Any]:
    """Returns the document and the removed value."""
    if not tokens:
        raise PatchFailure("cannot remove the whole object")
    parent, token = _container(document, tokens), tokens[-1]
    if isinstance(parent, dict):
        if token not in parent:
            raise PatchFailure(f"{_pointer(tokens)!r} does not exist")
        return document, parent.pop(token)
    return document, parent.pop(_index(token, len(parent), pointer=tokens, allow_end=False))


def json_equal(left: Any, right: Any) -> bool:
    """JSON value equality (RFC 6902 ``test``): unlike ``==``, ``true`` is not ``1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and left == right


def _operation(document: Any, operation: Mapping[str, Any]) -> Any:
    op = operation.get("op")
    tokens = parse_pointer(_string(operation, "path"))
    if op == "add":
        return _add(document, tokens, copy.deepcopy(_member(operation, "value")))
    if op == "remove":
        return _remove(document, tokens)[0]
    if op == "replace":
        value = copy.deepcopy(_member(operation, "value"))
        if not tokens:
            return value
        parent, token = _container(document, tokens), tokens[-1]
        if isinstance(parent, dict):
            if token not in parent:
                raise PatchFailure(f"{_pointer(tokens)!r} does not exist")
            parent[token] = value
        else:
            parent[_index(token, len(parent), pointer=tokens, allow_end=False)] = value
        return document
    if op in ("move", "copy"):
        source = parse_pointer(_string(operation, "from"))
        if op == "move":
            if tokens[: len(source)] == source and len(tokens) > len(source):
                raise PatchFailure("cannot move a value into one of its own children")
            if tokens == source:
                _get(document, source)
                return document
            document, value = _remove(document, source)
        else:
            value = copy.deepcopy(_get(document, source))
        return _add(document, tokens, value)
    if op == "test":
        actual = _get(document, tokens)
        expected = _member(operation, "value")
        if not json_equal(actual, expected):
            where = repr(_pointer(tokens)) if tokens else "the object"
            raise PatchFailure(
                f"test failed: {where} is {_show(actual)}, expected {_show(expected)}"
            )
        return document
    raise PatchFailure(f"unknown operation {op!r}")


def _member(operation: Mapping[str, Any], name: str) -> Any:
    if name not in operation:
        raise PatchFailure(f"operation {operation.get('op')!r} needs {name!r}")
    return operation[name]


def _string(operation: Mapping[str, Any], name: str) -> str:
    value = _member(operation, name)
    if not isinstance(value, str):
        raise PatchFailure(f"{name!r} must be a JSON pointer string")
    return value


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def apply_json_patch(document: Any, operations: Sequence[Mapping[str, Any]]) -> Any:
    """RFC 6902: apply ``operations`` in order to a copy of ``document`` and return it.

    Raises PatchFailure (with the 0-based index of the failing operation) on a bad pointer, a
    missing member, an index out of range or a failed ``test``; the document is left untouched.
    """
    result = copy.deepcopy(document)
    for index, operation in enumerate(operations):
        try:
            result = _operation(result, operation)
        except PatchFailure as failure:
            raise PatchFailure(failure.message, operation=index) from None
    return result
