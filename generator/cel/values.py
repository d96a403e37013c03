"""Whether a value has the type a schema node declares, without loading any CEL machinery.

The walker (:mod:`generator.cel.validate`) does not give a value whose type does not match its
schema to the node's rules (the schema check reports the type), and it decides that for every
value it visits, so this stays apart from cel-python.
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.jsontypes import Json

__all__ = ["matches_type", "types_of"]


def types_of(schema: Mapping[str, Json]) -> tuple[str, ...]:
    """The type names a schema node declares (``type`` as a string or a list)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list):
        return tuple(t for t in declared if isinstance(t, str))
    return ()


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


def matches_type(value: Json, schema: Mapping[str, Json]) -> bool:
    """Whether ``value`` has a type the schema node allows (no ``type``: anything)."""
    types = types_of(schema)
    if not types:
        return True
    for name in types:
        if name == "null":
            if value is None:
                return True
            continue
        allowed = _PY_TYPES.get(name)
        if allowed is None:
            return True  # an unknown type name: do not second-guess it
        if isinstance(value, bool) and name != "boolean":
            continue
        if isinstance(value, allowed):
            return True
    return False
