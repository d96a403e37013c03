"""Schema sources: one entry of the search path each (a folder or file, the cache, the core kinds).

A source answers two questions: which GVKs it has (:meth:`index`, built once and cheaply) and the
converted schema of one of them (:attr:`SchemaEntry.load`, paid only on lookup). Folders may mix
CRD files (YAML or JSON) with catalog JSON files; CRD conversions are memoised by content
(:mod:`generator.schemastore.directory`, loaded when a folder or file on the path exists).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from generator.errors import Location, SchemaStoreError
from generator.jsontypes import JsonObject
from generator.schemastore.bundle import BundledSchema, SchemaBundle
from generator.schemastore.core import CoreKinds
from generator.schemastore.entries import SchemaEntry, gvk_key
from generator.schemastore.types import GroupVersionKind, SourceFiles

if TYPE_CHECKING:
    from generator.schemastore.cache import ConversionMemo

log = logging.getLogger(__name__)


class SchemaSource(Protocol):
    """One entry of the schema search path; ``label`` is its short name (a path, ``built-in``)."""

    label: str

    def describe(self) -> str:
        """Where this source is and why it is on the path, for "searched ..." messages."""
        ...

    def index(self) -> list[SchemaEntry]:
        """Every GVK this source offers, built on first use; for one GVK the first entry wins."""
        ...

    def find(self, gvk: GroupVersionKind) -> SchemaEntry | None:
        """The entry serving ``gvk`` (see :meth:`SchemaEntry.matches`), else None."""
        ...

    def files(self) -> SourceFiles:
        """Where this source's files are, for cache keys over the search path."""
        ...


class _IndexedSource:
    """Shared lookup over a lazily built list of entries (first entry for a key wins)."""

    label: str

    def __init__(self) -> None:
        self._entries: list[SchemaEntry] | None = None
        self._by_key: dict[tuple[str, str, str], list[SchemaEntry]] = {}

    def __getstate__(self) -> dict[str, object]:
        """Pickled without its index, built again where it is used (see
        ``SchemaStore.__reduce__``)."""
        state = dict(self.__dict__)
        state.update(_entries=None, _by_key={})
        return state

    def _build(self) -> list[SchemaEntry]:
        raise NotImplementedError

    def index(self) -> list[SchemaEntry]:
        if self._entries is None:
            entries = self._build()
            for entry in entries:
                self._by_key.setdefault(gvk_key(entry.gvk), []).append(entry)
            self._entries = entries
        return self._entries

    def find(self, gvk: GroupVersionKind) -> SchemaEntry | None:
        self.index()
        for entry in self._by_key.get(gvk_key(gvk), ()):
            if entry.matches(gvk):
                return entry
        return None


class DirectorySource(_IndexedSource):
    """A folder (walked recursively, hidden folders skipped) or a single file.

    ``role`` says how it got on the path (``--schema-dir``, ``$CAPZGEN_SCHEMA_PATH``, ``cache``).
    Only an ``optional`` source (the cache, before anything was imported) may be missing; the
    store checks the others before it is built. A folder written by ``schemas import``/``sync``
    holds ``.provenance.json`` (catalog path -> pin), which ``schemas list`` shows.
    """

    def __init__(
        self,
        path: Path,
        *,
        memo: ConversionMemo | None,
        role: str = "--schema-dir",
        optional: bool = False,
    ) -> None:
        super().__init__()
        self.path = path
        self.label = str(path)
        self.memo = memo
        self.role = role
        self.optional = optional

    def describe(self) -> str:
        """``<role> <path>``, e.g. ``--schema-dir ./crds`` or ``cache ~/.cache/capzgen/schemas``."""
        return f"{self.role} {self.path}"

    def files(self) -> SourceFiles:
        """The folder or file itself, walked for cache keys by the contents of its files (the
        user may edit them at any time, size and modification time put back included)."""
        digests = self.memo.root / "digests" if self.memo is not None else None
        return SourceFiles("DirectorySource", self.path, digests=digests)

    def _build(self) -> list[SchemaEntry]:
        if self.path.is_file():
            # The CRD converter and the catalog reader load only for a folder or file that
            # exists: ~3 ms of start-up a bundle-only run does without.
            # lazy: as just said
            from generator.schemastore.directory import file_entries

            return file_entries(self.path, self.memo, explicit=True) or []
        if not self.path.is_dir():
            if self.path.exists():  # a FIFO or a device such as /dev/zero: reading it never ends
                # lazy: as above
                from generator.schemastore.loading import check_regular_file

                check_regular_file(self.path)
            if not self.optional:
                msg = "schema folder or file does not exist"
                raise SchemaStoreError(msg, location=Location(file=str(self.path)))
            log.debug("schema path entry %s does not exist; skipped", self.path)
            return []
        # lazy: as above
        from generator.schemastore.directory import folder_entries

        return folder_entries(self.path, self.memo)


class BundleSource(_IndexedSource):
    """The built-in bundle of pinned upstream schemas (:mod:`generator.schemastore.bundle`)."""

    label = "built-in"

    def __init__(self, bundle: SchemaBundle) -> None:
        super().__init__()
        self.bundle = bundle

    def describe(self) -> str:
        """The bundle and the upstream releases it pins."""
        releases = sorted({source.pinned for source in self.bundle.manifest.sources})
        return f"the built-in bundle ({', '.join(releases)})"

    def files(self) -> SourceFiles:
        """The bundle's folder, walked for cache keys (a development checkout may rebuild it);
        it ships with capzgen, so its files' sizes and times identify them."""
        return SourceFiles("BundleSource", self.bundle.folder, shipped=True)

    def _build(self) -> list[SchemaEntry]:
        manifest = self.bundle.manifest
        pins = {source.name: source.pinned for source in manifest.sources}
        return [
            SchemaEntry(
                schema.gvk,
                self.label,
                schema.exact_kind,
                self._loader(schema),
                pinned=pins[schema.source],
                self_contained=manifest.self_contained,
            )
            for schema in manifest.schemas
        ]

    def _loader(self, schema: BundledSchema) -> Callable[[], JsonObject]:
        return lambda: self.bundle.load(schema)


class CoreSource(_IndexedSource):
    """The built-in core Kubernetes kinds (lowest priority)."""

    def __init__(self, kinds: CoreKinds) -> None:
        super().__init__()
        self.kinds = kinds
        self.label = kinds.label

    def describe(self) -> str:
        """The core kinds and the kubernetes-validate schema folder they come from."""
        return f"the core Kubernetes kinds of {self.label}"

    def files(self) -> SourceFiles:
        """The kubernetes_validate folder: thousands of files, versioned by their folder and by
        the library itself (whose version cache keys hold), so the path is enough."""
        return SourceFiles("core", self.kinds.schema_dir, versioned=True)

    def _build(self) -> list[SchemaEntry]:
        return [SchemaEntry(gvk, self.label, True, self._loader(gvk)) for gvk in self.kinds.index()]

    def _loader(self, gvk: GroupVersionKind) -> Callable[[], JsonObject]:
        return lambda: self._bundle(gvk)

    def _bundle(self, gvk: GroupVersionKind) -> JsonObject:
        schema = self.kinds.bundle(gvk)
        if schema is None:  # pragma: no cover - the index and the bundles come from one file
            msg = f"core kind {gvk} vanished"
            raise SchemaStoreError(msg, location=Location(file=self.label))
        return schema
