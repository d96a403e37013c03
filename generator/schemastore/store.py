"""The schema store: a search path of sources, searched in order, compiled on demand.

Search path, highest priority first (the first source that has a GVK wins):

1. explicit ``schema_dirs`` (``--schema-dir``: folders or files with CRDs and/or catalog JSON);
2. ``settings.schema_path`` (the CLI takes it from ``$CAPZGEN_SCHEMA_PATH``);
3. the user cache below ``settings.cache_root`` (``schemas import`` / ``sync`` write there);
4. the built-in bundle of pinned upstream schemas (:mod:`generator.schemastore.bundle`);
5. the core Kubernetes kinds of ``kubernetes_validate``.

A configured path that does not exist is a usage error at once: a typo in ``--schema-dir`` or
``$CAPZGEN_SCHEMA_PATH`` must not silently fall through to other schemas. Otherwise nothing is
read before the first :meth:`SchemaStore.lookup`, sources are indexed only as far down the path as
a lookup has to go, and each GVK is converted and compiled once per store.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path

from generator.errors import Location, UsageError
from generator.jsontypes import JsonObject
from generator.resources import builtin_schemas_dir
from generator.schemastore.bundle import SchemaBundle
from generator.schemastore.cache import ConversionMemo
from generator.schemastore.compiler import compile_schema
from generator.schemastore.core import CoreKinds, find_schema_dir
from generator.schemastore.entries import SchemaEntry
from generator.schemastore.handle import CompiledSchema
from generator.schemastore.sources import BundleSource, CoreSource, DirectorySource, SchemaSource
from generator.schemastore.types import GroupVersionKind, SchemaInfo, SourceFiles
from generator.settings import ENV_SCHEMA_PATH, Settings

log = logging.getLogger(__name__)

NO_SETTINGS = Settings()


class SchemaStore:
    """Implements :class:`~generator.schemastore.types.SchemaCatalog` over a list of sources."""

    def __init__(self, sources: Sequence[SchemaSource]) -> None:
        self.sources: tuple[SchemaSource, ...] = tuple(sources)
        self._handles: dict[GroupVersionKind, CompiledSchema | None] = {}
        self._loaded: dict[GroupVersionKind, tuple[SchemaEntry, JsonObject] | None] = {}
        # The same answers by (apiVersion, kind) as asked: a fleet asks for a few kinds thousands
        # of times, and building a GroupVersionKind per question costs more than the answer.
        self._asked: dict[tuple[str, str], CompiledSchema | None] = {}
        self._searched: list[str] | None = None

    @classmethod
    def from_search_path(
        cls,
        schema_dirs: Sequence[Path] = (),
        settings: Settings = NO_SETTINGS,
        *,
        bundle_dir: Path | None = None,
        use_bundle: bool = True,
    ) -> SchemaStore:
        """The standard search path (module docstring). Without a cache root in ``settings`` the
        cache is left alone entirely: no cached schemas on the path, no conversions memoised."""
        root = settings.cache_root
        memo = ConversionMemo(root) if root is not None else None
        sources: list[SchemaSource] = []
        for folder in schema_dirs:
            _require_exists(folder, "--schema-dir")
            sources.append(DirectorySource(Path(folder), memo=memo, role="--schema-dir"))
        for entry in settings.schema_path:
            _require_exists(entry, f"${ENV_SCHEMA_PATH}")
            sources.append(DirectorySource(entry, memo=memo, role=f"${ENV_SCHEMA_PATH}"))
        if root is not None:
            sources.append(
                DirectorySource(root / "schemas", memo=memo, role="cache", optional=True)
            )
        if use_bundle:
            bundle = SchemaBundle(bundle_dir or builtin_schemas_dir() / "bundle")
            sources.append(BundleSource(bundle))
        core_dir = find_schema_dir()
        if core_dir is not None:
            core_memo = root / "core" / core_dir.name if root is not None else None
            sources.append(CoreSource(CoreKinds(core_dir, core_memo)))
        else:  # pragma: no cover - kubernetes_validate is a dependency
            log.warning("kubernetes_validate schemas not found; core kinds have no schema")
        return cls(sources)

    def __reduce__(self) -> tuple[type[SchemaStore], tuple[tuple[SchemaSource, ...]]]:
        """Pickled as its sources (where to look, in order), without what it found, loaded or
        compiled: a worker forked by the zygote (:mod:`generator.validate.zygote`) gets the
        store this way and looks up the kinds it validates itself, as every worker compiles
        its own validators (jsonschema-rs's cannot be pickled)."""
        return (SchemaStore, (self.sources,))

    def searched(self) -> list[str]:
        """Every source's description, highest priority first, for "searched ..." messages
        (built once per store: a fleet may report many objects without a schema)."""
        if self._searched is None:
            self._searched = [source.describe() for source in self.sources]
        return list(self._searched)

    def lookup(self, api_version: str, kind: str) -> CompiledSchema | None:
        """The compiled schema for a GVK, or None if no source has it.

        A source that cannot be read or a schema that cannot be compiled raises
        :class:`~generator.errors.SchemaStoreError` naming the file.
        """
        asked = (api_version, kind)
        if asked in self._asked:
            return self._asked[asked]
        gvk = GroupVersionKind.from_api_version(api_version, kind)
        if gvk not in self._handles:
            self._handles[gvk] = self._find(gvk)
        handle = self._asked[asked] = self._handles[gvk]
        return handle

    def document(self, api_version: str, kind: str) -> JsonObject | None:
        """The schema document for a GVK, loaded but not compiled (kubeconform's layout needs
        the text, not a validator: compiling the fleet's 32 took 11 ms before kubeconform could
        start); None if no source has it. Errors as :meth:`lookup`'s."""
        found = self._load(GroupVersionKind.from_api_version(api_version, kind))
        return None if found is None else found[1]

    def _find(self, gvk: GroupVersionKind) -> CompiledSchema | None:
        """The first source's compiled schema for ``gvk`` (see :meth:`lookup`)."""
        found = self._load(gvk)
        if found is None:
            return None
        entry, schema = found
        validator = compile_schema(schema, source=entry.source, self_contained=entry.self_contained)
        return CompiledSchema(gvk=gvk, source=entry.source, schema=schema, validator=validator)

    def _load(self, gvk: GroupVersionKind) -> tuple[SchemaEntry, JsonObject] | None:
        """The first source's entry for ``gvk`` and its document, loaded once."""
        if gvk not in self._loaded:
            found = None
            for source in self.sources:
                entry = source.find(gvk)
                if entry is not None:
                    found = (entry, entry.load())
                    log.debug("schema for %s from %s", gvk, entry.source)
                    break
            self._loaded[gvk] = found
        return self._loaded[gvk]

    def effective_schemas(self) -> Iterator[tuple[GroupVersionKind, str, JsonObject]]:
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

    def source_files(self) -> list[SourceFiles]:
        """Where each source keeps its files, highest priority first (for cache keys)."""
        return [source.files() for source in self.sources]

    def entries(self) -> list[SchemaInfo]:
        """Every GVK of every source, sorted; later duplicates are marked ``shadowed``."""
        seen: set[tuple[str, str, str]] = set()
        infos: list[tuple[int, SchemaInfo]] = []
        for order, source in enumerate(self.sources):
            for entry in source.index():
                gvk = GroupVersionKind(entry.gvk.group, entry.gvk.version, entry.display_kind())
                key = (gvk.group, gvk.version, gvk.kind.lower())
                infos.append((order, SchemaInfo(gvk, entry.source, key in seen, entry.pinned)))
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


def _require_exists(path: Path, origin: str) -> None:
    if not Path(path).exists():
        msg = f"{origin} names a schema folder or file that does not exist"
        raise UsageError(
            msg,
            location=Location(file=str(path)),
            hint=f"fix the path, or drop it from {origin}"
            if origin.startswith("$")
            else "fix the path",
        )
