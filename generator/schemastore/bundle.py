"""The built-in schema bundle: pinned upstream schemas that ship inside capzgen.

A fresh ``pip install`` has no cache and no network, yet ``generate`` must validate on first use,
so the wheel carries every schema the shipped flavors and the validator need (Cluster API, CAPZ,
the ASO kinds), converted at build time by ``make schemas-bundle``
(:mod:`generator.schemastore.bundle_build`). Layout, next to ``sources.yaml``::

    bundle/manifest.json   the index: each schema's GVK, archive member, sha256 and upstream file;
                           each upstream file's project, release, URL, path, sha256 and licence
    bundle/schemas.zip     one deflated member per schema, <group>/<kind>_<version>.json
    licenses/              the upstream licence texts the manifest names

Knowing which GVKs exist costs one small JSON read; a lookup inflates one member and checks it
against the manifest's digest, so a truncated or tampered install is reported naming the file
instead of validating against a wrong schema. The archive's directory is read once per bundle
object (the archive is held in memory, not as an open file that forked workers would share).

The builder refuses a schema with a ``$ref`` outside itself and records that in the manifest
(``self_contained``), so the store need not walk a bundled schema for such references again: the
digest check proves the member is the one the builder checked.
"""

from __future__ import annotations

import io
import json
import zlib
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from generator.errors import Location, SchemaStoreError
from generator.jsontypes import Json, JsonObject
from generator.schemastore.types import GroupVersionKind

if TYPE_CHECKING:
    import zipfile

MANIFEST_NAME = "manifest.json"
ARCHIVE_NAME = "schemas.zip"
BUNDLE_FORMAT = 1
_REINSTALL = "reinstall capzgen; in a source checkout, run `make schemas-bundle`"


class UpstreamFile(NamedTuple):
    """One pinned upstream file the bundle was built from.

    The manifest's records are ``NamedTuple``s: immutable like frozen dataclasses, several times
    cheaper to define and to build (every validating run reads the manifest).
    """

    name: str
    project: str  # owner/repository
    release: str
    url: str
    path: str  # inside a mirror of the upstream data (schemas/sources.yaml)
    sha256: str
    licence: str  # SPDX identifier
    licence_file: str  # relative to the folder holding sources.yaml
    # How a file that upstream does not publish was produced from upstream's sources (the tool,
    # its version and the recipe); empty for a file downloaded as published.
    generated: str = ""

    @property
    def pinned(self) -> str:
        """``project@release``, with ``(generated)`` for a file built from upstream's sources:
        what ``schemas list`` shows as the pin."""
        suffix = " (generated)" if self.generated else ""
        return f"{self.project}@{self.release}{suffix}"


class BundledSchema(NamedTuple):
    """One converted schema inside the archive."""

    gvk: GroupVersionKind
    exact_kind: bool  # False: the kind is known only lower-cased (catalog file names)
    member: str
    sha256: str  # of the member's bytes
    source: str  # UpstreamFile.name


class BundleManifest(NamedTuple):
    """The bundle's index and provenance (``manifest.json``)."""

    converter: str
    sources: tuple[UpstreamFile, ...]
    schemas: tuple[BundledSchema, ...]
    # Schema overlays applied at build time (name, path, sha256; generator.schemastore.overlay).
    overlays: tuple[dict[str, str], ...] = ()
    # Every member was checked at build time to have no $ref outside itself.
    self_contained: bool = False

    def source(self, name: str) -> UpstreamFile:
        """The upstream file called ``name``; raises StopIteration if the manifest has none."""
        return next(s for s in self.sources if s.name == name)

    def to_json(self) -> JsonObject:
        """The manifest as ``manifest.json`` stores it (the inverse of :meth:`from_json`)."""
        return {
            "format": BUNDLE_FORMAT,
            "converter": self.converter,
            "archive": ARCHIVE_NAME,
            "sources": [
                {
                    "name": s.name,
                    "project": s.project,
                    "release": s.release,
                    "url": s.url,
                    "path": s.path,
                    "sha256": s.sha256,
                    "licence": s.licence,
                    "licence_file": s.licence_file,
                    **({"generated": s.generated} if s.generated else {}),
                }
                for s in self.sources
            ],
            "schemas": [
                {
                    "group": s.gvk.group,
                    "version": s.gvk.version,
                    "kind": s.gvk.kind,
                    "exact_kind": s.exact_kind,
                    "member": s.member,
                    "sha256": s.sha256,
                    "source": s.source,
                }
                for s in self.schemas
            ],
            "overlays": [dict(overlay) for overlay in self.overlays],
            "self_contained": self.self_contained,
        }

    @classmethod
    def from_json(cls, data: Json, *, location: Location) -> BundleManifest:
        """Read parsed ``manifest.json`` data; raises :class:`SchemaStoreError` if malformed.

        The format number must match, and every schema must name a source the manifest lists.
        """
        try:
            if data["format"] != BUNDLE_FORMAT:
                msg = f"unsupported bundle format {data['format']!r} (expected {BUNDLE_FORMAT})"
                raise SchemaStoreError(
                    msg,
                    location=location,
                    hint=_REINSTALL,
                )
            sources = tuple(UpstreamFile(**entry) for entry in data["sources"])
            schemas = tuple(
                BundledSchema(
                    gvk=GroupVersionKind(e["group"], e["version"], e["kind"]),
                    exact_kind=bool(e["exact_kind"]),
                    member=e["member"],
                    sha256=e["sha256"],
                    source=e["source"],
                )
                for e in data["schemas"]
            )
            converter = str(data["converter"])
            overlays = tuple(
                {"name": str(o["name"]), "path": str(o["path"]), "sha256": str(o["sha256"])}
                for o in data.get("overlays", [])
            )
            self_contained = data.get("self_contained") is True
        except (KeyError, TypeError) as error:
            msg = f"the schema bundle manifest is malformed ({error!r})"
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            ) from error
        names = {s.name for s in sources}
        orphans = sorted({s.source for s in schemas} - names)
        if orphans:
            msg = f"the schema bundle manifest names unknown sources: {', '.join(orphans)}"
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            )
        return cls(
            converter=converter,
            sources=sources,
            schemas=schemas,
            overlays=overlays,
            self_contained=self_contained,
        )


def member_digest(data: bytes) -> str:
    """The hex sha256 of an archive member's bytes, as the manifest records it."""
    # lazy: hashlib loads OpenSSL (2.3 ms), which a validate run's parent needs later if at all
    import hashlib

    return hashlib.sha256(data).hexdigest()


class SchemaBundle:
    """Read access to one bundle folder; nothing is read before it is needed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._archive: zipfile.ZipFile | None = None

    def __reduce__(self) -> tuple[type[SchemaBundle], tuple[Path]]:
        """Pickled as its folder, not its open archive (see ``SchemaStore.__reduce__``)."""
        return (type(self), (self.folder,))

    @property
    def manifest_path(self) -> Path:
        """The bundle's ``manifest.json``."""
        return self.folder / MANIFEST_NAME

    @property
    def archive_path(self) -> Path:
        """The bundle's ``schemas.zip``."""
        return self.folder / ARCHIVE_NAME

    @cached_property
    def manifest(self) -> BundleManifest:
        """The manifest, read once on first use; raises :class:`SchemaStoreError` if unusable."""
        location = Location(file=str(self.manifest_path))
        try:
            data = json.loads(self.manifest_path.read_bytes())
        except OSError as error:
            msg = f"the built-in schema bundle cannot be read: {error.strerror or error}"
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            ) from error
        except ValueError as error:
            msg = f"the built-in schema bundle manifest is not valid JSON: {error}"
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            ) from error
        return BundleManifest.from_json(data, location=location)

    def read_bytes(self, schema: BundledSchema) -> bytes:
        """The member's bytes, checked against the manifest's digest."""
        # lazy: zipfile (~4 ms) loads where a schema is read: in a -j N run the workers, never
        # the parent before it forks them
        import zipfile

        location = Location(file=f"{self.archive_path}:{schema.member}")
        try:
            data = self._open().read(schema.member)
        except KeyError as error:
            msg = "the built-in schema bundle lacks a schema its manifest lists"
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            ) from error
        except (OSError, zipfile.BadZipFile, EOFError, ValueError, zlib.error) as error:
            msg = f"the built-in schema bundle is damaged: {error}"
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            ) from error
        actual = member_digest(data)
        if actual != schema.sha256:
            msg = (
                f"sha256 mismatch in the built-in schema bundle: expected {schema.sha256}, "
                f"got {actual}"
            )
            raise SchemaStoreError(
                msg,
                location=location,
                hint=_REINSTALL,
            )
        return data

    def _open(self) -> zipfile.ZipFile:
        """The archive, its directory read on first use (raises what ``zipfile`` raises)."""
        if self._archive is None:
            # lazy: as in read_bytes, the only caller
            import zipfile

            self._archive = zipfile.ZipFile(io.BytesIO(self.archive_path.read_bytes()))
        return self._archive

    def load(self, schema: BundledSchema) -> JsonObject:
        """The member's schema as JSON, digest-checked (see :meth:`read_bytes`)."""
        loaded: JsonObject = json.loads(self.read_bytes(schema))
        return loaded
