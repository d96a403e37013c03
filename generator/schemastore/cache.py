"""The user cache: where imported/synced schemas live and where conversions are memoised.

Layout under the cache root (:attr:`generator.settings.Settings.cache_root`; the CLI uses
``$CAPZGEN_CACHE_DIR``, else the platform's user cache folder)::

    schemas/<group>/<kind>_<version>.json       imported and synced schemas (on the search path)
    converted/v<N>/<sha256>/index.json          memo: GVKs converted from one CRD file
    converted/v<N>/<sha256>/<group>/<kind>_<version>.json
    core/<kubernetes-validate dir>/...           memo: bundled core Kubernetes schemas
    digests/<hash of a source's path>.json      memo: digests of the user's schema files, for the
                                                result cache's keys (validate/cache/keys.py)

Memo entries are keyed by content (the source file's sha256) and by the converter version, so they
never go stale; a later run only hashes the CRD file and reads small JSON files. Every write is
atomic (temporary file or folder, then rename), so a crash or a concurrent run never leaves a half
written entry behind. A cache that cannot be written only costs speed: it is logged, not raised.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from generator.errors import InputOutputError, Location
from generator.jsontypes import Json
from generator.output.fsio import write_atomically
from generator.schemastore.paths import confined
from generator.schemastore.types import GroupVersionKind

if TYPE_CHECKING:
    from generator.schemastore.crd import ConvertedSchema

log = logging.getLogger(__name__)

PROVENANCE_NAME = ".provenance.json"


def read_provenance(folder: Path) -> dict[str, str]:
    """Catalog path -> where it came from, as ``schemas import``/``sync`` recorded it."""
    try:
        data = json.loads((folder / PROVENANCE_NAME).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


def with_provenance(
    folder: Path, files: Mapping[str, bytes], origins: Mapping[str, str]
) -> dict[str, bytes]:
    """``files`` plus the folder's provenance record updated for them, to install as one unit."""
    merged = {**read_provenance(folder), **origins}
    return {**files, PROVENANCE_NAME: dump_json(dict(sorted(merged.items())))}


def dump_json(value: Json) -> bytes:
    """Compact, deterministic JSON as stored in the cache."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new content, never a mix."""
    write_atomically(path, data, make_parents=True)


def install_files(target_root: Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write several files below ``target_root`` as one unit, as far as the file system allows.

    Everything is first written to a staging folder next to the target (same file system); only
    when all of it is on disk are the files renamed into place. A failure before that point leaves
    the target untouched.
    """
    # lazy: tempfile (and random) cost ~2 ms of start-up; only writing to the cache needs them
    import tempfile

    for relative in files:  # each stays below the target; checked before anything is written
        confined(target_root, relative)
    try:
        target_root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=target_root, prefix=".staging-"))
    except OSError as error:
        msg = f"cannot write to the schema cache: {error.strerror or error}"
        raise InputOutputError(
            msg,
            location=Location(file=str(target_root)),
        ) from error
    try:
        for relative, data in files.items():
            staged = confined(staging, relative)
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_bytes(data)
        written = []
        for relative in files:
            final = confined(target_root, relative)
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / relative, final)
            written.append(final)
        return written
    except OSError as error:
        msg = f"cannot write to the schema cache: {error.strerror or error}"
        raise InputOutputError(
            msg,
            location=Location(file=str(target_root)),
        ) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class MemoEntry(NamedTuple):
    """The memoised conversion of one CRD file: which GVKs it holds and where their schemas are.

    This and :class:`ConversionMemo` are ``NamedTuple``s: immutable like frozen dataclasses and
    several times cheaper to define, on the start-up of every validating run.
    """

    folder: Path
    schemas: tuple[tuple[GroupVersionKind, str], ...]  # (gvk, path relative to folder)

    def load(self, relative: str) -> Json:
        """The JSON at ``relative`` inside the entry's folder (one converted schema)."""
        return json.loads(confined(self.folder, relative).read_bytes())


class ConversionMemo(NamedTuple):
    """Converted CRD schemas keyed by the CRD file's sha256 (see the module docstring)."""

    root: Path

    @property
    def folder(self) -> Path:
        """``<root>/converted/v<CONVERTER_VERSION>``: other converters' output is never read."""
        # lazy: the converter (~1.5 ms of start-up) loads only when a CRD file's memo is used
        from generator.schemastore.crd import CONVERTER_VERSION

        return self.root / "converted" / f"v{CONVERTER_VERSION}"

    def get(self, sha256: str) -> MemoEntry | None:
        """The memo entry for the file with digest ``sha256``; None if absent or unreadable."""
        folder = self.folder / sha256
        try:
            index = json.loads((folder / "index.json").read_bytes())
            schemas = tuple(
                (GroupVersionKind(e["group"], e["version"], e["kind"]), e["file"])
                for e in index["schemas"]
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return MemoEntry(folder=folder, schemas=schemas)

    def put(self, sha256: str, converted: list[ConvertedSchema], source: str) -> MemoEntry | None:
        """Memoise ``converted`` (maybe empty) under ``sha256`` atomically; return the new entry.

        None when the cache cannot be written: that is logged, not raised, and only costs speed.
        ``source`` is recorded for people inspecting the cache.
        """
        final = self.folder / sha256
        index = {
            "source": source,
            "schemas": [
                {
                    "group": c.gvk.group,
                    "version": c.gvk.version,
                    "kind": c.gvk.kind,
                    "file": c.catalog_path,
                }
                for c in converted
            ],
        }
        # lazy: as in install_files
        import tempfile

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(dir=self.folder, prefix=".staging-"))
            try:
                for item in converted:
                    target = confined(staging, item.catalog_path)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(dump_json(item.schema))
                (staging / "index.json").write_bytes(dump_json(index))
                try:
                    os.rename(staging, final)
                except OSError:
                    if not final.is_dir():  # a concurrent run winning the race is fine
                        raise
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        except OSError as error:
            log.warning("cannot memoise the conversion of %s in %s: %s", source, final, error)
            return None
        return self.get(sha256)
