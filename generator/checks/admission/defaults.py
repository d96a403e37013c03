"""Step 1 of the create admission chain: the CRD's structural defaults (``default:`` in its
``openAPIV3Schema``), applied as the API server's structural defaulting does.

A property's default is set where the property is missing (or null while the schema does not
allow null) and its parent object exists; defaulting then continues inside what was set, so a
default object gets the defaults of its own properties. List items and map values are walked.

The compiled schemas keep ``default`` (:mod:`generator.schemastore.structural`). Each schema is
walked once into a :class:`Plan` holding only the branches that lead to a default or to an
``x-kubernetes-list-type: map`` (:mod:`generator.checks.admission.parity` reads those), so an
object whose kind has none costs one dictionary look-up, and setting a default copies only the
containers on its path: the caller's object is never changed.
"""

from __future__ import annotations

from typing import NamedTuple

from generator.findings import JsonPath
from generator.jsontypes import Json, JsonObject

LIST_TYPE = "x-kubernetes-list-type"
MAP_KEYS = "x-kubernetes-list-map-keys"
CRD_DEFAULT = "CRD openAPIV3Schema default"


class Applied(NamedTuple):
    """One value the admission chain set: where, what, and which step of which upstream said so."""

    path: JsonPath
    value: Json
    source: str
    origin: JsonPath | None = None  # the written field the value was copied from, if any


class Plan(NamedTuple):
    """The parts of one schema node that defaulting and list-map checks need."""

    defaults: tuple[tuple[str, Json, bool], ...]  # (property, default, nullable)
    properties: tuple[tuple[str, Plan], ...]
    items: Plan | None
    values: Plan | None  # additionalProperties
    map_keys: tuple[str, ...] | None  # x-kubernetes-list-map-keys of a list-type map
    defaulting: bool = True  # whether a default is set anywhere under this node
    mapping: bool = True  # whether a list-type map is anywhere under this node


def build_plan(node: Json) -> Plan | None:
    """The plan of schema ``node``, None when nothing under it has a default or a list map."""
    if not isinstance(node, dict):
        return None
    defaults: list[tuple[str, Json, bool]] = []
    properties: list[tuple[str, Plan]] = []
    declared = node.get("properties")
    if isinstance(declared, dict):
        for name, sub in declared.items():
            if not isinstance(sub, dict):
                continue
            if "default" in sub:
                types = sub.get("type")
                nullable = isinstance(types, list) and "null" in types
                defaults.append((name, sub["default"], nullable))
            child = build_plan(sub)
            if child is not None:
                properties.append((name, child))
    items = build_plan(node.get("items"))
    values = build_plan(node.get("additionalProperties"))
    keys = node.get(MAP_KEYS) if node.get(LIST_TYPE) == "map" else None
    map_keys = tuple(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else None
    if not (defaults or properties or items or values or map_keys):
        return None
    children = [sub for _, sub in properties] + [p for p in (items, values) if p is not None]
    defaulting = bool(defaults) or any(child.defaulting for child in children)
    mapping = bool(map_keys) or any(child.mapping for child in children)
    return Plan(tuple(defaults), tuple(properties), items, values, map_keys, defaulting, mapping)


_PLANS: dict[int, tuple[JsonObject, Plan | None]] = {}


def plan_of(schema: JsonObject) -> Plan | None:
    """:func:`build_plan` of a compiled root schema, built once per schema object."""
    cached = _PLANS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    plan = build_plan(schema)
    _PLANS[id(schema)] = (schema, plan)  # holding the schema keeps its id from being reused
    return plan


def _copy(value: Json) -> Json:
    """A fresh copy of a default value (the schema's own must never be shared with an object)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def apply_defaults(
    obj: Json, plan: Plan | None, applied: list[Applied], path: JsonPath = ()
) -> Json:
    """``obj`` with the defaults of ``plan`` set (a copy where anything changed, else ``obj``);
    each default set is appended to ``applied``."""
    if plan is None or not plan.defaulting:
        return obj
    if isinstance(obj, dict):
        return _apply_mapping(obj, plan, applied, path)
    if isinstance(obj, list) and plan.items is not None:
        items: list[Json] | None = None
        for index, item in enumerate(obj):
            new = apply_defaults(item, plan.items, applied, (*path, index))
            if new is not item:
                items = items if items is not None else list(obj)
                items[index] = new
        return obj if items is None else items
    return obj


def _apply_mapping(obj: JsonObject, plan: Plan, applied: list[Applied], path: JsonPath) -> Json:
    changes: JsonObject = {}
    for key, default, nullable in plan.defaults:
        if obj.get(key) is None and (key not in obj or not nullable):
            changes[key] = _copy(default)
            applied.append(Applied((*path, key), default, CRD_DEFAULT))
    named = [(key, sub) for key, sub in plan.properties]
    if plan.values is not None:
        declared = {key for key, _ in plan.properties}
        named.extend((key, plan.values) for key in obj if key not in declared)
    for key, sub in named:
        child = changes.get(key, obj.get(key))
        if child is None:
            continue
        new = apply_defaults(child, sub, applied, (*path, key))
        if new is not child:
            changes[key] = new
    return {**obj, **changes} if changes else obj
