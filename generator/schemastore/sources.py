"""Schema sources: one entry of the search path each (a folder or file, the cache, the core kinds).

A source answers two questions: which GVKs it has (:meth:`index`, built once and cheaply) and the
converted schema of one of them (:attr:`SchemaEntry.load`, paid only on lookup). Folders may mix
CRD files (YAML or JSON) with catalog JSON files; CRD conversions are memoised by content.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, cast

from generator.errors import CapzgenError, Location, SchemaStoreError
from generator.schemastore.bundle import BundledSchema, SchemaBundle
from generator.schemastore.cache import ConversionMemo, MemoEntry, read_provenance
from generator.schemastore.catalog import catalog_gvk, load_catalog_schema, peek_kind
from generator.schemastore.core import CoreKinds
from generator.schemastore.crd import CrdError, convert_documents
from generator.schemastore.loading import (
    SourceBytes,
    parse_documents,
    schema_files,
)
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)


def _key(gvk: GroupVersionKind) -> tuple[str, str, str]:
    return (gvk.group, gvk.version, gvk.kind.lower())


@dataclass(frozen=True)
class SchemaEntry:
    """One GVK a source offers. ``exact_kind`` is False when only the lower-cased kind is known."""

    gvk: GroupVersionKind
    source: str
    exact_kind: bool
    load: Callable[[], dict[str, Any]] = field(repr=False, compare=False)
    pinned: str | None = field(default=None, compare=False)  # project@release, when known
    # Known to have no $ref outside itself (checked when the bundle was built): the store need
    # not walk it again.
    self_contained: bool = field(default=False, compare=False)

    def matches(self, gvk: GroupVersionKind) -> bool:
        """Whether the entry serves ``gvk``, ignoring the kind's case when only that is known."""
        if self.exact_kind:
            return self.gvk == gvk
        return _key(self.gvk) == _key(gvk)

    def display_kind(self) -> str:
        """The kind in its proper case when it can be found, else as indexed (for listings)."""
        if self.exact_kind:
            return self.gvk.kind
        path = Path(self.source)
        return peek_kind(path) or self.gvk.kind


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


class _IndexedSource:
    """Shared lookup over a lazily built list of entries (first entry for a key wins)."""

    label: str

    def __init__(self) -> None:
        self._entries: list[SchemaEntry] | None = None
        self._by_key: dict[tuple[str, str, str], list[SchemaEntry]] = {}

    def _build(self) -> list[SchemaEntry]:
        raise NotImplementedError

    def index(self) -> list[SchemaEntry]:
        if self._entries is None:
            entries = self._build()
            for entry in entries:
                self._by_key.setdefault(_key(entry.gvk), []).append(entry)
            self._entries = entries
        return self._entries

    def find(self, gvk: GroupVersionKind) -> SchemaEntry | None:
        self.index()
        for entry in self._by_key.get(_key(gvk), ()):
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

    def _build(self) -> list[SchemaEntry]:
        if self.path.is_file():
            return self._file_entries(self.path, explicit=True) or []
        if not self.path.is_dir():
            if not self.optional:
                msg = "schema folder or file does not exist"
                raise SchemaStoreError(msg, location=Location(file=str(self.path)))
            log.debug("schema path entry %s does not exist; skipped", self.path)
            return []
        pins = read_provenance(self.path)
        entries: list[SchemaEntry] = []
        ignored = 0
        for path in schema_files(self.path):
            found = self._file_entries(path, explicit=False)
            if found is None:
                ignored += 1
                continue
            relative = path.relative_to(self.path).as_posix()
            entries.extend(
                replace(entry, pinned=pins[relative]) if relative in pins else entry
                for entry in found
            )
        if ignored:
            log.warning(
                "%s: %d JSON file(s) are neither CRDs nor in the <group>/<kind>_<version>.json "
                "layout and were ignored",
                self.path,
                ignored,
            )
        log.debug("indexed %s: %d schemas", self.path, len(entries))
        # Within one folder a CRD beats a catalog file for the same GVK: it knows the exact kind
        # and carries the CEL rules. (The sort is stable, so disk order decides among equals.)
        return sorted(entries, key=lambda entry: not entry.exact_kind)

    def _file_entries(self, path: Path, *, explicit: bool) -> list[SchemaEntry] | None:
        """Entries of one file; None for a JSON file that is no schema source at all."""
        if path.suffix == ".json":
            gvk = catalog_gvk(path)
            if gvk is not None:
                return [_catalog_entry(path, gvk)]
        entries = self._crd_entries(path)
        if not entries:
            if explicit:
                log.warning("%s holds no CustomResourceDefinition; nothing to use", path)
            elif path.suffix == ".json":
                return None
            else:
                log.debug("%s holds no CustomResourceDefinition; skipped", path)
        return entries

    def _crd_entries(self, path: Path) -> list[SchemaEntry]:
        """Converted CRDs of one file, from the memo when its digest is known there."""
        text = SourceBytes.read(path)
        memo = self.memo.get(text.sha256) if self.memo else None
        if memo is None:
            converted = _convert_file(text)
            # Files without CRDs are memoised too, so they are not parsed again on every run.
            memo = self.memo.put(text.sha256, converted, str(path)) if self.memo else None
            if memo is None:  # no cache, or it cannot be written: keep the result in memory
                return [SchemaEntry(c.gvk, str(path), True, _constant(c.schema)) for c in converted]
        return [
            SchemaEntry(gvk, str(path), True, _memo_loader(memo, relative))
            for gvk, relative in memo.schemas
        ]


def _memo_loader(memo: MemoEntry, relative: str) -> Callable[[], dict[str, Any]]:
    return lambda: cast(dict[str, Any], memo.load(relative))


def _constant(schema: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return lambda: schema


def _catalog_entry(path: Path, gvk: GroupVersionKind) -> SchemaEntry:
    return SchemaEntry(gvk, str(path), False, lambda: load_catalog_schema(path))


def _convert_file(text: SourceBytes) -> list[Any]:
    try:
        return convert_documents(parse_documents(text))
    except CrdError as error:
        raise SchemaStoreError(str(error), location=Location(file=text.name)) from error
    except CapzgenError as error:
        if isinstance(error, SchemaStoreError):
            raise
        msg = f"unusable schema source: {error.message}"
        raise SchemaStoreError(msg, location=error.location) from error


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

    def _loader(self, schema: BundledSchema) -> Callable[[], dict[str, Any]]:
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

    def _build(self) -> list[SchemaEntry]:
        return [SchemaEntry(gvk, self.label, True, self._loader(gvk)) for gvk in self.kinds.index()]

    def _loader(self, gvk: GroupVersionKind) -> Callable[[], dict[str, Any]]:
        return lambda: self._bundle(gvk)

    def _bundle(self, gvk: GroupVersionKind) -> dict[str, Any]:
        schema = self.kinds.bundle(gvk)
        if schema is None:  # pragma: no cover - the index and the bundles come from one file
            msg = f"core kind {gvk} vanished"
            raise SchemaStoreError(msg, location=Location(file=self.label))
        return schema
