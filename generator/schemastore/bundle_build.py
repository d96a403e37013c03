"""Build the built-in schema bundle from local copies of the pinned upstream files.

``make schemas-bundle`` runs ``python -m generator.schemastore.bundle_build [SOURCE_DIR...]``
(``../shared`` by default). Every file listed in ``schemas/sources.yaml`` is looked up in the
source folders at its ``path`` (first folder that has it wins), checked against its sha256,
converted exactly as ``schemas sync`` converts it (converter defects repaired), and written as one
archive member. The manifest records, per schema, its member digest and upstream file, and per
upstream file its project, release, URL, path, sha256 and licence. A schema with a ``$ref``
outside itself is refused, and the manifest says so (``self_contained``): the store relies on it
instead of walking each bundled schema again on every run.

The build is a pure function of the pinned bytes and the converter: members are stored sorted,
with fixed timestamps and permissions, so a rebuild in a temporary folder reproduces the same
manifest (the test that keeps the committed bundle honest compares the two). Nothing is written
unless every file was found, verified and converted.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import logging
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from generator.errors import CapzgenError, Location, SchemaStoreError
from generator.output.fsio import write_atomically
from generator.resources import builtin_schemas_dir
from generator.schemastore.bundle import (
    ARCHIVE_NAME,
    MANIFEST_NAME,
    BundledSchema,
    BundleManifest,
    UpstreamFile,
    member_digest,
)
from generator.schemastore.compiler import ensure_self_contained
from generator.schemastore.crd import CONVERTER_VERSION
from generator.schemastore.overlay import Overlay, additions_for
from generator.schemastore.sync import (
    PinnedFile,
    Project,
    convert_pinned,
    load_pins,
    load_projects,
    load_source_overlays,
)

log = logging.getLogger(__name__)

_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can carry


def find_pinned_file(pin: PinnedFile, source_dirs: Sequence[Path]) -> Path:
    """The first copy of ``pin`` in ``source_dirs``; its absence names every folder searched."""
    for folder in source_dirs:
        candidate = folder / pin.path
        if candidate.is_file():
            return candidate
    msg = f"{pin.name}: {pin.path} is in none of the source folders"
    raise SchemaStoreError(
        msg,
        details=[str(folder) for folder in source_dirs],
        hint="pass the folder holding the upstream copies (a mirror laid out like ../shared)",
    )


def _verified_copy(pin: PinnedFile, source_dirs: Sequence[Path]) -> tuple[Path, bytes]:
    """Where ``pin``'s copy is and its bytes, which must match the pinned digest."""
    path = find_pinned_file(pin, source_dirs)
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != pin.sha256:
        msg = f"sha256 mismatch: expected {pin.sha256}, got {actual}"
        raise SchemaStoreError(
            msg,
            location=Location(file=str(path)),
            hint="the copy differs from the pinned upstream file; update the pin deliberately",
        )
    return path, data


def build_manifest_and_members(
    pins: Sequence[PinnedFile],
    projects: dict[str, Project],
    source_dirs: Sequence[Path],
    overlays: Sequence[Overlay] = (),
) -> tuple[BundleManifest, dict[str, bytes]]:
    """Verify and convert every pinned file (``overlays`` applied); the manifest and the archive
    members."""
    upstream: list[UpstreamFile] = []
    schemas: list[BundledSchema] = []
    members: dict[str, bytes] = {}
    for pin in pins:
        project = projects.get(pin.project)
        if project is None:
            msg = f"{pin.name}: project {pin.project} has no entry under `projects:` (licence)"
            raise SchemaStoreError(msg)
        path, data = _verified_copy(pin, source_dirs)
        upstream.append(
            UpstreamFile(
                name=pin.name,
                project=pin.project,
                release=pin.version,
                url=pin.url,
                path=pin.path,
                sha256=pin.sha256,
                licence=project.licence,
                licence_file=project.licence_file,
                generated=pin.generated or "",
            )
        )
        for item in convert_pinned(pin, str(path), data, additions_for(overlays, pin.target)):
            if item.path in members:
                msg = f"{pin.name}: {item.path} is produced by two pinned files"
                raise SchemaStoreError(msg)
            ensure_self_contained(json.loads(item.data), source=f"{path} ({item.path})")
            members[item.path] = item.data
            schemas.append(
                BundledSchema(
                    gvk=item.gvk,
                    exact_kind=item.exact_kind,
                    member=item.path,
                    sha256=member_digest(item.data),
                    source=pin.name,
                )
            )
    schemas.sort(key=lambda s: s.member)
    manifest = BundleManifest(
        converter=CONVERTER_VERSION,
        sources=tuple(upstream),
        schemas=tuple(schemas),
        overlays=tuple(overlay.to_json() for overlay in overlays),
        self_contained=True,
    )
    return manifest, members


def archive_bytes(members: dict[str, bytes]) -> bytes:
    """A deterministic zip: sorted members, fixed time and mode, maximum deflate."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, members[name], compresslevel=9)
    return buffer.getvalue()


def manifest_bytes(manifest: BundleManifest) -> bytes:
    """``manifest.json`` as written: indented JSON in the manifest's key order, plus a newline."""
    return (json.dumps(manifest.to_json(), indent=1, sort_keys=False) + "\n").encode("utf-8")


def build_bundle(
    source_dirs: Sequence[Path], out_dir: Path, *, sources_file: Path | None = None
) -> BundleManifest:
    """Build the bundle into ``out_dir`` (archive first, manifest last, each atomically)."""
    sources_file = sources_file or builtin_schemas_dir() / "sources.yaml"
    projects = load_projects(sources_file)
    for project in projects.values():
        licence = sources_file.parent / project.licence_file
        if not licence.is_file():
            msg = f"licence text for {project.name} is missing"
            raise SchemaStoreError(msg, location=Location(file=str(licence)))
    pins = load_pins(sources_file)
    overlays = load_source_overlays(sources_file, pins)
    manifest, members = build_manifest_and_members(pins, projects, source_dirs, overlays)
    write_atomically(out_dir / ARCHIVE_NAME, archive_bytes(members), make_parents=True)
    write_atomically(out_dir / MANIFEST_NAME, manifest_bytes(manifest), make_parents=True)
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m generator.schemastore.bundle_build``: 0 on success, else 2 and an error line."""
    parser = argparse.ArgumentParser(
        prog="python -m generator.schemastore.bundle_build",
        description="Build capzgen's built-in schema bundle from local upstream copies.",
    )
    parser.add_argument(
        "source_dirs",
        nargs="*",
        type=Path,
        metavar="SOURCE_DIR",
        help="folders laid out like ../shared (crds/..., schemas/...); default: ../shared",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="bundle folder (default: schemas/bundle)"
    )
    parser.add_argument("--sources", type=Path, default=None, help="sources list to build from")
    args = parser.parse_args(argv)
    schemas_dir = builtin_schemas_dir()
    source_dirs = args.source_dirs or [schemas_dir.parent.parent / "shared"]
    out_dir = args.out or schemas_dir / "bundle"
    try:
        manifest = build_bundle(source_dirs, out_dir, sources_file=args.sources)
    except CapzgenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    size = (out_dir / ARCHIVE_NAME).stat().st_size
    print(
        f"{len(manifest.schemas)} schemas from {len(manifest.sources)} pinned files -> "
        f"{out_dir / ARCHIVE_NAME} ({size:,} bytes) and {out_dir / MANIFEST_NAME}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
