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
    """A Kubernetes group, version and kind; ``str()`` reads like the API server's messages."""

    group: str  # "" for the core group
    version: str
    kind: str

    @classmethod
    def from_api_version(cls, api_version: str, kind: str) -> GroupVersionKind:
        """The GVK of ``apiVersion`` (``group/version``, or ``version`` for core) and ``kind``."""
        group, _, version = api_version.rpartition("/")
        return cls(group=group, version=version, kind=kind)

    @property
    def api_version(self) -> str:
        """``group/version``, or just ``version`` for the core group."""
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
    def gvk(self) -> GroupVersionKind:
        """The GVK this schema is for."""
        ...

    @property
    def source(self) -> str:
        """Where the schema came from, as findings and ``schemas list`` name it."""
        ...

    def is_valid(self, obj: Any) -> bool:
        """Whether ``obj`` passes; cheaper than :meth:`iter_violations` in the common valid case."""
        ...

    def iter_violations(self, obj: Any) -> Iterator[SchemaViolation]:
        """Every violation of ``obj``, each located by its path inside ``obj``."""
        ...


class SchemaLookup(Protocol):
    """What the validator needs from a schema store."""

    def lookup(self, api_version: str, kind: str) -> SchemaHandle | None:
        """The schema for ``apiVersion``/``kind``, or None when no source has one.

        Raises :class:`~generator.errors.SchemaStoreError` for a source that cannot be read or a
        schema that cannot be compiled.
        """
        ...

    def searched(self) -> list[str]:
        """The sources a failed lookup went through, highest priority first, for messages."""
        ...
