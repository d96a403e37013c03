"""Schema store: finds, converts, caches and compiles JSON Schemas by group/version/kind.

The contract lives in :mod:`generator.schemastore.types`; importing it (or this package) stays
cheap because the implementation is loaded only when one of its names is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from generator.schemastore.types import (
    GroupVersionKind,
    SchemaCatalog,
    SchemaHandle,
    SchemaInfo,
    SchemaLookup,
    SchemaViolation,
    SourceFiles,
)

if TYPE_CHECKING:
    from generator.schemastore.handle import CompiledSchema
    from generator.schemastore.store import SchemaStore

__all__ = [
    "CompiledSchema",
    "GroupVersionKind",
    "SchemaCatalog",
    "SchemaHandle",
    "SchemaInfo",
    "SchemaLookup",
    "SchemaStore",
    "SchemaViolation",
    "SourceFiles",
]

_LAZY = {
    "SchemaStore": "generator.schemastore.store",
    "CompiledSchema": "generator.schemastore.handle",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(module), name)
