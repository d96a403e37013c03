"""Reading a legacy spec field by field while recording what was read.

Whatever a converter never reads is, by construction, a field it could not map: ``capzgen
migrate`` lists those leaves as ``unmapped`` instead of dropping them silently.

Errors are made by the reader's :class:`ErrorSource`: ``migrate`` passes the input object's origin
(its errors are :class:`~generator.errors.MigrationError`), the validator one whose errors it
catches to leave the malformed field to the schema check.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from generator.capzbuild.values import get_path, parse_path
from generator.findings import PathPart, format_path
from generator.jsontypes import Json, JsonObject


class ErrorSource(Protocol):
    """Where a spec came from, able to make the exception for a bad value at a path in it."""

    def error(self, message: str, path: Sequence[PathPart] = ()) -> Exception:
        """The exception (not raised) for ``message`` at ``path`` in the object."""
        ...


class SpecReader:
    """A legacy object's ``spec`` read through typed accessors that record what was read.

    Accessors return None (an empty list for :meth:`sequence`) for an absent field and raise
    the origin's error, located in the input, for a value of the wrong type.
    """

    def __init__(self, spec: JsonObject, origin: ErrorSource, base: list[PathPart]) -> None:
        self.spec = spec
        self.origin = origin
        self.base = base  # path of ``spec`` inside the object, e.g. ["spec"]
        self._taken: list[list[PathPart]] = []

    def where(self, path: str) -> list[PathPart]:
        """The absolute path of ``path`` inside the object, for locations."""
        return [*self.base, *parse_path(path)]

    def take(self, path: str) -> Json:
        """The value at ``path`` (None if absent); the whole subtree counts as read."""
        parts: list[PathPart] = list(parse_path(path))
        self._taken.append(parts)
        return get_path(self.spec, parts)

    def text(self, path: str) -> str | None:
        """The value as text (numbers are converted); an empty string counts as absent."""
        value = self.take(path)
        if value is None or value == "":
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            msg = f"expected a string, got {_type_name(value)}"
            raise self.origin.error(msg, self.where(path))
        return str(value)

    def boolean(self, path: str) -> bool | None:
        """A true/false value; strings such as ``"true"`` are rejected."""
        value = self.take(path)
        if value is None:
            return None
        if not isinstance(value, bool):
            msg = f"expected true or false, got {value!r}"
            raise self.origin.error(msg, self.where(path))
        return value

    def mapping(self, path: str) -> JsonObject | None:
        """A mapping value, the whole subtree marked as read."""
        value = self.take(path)
        if value is None:
            return None
        if not isinstance(value, dict):
            msg = f"expected a mapping, got {_type_name(value)}"
            raise self.origin.error(msg, self.where(path))
        return value

    def sequence(self, path: str) -> list[Json]:
        """A list value, ``[]`` when absent; the whole list is marked as read."""
        value = self.take(path)
        if value is None:
            return []
        if not isinstance(value, list):
            msg = f"expected a list, got {_type_name(value)}"
            raise self.origin.error(msg, self.where(path))
        return value

    def peek(self, path: str) -> Json:
        """The value at ``path`` without marking it read."""
        return get_path(self.spec, path)

    def has(self, path: str) -> bool:
        """Whether ``path`` holds a non-null value; does not mark it read."""
        return get_path(self.spec, path) is not None

    def leftovers(self) -> Iterator[str]:
        """Paths (absolute in the object) of the leaves nothing has read."""
        for parts, empty in _leaves(self.spec, []):
            if any(parts[: len(taken)] == taken for taken in self._taken):
                continue
            if empty and any(taken[: len(parts)] == parts for taken in self._taken):
                continue  # an empty parent of fields that were read ("scaling: {}")
            yield format_path([*self.base, *parts])


def _leaves(node: Json, path: list[PathPart]) -> Iterator[tuple[list[PathPart], bool]]:
    """Leaf paths, each with whether it is an empty mapping or list."""
    if isinstance(node, dict) and node:
        for key, value in node.items():
            yield from _leaves(value, [*path, key])
    elif isinstance(node, list) and node:
        for index, value in enumerate(node):
            yield from _leaves(value, [*path, index])
    elif path:
        yield path, isinstance(node, (dict, list))


def _type_name(value: Json) -> str:
    return {dict: "a mapping", list: "a list", bool: "a boolean", type(None): "null"}.get(
        type(value), type(value).__name__
    )
