"""Fitting a value read from Azure or from an object's status onto an ASO spec schema.

``az aks show`` and ``.status`` speak the Azure REST shape: read-only fields (``provisioningState``,
``fqdn``...) sit next to settable ones, and resources are named by ID strings (``vnetSubnetID``)
where an ASO spec takes a reference (``vnetSubnetReference: {armId: ...}``). Walking the value
against the spec schema keeps what the schema allows, turns ``xID``/``xId`` into ``xReference``,
fixes the case of enum values (Azure answers ``standard`` for ``Standard``) and reports every
field it dropped, so nothing disappears silently. The schema comes from the schema store, never
from a hard-coded field list.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from generator.findings import PathPart, format_path
from generator.jsontypes import Json, JsonObject

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


@dataclass
class Fitted:
    """The kept value and the paths (relative to the value's base) that were dropped, with why."""

    value: Json
    dropped: list[tuple[str, str]] = field(default_factory=list)


READ_ONLY_REASON = "read-only (set by Azure): dropped"


def fit(
    value: Json,
    schema: JsonObject,
    base: list[PathPart] | None = None,
    read_only: frozenset[str] = frozenset(),
) -> Fitted:
    """``value`` reduced to what ``schema`` accepts (see the module docstring); keys named in
    ``read_only`` are dropped wherever they appear, even where the spec schema lists them."""
    result = Fitted(None)
    result.value = _Fitter(read_only, result.dropped).fit(value, schema, list(base or []))
    return result


def spelled_as(key: str, properties: JsonObject) -> str | None:
    """The schema's spelling of ``key``: the Azure CLI prints ``osDiskSizeGb``, ``enableRbac``
    and ``balanceSimilarNodeGroups`` where the REST API (and ASO) say ``osDiskSizeGB``,
    ``enableRBAC`` and ``balance-similar-node-groups``."""
    if key in properties:
        return key
    folded = key.replace("-", "").replace("_", "").lower()
    for name in properties:
        if name.replace("-", "").replace("_", "").lower() == folded:
            return name
    return None


class _Fitter:
    def __init__(self, read_only: frozenset[str], dropped: list[tuple[str, str]]) -> None:
        self.read_only = read_only
        self.dropped = dropped

    def fit(self, value: Json, schema: JsonObject, path: list[PathPart]) -> Json:
        return _fit(value, schema, path, self)


def _fit(value: Json, schema: JsonObject, path: list[PathPart], fitter: _Fitter) -> Json:
    dropped = fitter.dropped
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return copy.deepcopy(value)
    expected = schema.get("type")
    if isinstance(expected, str) and not _has_type(value, expected):
        dropped.append((format_path(path), f"a {expected} in the ASO schema"))
        return None
    if isinstance(value, dict):
        return _fit_object(value, schema, path, fitter)
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, dict):
            return copy.deepcopy(value)
        fitted = [_fit(v, items, [*path, i], fitter) for i, v in enumerate(value)]
        return [v for v in fitted if v is not None]
    return _enum_case(value, schema)


def _has_type(value: Json, expected: str) -> bool:
    types = _JSON_TYPES.get(expected)
    if types is None:
        return True
    if isinstance(value, bool) and expected != "boolean":
        return False
    return isinstance(value, types)


def _enum_case(value: Json, schema: JsonObject) -> Json:
    enum = schema.get("enum")
    if isinstance(value, str) and isinstance(enum, list) and value not in enum:
        for choice in enum:
            if isinstance(choice, str) and choice.lower() == value.lower():
                return choice
    return value


def _fit_object(
    value: JsonObject, schema: JsonObject, path: list[PathPart], fitter: _Fitter
) -> JsonObject | None:
    dropped = fitter.dropped
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    out: JsonObject = {}
    for key, item in value.items():
        if item is None:
            continue
        where = [*path, key]
        spelled = spelled_as(key, properties) if isinstance(properties, dict) else None
        if key in fitter.read_only:
            dropped.append((format_path(where), READ_ONLY_REASON))
            continue
        if isinstance(properties, dict) and spelled is not None:
            key, fitted = spelled, _fit(item, properties[spelled], where, fitter)
        elif isinstance(properties, dict) and _reference_key(key, properties):
            key, fitted = _as_reference(key, item, properties, where, fitter)
        elif isinstance(extra, dict):
            fitted = _fit(item, extra, where, fitter)
        elif extra is True or (properties is None and extra is None):
            fitted = copy.deepcopy(item)
        else:
            dropped.append(
                (format_path(where), "not a field of the ASO spec (read-only or unknown)")
            )
            continue
        if fitted is not None:
            out[key] = fitted
    return out


def _reference_key(key: str, properties: JsonObject) -> str | None:
    """``fooID`` / ``fooId`` -> ``fooReference`` (``id`` -> ``reference``) when the schema has
    that reference."""
    if key == "id" and "reference" in properties:
        return "reference"
    for suffix in ("ID", "Id"):
        if key.endswith(suffix):
            found = spelled_as(f"{key[: -len(suffix)]}Reference", properties)
            if found is not None:
                return found
    return None


def _as_reference(
    key: str, item: Json, properties: JsonObject, where: list[PathPart], fitter: _Fitter
) -> tuple[str, Json]:
    target = _reference_key(key, properties) or key
    if not isinstance(item, str) or not item:
        fitter.dropped.append((format_path(where), "an ARM ID string was expected"))
        return target, None
    return target, _fit({"armId": item}, properties[target], [*where[:-1], target], fitter)
