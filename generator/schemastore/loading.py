"""Reading schema source files (YAML or JSON, one or many documents) into plain Python values.

Kept apart from the CRD logic so that every reader (store, ``schemas import``, ``schemas sync``)
reports broken input the same way: a :class:`~generator.errors.YamlError` carrying file, line and
column. Callers that treat a broken file as an unusable schema *source* re-raise it as
:class:`~generator.errors.SchemaStoreError`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.errors import InputOutputError, Location, YamlError

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _SchemaLoader(_BaseLoader):  # type: ignore[valid-type,misc]
    """Safe loader without YAML 1.1 timestamps.

    A CRD's ``enum``/``example`` may hold date-like strings; turning them into ``datetime`` objects
    would make the converted schema impossible to store as JSON. Kubernetes reads them as strings.
    """


_SchemaLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True, slots=True)
class SourceText:
    """The raw bytes of one source file plus its digest (the key of the conversion cache)."""

    name: str  # path as given, or "<stdin>"
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @classmethod
    def read(cls, path: Path) -> SourceText:
        try:
            return cls(name=str(path), data=path.read_bytes())
        except OSError as error:
            raise InputOutputError(
                f"cannot read schema source: {error.strerror or error}",
                location=Location(file=str(path)),
            ) from error


def parse_documents(source: SourceText) -> list[Any]:
    """All documents of a YAML stream or a JSON file, empty documents dropped.

    JSON is tried first for ``.json`` names and for text starting with ``{`` or ``[`` because it is
    an order of magnitude faster than YAML; YAML is the fallback since every JSON text is YAML too.
    """
    try:
        text = source.data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise YamlError(
            f"not UTF-8 text (byte {error.start})", location=Location(file=source.name)
        ) from error
    stripped = text.lstrip()
    if source.name.endswith(".json") or stripped.startswith(("{", "[")):
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as error:
            if source.name.endswith(".json"):
                raise YamlError(
                    f"invalid JSON: {error.msg}",
                    location=Location(file=source.name, line=error.lineno, column=error.colno),
                ) from error
    try:
        return [doc for doc in yaml.load_all(text, Loader=_SchemaLoader) if doc is not None]
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "malformed YAML"
        raise YamlError(
            f"invalid YAML: {problem}",
            location=Location(
                file=source.name,
                line=mark.line + 1 if mark else None,
                column=mark.column + 1 if mark else None,
            ),
        ) from error
    except yaml.YAMLError as error:
        raise YamlError(f"invalid YAML: {error}", location=Location(file=source.name)) from error
