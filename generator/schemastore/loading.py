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

from generator.errors import Location, YamlError
from generator.yamlio.limits import MAX_DEPTH
from generator.yamlio.load import load_documents
from generator.yamlio.source import decode_source, read_bytes


@dataclass(frozen=True, slots=True)
class SourceText:
    """The raw bytes of one source file plus its digest (the key of the conversion cache)."""

    name: str  # path as given, or "<stdin>"
    data: bytes

    @property
    def sha256(self) -> str:
        """Hex sha256 of the bytes: the key under which the file's conversion is memoised."""
        return hashlib.sha256(self.data).hexdigest()

    @classmethod
    def read(cls, path: Path) -> SourceText:
        """At most the YAML reader's size bound; an unreadable file is an InputOutputError."""
        return cls(name=str(path), data=read_bytes(str(path)))


def parse_documents(source: SourceText) -> list[Any]:
    """All documents of a YAML stream or a JSON file, empty documents dropped.

    Both go through bounded readers: YAML through the manifest loader (depth, node and alias
    bounds, go-yaml semantics: timestamps stay strings, as the API server reads them); JSON through
    :func:`json.loads` (an order of magnitude faster for kubectl's and the catalogs' JSON) with the
    same depth bound checked before anything else sees the value.
    """
    text = decode_source(source.data, source.name)
    stripped = text.lstrip()
    if source.name.endswith(".json") or stripped.startswith(("{", "[")):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            if source.name.endswith(".json"):
                msg = f"invalid JSON: {error.msg}"
                raise YamlError(
                    msg,
                    location=Location(file=source.name, line=error.lineno, column=error.colno),
                ) from error
        except RecursionError:
            raise _too_deep(source.name) from None
        else:
            if _depth_exceeds(value, MAX_DEPTH):
                raise _too_deep(source.name)
            return [value]
    return [doc.obj for doc in load_documents(text, source=source.name) if doc.obj is not None]


def _too_deep(name: str) -> YamlError:
    return YamlError(f"nested deeper than {MAX_DEPTH} levels", location=Location(file=name))


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists or mappings more than ``limit`` deep (iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
