"""The clusterctl half of the pipeline: variable layers, ``${VAR}`` substitution, parsing.

``generate yaml`` is this alone (substitute, parse, re-serialise); ``generate cluster`` runs it
after Jinja (:mod:`generator.generate.pipeline`). Kept apart from the cluster pipeline so that the plain
clusterctl path loads neither Jinja nor the validator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

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

    @cached_property
    def _locator(self) -> LineLocator | None:
        """Parsed once, on the first question (most runs never ask)."""
        return None if self.text is None else LineLocator(self.text)

    def where(self, path: JsonPath) -> str:
        """``file:line`` of ``path`` inside the values, or just the source without the text."""
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


def parse_objects(text: str, source: str) -> list[Json]:
    """Documents of a substituted template as objects; empty documents are dropped (clusterctl)."""
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
        objects.append(document.obj)
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
