"""The schema store: a search path of sources, searched in order, compiled on demand.

Search path, highest priority first (the first source that has a GVK wins):

1. explicit ``schema_dirs`` (``--schema-dir``: folders or files with CRDs and/or catalog JSON);
2. ``$CAPZGEN_SCHEMA_PATH`` (``os.pathsep``-separated, same kinds of entries);
3. the user cache (``schemas import`` / ``schemas sync`` write there);
4. the core Kubernetes kinds of ``kubernetes_validate``.

Nothing is read before the first :meth:`SchemaStore.lookup`, sources are indexed only as far down
the path as a lookup has to go, and each GVK is converted and compiled once per store.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.schemastore.cache import ConversionMemo, cache_root
from generator.schemastore.compiler import compile_schema
from generator.schemastore.core import CoreKinds, find_schema_dir
from generator.schemastore.handle import CompiledSchema
from generator.schemastore.sources import CoreSource, DirectorySource, SchemaSource
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)

ENV_SCHEMA_PATH = "CAPZGEN_SCHEMA_PATH"


@dataclass(frozen=True, slots=True)
class SchemaInfo:
    """One GVK offered by one source; ``shadowed`` if an earlier source offers it too."""

    gvk: GroupVersionKind
    source: str
    shadowed: bool = False


class SchemaStore:
    """Implements :class:`~generator.schemastore.types.SchemaLookup` over a list of sources."""

    def __init__(self, sources: Sequence[SchemaSource]) -> None:
        self.sources: tuple[SchemaSource, ...] = tuple(sources)
        self._handles: dict[GroupVersionKind, CompiledSchema | None] = {}

    @classmethod
    def from_search_path(
        cls,
        schema_dirs: Sequence[Path] = (),
        *,
        env: Mapping[str, str] | None = None,
        use_cache: bool = True,
    ) -> SchemaStore:
        """The standard search path (module docstring); ``use_cache=False`` leaves the cache alone
        entirely: no cached schemas on the path, no memoised conversions read or written."""
        environ = os.environ if env is None else env
        root = cache_root(environ)
        memo = ConversionMemo(root) if use_cache else None
        sources: list[SchemaSource] = [
            DirectorySource(Path(d), memo=memo, required=True) for d in schema_dirs
        ]
        for entry in environ.get(ENV_SCHEMA_PATH, "").split(os.pathsep):
            if entry.strip():
                sources.append(DirectorySource(Path(entry.strip()), memo=memo, required=False))
        if use_cache:
            sources.append(DirectorySource(root / "schemas", memo=memo, required=False))
        core_dir = find_schema_dir()
        if core_dir is not None:
            core_memo = root / "core" / core_dir.name if use_cache else None
            sources.append(CoreSource(CoreKinds(core_dir, core_memo)))
        else:  # pragma: no cover - kubernetes_validate is a dependency
            log.warning("kubernetes_validate schemas not found; core kinds have no schema")
        return cls(sources)

    def lookup(self, api_version: str, kind: str) -> CompiledSchema | None:
        """The compiled schema for a GVK, or None if no source has it.

        A source that cannot be read or a schema that cannot be compiled raises
        :class:`~generator.errors.SchemaStoreError` naming the file.
        """
        gvk = GroupVersionKind.from_api_version(api_version, kind)
        if gvk in self._handles:
            return self._handles[gvk]
        handle = None
        for source in self.sources:
            entry = source.find(gvk)
            if entry is None:
                continue
            schema = entry.load()
            validator = compile_schema(schema, source=entry.source)
            handle = CompiledSchema(
                gvk=gvk, source=entry.source, schema=schema, validator=validator
            )
            log.debug("schema for %s from %s", gvk, entry.source)
            break
        self._handles[gvk] = handle
        return handle

    def effective_schemas(self) -> Iterator[tuple[GroupVersionKind, str, dict[str, Any]]]:
        """Every GVK the store answers for, its source and converted schema (first source wins).

        Loads every schema: for whole-store consumers (kubeconform layout, CEL inventory) only.
        """
        seen: set[tuple[str, str, str]] = set()
        for source in self.sources:
            for entry in source.index():
                key = (entry.gvk.group, entry.gvk.version, entry.gvk.kind.lower())
                if key in seen:
                    continue
                seen.add(key)
                gvk = GroupVersionKind(entry.gvk.group, entry.gvk.version, entry.display_kind())
                yield gvk, entry.source, entry.load()

    def entries(self) -> list[SchemaInfo]:
        """Every GVK of every source, sorted; later duplicates are marked ``shadowed``."""
        seen: set[tuple[str, str, str]] = set()
        infos: list[tuple[int, SchemaInfo]] = []
        for order, source in enumerate(self.sources):
            for entry in source.index():
                gvk = GroupVersionKind(entry.gvk.group, entry.gvk.version, entry.display_kind())
                key = (gvk.group, gvk.version, gvk.kind.lower())
                infos.append((order, SchemaInfo(gvk, entry.source, shadowed=key in seen)))
                seen.add(key)
        infos.sort(
            key=lambda item: (
                item[1].gvk.group,
                item[1].gvk.version,
                item[1].gvk.kind.lower(),
                item[0],
            )
        )
        return [info for _, info in infos]
