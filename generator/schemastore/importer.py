"""``schemas import``: CRDs and JSON Schemas -> the user cache, where they beat the built-in bundle.

Accepted input: CRD files (YAML or JSON, one or many documents, ``List`` wrappers such as
``kubectl get crds -o yaml`` prints), folders of them, folders of JSON Schemas in the
kubeconform / CRDs-catalog layout (``<group>/<kind>_<version>.json``), stdin, and the CRDs of a
live cluster (:mod:`generator.schemastore.cluster`). Everything is read and converted before
anything is written, so broken input leaves the cache exactly as it was; the cache records where
each schema came from (shown by ``schemas list``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import CapzgenError, InputOutputError, Location
from generator.schemastore.cache import dump_json, install_files, with_provenance
from generator.schemastore.catalog import catalog_gvk, load_catalog_schema
from generator.schemastore.compiler import ensure_self_contained
from generator.schemastore.crd import CrdError, convert_documents
from generator.schemastore.loading import (
    SourceBytes,
    check_regular_file,
    parse_documents,
    schema_files,
)
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ImportedSchema:
    """One schema ``schemas import`` wrote into the cache."""

    gvk: GroupVersionKind
    origin: str  # the file, "<stdin>" or "kubectl (...)" the schema came from
    path: Path  # where the JSON Schema was written


@dataclass
class ImportInput:
    """What to import: texts holding CRDs, and catalog-layout JSON Schema files."""

    crd_sources: list[SourceBytes] = field(default_factory=list)
    catalog_files: list[tuple[Path, GroupVersionKind]] = field(default_factory=list)

    def describe(self) -> str:
        """The inputs by name for messages, comma-separated; ``the input`` when there are none."""
        names = [s.name for s in self.crd_sources] + [str(p) for p, _ in self.catalog_files]
        return ", ".join(names) or "the input"


def collect_sources(target: Path) -> ImportInput:
    """The file itself, or every YAML/JSON file below a folder (hidden entries skipped); JSON
    files whose path is ``<group>/<kind>_<version>.json`` are catalog schemas, the rest CRDs."""
    found = ImportInput()
    if target.is_file():
        found.crd_sources.append(SourceBytes.read(target))
        return found
    if not target.is_dir():
        if target.exists():  # a FIFO or a device such as /dev/zero: reading it never ends
            check_regular_file(target)
        msg = "no such file or folder"
        raise InputOutputError(msg, location=Location(file=str(target)))
    for path in schema_files(target):
        gvk = catalog_gvk(path) if path.suffix == ".json" else None
        if gvk is not None:
            found.catalog_files.append((path, gvk))
        else:
            found.crd_sources.append(SourceBytes.read(path))
    return found


@dataclass(frozen=True, slots=True)
class _Converted:
    gvk: GroupVersionKind
    catalog_path: str
    data: bytes
    origin: str


def _convert(inputs: ImportInput) -> list[_Converted]:
    """Every schema of the input; fails on the first broken file, naming it."""
    converted: list[_Converted] = []
    for source in inputs.crd_sources:
        documents = parse_documents(source)  # YamlError carries file, line and column
        try:
            items = convert_documents(documents)
        except CrdError as error:
            raise CapzgenError(str(error), location=Location(file=source.name)) from error
        converted.extend(
            _Converted(c.gvk, c.catalog_path, dump_json(c.schema), source.name) for c in items
        )
    for path, gvk in inputs.catalog_files:
        schema = load_catalog_schema(path)  # SchemaStoreError names the file
        relative = f"{gvk.group}/{path.name}"
        converted.append(_Converted(gvk, relative, dump_json(schema), str(path)))
    for item in converted:
        ensure_self_contained(json.loads(item.data), source=item.origin)
    if not converted:
        msg = f"no CustomResourceDefinition or catalog JSON Schema found in {inputs.describe()}"
        raise CapzgenError(
            msg,
            hint="pass CRD manifests (e.g. `kubectl get crds -o yaml | capzgen schemas import -`) "
            "or a folder of <group>/<kind>_<version>.json schemas",
        )
    return converted


def import_schemas(inputs: ImportInput, *, cache_dir: Path) -> list[ImportedSchema]:
    """Convert all of ``inputs`` and install the schemas below ``cache_dir`` in one unit."""
    files: dict[str, bytes] = {}
    origins: dict[str, tuple[str, GroupVersionKind]] = {}
    for item in _convert(inputs):
        if item.catalog_path in files:
            log.warning(
                "%s: %s is defined more than once; the last one wins", item.origin, item.gvk
            )
        files[item.catalog_path] = item.data
        origins[item.catalog_path] = (item.origin, item.gvk)
    provenance = {path: f"imported from {origin}" for path, (origin, _) in origins.items()}
    install_files(cache_dir, with_provenance(cache_dir, files, provenance))
    return [
        ImportedSchema(gvk=gvk, origin=origin, path=cache_dir / relative)
        for relative, (origin, gvk) in sorted(origins.items())
    ]


def import_crds(sources: Sequence[SourceBytes], *, cache_dir: Path) -> list[ImportedSchema]:
    """:func:`import_schemas` for CRD texts only (stdin, kubectl output)."""
    return import_schemas(ImportInput(crd_sources=list(sources)), cache_dir=cache_dir)
