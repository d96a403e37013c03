"""Schema store: finds, converts, caches and compiles JSON Schemas by group/version/kind.

The contract lives in :mod:`generator.schemastore.types`; importing it (or this package) stays
cheap because the implementation is loaded only when one of its names is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from generator.schemastore.types import (
    GroupVersionKind,
    SchemaHandle,
    SchemaLookup,
    SchemaViolation,
)

if TYPE_CHECKING:
    from generator.schemastore.handle import CompiledSchema
    from generator.schemastore.store import SchemaInfo, SchemaStore

__all__ = [
    "CompiledSchema",
    "GroupVersionKind",
    "SchemaHandle",
    "SchemaInfo",
    "SchemaLookup",
    "SchemaStore",
    "SchemaViolation",
]

_LAZY = {
    "SchemaStore": "generator.schemastore.store",
    "SchemaInfo": "generator.schemastore.store",
    "CompiledSchema": "generator.schemastore.handle",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(module), name)
