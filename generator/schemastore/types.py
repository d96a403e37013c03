"""The contract between the schema store and its users (validator, CLI).

Kept separate from the store's implementation so that checks can be tested with a fake store.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from generator.findings import JsonPath


@dataclass(frozen=True, slots=True)
class GroupVersionKind:
    group: str  # "" for the core group
    version: str
    kind: str

    @classmethod
    def from_api_version(cls, api_version: str, kind: str) -> GroupVersionKind:
        group, _, version = api_version.rpartition("/")
        return cls(group=group, version=version, kind=kind)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def __str__(self) -> str:
        return f"{self.api_version}, Kind={self.kind}"


@dataclass(frozen=True, slots=True)
class SchemaViolation:
    """One schema problem, located by its JSON path inside the validated object."""

    path: JsonPath
    message: str


class SchemaHandle(Protocol):
    """A compiled schema for one group/version/kind."""

    @property
    def gvk(self) -> GroupVersionKind: ...

    @property
    def source(self) -> str: ...

    def is_valid(self, obj: Any) -> bool: ...

    def iter_violations(self, obj: Any) -> Iterator[SchemaViolation]: ...


class SchemaLookup(Protocol):
    """What the validator needs from a schema store."""

    def lookup(self, api_version: str, kind: str) -> SchemaHandle | None: ...

    def searched(self) -> list[str]:
        """The sources a failed lookup went through, highest priority first, for messages."""
        ...
