"""JSON Schema catalogs (kubeconform / CRDs-catalog layout): indexing by name, loading on demand.

A catalog folder can hold thousands of files; parsing them all to learn their GVK would make every
run pay for schemas it never uses. The layout encodes the GVK in the path, so indexing is a
directory walk and a regex per file name:

* ``<group>/<kind>_<version>.json`` (kind lower-cased; the required, common layout);
* ``<kind>-<group>-<version>.json`` anywhere (a flat variant some catalogs use).

A file is read, repaired (:mod:`generator.schemastore.repair`) and converted
(:mod:`generator.schemastore.structural`) only when its GVK is looked up.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from generator.errors import CapzgenError, Location, SchemaStoreError
from generator.jsontypes import Json, JsonObject
from generator.schemastore.loading import SourceBytes, parse_documents
from generator.schemastore.repair import repair_schema
from generator.schemastore.structural import GVK_MARKER, SchemaFormatError, convert_root
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)

_VERSION = r"v[0-9]+[a-z0-9]*"
_GROUP = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+"
_GROUPED_NAME = re.compile(rf"^(?P<kind>[a-z0-9]+)_(?P<version>{_VERSION})\.json$")
_GROUP_DIR = re.compile(rf"^{_GROUP}$")
_FLAT_NAME = re.compile(rf"^(?P<kind>[a-z0-9]+)-(?P<group>{_GROUP})-(?P<version>{_VERSION})\.json$")
_KIND_MARKER = re.compile(
    rf'"{GVK_MARKER}"\s*:\s*\[\s*\{{[^}}]*?"kind"\s*:\s*"(?P<kind>[A-Za-z0-9]+)"'
)


def catalog_gvk(path: Path) -> GroupVersionKind | None:
    """The GVK a catalog file name stands for (kind lower-cased), or None if it is not one."""
    name = path.name
    match = _GROUPED_NAME.match(name)
    if match and _GROUP_DIR.match(path.parent.name):
        return GroupVersionKind(path.parent.name, match["version"], match["kind"])
    match = _FLAT_NAME.match(name)
    if match:
        return GroupVersionKind(match["group"], match["version"], match["kind"])
    return None


def peek_kind(path: Path) -> str | None:
    """The properly cased kind, if the file starts with a GVK marker (files capzgen wrote do)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1024).decode("utf-8", errors="replace")
    except OSError:
        return None
    match = _KIND_MARKER.search(head)
    return match["kind"] if match else None


def load_catalog_schema(path: Path) -> JsonObject:
    """Read, repair and convert one catalog file; a malformed file raises naming it."""
    location = Location(file=str(path))
    try:
        documents = parse_documents(SourceBytes.read(path))
        raw: Json = documents[0] if documents else None
    except CapzgenError as error:
        msg = f"schema file is not valid JSON: {error.message.removeprefix('invalid JSON: ')}"
        raise SchemaStoreError(msg, location=error.location or location) from error
    if not isinstance(raw, dict):
        msg = "schema file does not hold a JSON object"
        raise SchemaStoreError(msg, location=location)
    for repair in repair_schema(raw):
        log.info("%s: repaired a converter defect: %s", path, repair.describe())
    try:
        return convert_root(raw)
    except SchemaFormatError as error:
        msg = f"malformed schema at {error}"
        raise SchemaStoreError(msg, location=location) from error
