"""The clusterctl half of the pipeline: variable layers, ``${VAR}`` substitution, parsing.

``generate yaml`` is this alone (substitute, parse, re-serialise); ``generate cluster`` runs it
after Jinja (:mod:`generator.pipeline`). Kept apart from the cluster pipeline so that the plain
clusterctl path loads neither Jinja nor the validator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from generator.envsubst import substitute
from generator.errors import Location, TemplateSyntaxError, YamlError
from generator.variables import Layer, VariableStore, config_layer, environment_layer
from generator.yamlio.emit import dump_documents
from generator.yamlio.load import load_documents


@dataclass(frozen=True)
class Inputs:
    """Where variable values come from besides flags (kept apart so tests control them)."""

    environ: Mapping[str, str]
    config: Mapping[str, Any] = field(default_factory=dict)
    values_file: Mapping[str, Any] = field(default_factory=dict)


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


def parse_objects(text: str, source: str) -> list[Any]:
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


def generate_yaml(text: str, *, source: str, inputs: Inputs) -> str:
    """``clusterctl generate yaml``: substitute, parse and re-serialise the template."""
    store = VariableStore(base_layers(inputs))
    return dump_documents(parse_objects(substitute_template(text, store, source=source), source))
