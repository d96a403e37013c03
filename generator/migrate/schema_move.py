"""Moving one ASO object from one API version's schema to another's, field by field.

No field list is written by hand: the object is walked together with the source and the target
JSON Schemas (both from the schema store). At each mapping:

* a key the target schema has (or a mapping whose target schema keeps unknown fields, or a map
  with ``additionalProperties``) is **carried** over by name;
* a key the target lacks is **renamed** when the schemas show the rename: the target has exactly
  one new sibling that the source lacks and that matches it, and no other missing key matches that
  sibling. Two keys match when (a) both schemas describe them with the same non-empty description
  and type, or (b) their names are equal once an ``ID``/``Id`` word is removed
  (``vnetSubnetIDReference`` -> ``vnetSubnetReference``, ASO's own renames between versions) and
  their schemas are equal apart from descriptions, and are objects. Both tests are deliberately
  narrow: a wrong rename would silently change what is applied, a missed one is listed as removed
  for a person to decide;
* any other key is **removed** (dropped from the output and listed).

Values are carried as they are; whether they fit the target (enum, type, pattern) is for the
validation of the whole migrated set to say, with the same rules as ``capzgen validate``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator.findings import PathPart
from generator.jsontypes import Json, JsonObject

CARRIED = "carried"
RENAMED = "renamed"
REMOVED = "removed"
_ID_WORD = re.compile(r"I[Dd](?=[A-Z]|$)")
_MAX_DEPTH = 100  # ASO specs nest about ten levels; the loader bounds depth too


@dataclass(frozen=True)
class FieldMove:
    """What happened to one field: ``path`` in the moved object, ``new_name`` for a rename."""

    action: str  # RENAMED or REMOVED
    path: tuple[PathPart, ...]
    new_name: str = ""


@dataclass
class MoveResult:
    """The fields renamed or removed, and how many leaf values were carried over by name."""

    moves: list[FieldMove] = field(default_factory=list)
    carried: int = 0


def move_fields(obj: JsonObject, source: JsonObject | None, target: JsonObject) -> MoveResult:
    """Fit ``obj`` (changed in place) to the ``target`` schema; ``source`` (the schema of the
    version it comes from, None when the store has none) is what renames are detected with."""
    result = MoveResult()
    _walk(obj, source or {}, target, (), result, 0)
    return result


def _walk(
    value: Json,
    source: JsonObject,
    target: JsonObject,
    path: tuple[PathPart, ...],
    result: MoveResult,
    depth: int,
) -> None:
    if depth > _MAX_DEPTH or (
        target.get("x-kubernetes-preserve-unknown-fields") and not target.get("properties")
    ):
        result.carried += 1
        return
    if isinstance(value, list):
        items = _schema(target.get("items"))
        for index, item in enumerate(value):
            _walk(item, _schema(source.get("items")), items, (*path, index), result, depth + 1)
        return
    if not isinstance(value, dict):
        result.carried += 1
        return
    _walk_mapping(value, source, target, path, result, depth)


def _walk_mapping(
    value: JsonObject,
    source: JsonObject,
    target: JsonObject,
    path: tuple[PathPart, ...],
    result: MoveResult,
    depth: int,
) -> None:
    known = _schema(target.get("properties"))
    extra = target.get("additionalProperties")
    if not known:  # a map (additionalProperties), or a schema that says nothing of the keys
        if isinstance(extra, dict):
            old = _schema(source.get("additionalProperties"))
            for key, item in value.items():
                _walk(item, old, extra, (*path, key), result, depth + 1)
        else:
            result.carried += 1
        return
    old_props = _schema(source.get("properties"))
    renames = _renames(old_props, known)
    for key in list(value):
        name = key if key in known else _rename(value, key, renames.get(key), path, result)
        if name is not None:
            old_schema, new_schema = _schema(old_props.get(key)), _schema(known[name])
            _walk(value[name], old_schema, new_schema, (*path, name), result, depth + 1)
        elif target.get("x-kubernetes-preserve-unknown-fields") or isinstance(extra, dict):
            result.carried += 1
        else:
            del value[key]
            result.moves.append(FieldMove(REMOVED, (*path, key)))


def _rename(
    value: JsonObject, key: str, new: str | None, path: tuple[PathPart, ...], result: MoveResult
) -> str | None:
    """Move ``key`` to the name the schemas show it renamed to, unless that name is taken;
    the name it now has, or None when it has no place in the target."""
    if new is None or new in value:
        return None
    value[new] = value.pop(key)
    result.moves.append(FieldMove(RENAMED, (*path, key), new))
    return new


def _renames(source: JsonObject, target: JsonObject) -> dict[str, str]:
    """Old name -> new name for the siblings the two schemas show renamed (module docstring)."""
    gone = [key for key in source if key not in target]
    new = [key for key in target if key not in source]
    pairs = [
        (old, fresh)
        for old in gone
        for fresh in new
        if _same_field(old, _schema(source[old]), fresh, _schema(target[fresh]))
    ]
    renames: dict[str, str] = {}
    for old, fresh in pairs:
        if (
            sum(1 for o, _ in pairs if o == old) == 1
            and sum(1 for _, f in pairs if f == fresh) == 1
        ):
            renames[old] = fresh
    return renames


def _same_field(old: str, before: JsonObject, new: str, after: JsonObject) -> bool:
    described = _description(before)
    if described and described == _description(after) and before.get("type") == after.get("type"):
        return True
    return (
        _ID_WORD.sub("", old) == _ID_WORD.sub("", new)
        and before.get("type") == "object"
        and _undescribed(before) == _undescribed(after)
    )


def _description(schema: JsonObject) -> str:
    text = schema.get("description")
    return " ".join(text.split()) if isinstance(text, str) else ""


def _undescribed(schema: Json) -> Json:
    """``schema`` without its descriptions (they differ between versions for the same field)."""
    if isinstance(schema, dict):
        return {key: _undescribed(item) for key, item in schema.items() if key != "description"}
    if isinstance(schema, list):
        return [_undescribed(item) for item in schema]
    return schema


def _schema(value: Json) -> JsonObject:
    return value if isinstance(value, dict) else {}
