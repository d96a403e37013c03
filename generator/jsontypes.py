"""JSON values as capzgen reads them from YAML, and the one safe way to walk into them.

Manifests, values files, schemas and reports arrive as nested mappings and lists whose shape is
only known once a schema has checked it. ``Json`` names such a value at the edges where it enters
and leaves capzgen (it is ``Any`` to the type checker: its shape is the schema's business, not
Python's), and ``JsonObject`` a mapping of them, so a signature says "a parsed document" rather
than "anything".
"""

from __future__ import annotations

from typing import Any, TypeAlias

Json: TypeAlias = Any
JsonObject: TypeAlias = dict[str, Json]


def dig(obj: Json, *keys: str | int) -> Json:
    """``obj[k1][k2]...`` or ``None`` when any step is missing or of the wrong container type.

    Rules read data that may be missing or mistyped; type errors are the schema check's to
    report, so walking never raises."""
    for key in keys:
        if isinstance(obj, dict):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
        if obj is None:
            return None
    return obj
