"""Repairs for known converter defects in third-party JSON Schema files.

Known case (``resources.azure.com/resourcegroup_v1api20200601.json`` in the CRDs-catalog): the
converter that adds ``"additionalProperties": false`` mistook a property *named* ``properties`` for
the keyword and inserted the flag into the property map of ``status`` instead of into ``status``
itself. Read literally, the file declares a field called ``additionalProperties`` whose schema is
``false`` and leaves ``status`` open; strict compilers reject it outright. We move such keyword
entries back to the schema that owns the map and report every move, so the caller can warn with the
file name. Anything else in a property map that is not a schema is left for the converter to reject
with a precise location.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from generator.jsontypes import Json, JsonObject

# Keywords a converter could misplace into a property map; their values are not schema objects.
_MISPLACEABLE = frozenset(
    {"additionalProperties", "type", "required", "nullable", "x-kubernetes-preserve-unknown-fields"}
)
_SUBSCHEMA_KEYS = frozenset({"additionalProperties", "items", "not", "contains", "propertyNames"})
_SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


@dataclass(frozen=True, slots=True)
class Repair:
    """One change made to the input, described for a log line."""

    pointer: str  # JSON pointer of the schema whose property map was fixed
    keyword: str
    value: Json

    def describe(self) -> str:
        """``moved misplaced "keyword": value out of the property map of /pointer``."""
        return (
            f'moved misplaced "{self.keyword}": {_render(self.value)} out of the property map '
            f"of {self.pointer or '/'}"
        )


def _render(value: Json) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    return repr(value)


def repair_schema(schema: Json) -> list[Repair]:
    """Fix misplaced keywords in place and return what was changed (empty: nothing to do)."""
    repairs: list[Repair] = []
    for pointer, node in _walk(schema, ""):
        properties = node.get("properties")
        if not isinstance(properties, dict):
            continue
        for name in [n for n, sub in properties.items() if _is_misplaced(n, sub)]:
            value = properties.pop(name)
            if name not in node:
                node[name] = value
            repairs.append(Repair(pointer=pointer, keyword=name, value=value))
    return repairs


def _is_misplaced(name: str, sub: Json) -> bool:
    # A real property has a schema object; a keyword's value is a bool, list or string.
    return name in _MISPLACEABLE and not isinstance(sub, dict)


def _walk(node: Json, pointer: str) -> Iterator[tuple[str, JsonObject]]:
    if not isinstance(node, dict):
        return
    yield pointer, node
    for key, value in list(node.items()):
        where = f"{pointer}/{key}"
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in list(value.items()):
                yield from _walk(sub, f"{where}/{name}")
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _walk(sub, f"{where}/{index}")
        elif key in _SUBSCHEMA_KEYS:
            yield from _walk(value, where)
