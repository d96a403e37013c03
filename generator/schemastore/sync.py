"""``schemas sync``: fill the cache from the pinned upstream files listed in ``schemas/sources.yaml``.

Each entry pins one upstream file by URL *and* sha256. Files come from their URL, or from a mirror
(``--from``: a folder, ``file://`` or ``http(s)://`` URL) that holds them at their ``path``. The
order of work makes the operation all or nothing: fetch everything, verify every digest, convert
everything, and only then write the cache (staged, then renamed into place).
"""

from __future__ import annotations

import hashlib
import logging
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.errors import CapzgenError, InputOutputError, Location, SchemaStoreError, YamlError
from generator.jsontypes import Json, JsonObject
from generator.schemastore.cache import PROVENANCE_NAME, dump_json, install_files, with_provenance
from generator.schemastore.catalog import catalog_gvk
from generator.schemastore.crd import CrdError, convert_documents
from generator.schemastore.loading import SourceBytes, parse_documents
from generator.schemastore.overlay import (
    Addition,
    Overlay,
    additions_for,
    apply_additions,
    load_overlays,
    unmatched_targets,
)
from generator.schemastore.repair import repair_schema
from generator.schemastore.structural import SchemaFormatError, convert_root
from generator.schemastore.types import GroupVersionKind
from generator.yamlio.load import load_value, read_source

log = logging.getLogger(__name__)

DOWNLOAD_TIMEOUT = 30.0
MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024  # the largest pinned file is under 1 MiB
FORMATS = ("crd-yaml", "json-schema")
_FIELDS = ("name", "version", "url", "path", "sha256", "format")


@dataclass(frozen=True, slots=True)
class PinnedFile:
    """One entry of ``schemas/sources.yaml``: an upstream file pinned by URL and by sha256."""

    name: str
    version: str
    url: str
    path: str  # location inside a mirror, e.g. crds/capz-v1.26.0/x.yaml
    sha256: str
    format: str  # one of FORMATS
    target: str | None = None  # json-schema only: <group>/<kind>_<version>.json
    project: str = ""  # owner/repository of the upstream project
    kind: str | None = None  # json-schema only: the kind as ASO spells it
    # Set for a file upstream does not publish but which is produced from upstream's sources by
    # upstream's own generator (say how, and where the recipe is); ``url`` then names those
    # sources, so the file itself can only come from a mirror (``--from``).
    generated: str | None = None


@dataclass(frozen=True, slots=True)
class Project:
    """An upstream project's licence, as declared in the sources list."""

    name: str  # owner/repository
    licence: str  # SPDX identifier
    licence_file: str  # relative to the sources list's folder


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What ``schemas sync`` did: how many pinned files it fetched and the schema files it wrote."""

    files: int
    written: list[Path]
    # Generated pins a download could not fetch (no mirror): the built-in bundle serves them.
    not_fetched: tuple[str, ...] = ()


def load_pins(sources_file: Path) -> list[PinnedFile]:
    """Parse and check the sources list; every problem names the file and the entry."""
    return [
        _pin(entry, index, Location(file=str(sources_file)))
        for index, entry in enumerate(_read_sources(sources_file)["sources"])
    ]


def load_projects(sources_file: Path) -> dict[str, Project]:
    """The ``projects`` table of the sources list (licence of each upstream project)."""
    location = Location(file=str(sources_file))
    table = _read_sources(sources_file).get("projects")
    if not isinstance(table, dict):
        msg = "expected a `projects:` mapping"
        raise SchemaStoreError(msg, location=location)
    projects: dict[str, Project] = {}
    for name, entry in table.items():
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(f), str) and entry.get(f) for f in ("licence", "licence_file")
        ):
            msg = f"projects.{name}: needs licence and licence_file"
            raise SchemaStoreError(msg, location=location)
        projects[str(name)] = Project(str(name), entry["licence"], entry["licence_file"])
    return projects


def load_source_overlays(sources_file: Path, pins: Sequence[PinnedFile]) -> list[Overlay]:
    """The schema overlays the sources list names under ``overlays:`` (see
    :mod:`generator.schemastore.overlay`); every addition must target a pinned JSON Schema."""
    location = Location(file=str(sources_file))
    listed = _read_sources(sources_file).get("overlays", [])
    if not isinstance(listed, list) or not all(isinstance(p, str) and p for p in listed):
        msg = "`overlays:` must be a list of file paths (relative to the sources list)"
        raise SchemaStoreError(msg, location=location)
    overlays = load_overlays(sources_file, listed)
    targets = [pin.target for pin in pins if pin.format == "json-schema"]
    stale = unmatched_targets(overlays, targets)
    if stale:
        msg = f"overlay additions target files no json-schema pin has: {', '.join(stale)}"
        raise SchemaStoreError(msg, location=location)
    return overlays


def _read_sources(sources_file: Path) -> JsonObject:
    location = Location(file=str(sources_file))
    try:
        data = load_value(read_source(str(sources_file)), source=str(sources_file))
    except InputOutputError as error:
        msg = f"cannot read the sources list: {error.message}"
        raise SchemaStoreError(msg, location=location) from error
    except YamlError as error:
        msg = f"the sources list is not valid YAML: {error.message}"
        raise SchemaStoreError(msg, location=error.location or location) from error
    entries = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        msg = "expected a non-empty `sources:` list"
        raise SchemaStoreError(msg, location=location)
    return dict(data)


def _pin(entry: Json, index: int, location: Location) -> PinnedFile:
    where = f"sources[{index}]"
    if not isinstance(entry, dict):
        msg = f"{where}: expected a mapping"
        raise SchemaStoreError(msg, location=location)
    missing = [f for f in _FIELDS if not isinstance(entry.get(f), str) or not entry.get(f)]
    if missing:
        msg = f"{where}: missing or empty {', '.join(missing)}"
        raise SchemaStoreError(msg, location=location)
    project = entry.get("project") or _project_of(entry["url"])
    pin = PinnedFile(
        **{f: entry[f] for f in _FIELDS},
        target=entry.get("target"),
        project=project,
        kind=entry.get("kind"),
        generated=entry.get("generated"),
    )
    if pin.generated is not None and (not isinstance(pin.generated, str) or not pin.generated):
        msg = f"{where} ({pin.name}): generated must say how the file was produced"
        raise SchemaStoreError(msg, location=location)
    if pin.format not in FORMATS:
        msg = f"{where} ({pin.name}): format must be one of {', '.join(FORMATS)}"
        raise SchemaStoreError(msg, location=location)
    if pin.format == "json-schema" and (
        not isinstance(pin.target, str)
        or catalog_gvk(Path(pin.target)) is None
        or not _layout_path(pin.target)
    ):
        msg = (
            f"{where} ({pin.name}): json-schema entries need target: <group>/<kind>_<version>.json"
        )
        raise SchemaStoreError(
            msg,
            location=location,
        )
    if pin.kind is not None:
        target_gvk = catalog_gvk(Path(pin.target or ""))
        if target_gvk is None or pin.kind.lower() != target_gvk.kind:
            msg = f"{where} ({pin.name}): kind {pin.kind!r} is not the kind its target names"
            raise SchemaStoreError(
                msg,
                location=location,
            )
    if len(pin.sha256) != 64 or any(c not in "0123456789abcdef" for c in pin.sha256):
        msg = f"{where} ({pin.name}): sha256 must be 64 hex digits"
        raise SchemaStoreError(msg, location=location)
    return pin


def _layout_path(target: str) -> bool:
    """Whether ``target`` is a path of the catalog layout, not one climbing out of it
    (``../../<group>/<kind>_<version>.json``, an absolute path, a folder of its own)."""
    parts = PurePosixPath(target).parts
    return 1 <= len(parts) <= 2 and not target.startswith(("/", "\\")) and ".." not in parts


def _project_of(url: str) -> str:
    """``owner/repo`` of a raw.githubusercontent.com or github.com URL; else the host."""
    parsed = urllib.parse.urlparse(url)
    parts = [p for p in parsed.path.split("/") if p]
    if parsed.hostname in ("raw.githubusercontent.com", "github.com") and len(parts) >= 2:
        return f"{parts[0]}/{parts[1]}"
    return parsed.hostname or url


def source_location(pin: PinnedFile, mirror: str | None) -> str:
    """Where ``pin`` is read from: its URL, or its path inside the mirror. A generated file has
    no download (its URL names the sources it was generated from): only a mirror has it."""
    if mirror is None:
        if pin.generated:
            msg = (
                f"{pin.name} is not published upstream: it was generated ({pin.generated}) "
                f"from {pin.url}"
            )
            raise SchemaStoreError(
                msg,
                hint=f"sync from a mirror that holds {pin.path}: --from DIR|URL",
            )
        return pin.url
    local = _local_mirror(mirror)
    if local is None:
        return mirror.rstrip("/") + "/" + urllib.parse.quote(pin.path)
    return str(local / pin.path)


def _local_mirror(mirror: str | None) -> Path | None:
    if mirror is None:
        return None
    parsed = urllib.parse.urlparse(mirror)
    if parsed.scheme in ("http", "https"):
        return None
    if parsed.scheme == "file":
        return Path(urllib.request.url2pathname(parsed.path))
    return Path(mirror)


def fetch(location: str) -> bytes:
    """The bytes at a URL or local path; failures name the location."""
    parsed = urllib.parse.urlparse(location)
    if parsed.scheme == "file":
        location = urllib.request.url2pathname(parsed.path)
    elif parsed.scheme in ("http", "https"):
        try:
            with urllib.request.urlopen(location, timeout=DOWNLOAD_TIMEOUT) as response:
                data: bytes = response.read(MAX_DOWNLOAD_BYTES + 1)
        except urllib.error.HTTPError as error:
            msg = f"cannot download {location}: HTTP {error.code} {error.reason}"
            raise SchemaStoreError(
                msg,
                hint="the server does not have this file; is --from pointing at a complete mirror?",
            ) from error
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            reason = getattr(error, "reason", None) or error
            msg = f"cannot download {location}: {reason}"
            raise SchemaStoreError(
                msg,
                hint="check the network, or sync from a mirror with --from DIR|URL",
            ) from error
        if len(data) > MAX_DOWNLOAD_BYTES:
            msg = f"cannot download {location}: larger than {MAX_DOWNLOAD_BYTES:,} bytes"
            raise SchemaStoreError(msg)
        return data
    try:
        return Path(location).read_bytes()
    except OSError as error:
        msg = f"cannot read {location}: {error.strerror or error}"
        raise SchemaStoreError(
            msg,
            location=Location(file=location),
            hint="is --from pointing at a complete mirror?",
        ) from error


def sync(
    pins: Sequence[PinnedFile],
    *,
    mirror: str | None,
    cache_dir: Path,
    overlays: Sequence[Overlay] = (),
) -> SyncResult:
    """Fetch, verify, convert (``overlays`` applied, as in the bundle), then write; nothing is
    written unless every step succeeded."""
    local_mirror = _local_mirror(mirror)
    if local_mirror is not None and not local_mirror.is_dir():
        msg = "mirror folder does not exist"
        raise SchemaStoreError(msg, location=Location(file=str(local_mirror)))
    fetched = []
    # A generated file has no download: without a mirror it is left to the built-in bundle, which
    # holds it. Every other location first, so a bad pin is refused before any download.
    not_fetched = tuple(pin.name for pin in pins if mirror is None and pin.generated)
    pins = [pin for pin in pins if pin.name not in not_fetched]
    locations = [source_location(pin, mirror) for pin in pins]
    for pin, location in zip(pins, locations, strict=True):
        log.info("fetching %s", location)
        fetched.append((pin, location, fetch(location)))
    mismatches = [
        (pin, location, hashlib.sha256(data).hexdigest())
        for pin, location, data in fetched
        if hashlib.sha256(data).hexdigest() != pin.sha256
    ]
    if mismatches:
        details = [
            f"{location}: expected sha256 {pin.sha256}, got {actual}"
            for pin, location, actual in mismatches
        ]
        pin, location, actual = mismatches[0]
        raise SchemaStoreError(
            f"sha256 mismatch: expected {pin.sha256}, got {actual}"
            + (f" (and {len(mismatches) - 1} more file(s))" if len(mismatches) > 1 else "")
            + "; nothing was written",
            location=Location(file=location),
            details=details,
            hint="the upstream file or the mirror copy changed; check it before updating the pin",
        )
    files: dict[str, bytes] = {}
    origins: dict[str, str] = {}
    for pin, location, data in fetched:
        for item in convert_pinned(pin, location, data, additions_for(overlays, pin.target)):
            files[item.path] = item.data
            origins[item.path] = f"{pin.project}@{pin.version}"
    written = install_files(cache_dir, with_provenance(cache_dir, files, origins))
    return SyncResult(
        files=len(fetched),
        written=[p for p in written if p.name != PROVENANCE_NAME],
        not_fetched=not_fetched,
    )


@dataclass(frozen=True, slots=True)
class ConvertedFile:
    """One schema produced from a pinned file, in the catalog layout.

    ``exact_kind`` is False for catalog JSON Schemas: their file names carry the kind lower-cased;
    the pin's ``kind`` gives the casing for display, and lookups ignore case as before.
    """

    gvk: GroupVersionKind
    exact_kind: bool
    path: str  # <group>/<kind>_<version>.json
    data: bytes  # compact JSON (dump_json)


def convert_pinned(
    pin: PinnedFile, location: str, data: bytes, additions: Sequence[Addition] = ()
) -> list[ConvertedFile]:
    """The schemas of one pinned file, overlay ``additions`` inserted; a broken upstream file is
    an unusable source."""
    try:
        return _convert_unchecked(pin, location, data, additions)
    except SchemaStoreError:
        raise
    except (CapzgenError, CrdError, SchemaFormatError) as error:
        message = error.message if isinstance(error, CapzgenError) else str(error)
        msg = f"unusable {pin.format} file: {message}"
        raise SchemaStoreError(msg, location=Location(file=location)) from error


def _convert_unchecked(
    pin: PinnedFile, location: str, data: bytes, additions: Sequence[Addition]
) -> list[ConvertedFile]:
    documents = parse_documents(SourceBytes(location, data))
    if pin.format == "crd-yaml":
        converted = convert_documents(documents)
        if not converted:
            msg = "no CustomResourceDefinition in this file"
            raise SchemaStoreError(msg, location=Location(file=location))
        return [ConvertedFile(c.gvk, True, c.catalog_path, dump_json(c.schema)) for c in converted]
    if len(documents) != 1 or not isinstance(documents[0], dict):
        msg = "expected one JSON Schema object"
        raise SchemaFormatError(msg, "")
    raw = documents[0]
    apply_additions(raw, additions, location)
    for repair in repair_schema(raw):
        log.warning("%s: repaired a converter defect: %s", location, repair.describe())
    assert pin.target is not None  # checked by load_pins
    gvk = catalog_gvk(Path(pin.target))
    assert gvk is not None  # checked by load_pins
    if pin.kind is not None:  # the catalog's file names carry the kind lower-cased only
        gvk = GroupVersionKind(gvk.group, gvk.version, pin.kind)
    return [ConvertedFile(gvk, False, pin.target, dump_json(convert_root(raw)))]
