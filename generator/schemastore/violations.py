"""jsonschema-rs errors -> one-line, readable :class:`SchemaViolation` values.

jsonschema-rs messages are written for schema authors (``"3" is not of type "integer"``,
``Additional properties are not allowed ('a', 'b' were unexpected)``). Manifest authors need the
field and what to do about it, and a report needs one finding per field so that line numbers land
on the offending key. Hence: one violation per unknown key, pointing at the key; messages phrased
from the error's ``kind``; ``anyOf``/``oneOf`` failures narrowed to the branch that came closest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import jsonschema_rs

from generator.findings import JsonPath
from generator.jsontypes import Json
from generator.schemastore.compiler import RE2_PATTERN
from generator.schemastore.types import SchemaViolation

_MAX_VALUE = 60
_MAX_OPTIONS = 12
_FORMAT_NAMES = {
    "byte": "base64 string (format byte)",
    "date-time": "RFC 3339 date-time",
    "duration": 'duration such as "1h30m"',
    "cidr": 'CIDR such as "10.0.0.0/16"',
    "mac": "MAC address",
}

Kind = jsonschema_rs.ValidationErrorKind


def violations(errors: Iterable[jsonschema_rs.ValidationError]) -> Iterator[SchemaViolation]:
    """Readable violations for ``errors``, duplicates removed, in the validator's order."""
    seen: set[tuple[JsonPath, str]] = set()
    for error in errors:
        for violation in describe(error):
            key = (violation.path, violation.message)
            if key not in seen:
                seen.add(key)
                yield violation


def describe(error: jsonschema_rs.ValidationError) -> list[SchemaViolation]:
    """The violations one jsonschema-rs error stands for (several for unknown fields)."""
    path: JsonPath = tuple(error.instance_path)
    kind = error.kind
    instance = error.instance
    if isinstance(kind, Kind.AdditionalProperties | Kind.UnevaluatedProperties):
        return [SchemaViolation((*path, key), f'unknown field "{key}"') for key in kind.unexpected]
    if isinstance(kind, Kind.AnyOf | Kind.OneOfNotValid):
        return _describe_alternatives(path, instance, kind.context)
    if isinstance(kind, Kind.FalseSchema) and list(error.schema_path)[-1:] == [
        "additionalProperties"
    ]:
        # A closed object without a property map: jsonschema-rs does not say which key.
        return [SchemaViolation(path, "unknown fields are not allowed here")]
    return [SchemaViolation(path, _message(kind, instance, path))]


def _message(kind: Kind, instance: Json, path: JsonPath) -> str:
    phrase = _MESSAGES.get(type(kind))
    if phrase is None:
        return str(getattr(kind, "name", "invalid value"))
    return phrase(kind, instance, path)


def _custom(kind: Kind.Custom, instance: Json, path: JsonPath) -> str:
    if kind.keyword == RE2_PATTERN:
        pattern = kind.message.removeprefix("pattern ")
        return f'must match pattern "{pattern}" (got {_short(instance)})'
    return str(kind.message)


def _false_schema(kind: Kind, instance: Json, path: JsonPath) -> str:
    # ``additionalProperties: false`` on an object without ``properties`` reports this way.
    if path and isinstance(path[-1], str):
        return f'unknown field "{path[-1]}"'
    return "no value is allowed here"


# How each kind of error reads: (kind, instance, path) -> message. Kinds not listed fall back to
# their name; the narrowed kinds (unknown fields, anyOf/oneOf) are handled by ``describe``.
# Each phrase takes the subclass of ValidationErrorKind it is filed under, which one mapping's
# type cannot say: hence ``Any`` for the kind.
_MESSAGES: dict[type, Callable[[Any, Json, JsonPath], str]] = {
    Kind.Required: lambda k, v, p: f'required field "{k.property}" is missing',
    Kind.Type: lambda k, v, p: f"expected {_join(k.types)}, got {render_value(v)}",
    Kind.Enum: lambda k, v, p: f"must be one of: {_options(k.options)} (got {_short(v)})",
    Kind.Constant: lambda k, v, p: f"must be {_short(k.expected_value)} (got {_short(v)})",
    Kind.Pattern: lambda k, v, p: f'must match pattern "{k.pattern}" (got {_short(v)})',
    Kind.Custom: _custom,
    Kind.Format: lambda k, v, p: (
        f"must be a valid {_FORMAT_NAMES.get(k.format, k.format)} (got {_short(v)})"
    ),
    Kind.MinLength: lambda k, v, p: (
        f"must be at least {k.limit} characters long (got {_length(v)})"
    ),
    Kind.MaxLength: lambda k, v, p: f"must be at most {k.limit} characters long (got {_length(v)})",
    Kind.Minimum: lambda k, v, p: f"must be >= {k.limit} (got {_short(v)})",
    Kind.Maximum: lambda k, v, p: f"must be <= {k.limit} (got {_short(v)})",
    Kind.ExclusiveMinimum: lambda k, v, p: f"must be > {k.limit} (got {_short(v)})",
    Kind.ExclusiveMaximum: lambda k, v, p: f"must be < {k.limit} (got {_short(v)})",
    Kind.MultipleOf: lambda k, v, p: f"must be a multiple of {k.multiple_of} (got {_short(v)})",
    Kind.MinItems: lambda k, v, p: f"must have at least {k.limit} items (got {_size(v)})",
    Kind.MaxItems: lambda k, v, p: f"must have at most {k.limit} items (got {_size(v)})",
    Kind.MinProperties: lambda k, v, p: f"must have at least {k.limit} fields (got {_size(v)})",
    Kind.MaxProperties: lambda k, v, p: f"must have at most {k.limit} fields (got {_size(v)})",
    Kind.UniqueItems: lambda k, v, p: "must not contain duplicate items",
    Kind.FalseSchema: _false_schema,
    Kind.Not: lambda k, v, p: "must not match the excluded schema",
    Kind.OneOfMultipleValid: lambda k, v, p: (
        "matches more than one of the allowed alternatives (exactly one is required)"
    ),
}


def _describe_alternatives(
    path: JsonPath, instance: Json, branches: Sequence[Sequence[jsonschema_rs.ValidationError]]
) -> list[SchemaViolation]:
    """Narrow an ``anyOf``/``oneOf`` failure to something a person can act on.

    If every alternative failed only on the type of the value itself, say which types would do.
    Otherwise report the errors of the alternative that came closest: the one whose type matched,
    with the fewest errors.
    """
    if not branches:
        return [SchemaViolation(path, "does not match any of the allowed alternatives")]
    types: list[str] = []
    for branch in branches:
        kind = branch[0].kind if branch else None
        if isinstance(kind, Kind.Type) and all(_is_own_type_error(e, path) for e in branch):
            types.extend(t for t in kind.types if t not in types)
            continue
        break
    else:
        return [SchemaViolation(path, f"expected {_join(types)}, got {render_value(instance)}")]
    best = min(
        branches,
        key=lambda branch: (sum(_is_own_type_error(e, path) for e in branch), len(branch)),
    )
    result: list[SchemaViolation] = []
    for error in best:
        result.extend(describe(error))
    return result or [SchemaViolation(path, "does not match any of the allowed alternatives")]


def _is_own_type_error(error: jsonschema_rs.ValidationError, path: JsonPath) -> bool:
    return isinstance(error.kind, Kind.Type) and tuple(error.instance_path) == path


def _join(items: Sequence[str]) -> str:
    # "null" last: "expected string or null" reads better than "expected null or string".
    names = sorted((str(i) for i in items), key=lambda name: name == "null")
    if len(names) <= 1:
        return names[0] if names else "nothing"
    return ", ".join(names[:-1]) + f" or {names[-1]}"


def _options(options: Sequence[Json]) -> str:
    shown = ", ".join(_short(o) for o in options[:_MAX_OPTIONS])
    return shown + (", ..." if len(options) > _MAX_OPTIONS else "")


def _short(value: Json) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def json_type(value: Json) -> str:
    """JSON Schema's name for the type of a parsed value; Python's type name for anything else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def render_value(value: Json) -> str:
    """``string "3"``, ``integer 3``, ``null``, ``object``: the type, and the value if short."""
    name = json_type(value)
    if value is None or isinstance(value, dict | list | tuple):
        return name
    return f"{name} {_short(value)}"


def _length(value: Json) -> str:
    return str(len(value)) if isinstance(value, str) else "?"


def _size(value: Json) -> str:
    return str(len(value)) if isinstance(value, list | dict) else "?"
