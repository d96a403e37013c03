"""The compiled schema for one group/version/kind: what :meth:`SchemaStore.lookup` hands out."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from generator.jsontypes import Json, JsonObject
from generator.schemastore.types import GroupVersionKind, SchemaViolation

if TYPE_CHECKING:
    import jsonschema_rs


@dataclass(frozen=True, eq=False)
class CompiledSchema:
    """Implements :class:`~generator.schemastore.types.SchemaHandle`.

    ``schema`` is the converted JSON Schema that was compiled; it keeps the CRD's
    ``x-kubernetes-validations`` so that a CEL evaluator can walk it alongside the object.
    """

    gvk: GroupVersionKind
    source: str
    schema: JsonObject = field(repr=False)
    validator: jsonschema_rs.Validator = field(repr=False)

    def is_valid(self, obj: Json) -> bool:
        """Whether ``obj`` passes the schema (faster than collecting violations)."""
        return bool(self.validator.is_valid(obj))

    def iter_violations(self, obj: Json) -> Iterator[SchemaViolation]:
        """Every schema violation of ``obj``, located by its path (see :mod:`.violations`)."""
        # The module reads jsonschema-rs's error kinds as it loads, which the parent of a -j N
        # run never needs.
        # lazy: only an invalid object needs its violations described
        from generator.schemastore.violations import violations

        return violations(self.validator.iter_errors(obj))
