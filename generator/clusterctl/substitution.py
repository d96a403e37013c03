"""The clusterctl half of the pipeline: variable layers, ``${VAR}`` substitution, parsing.

``generate yaml`` is this alone (substitute, parse, re-serialise); ``generate cluster`` runs it
after Jinja (:mod:`generator.generate.pipeline`). Kept apart from the cluster pipeline so that the plain
clusterctl path loads neither Jinja nor the validator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property

from generator.clusterctl.typed_values import contains
from generator.clusterctl.variables import Layer, VariableStore, config_layer, environment_layer
from generator.envsubst import substitute
from generator.errors import Location, MissingVariablesError, TemplateSyntaxError, YamlError
from generator.findings import JsonPath
from generator.jsontypes import Json
from generator.yamlio.emit import dump_documents
from generator.yamlio.load import load_documents
from generator.yamlio.locate import LineLocator

# What `generate yaml` accepts: it has no --var or --values (clusterctl's command has neither).
YAML_MISSING_HINT = (
    "set them in the environment or in the clusterctl config file (--config, else "
    "$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml or ~/.cluster-api/clusterctl.yaml)"
)


@dataclass(frozen=True)
class ValuesOrigin:
    """Where the typed values (``--values``, a fleet's ``values``) were written, so a message can
    name the file and, when its text is known, the line of a key."""

    source: str = "values file"
    text: str | None = None  # the file's text; None: no line numbers (e.g. merged fleet values)
    document: int = 0  # index of the YAML document holding the values
    # With several --values files and --set flags: what this one held, and the origin of what
    # it was merged over (a value it does not hold came from there).
    values: Mapping[str, Json] | None = None
    under: ValuesOrigin | None = None

    @cached_property
    def _locator(self) -> LineLocator | None:
        """Parsed once, on the first question (most runs never ask)."""
        return None if self.text is None else LineLocator(self.text)

    def where(self, path: JsonPath) -> str:
        """``file:line`` of ``path`` inside the values, or just the source without the text;
        of the file (or ``--set``) the value came from, when several were merged."""
        if self.values is not None and self.under is not None and not contains(self.values, path):
            return self.under.where(path)
        line = None if self._locator is None else self._locator.line_of(self.document, path)
        return self.source if line is None else f"{self.source}:{line}"


@dataclass(frozen=True)
class Inputs:
    """Where variable values come from besides flags (kept apart so tests control them)."""

    environ: Mapping[str, str]
    config: Mapping[str, Json] = field(default_factory=dict)
    values_file: Mapping[str, Json] = field(default_factory=dict)
    values_origin: ValuesOrigin = field(default_factory=ValuesOrigin)


def base_layers(inputs: Inputs) -> list[Layer]:
    """Environment, then clusterctl config file: the order ``clusterctl`` uses."""
    return [environment_layer(inputs.environ), config_layer(inputs.config)]


def substitute_template(text: str, store: VariableStore, *, source: str) -> str:
    """clusterctl's substitution; a syntax error is reported with the file it came from."""
    try:
        return substitute(text, store.lookup, store.is_set)
    except TemplateSyntaxError as error:
        error.location = replace(error.location or Location(), file=source)
        raise


_EXACT_IN_FLOAT64 = 1 << 53  # integers up to this size survive a trip through float64
_INT64_MIN = -(1 << 63)
_UINT64_END = 1 << 64
_JSON_FIXED_END = 1e21  # Go's encoding/json writes floats this large with an exponent


def _clusterctl_number(value: float) -> Json:
    """A number as clusterctl prints it. clusterctl reads a template into ``interface{}``
    through JSON, so every number becomes a float64; it writes the objects back as JSON (Go
    writes an integral float below 1e21 as its shortest digits padded with zeros) and reads that
    JSON again with go-yaml, which makes an integer of what fits int64 or uint64 and a float of
    the rest. So 9223372036854775807 comes out as 9223372036854776000, and 1e19 as
    10000000000000000000. Smaller integers and fractions come back unchanged."""
    try:
        number = float(value)
    except OverflowError:  # beyond float64: clusterctl keeps no number here either; left alone
        return value
    if not math.isfinite(number) or not number.is_integer() or abs(number) >= _JSON_FIXED_END:
        return number if isinstance(value, float) else value
    printed = int(Decimal(repr(number)))  # the shortest digits, as Go's JSON writes them
    if _INT64_MIN <= printed < _UINT64_END:
        return printed
    return number


def as_clusterctl_numbers(value: Json) -> Json:
    """``value`` with its numbers as clusterctl prints them (:func:`_clusterctl_number`);
    containers without such a number are returned as they are."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return (
            value if -_EXACT_IN_FLOAT64 <= value <= _EXACT_IN_FLOAT64 else _clusterctl_number(value)
        )
    if isinstance(value, float):
        return _clusterctl_number(value)
    if isinstance(value, dict):
        changed = {key: as_clusterctl_numbers(item) for key, item in value.items()}
        if any(changed[key] is not item for key, item in value.items()):
            return changed
        return value
    if isinstance(value, list):
        items = [as_clusterctl_numbers(item) for item in value]
        if any(new is not old for new, old in zip(items, value, strict=True)):
            return items
        return value
    return value


def parse_objects(text: str, source: str) -> list[Json]:
    """Documents of a substituted template as objects; empty documents are dropped (clusterctl),
    numbers are what clusterctl makes of them (:func:`as_clusterctl_numbers`)."""
    objects = []
    for document in load_documents(text, source=source):
        if document.obj is None:
            continue
        if not isinstance(document.obj, dict):
            msg = (
                f"document is a {type(document.obj).__name__}, not a mapping (a Kubernetes object)"
            )
            raise YamlError(
                msg,
                location=Location(file=source, line=document.start_line, document=document.index),
            )
        objects.append(as_clusterctl_numbers(document.obj))
    return objects


def as_printed(manifests: str) -> str:
    """The bytes clusterctl prints (and writes with ``--write-to``) for serialised objects: a
    template that yields no object at all prints a lone newline, not nothing (measured on
    clusterctl v1.13.3, ``generate yaml`` and ``generate cluster`` alike)."""
    return manifests or "\n"


def generate_yaml(text: str, *, source: str, inputs: Inputs) -> str:
    """``clusterctl generate yaml``: substitute, parse and re-serialise the template."""
    store = VariableStore(base_layers(inputs))
    try:
        substituted = substitute_template(text, store, source=source)
    except MissingVariablesError as error:
        error.hint = YAML_MISSING_HINT
        raise
    return as_printed(dump_documents(parse_objects(substituted, source)))
