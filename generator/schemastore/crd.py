"""CustomResourceDefinition documents -> one JSON Schema per served version.

Accepts what people have at hand: multi-document YAML, JSON, and ``kind: List`` wrappers as
``kubectl get crds -o yaml`` prints them. Versions that are not served cannot be created on a
cluster, so they get no schema. ``apiextensions.k8s.io/v1beta1`` CRDs (schema at
``spec.validation`` or per version) are converted the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from generator.jsontypes import Json, JsonObject
from generator.schemastore.paths import group_problem, kind_problem, version_problem
from generator.schemastore.structural import GVK_MARKER, PRESERVE, SchemaFormatError, convert_root
from generator.schemastore.types import GroupVersionKind

CRD_API_VERSIONS = frozenset({"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"})
_LIST_KINDS = frozenset({"List", "CustomResourceDefinitionList"})

# Bumped whenever the conversion output changes, so memoised conversions are not reused.
CONVERTER_VERSION = "3"


class CrdError(ValueError):
    """A CRD document that cannot be converted (the message names the CRD and the place)."""


@dataclass(frozen=True, slots=True)
class ConvertedSchema:
    """The JSON Schema of one served version of a CRD, with its GVK marker and CEL rules kept."""

    gvk: GroupVersionKind
    schema: JsonObject

    @property
    def catalog_path(self) -> str:
        """Where the schema lives in the ``<group>/<kind>_<version>.json`` layout."""
        return f"{self.gvk.group or 'core'}/{self.gvk.kind.lower()}_{self.gvk.version}.json"


def is_crd(obj: Json) -> bool:
    """Whether ``obj`` is a CustomResourceDefinition (``apiextensions.k8s.io`` v1 or v1beta1)."""
    return (
        isinstance(obj, Mapping)
        and obj.get("kind") == "CustomResourceDefinition"
        and obj.get("apiVersion") in CRD_API_VERSIONS
    )


def iter_crds(documents: Iterable[Json]) -> Iterator[Mapping[str, Json]]:
    """The CRDs among ``documents``, ``List`` wrappers and bare arrays unpacked; other objects are
    skipped."""
    for doc in documents:
        if isinstance(doc, list):
            yield from iter_crds(doc)
        elif isinstance(doc, Mapping) and doc.get("kind") in _LIST_KINDS:
            items = doc.get("items")
            if isinstance(items, list):
                yield from iter_crds(items)
        elif is_crd(doc):
            yield doc


def convert_documents(documents: Iterable[Json]) -> list[ConvertedSchema]:
    """Every served version of every CRD in ``documents``."""
    converted: list[ConvertedSchema] = []
    for crd in iter_crds(documents):
        converted.extend(convert_crd(crd))
    return converted


def convert_crd(crd: Mapping[str, Json]) -> list[ConvertedSchema]:
    """One schema per served version of ``crd``; raises :class:`CrdError` naming CRD and place.

    A served version without a schema accepts any content, as the API server does.
    """
    name = _crd_name(crd)
    spec = crd.get("spec")
    if not isinstance(spec, Mapping):
        msg = f"CustomResourceDefinition {name}: spec is missing"
        raise CrdError(msg)
    group = spec.get("group")
    names = spec.get("names")
    kind = names.get("kind") if isinstance(names, Mapping) else None
    if not isinstance(group, str) or not group or not isinstance(kind, str) or not kind:
        msg = f"CustomResourceDefinition {name}: spec.group and spec.names.kind are required"
        raise CrdError(msg)
    # Checked before any of them becomes a path (<group>/<kind>_<version>.json), as the API
    # server checks them: a group of "../.." or a version holding "/" must not name a file.
    for field, problem in (
        ("spec.group", group_problem(group)),
        ("spec.names.kind", kind_problem(kind)),
    ):
        if problem is not None:
            msg = f"CustomResourceDefinition {name}: {field} {problem}"
            raise CrdError(msg)
    result = []
    for index, version, openapi in _served_versions(spec, name):
        problem = version_problem(version)
        if problem is not None:
            field = f"spec.versions[{index}].name" if index >= 0 else "spec.version"
            msg = f"CustomResourceDefinition {name}: {field} {problem}"
            raise CrdError(msg)
        gvk = GroupVersionKind(group=group, version=version, kind=kind)
        pointer = f"/spec/versions/{index}/schema/openAPIV3Schema" if index >= 0 else "/spec"
        try:
            # A version without a schema accepts any content, as the API server does.
            schema = convert_root(openapi if openapi is not None else {PRESERVE: True})
        except SchemaFormatError as error:
            msg = f"CustomResourceDefinition {name}: {pointer}{error}"
            raise CrdError(msg) from error
        marker = {GVK_MARKER: [{"group": group, "kind": kind, "version": version}]}
        result.append(ConvertedSchema(gvk=gvk, schema={**marker, **schema}))
    return result


def _served_versions(
    spec: Mapping[str, Json], name: str
) -> Iterator[tuple[int, str, Mapping[str, Json] | None]]:
    shared = _openapi(spec.get("validation"))  # v1beta1: one schema for all versions
    versions = spec.get("versions")
    if isinstance(versions, list) and versions:
        for index, entry in enumerate(versions):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
                msg = f"CustomResourceDefinition {name}: spec.versions[{index}] has no name"
                raise CrdError(msg)
            if entry.get("served", True) is not True:
                continue
            own = _openapi(entry.get("schema"))
            yield index, entry["name"], own if own is not None else shared
    elif isinstance(spec.get("version"), str):
        yield -1, spec["version"], shared
    else:
        msg = f"CustomResourceDefinition {name}: spec.versions is missing"
        raise CrdError(msg)


def _openapi(holder: Json) -> Mapping[str, Json] | None:
    if isinstance(holder, Mapping):
        schema = holder.get("openAPIV3Schema")
        if isinstance(schema, Mapping):
            return schema
    return None


def _crd_name(crd: Mapping[str, Json]) -> str:
    meta = crd.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not name:
        return "(unnamed)"
    text = str(name)
    return text if len(text) <= 120 else text[:120] + "..."  # a hostile name stays one line
