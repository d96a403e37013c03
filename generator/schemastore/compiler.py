"""Compiling a converted schema with jsonschema-rs, with a fallback for unsupported regexes.

Kubernetes checks ``pattern`` with Go's RE2; jsonschema-rs uses an ECMA-262-like engine. Most
patterns mean the same in both, but some that the API server accepts are rejected at compile time
(``[\\w-.]``, ``a{,3}``, ``\\Z`` ...). Failing the whole schema for one such pattern would disable
validation of every field, so the offending pattern is moved to a custom keyword checked with
Python's :mod:`re` instead; if Python cannot compile it either, the pattern is dropped. Both cases
are logged as warnings naming the file and the schema location.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import jsonschema_rs

from generator.errors import Location, SchemaStoreError
from generator.schemastore.formats import KUBERNETES_FORMATS

log = logging.getLogger(__name__)

PYTHON_PATTERN = "x-capzgen-python-pattern"
_MAX_PATTERN_FIXES = 1000


class PythonPattern:
    """Custom keyword: ``pattern`` evaluated with Python's ``re`` (``re.search``, like JSON Schema)."""

    def __init__(self, parent_schema: dict[str, Any], value: str, schema_path: list[Any]) -> None:
        self.pattern = value
        self.regex = re.compile(value)

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and not self.regex.search(instance):
            raise ValueError(f"pattern {self.pattern}")


def compile_schema(schema: dict[str, Any], *, source: str) -> Any:
    """A jsonschema-rs validator for ``schema`` (which may be modified to replace patterns).

    Raises :class:`SchemaStoreError` naming ``source`` when the schema cannot be compiled.
    """
    for _ in range(_MAX_PATTERN_FIXES):
        try:
            return jsonschema_rs.validator_for(
                schema,
                formats=KUBERNETES_FORMATS,
                validate_formats=True,
                ignore_unknown_formats=True,
                keywords={PYTHON_PATTERN: PythonPattern},
            )
        except jsonschema_rs.ValidationError as error:
            path = list(error.instance_path)
            if not (path and path[-1] == "pattern" and _fix_pattern(schema, path, source)):
                raise _unusable(source, error.message, path) from error
        except (ValueError, TypeError) as error:
            raise _unusable(source, str(error), []) from error
    raise _unusable(source, "too many unsupported patterns", [])


def _fix_pattern(schema: dict[str, Any], path: list[Any], source: str) -> bool:
    node: Any = schema
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    if not isinstance(node, dict) or not isinstance(node.get("pattern"), str):
        return False
    pattern = node.pop("pattern")
    where = "/" + "/".join(str(p) for p in path)
    try:
        re.compile(pattern)
    except re.error:
        log.warning(
            "%s: pattern %r at %s is not a valid regular expression for the validator; "
            "it is not checked",
            source,
            pattern,
            where,
        )
        return True
    node[PYTHON_PATTERN] = pattern
    log.warning(
        "%s: pattern %r at %s is not supported by jsonschema-rs; checking it with Python's re",
        source,
        pattern,
        where,
    )
    return True


def _unusable(source: str, message: str, path: list[Any]) -> SchemaStoreError:
    details = [f"at schema location /{'/'.join(str(p) for p in path)}"] if path else []
    return SchemaStoreError(
        f"schema cannot be compiled: {message.splitlines()[0] if message else 'unknown error'}",
        location=Location(file=source),
        details=details,
        hint="fix or remove the file, or put a corrected copy earlier on the schema path",
    )
