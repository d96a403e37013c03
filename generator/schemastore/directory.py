"""What a schema folder or file on the search path offers: converted CRDs (memoised by content)
and catalog JSON files, as :class:`~generator.schemastore.entries.SchemaEntry` items.

:class:`~generator.schemastore.sources.DirectorySource` loads this module the first time it
indexes a folder or file that exists, so a run whose search path holds only the built-in bundle
(and a cache without imported schemas) loads neither the CRD converter nor the catalog reader.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import cast

from generator.errors import CapzgenError, Location, SchemaStoreError
from generator.jsontypes import Json, JsonObject
from generator.schemastore.cache import ConversionMemo, MemoEntry, read_provenance
from generator.schemastore.catalog import catalog_gvk, load_catalog_schema
from generator.schemastore.crd import CrdError, convert_documents
from generator.schemastore.entries import SchemaEntry
from generator.schemastore.loading import SourceBytes, parse_documents, schema_files
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)


def folder_entries(folder: Path, memo: ConversionMemo | None) -> list[SchemaEntry]:
    """Every schema of the files below ``folder`` (hidden folders skipped), with the pins that
    ``schemas import``/``sync`` recorded; a CRD beats a catalog file for the same GVK."""
    pins = read_provenance(folder)
    entries: list[SchemaEntry] = []
    ignored = 0
    for path in schema_files(folder):
        found = file_entries(path, memo, explicit=False)
        if found is None:
            ignored += 1
            continue
        relative = path.relative_to(folder).as_posix()
        entries.extend(
            replace(entry, pinned=pins[relative]) if relative in pins else entry for entry in found
        )
    if ignored:
        log.warning(
            "%s: %d JSON file(s) are neither CRDs nor in the <group>/<kind>_<version>.json "
            "layout and were ignored",
            folder,
            ignored,
        )
    log.debug("indexed %s: %d schemas", folder, len(entries))
    # Within one folder a CRD beats a catalog file for the same GVK: it knows the exact kind
    # and carries the CEL rules. (The sort is stable, so disk order decides among equals.)
    return sorted(entries, key=lambda entry: not entry.exact_kind)


def file_entries(
    path: Path, memo: ConversionMemo | None, *, explicit: bool
) -> list[SchemaEntry] | None:
    """Entries of one file; None for a JSON file that is no schema source at all. ``explicit``:
    the file was named itself (an empty one is worth a warning)."""
    if path.suffix == ".json":
        gvk = catalog_gvk(path)
        if gvk is not None:
            return [_catalog_entry(path, gvk)]
    entries = _crd_entries(path, memo)
    if not entries:
        if explicit:
            log.warning("%s holds no CustomResourceDefinition; nothing to use", path)
        elif path.suffix == ".json":
            return None
        else:
            log.debug("%s holds no CustomResourceDefinition; skipped", path)
    return entries


def _crd_entries(path: Path, memo: ConversionMemo | None) -> list[SchemaEntry]:
    """Converted CRDs of one file, from the memo when its digest is known there."""
    text = SourceBytes.read(path)
    entry = memo.get(text.sha256) if memo else None
    if entry is None:
        converted = convert_file(text)
        # Files without CRDs are memoised too, so they are not parsed again on every run.
        entry = memo.put(text.sha256, converted, str(path)) if memo else None
        if entry is None:  # no cache, or it cannot be written: keep the result in memory
            return [SchemaEntry(c.gvk, str(path), True, _constant(c.schema)) for c in converted]
    return [
        SchemaEntry(gvk, str(path), True, _memo_loader(entry, relative))
        for gvk, relative in entry.schemas
    ]


def _memo_loader(memo: MemoEntry, relative: str) -> Callable[[], JsonObject]:
    return lambda: cast(JsonObject, memo.load(relative))


def _constant(schema: JsonObject) -> Callable[[], JsonObject]:
    return lambda: schema


def _catalog_entry(path: Path, gvk: GroupVersionKind) -> SchemaEntry:
    return SchemaEntry(gvk, str(path), False, lambda: load_catalog_schema(path))


def convert_file(text: SourceBytes) -> list[Json]:
    """The CRDs of one file converted; what is wrong with the file is a SchemaStoreError."""
    try:
        return convert_documents(parse_documents(text))
    except CrdError as error:
        raise SchemaStoreError(str(error), location=Location(file=text.name)) from error
    except CapzgenError as error:
        if isinstance(error, SchemaStoreError):
            raise
        msg = f"unusable schema source: {error.message}"
        raise SchemaStoreError(msg, location=error.location) from error
