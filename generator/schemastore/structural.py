"""Kubernetes structural schema (CRD ``openAPIV3Schema``) -> plain JSON Schema 2020-12.

Kubernetes does not validate a custom resource with JSON Schema semantics: it prunes or rejects
unknown fields, treats ``nullable`` and ``x-kubernetes-*`` extensions specially and knows its own
``format`` names. A stock JSON Schema validator knows none of that, so every schema we compile
(converted CRDs *and* catalog files, which are the same dialect) goes through :func:`to_json_schema`
and :func:`harden_root` first. Both functions are idempotent: converting a converted schema is a
no-op, which lets the cache hold converted files that are then loaded like any catalog file.

What the conversion does, node by node:

* ``nullable: true`` adds ``"null"`` to ``type`` (and ``None`` to ``enum``);
* ``x-kubernetes-int-or-string`` becomes ``type: [integer, string]`` (its ``anyOf`` is dropped);
* objects that declare ``properties`` get ``additionalProperties: false`` unless they preserve
  unknown fields or already say what extra fields may hold (strict field validation);
* ``x-kubernetes-embedded-resource`` requires ``apiVersion``, ``kind`` and ``metadata``;
* ``x-kubernetes-list-type: set`` becomes ``uniqueItems: true`` (``map`` key uniqueness is not
  expressible in JSON Schema and is not checked);
* ``format: int32``/``int64`` on integers become ``minimum``/``maximum`` bounds; string formats
  are checked by :mod:`generator.schemastore.formats`;
* ``description``, ``example``: dropped (not validation, and they triple the size); ``default``
  is kept outside value validations (an annotation to a JSON Schema validator, a few hundred
  bytes in all): the admission chain (:mod:`generator.checks.admission`) applies it as the API
  server's structural defaulting does;
* ``x-kubernetes-validations`` (CEL rules) and all other ``x-kubernetes-*`` keys are kept verbatim.

Inside ``anyOf``/``oneOf``/``allOf``/``not`` (value validations in Kubernetes terms) no strictness
is added: a branch listing a few properties must not forbid the others.
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.jsontypes import Json, JsonObject

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

PRESERVE = "x-kubernetes-preserve-unknown-fields"
INT_OR_STRING = "x-kubernetes-int-or-string"
EMBEDDED = "x-kubernetes-embedded-resource"
LIST_TYPE = "x-kubernetes-list-type"
GVK_MARKER = "x-kubernetes-group-version-kind"

_DROPPED = frozenset({"description", "example", "examples", "externalDocs", "title"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_SINGLE = frozenset({"additionalProperties", "items", "contains", "propertyNames"})
_VALUE_VALIDATIONS = frozenset({"anyOf", "oneOf", "allOf", "not"})

_INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}

_STRING = {"type": "string"}
_STRING_MAP = {"type": ["object", "null"], "additionalProperties": {"type": "string"}}

# ObjectMeta as far as a manifest author writes it. Unknown metadata fields stay allowed (the API
# server handles them itself); only the types of the fields people actually set are checked.
OBJECT_META_PROPERTIES: JsonObject = {
    "name": _STRING,
    "generateName": _STRING,
    "namespace": _STRING,
    "labels": _STRING_MAP,
    "annotations": _STRING_MAP,
    "finalizers": {"type": ["array", "null"], "items": {"type": "string"}},
    "ownerReferences": {
        "type": ["array", "null"],
        "items": {
            "type": "object",
            PRESERVE: True,
            "required": ["apiVersion", "kind", "name", "uid"],
            "properties": {
                "apiVersion": _STRING,
                "kind": _STRING,
                "name": _STRING,
                "uid": _STRING,
                "controller": {"type": "boolean"},
                "blockOwnerDeletion": {"type": "boolean"},
            },
        },
    },
    "uid": _STRING,
    "resourceVersion": _STRING,
    "generation": {"type": "integer"},
    "creationTimestamp": {"type": ["string", "null"]},
    "deletionTimestamp": {"type": ["string", "null"]},
}


class SchemaFormatError(ValueError):
    """The input is not a schema we can convert; ``pointer`` says where (JSON-pointer-like)."""

    def __init__(self, message: str, pointer: str) -> None:
        super().__init__(f"{pointer or '/'}: {message}")
        self.pointer = pointer


def object_meta_schema(extra: Mapping[str, Json] | None = None) -> JsonObject:
    """ObjectMeta-lite; properties a CRD declares for ``metadata`` itself take precedence."""
    properties = dict(OBJECT_META_PROPERTIES)
    properties.update(extra or {})
    return {"type": "object", PRESERVE: True, "properties": properties}


def to_json_schema(node: Json, *, pointer: str = "", value_validation: bool = False) -> Json:
    """Convert one structural-schema node (recursively); see the module docstring."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, Mapping):
        msg = f"expected a schema object, got {type(node).__name__}"
        raise SchemaFormatError(msg, pointer)
    out: JsonObject = {}
    for key, value in node.items():
        if key in _DROPPED or (key == "default" and value_validation):
            continue
        where = f"{pointer}/{key}"
        if key in _SCHEMA_MAPS:
            if not isinstance(value, Mapping):
                msg = f"{key} must be a map of schemas"
                raise SchemaFormatError(msg, where)
            out[key] = {
                name: to_json_schema(
                    sub, pointer=f"{where}/{name}", value_validation=value_validation
                )
                for name, sub in value.items()
            }
        elif key in _SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
            if not isinstance(value, list):
                msg = f"{key} must be a list of schemas"
                raise SchemaFormatError(msg, where)
            inner = value_validation or key in _VALUE_VALIDATIONS
            out[key] = [
                to_json_schema(sub, pointer=f"{where}/{i}", value_validation=inner)
                for i, sub in enumerate(value)
            ]
        elif key in _SCHEMA_SINGLE or key == "not":
            inner = value_validation or key in _VALUE_VALIDATIONS
            out[key] = to_json_schema(value, pointer=where, value_validation=inner)
        else:
            out[key] = value
    _apply_kubernetes_semantics(out, value_validation=value_validation)
    return out


def _types(node: Mapping[str, Json]) -> list[str]:
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def _apply_kubernetes_semantics(out: JsonObject, *, value_validation: bool) -> None:
    types = _effective_types(out)
    if types:
        out["type"] = types[0] if len(types) == 1 else types

    declared_format = out.get("format")
    bounds = _INT_BOUNDS.get(declared_format) if isinstance(declared_format, str) else None
    if bounds is not None and "integer" in types:
        out.setdefault("minimum", bounds[0])
        out.setdefault("maximum", bounds[1])

    if out.get(LIST_TYPE) == "set":
        out.setdefault("uniqueItems", True)

    preserve = out.get(PRESERVE) is True
    if out.get(EMBEDDED) is True and not value_validation:
        _add_embedded_resource_fields(out)
    _close_object(out, keep_open=value_validation or preserve)


def _effective_types(out: JsonObject) -> list[str]:
    """The node's types with ``x-kubernetes-int-or-string`` and ``nullable`` applied (which also
    drops the equivalent ``anyOf`` and lets ``enum`` hold null)."""
    types = _types(out)
    if out.get(INT_OR_STRING) is True:
        types = ["integer", "string", *(["null"] if "null" in types else [])]
        if _is_int_or_string_any_of(out.get("anyOf")):
            del out["anyOf"]
    if out.get("nullable") is True:
        if types and "null" not in types:
            types.append("null")
        enum = out.get("enum")
        if isinstance(enum, list) and None not in enum:
            out["enum"] = [*enum, None]
    return types


def _add_embedded_resource_fields(out: JsonObject) -> None:
    """``x-kubernetes-embedded-resource``: apiVersion, kind and ObjectMeta-lite, all required."""
    properties = out.setdefault("properties", {})
    properties.setdefault("apiVersion", dict(_STRING))
    properties.setdefault("kind", dict(_STRING))
    existing = properties.get("metadata")
    extra = existing.get("properties") if isinstance(existing, Mapping) else None
    properties["metadata"] = object_meta_schema(extra)
    out["required"] = _merge_required(out.get("required"), ["apiVersion", "kind", "metadata"])


def _close_object(out: JsonObject, *, keep_open: bool) -> None:
    """An object with ``properties`` allows no other keys (the API server would drop them),
    unless ``keep_open`` (value validations, preserved unknown fields) or the schema already says
    what other keys may be."""
    if (
        not keep_open
        and isinstance(out.get("properties"), Mapping)
        and "additionalProperties" not in out
        and "unevaluatedProperties" not in out
        and "patternProperties" not in out
    ):
        out["additionalProperties"] = False
    if out.get("additionalProperties") is False and "properties" not in out:
        # jsonschema-rs reports a closed object without ``properties`` as one error without the
        # key's path; with an (empty) property map it names every unexpected key.
        out["properties"] = {}


def _is_int_or_string_any_of(any_of: Json) -> bool:
    if not isinstance(any_of, list) or len(any_of) != 2:
        return False
    found = sorted(str(branch.get("type")) for branch in any_of if isinstance(branch, Mapping))
    return found == ["integer", "string"] and all(
        set(branch) <= {"type"} for branch in any_of if isinstance(branch, Mapping)
    )


def _merge_required(existing: Json, extra: list[str]) -> list[str]:
    merged = (
        [name for name in existing if isinstance(name, str)] if isinstance(existing, list) else []
    )
    merged.extend(name for name in extra if name not in merged)
    return merged


def harden_root(schema: Json, *, pointer: str = "") -> JsonObject:
    """Rules for the top level of a Kubernetes object, added to an already converted schema.

    ``apiVersion`` and ``kind`` are required strings, ``metadata`` is ObjectMeta-lite, and the
    root is strict unless the CRD preserves unknown fields there.
    """
    if not isinstance(schema, Mapping):
        msg = "the root schema must be an object"
        raise SchemaFormatError(msg, pointer)
    root = dict(schema)
    root.setdefault("$schema", JSON_SCHEMA_DIALECT)
    if not _types(root):
        root["type"] = "object"
    properties = dict(root.get("properties") or {})
    properties["apiVersion"] = _require_string(properties.get("apiVersion"))
    properties["kind"] = _require_string(properties.get("kind"))
    existing = properties.get("metadata")
    extra = existing.get("properties") if isinstance(existing, Mapping) else None
    properties["metadata"] = object_meta_schema(extra)
    root["properties"] = properties
    root["required"] = _merge_required(root.get("required"), ["apiVersion", "kind"])
    if root.get(PRESERVE) is not True and "additionalProperties" not in root:
        root["additionalProperties"] = False
    return root


def _require_string(node: Json) -> JsonObject:
    out = dict(node) if isinstance(node, Mapping) else {}
    out["type"] = "string"
    return out


def convert_root(openapi_schema: Json, *, pointer: str = "") -> JsonObject:
    """Full conversion of a CRD version's ``openAPIV3Schema`` (or a catalog file)."""
    return harden_root(to_json_schema(openapi_schema, pointer=pointer), pointer=pointer)
