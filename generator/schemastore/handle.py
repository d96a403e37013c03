"""The compiled schema for one group/version/kind: what :meth:`SchemaStore.lookup` hands out."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final, final

from generator.jsontypes import Json, JsonObject
from generator.schemastore.types import GroupVersionKind, SchemaViolation

if TYPE_CHECKING:
    import jsonschema_rs


@final
class CompiledSchema:
    """Implements :class:`~generator.schemastore.types.SchemaHandle`.

    ``schema`` is the converted JSON Schema that was compiled; it keeps the CRD's
    ``x-kubernetes-validations`` so that a CEL evaluator can walk it alongside the object.
    """

    # __weakref__: the CEL tree of a handle is kept for as long as the handle lives
    # (generator.cel.tree.tree_for); without it every batch built its trees again.
    __slots__ = ("__weakref__", "gvk", "schema", "source", "validator")

    def __init__(
        self,
        gvk: GroupVersionKind,
        source: str,
        schema: JsonObject,
        validator: jsonschema_rs.Validator,
    ) -> None:
        self.gvk: Final = gvk
        self.source: Final = source
        self.schema: Final = schema
        self.validator: Final = validator

    def __repr__(self) -> str:
        return f"CompiledSchema({self.gvk!r}, {self.source!r})"

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
