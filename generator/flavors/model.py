"""Typed model of a flavor's metadata file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from generator.flavors.origins import ObjectOrigin
from generator.jsontypes import Json, JsonObject

_CAPZGEN_KEYS = frozenset({"required", "export", "inherit"})


@dataclass(frozen=True)
class VariableSpec:
    """One declared variable: its JSON Schema plus capzgen's own keys."""

    name: str
    schema: JsonObject  # the JSON Schema for the value (type, pattern, enum, items, ...)
    required: bool
    export: str  # "placeholder" or "default"; see schemas/flavor.schema.json

    @property
    def type(self) -> str:
        """The JSON Schema ``type`` (the metadata schema makes it required)."""
        return str(self.schema["type"])

    @property
    def description(self) -> str:
        """The one-line help text, ``""`` when the metadata has none."""
        return str(self.schema.get("description", ""))

    @property
    def has_default(self) -> bool:
        """Whether the metadata gives a default (which may itself be null)."""
        return "default" in self.schema

    @property
    def default(self) -> Json:
        """The declared default, None when there is none (check :attr:`has_default`)."""
        return self.schema.get("default")

    @classmethod
    def from_metadata(cls, name: str, raw: JsonObject) -> VariableSpec:
        """The spec of one ``variables`` entry of ``flavor.yaml``.

        Without ``required``, a variable is required unless it has a default; without ``export``,
        scalars are exported as ``${VAR}`` placeholders and lists and objects as their default.
        """
        schema = {key: value for key, value in raw.items() if key not in _CAPZGEN_KEYS}
        required = bool(raw.get("required", "default" not in raw))
        scalar = schema.get("type") in ("string", "integer", "number", "boolean")
        export = str(raw.get("export", "placeholder" if scalar else "default"))
        return cls(name=name, schema=schema, required=required, export=export)

    def restated(self, raw: JsonObject) -> VariableSpec:
        """This (inherited) declaration with the keys a child flavor's ``inherit: true``
        declaration states put over it: a child that only changes a default or a description
        keeps its parent's item schema instead of copying it."""
        schema = {**self.schema, **{k: v for k, v in raw.items() if k not in _CAPZGEN_KEYS}}
        required = bool(raw.get("required", self.required and "default" not in raw))
        export = str(raw.get("export", self.export))
        return VariableSpec(name=self.name, schema=schema, required=required, export=export)


@dataclass(frozen=True)
class Flavor:
    """One flavor folder, as its ``flavor.yaml`` declares it and after ``extends`` is applied.

    ``variables`` holds the parent's declarations overridden by the flavor's own, and ``origins``
    the parent's first; ``templates`` are the flavor's own, rendered in order. ``builtin`` flavors
    ship with capzgen and may only use built-in libraries and parents.
    """

    name: str
    description: str
    directory: Path
    templates: tuple[str, ...]
    variables: dict[str, VariableSpec] = field(default_factory=dict)
    clusterclass: str | None = None
    extends: str | None = None
    notes: str = ""
    builtin: bool = True
    # Which variable each rendered field comes from (``origins`` in flavor.yaml, the parent's
    # first); render-time findings are named after it. See generator/flavors/origins.py.
    origins: tuple[ObjectOrigin, ...] = ()

    def values_schema(self) -> JsonObject:
        """One JSON Schema for all variable values, so every problem is reported in one pass."""
        return {
            "type": "object",
            "properties": {name: spec.schema for name, spec in self.variables.items()},
            "required": sorted(name for name, spec in self.variables.items() if spec.required),
        }
