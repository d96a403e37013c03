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
from typing import Any

from generator.findings import PathPart, format_path

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

    value: Any
    dropped: list[tuple[str, str]] = field(default_factory=list)


def fit(value: Any, schema: dict[str, Any], base: list[PathPart] | None = None) -> Fitted:
    """``value`` reduced to what ``schema`` accepts (see the module docstring)."""
    result = Fitted(None)
    result.value = _fit(value, schema, list(base or []), result.dropped)
    return result


def _fit(value: Any, schema: dict[str, Any], path: list[PathPart], dropped: list[Any]) -> Any:
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return copy.deepcopy(value)
    expected = schema.get("type")
    if isinstance(expected, str) and not _has_type(value, expected):
        dropped.append((format_path(path), f"a {expected} in the ASO schema"))
        return None
    if isinstance(value, dict):
        return _fit_object(value, schema, path, dropped)
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, dict):
            return copy.deepcopy(value)
        fitted = [_fit(v, items, [*path, i], dropped) for i, v in enumerate(value)]
        return [v for v in fitted if v is not None]
    return _enum_case(value, schema)


def _has_type(value: Any, expected: str) -> bool:
    types = _JSON_TYPES.get(expected)
    if types is None:
        return True
    if isinstance(value, bool) and expected != "boolean":
        return False
    return isinstance(value, types)


def _enum_case(value: Any, schema: dict[str, Any]) -> Any:
    enum = schema.get("enum")
    if isinstance(value, str) and isinstance(enum, list) and value not in enum:
        for choice in enum:
            if isinstance(choice, str) and choice.lower() == value.lower():
                return choice
    return value


def _fit_object(
    value: dict[str, Any], schema: dict[str, Any], path: list[PathPart], dropped: list[Any]
) -> dict[str, Any] | None:
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        where = [*path, key]
        if isinstance(properties, dict) and key in properties:
            fitted = _fit(item, properties[key], where, dropped)
        elif isinstance(properties, dict) and _reference_key(key, properties):
            key, fitted = _as_reference(key, item, properties, where, dropped)
        elif isinstance(extra, dict):
            fitted = _fit(item, extra, where, dropped)
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


def _reference_key(key: str, properties: dict[str, Any]) -> str | None:
    """``fooID`` / ``fooId`` -> ``fooReference`` when the schema has that reference."""
    for suffix in ("ID", "Id"):
        if key.endswith(suffix) and f"{key[: -len(suffix)]}Reference" in properties:
            return f"{key[: -len(suffix)]}Reference"
    return None


def _as_reference(
    key: str, item: Any, properties: dict[str, Any], where: list[PathPart], dropped: list[Any]
) -> tuple[str, Any]:
    target = _reference_key(key, properties) or key
    if not isinstance(item, str) or not item:
        dropped.append((format_path(where), "an ARM ID string was expected"))
        return target, None
    return target, _fit({"armId": item}, properties[target], [*where[:-1], target], dropped)
