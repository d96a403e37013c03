"""Compiling a converted schema with jsonschema-rs: self-contained, and regexes without backtracking.

A schema never reaches outside itself. The API server rejects ``$ref`` in CRDs, and a schema
handed to capzgen (``--schema-dir``, ``schemas import``, a flavor's variables) must not make it
fetch a URL or read a local file: any ``$ref`` that does not start with ``#`` is an error naming
the schema file, and the validator is built with a retriever that refuses every request besides.

Kubernetes checks ``pattern`` with Go's RE2, which runs in linear time. jsonschema-rs is told to
use the Rust ``regex`` engine (the same guarantees, no backtracking) instead of its default
``fancy-regex`` (plain JSON Schemas, such as a flavor's variables, keep ECMA-262 patterns, with a
bound on backtracking steps). Some patterns the API server accepts are still refused there (``[\\w-.]``,
``a{,3}`` ...); failing the whole schema for one would disable validation of every field, so such a
pattern moves to a custom keyword checked with RE2 itself. A pattern RE2 refuses too would be
refused by the API server as well: it is dropped and reported as a warning naming the file and the
schema location. Nothing runs on a backtracking engine, so no schema can make validation hang.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn, cast

from generator.errors import Location, SchemaStoreError
from generator.jsontypes import Json, JsonObject
from generator.schemastore.formats import KUBERNETES_FORMATS, FormatChecker

if TYPE_CHECKING:
    import jsonschema_rs

log = logging.getLogger(__name__)

RE2_PATTERN = "x-capzgen-re2-pattern"
_MAX_PATTERN_FIXES = 1000
# Bound on backtracking steps per match for schemas whose patterns are ECMA-262 regexes (flavor
# variable schemas may use lookarounds): past it a match fails quickly instead of running for ages.
ECMA_BACKTRACK_LIMIT = 1_000_000


def re2_module() -> ModuleType:
    """The RE2 binding, loaded on first use: most runs compile no pattern the Rust engine
    refuses, and the binding costs ~2 ms of start-up."""
    # lazy: as the docstring says
    import re2

    return cast("ModuleType", re2)  # the binding has no type stubs


def re2_options() -> object:
    """RE2 options for capzgen: no logging to stderr (a refused pattern is reported by us)."""
    options = re2_module().Options()
    options.log_errors = False
    return options


class Re2Pattern:
    """Custom keyword: ``pattern`` evaluated with RE2 (unanchored search, like JSON Schema)."""

    def __init__(self, parent_schema: JsonObject, value: str, schema_path: list[Json]) -> None:
        self.pattern = value
        self.regex = re2_module().compile(value, re2_options())

    def validate(self, instance: Json) -> None:
        """Raise ValueError (reported as the violation) if a string does not match."""
        if isinstance(instance, str) and not self.regex.search(instance):
            msg = f"pattern {self.pattern}"
            raise ValueError(msg)


def _refuse_retrieval(uri: str) -> NoReturn:
    msg = f"capzgen does not fetch or read schemas a $ref names ({uri})"
    raise ValueError(msg)


def external_refs(schema: Json) -> Iterator[tuple[str, str]]:
    """(JSON pointer, value) of every ``$ref``/``$dynamicRef`` that points outside the schema."""
    stack: list[tuple[str, Json]] = [("", schema)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{pointer}/{key}"
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    if not value.startswith("#"):
                        yield here, value
                elif isinstance(value, dict | list):
                    stack.append((here, value))
        elif isinstance(node, list):
            stack.extend((f"{pointer}/{index}", item) for index, item in enumerate(node))


def ensure_self_contained(schema: Json, *, source: str) -> None:
    """Raise :class:`SchemaStoreError` naming ``source`` if ``schema`` has an external ``$ref``."""
    refs = sorted(external_refs(schema))
    if refs:
        pointer, value = refs[0]
        raise SchemaStoreError(
            f"schema refers outside itself: $ref {value!r} at {pointer}"
            + (f" (and {len(refs) - 1} more)" if len(refs) > 1 else ""),
            location=Location(file=source),
            hint="capzgen never fetches or reads what a $ref names; inline the referenced "
            "schema, or use a CRD (the API server allows no $ref there)",
        )


def compile_schema(
    schema: JsonObject,
    *,
    source: str,
    ecma_patterns: bool = False,
    self_contained: bool = False,
    formats: Mapping[str, FormatChecker] | None = None,
) -> jsonschema_rs.Validator:
    """A jsonschema-rs validator for ``schema`` (which may be modified to replace patterns).

    Kubernetes schemas (the default) match patterns as RE2 does. ``ecma_patterns`` is for schemas
    that are plain JSON Schema, such as a flavor's variables, where ECMA-262 features (lookaround)
    are legitimate: they run with bounded backtracking. Raises :class:`SchemaStoreError` naming
    ``source`` when the schema cannot be compiled or refers outside itself. ``self_contained``
    skips the walk for external ``$ref``s when the caller knows there is none (a built-in bundle
    member, checked at build time and matched to its digest); the retriever still refuses every
    fetch. ``formats`` adds checkers for the schema's own ``format`` names (a flavor's
    ``azure-vm-size``), so a value is judged by the same Python function wherever capzgen meets it.
    """
    # lazy: jsonschema-rs (~12 ms with what it imports) loads where a schema is compiled: in a
    # -j N run the workers, never the parent before it forks them
    import jsonschema_rs

    pattern_options = (
        jsonschema_rs.FancyRegexOptions(backtrack_limit=ECMA_BACKTRACK_LIMIT)
        if ecma_patterns
        else jsonschema_rs.RegexOptions()
    )
    if not self_contained:
        ensure_self_contained(schema, source=source)
    for _ in range(_MAX_PATTERN_FIXES):
        try:
            return jsonschema_rs.validator_for(
                schema,
                formats={**KUBERNETES_FORMATS, **(formats or {})},
                validate_formats=True,
                ignore_unknown_formats=True,
                keywords={RE2_PATTERN: Re2Pattern},
                pattern_options=pattern_options,
                retriever=_refuse_retrieval,
            )
        except jsonschema_rs.ValidationError as error:
            path = list(error.instance_path)
            if not (path and path[-1] == "pattern" and _fix_pattern(schema, path, source)):
                raise _unusable(source, error.message, path) from error
        except (ValueError, TypeError) as error:
            raise _unusable(source, str(error), []) from error
    raise _unusable(source, "too many unsupported patterns", [])


def _fix_pattern(schema: JsonObject, path: list[Json], source: str) -> bool:
    node: Json = schema
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    if not isinstance(node, dict) or not isinstance(node.get("pattern"), str):
        return False
    pattern = node.pop("pattern")
    where = "/" + "/".join(str(p) for p in path)
    re2 = re2_module()
    try:
        re2.compile(pattern, re2_options())
    except re2.error:
        log.warning(
            "%s: pattern %r at %s is not valid RE2 (the API server would refuse it too); "
            "it is not checked",
            source,
            pattern,
            where,
        )
        return True
    node[RE2_PATTERN] = pattern
    log.info("%s: pattern %r at %s is checked with RE2", source, pattern, where)
    return True


def _unusable(source: str, message: str, path: list[Json]) -> SchemaStoreError:
    details = [f"at schema location /{'/'.join(str(p) for p in path)}"] if path else []
    return SchemaStoreError(
        f"schema cannot be compiled: {message.splitlines()[0] if message else 'unknown error'}",
        location=Location(file=source),
        details=details,
        hint="fix or remove the file, or put a corrected copy earlier on the schema path",
    )
