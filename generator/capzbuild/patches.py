"""CAPZ's option-7 patches (``asoManagedClusterPatches``, ``asoManagedClustersAgentPoolPatches``):
strings of JSON or YAML, each an RFC 7386 JSON merge patch CAPZ applies, in order, to the whole
ASO object it generated (``{"spec": {...}}``; reference §5.3, §5.4, CAPZ
``azure/services/aso/aso.go``).

Read with the bounded loaders as a Kubernetes manifest value (go-yaml semantics, as CAPZ's
``sigs.k8s.io/yaml`` reads it); a text that looks like JSON and does not read is re-read as strict
JSON so that the mistake is located by line and column of the patch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from generator.errors import YamlError
from generator.findings import JsonPath
from generator.jsonpatch import json_type_name, merge_patch
from generator.jsontypes import Json, JsonObject
from generator.yamlio.load import load_json, load_manifest_value


@dataclass(frozen=True)
class PatchProblem:
    """Why a patch string is not a usable merge patch, with its position in the patch when known
    (1-based line and column of the patch text)."""

    message: str
    line: int | None = None
    column: int | None = None

    def describe(self) -> str:
        """The message with its position: ``... (line 1, column 31 of the patch)``."""
        if self.line is None:
            return self.message
        where = f"line {self.line}" + (f", column {self.column}" if self.column else "")
        return f"{self.message} ({where} of the patch)"


def parse_patch(text: str, source: str) -> JsonObject | PatchProblem:
    """The merge patch ``text`` holds, or the problem that stops CAPZ from applying it.

    CAPZ reads YAML, so a text starting with ``{`` that strict JSON refuses still counts when it is
    YAML (``{'spec': {}}``); when neither reads it, the JSON error is the one reported, located by
    line and column.
    """
    try:
        value = load_manifest_value(text, source=source)
    except YamlError as error:
        json_error = _json_error(text, source) if text.lstrip().startswith("{") else None
        return _problem(json_error, "JSON") if json_error else _problem(error, "YAML")
    if value is None:
        return PatchProblem('is empty: it must be a JSON object ({"spec": {...}})')
    if not isinstance(value, dict):
        return PatchProblem(
            f'must be a JSON object ({{"spec": {{...}}}}), not a {json_type_name(value)}'
        )
    return value


def _json_error(text: str, source: str) -> YamlError | None:
    try:
        load_json(text, source=source)
    except YamlError as error:
        return error
    return None  # JSON, yet not a manifest value (a duplicate key): the YAML error stands


def _problem(error: YamlError, kind: str) -> PatchProblem:
    where = error.location
    message = error.message.removeprefix(f"invalid {kind}: ")
    return PatchProblem(
        f"not valid {kind}: {message}",
        where.line if where is not None else None,
        where.column if where is not None else None,
    )


def apply_patches(obj: JsonObject, patches: Sequence[JsonObject]) -> JsonObject:
    """``obj`` with ``patches`` merged in order (neither is modified)."""
    result: Json = obj
    for patch in patches:
        result = merge_patch(result, patch)
    return dict(result)


def patched_paths(patch: JsonObject) -> Iterator[JsonPath]:
    """The paths a merge patch sets or removes: its leaves (a value that is not a mapping, a
    ``null``, or an empty mapping)."""
    stack: list[tuple[JsonPath, JsonObject]] = [((), patch)]
    while stack:
        prefix, node = stack.pop()
        for key, value in node.items():
            path = (*prefix, key)
            if isinstance(value, dict) and value:
                stack.append((path, value))
            else:
                yield path
