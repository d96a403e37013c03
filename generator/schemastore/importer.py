"""``schemas import``: CRDs from files, folders or stdin -> JSON Schemas in the user cache.

Everything is read and converted before anything is written, so broken input (bad YAML, a CRD
without versions) leaves the cache exactly as it was.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.errors import CapzgenError, InputOutputError, Location
from generator.schemastore.cache import dump_json, install_files
from generator.schemastore.crd import ConvertedSchema, CrdError, convert_documents
from generator.schemastore.loading import SourceText, parse_documents
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)

_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class ImportedSchema:
    gvk: GroupVersionKind
    origin: str  # the file (or "<stdin>") the CRD came from
    path: Path  # where the JSON Schema was written


def collect_sources(target: Path) -> list[SourceText]:
    """The file itself, or every YAML/JSON file below a folder (hidden entries skipped)."""
    if target.is_file():
        return [SourceText.read(target)]
    if not target.is_dir():
        raise InputOutputError("no such file or folder", location=Location(file=str(target)))
    found: list[SourceText] = []
    for folder, dirs, files in os.walk(target):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(
            SourceText.read(Path(folder) / name)
            for name in sorted(files)
            if name.endswith(_SUFFIXES) and not name.startswith(".")
        )
    return found


def convert_sources(sources: Sequence[SourceText]) -> list[tuple[str, ConvertedSchema]]:
    """(origin, schema) for every served version of every CRD; fails on the first broken file."""
    converted: list[tuple[str, ConvertedSchema]] = []
    for source in sources:
        documents = parse_documents(source)  # YamlError carries file, line and column
        try:
            converted.extend((source.name, c) for c in convert_documents(documents))
        except CrdError as error:
            raise CapzgenError(str(error), location=Location(file=source.name)) from error
    if not converted:
        names = ", ".join(s.name for s in sources) or "the input"
        raise CapzgenError(
            f"no CustomResourceDefinition found in {names}",
            hint="pass CRD manifests, e.g. `kubectl get crds -o yaml | capzgen schemas import -`",
        )
    return converted


def import_crds(sources: Sequence[SourceText], *, cache_dir: Path) -> list[ImportedSchema]:
    """Convert all of ``sources`` and write the schemas below ``cache_dir`` in catalog layout."""
    converted = convert_sources(sources)
    files: dict[str, bytes] = {}
    origins: dict[str, tuple[str, GroupVersionKind]] = {}
    for origin, item in converted:
        if item.catalog_path in files:
            log.warning("%s: %s is defined more than once; the last one wins", origin, item.gvk)
        files[item.catalog_path] = dump_json(item.schema)
        origins[item.catalog_path] = (origin, item.gvk)
    install_files(cache_dir, files)
    return [
        ImportedSchema(gvk=gvk, origin=origin, path=cache_dir / relative)
        for relative, (origin, gvk) in sorted(origins.items())
    ]
