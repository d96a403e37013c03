"""Turning raw variable values (strings from flags and the environment, typed values from
``--values`` files) into the typed values a flavor declares, reporting every problem at once."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import lru_cache, partial

import jsonschema_rs

from generator.clusterctl.variables import VariableStore
from generator.errors import FlavorError, Location, SchemaStoreError, VariableError, YamlError
from generator.findings import JsonPath, format_path
from generator.flavors.messages import VALUE_FORMATS, unknown_fields, value_message
from generator.flavors.model import Flavor, VariableSpec
from generator.jsontypes import Json, JsonObject
from generator.schemastore.compiler import compile_schema
from generator.yamlio.load import load_value

VALUES_FILE_LABEL = "values file"  # the label of the values layer (see generator.generate.pipeline)
Locate = Callable[[JsonPath], str]  # a path inside the values file -> "file:line"

_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


class CoercionError(ValueError):
    """A raw value unreadable as its variable's declared type; the message says what is expected."""


def coerce(spec: VariableSpec, raw: Json) -> Json:
    """Convert text to the declared type; non-text values are passed on for schema checking."""
    if not isinstance(raw, str):
        if spec.type == "string" and isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return str(raw)
        return raw
    parse = _FROM_TEXT.get(spec.type)
    if parse is None:
        msg = f"unsupported type {spec.type!r}"
        raise CoercionError(msg)  # pragma: no cover - metadata schema forbids it
    return parse(raw)


def _integer(raw: str) -> int:
    text = raw.strip()
    if not _INTEGER.match(text):
        msg = f"expected an integer, got {raw!r}"
        raise CoercionError(msg)
    return int(text)


def _number(raw: str) -> int | float:
    text = raw.strip()
    try:
        return float(text) if not _INTEGER.match(text) else int(text)
    except ValueError:
        msg = f"expected a number, got {raw!r}"
        raise CoercionError(msg) from None


def _boolean(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    msg = f"expected true or false, got {raw!r}"
    raise CoercionError(msg)


def _structured(type_name: str, raw: str) -> Json:
    """An ``array`` or ``object`` written as YAML or JSON text."""
    try:  # bounded: a value can come from the environment, which anyone may have filled
        parsed = load_value(raw, source="value")
    except YamlError as exc:
        msg = f"expected a YAML/JSON {type_name}: {exc.message}"
        raise CoercionError(msg) from None
    if not isinstance(parsed, list if type_name == "array" else dict):
        msg = f"expected a YAML/JSON {type_name}, got {raw!r}"
        raise CoercionError(msg)
    return parsed


# Declared type -> how text (from a flag or the environment) becomes a value of that type.
_FROM_TEXT: dict[str, Callable[[str], Json]] = {
    "string": lambda raw: raw,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "array": partial(_structured, "array"),
    "object": partial(_structured, "object"),
}


@lru_cache(maxsize=64)
def _validator(schema_text: str, source: str) -> jsonschema_rs.Validator:
    """The flavor's variable schema compiled as every schema is: patterns on non-backtracking
    engines, no ``$ref`` outside the schema. A schema that cannot be used is the flavor's
    mistake (exit 1), named by its metadata file."""
    try:
        validator: jsonschema_rs.Validator = compile_schema(
            json.loads(schema_text), source=source, ecma_patterns=True, formats=VALUE_FORMATS
        )
    except SchemaStoreError as error:
        msg = f"the variable schema cannot be used: {error.message}"
        raise FlavorError(msg, location=Location(file=source), details=error.details) from error
    return validator


def resolve_values(
    flavor: Flavor, store: VariableStore, *, locate: Locate | None = None
) -> tuple[JsonObject, dict[str, str]]:
    """Typed values for every declared variable and the source each came from.

    Raises :class:`VariableError` naming every missing or mistyped variable. ``locate`` turns a
    path inside the values file into ``file:line``, so a problem with a value from that file
    names its line.
    """
    values: JsonObject = {}
    sources: dict[str, str] = {}
    problems: list[str] = []
    for name, spec in flavor.variables.items():
        resolved = store.resolve(name)
        if resolved is None:
            if spec.has_default:
                values[name] = spec.default
                sources[name] = "flavor default"
            elif spec.required:
                problems.append(f"{name}: required, no value set ({spec.description})")
            continue
        try:
            values[name] = coerce(spec, resolved.value)
            sources[name] = resolved.source
        except CoercionError as exc:
            problems.append(f"{name}: {exc} (from {resolved.source})")
    problems.extend(_schema_problems(flavor, values, sources, locate))
    if problems:
        msg = f"{len(problems)} problem{'s' if len(problems) != 1 else ''} with the variables of flavor {flavor.name!r}"
        raise VariableError(
            msg,
            details=problems,
            hint="see `capzgen generate cluster NAME --flavor "
            f"{flavor.name} --list-variables` for types and defaults",
        )
    return values, sources


def _schema_problems(
    flavor: Flavor,
    values: Mapping[str, Json],
    sources: Mapping[str, str],
    locate: Locate | None,
) -> list[str]:
    schema = flavor.values_schema()
    validator = _validator(
        json.dumps(schema, sort_keys=True), str(flavor.directory / "flavor.yaml")
    )
    problems = []
    for error in validator.iter_errors(dict(values)):
        path: list[str | int] = list(error.instance_path)
        if not path:
            continue  # "required" at the top is reported above with a better message
        if type(error.kind).__name__ == "AdditionalProperties":
            for field, message in unknown_fields(error, schema):
                where = [*path, field]
                problems.append(f"{format_path(where)}: {message}{_origin(where, sources, locate)}")
            continue
        message = value_message(error, schema)
        problems.append(f"{format_path(path)}: {message}{_origin(path, sources, locate)}")
    return sorted(set(problems))


def _origin(path: list[str | int], sources: Mapping[str, str], locate: Locate | None) -> str:
    """`` (from <source>)``, or `` (file:line)`` for a value of the values file."""
    source = sources.get(str(path[0]), "")
    if source == VALUES_FILE_LABEL and locate is not None:
        return f" ({locate(tuple(path))})"
    return f" (from {source})" if source else ""
