"""The contract between the schema store and its users (validator, CLI).

Kept separate from the store's implementation so that checks can be tested with a fake store.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from generator.findings import JsonPath
from generator.jsontypes import Json, JsonObject


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

    def is_valid(self, obj: Json) -> bool:
        """Whether ``obj`` passes; cheaper than :meth:`iter_violations` in the common valid case."""
        ...

    def iter_violations(self, obj: Json) -> Iterator[SchemaViolation]:
        """Every violation of ``obj``, each located by its path inside ``obj``."""
        ...


@dataclass(frozen=True, slots=True)
class SchemaInfo:
    """One GVK offered by one source; ``shadowed`` if an earlier source offers it too."""

    gvk: GroupVersionKind
    source: str
    shadowed: bool = False
    pinned: str | None = None  # project@release, for the bundle and synced cache entries


@dataclass(frozen=True, slots=True)
class SourceFiles:
    """Where one source of a catalog keeps its files: what a cache key over the catalog hashes.

    ``kind`` names the kind of source in the key (two kinds of source may share a folder);
    ``versioned`` says the path alone identifies the files (a library's data folder, versioned by
    the library), so they need not be walked; ``shipped`` says they ship with capzgen (the
    built-in bundle), so each file's path, size and time identify it. Any other source is the
    user's, whose files may be edited at any time: keys digest their contents.
    """

    kind: str
    path: Path
    versioned: bool = False
    shipped: bool = False
    digests: Path | None = None  # where keys may memoise the digests of the files (the cache)


class SchemaLookup(Protocol):
    """What the validator needs from a schema store: the rules ask for one GVK at a time, so a
    test can stand in a handful of schemas."""

    def lookup(self, api_version: str, kind: str) -> SchemaHandle | None:
        """The schema for ``apiVersion``/``kind``, or None when no source has one.

        Raises :class:`~generator.errors.SchemaStoreError` for a source that cannot be read or a
        schema that cannot be compiled.
        """
        ...

    def searched(self) -> list[str]:
        """The sources a failed lookup went through, highest priority first, for messages."""
        ...


@runtime_checkable
class SchemaCatalog(SchemaLookup, Protocol):
    """A whole schema store: the lookup, plus what its whole-store users need (listings, the
    kubeconform layout, the CEL inventory, cache keys).

    :class:`~generator.schemastore.store.SchemaStore` is one. A run handed a bare
    :class:`SchemaLookup` (a test's few schemas) does without what only a catalog can answer, so
    code holding a lookup asks ``isinstance(store, SchemaCatalog)`` before it uses more.
    """

    def entries(self) -> list[SchemaInfo]:
        """Every GVK of every source, sorted; later duplicates are marked ``shadowed``."""
        ...

    def effective_schemas(self) -> Iterator[tuple[GroupVersionKind, str, JsonObject]]:
        """Every GVK the store answers for, its source and converted schema (first source wins);
        loads every schema."""
        ...

    def document(self, api_version: str, kind: str) -> JsonObject | None:
        """The schema document :meth:`lookup` would compile, loaded but not compiled."""
        ...

    def source_files(self) -> list[SourceFiles]:
        """Where each source of the search path keeps its files, highest priority first."""
        ...
