"""Schema store: finds, converts, caches and compiles JSON Schemas by group/version/kind.

The contract lives in :mod:`generator.schemastore.types`; importing it (or this package) stays
cheap because the implementation is loaded only when one of its names is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.faces import lazy_names
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

__getattr__ = lazy_names(__name__, {"SchemaStore": "store", "CompiledSchema": "handle"})
