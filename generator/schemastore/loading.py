"""Reading schema source files (YAML or JSON, one or many documents) into plain Python values.

Kept apart from the CRD logic so that every reader (store, ``schemas import``, ``schemas sync``)
reports broken input the same way: a :class:`~generator.errors.YamlError` carrying file, line and
column. Callers that treat a broken file as an unusable schema *source* re-raise it as
:class:`~generator.errors.SchemaStoreError`.
"""

from __future__ import annotations

import hashlib
import logging
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputOutputError, Location, YamlError
from generator.jsontypes import Json
from generator.yamlio.load import load_documents, load_json
from generator.yamlio.source import decode_source, read_bytes
from generator.yamlio.walk import walk_folders

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SourceBytes:
    """The raw bytes of one schema source plus its digest (the key of the conversion cache); not
    to be confused with :class:`generator.validate.check.SourceText`, a manifest's decoded text."""

    name: str  # path as given, or "<stdin>"
    data: bytes

    @property
    def sha256(self) -> str:
        """Hex sha256 of the bytes: the key under which the file's conversion is memoised."""
        return hashlib.sha256(self.data).hexdigest()

    @classmethod
    def read(cls, path: Path) -> SourceBytes:
        """At most the YAML reader's size bound; an unreadable file is an InputOutputError."""
        return cls(name=str(path), data=read_bytes(str(path)))


SCHEMA_SUFFIXES = (".yaml", ".yml", ".json")


def schema_files(folder: Path) -> Iterator[Path]:
    """Every YAML/JSON file below ``folder``, sorted, hidden files and folders skipped: the one
    walk of a schema folder (``--schema-dir``, ``$CAPZGEN_SCHEMA_PATH``, ``schemas import``).
    A FIFO, device or dangling link among them is an error naming it (reading it would block or
    never end, and skipping it would validate against less than the user named)."""
    for current, _dirs, files in walk_folders(str(folder), onerror=_unlistable):
        for name in files:
            if not name.endswith(SCHEMA_SUFFIXES):
                continue
            path = Path(current) / name
            check_regular_file(path)
            yield path


def check_regular_file(path: Path) -> None:
    """Raise an :class:`~generator.errors.InputOutputError` naming ``path`` unless it is a
    regular file (links followed): a schema source is read whole, which a FIFO or a device such
    as ``/dev/zero`` would block or never end."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        reason = "dangling symbolic link" if path.is_symlink() else error.strerror or str(error)
        msg = f"cannot read: {reason}"
        raise InputOutputError(msg, location=Location(file=str(path))) from None
    if not stat.S_ISREG(mode):
        msg = "not a regular file (a FIFO, socket or device); a schema source must be a file"
        raise InputOutputError(msg, location=Location(file=str(path)))


def _unlistable(error: OSError) -> None:
    """A folder that cannot be listed offers no schemas (as ``os.walk`` skips it)."""
    log.debug("cannot list %s: %s", error.filename, error.strerror or error)


def parse_documents(source: SourceBytes) -> list[Json]:
    """All documents of a YAML stream or a JSON file, empty documents dropped.

    Both go through bounded readers: YAML through the manifest loader (depth, node and alias
    bounds, go-yaml semantics: timestamps stay strings, as the API server reads them); JSON
    (tried first for ``.json`` names and text starting with a bracket: an order of magnitude
    faster for kubectl's and the catalogs' JSON) through :func:`~generator.yamlio.load.load_json`.
    """
    text = decode_source(source.data, source.name)
    if source.name.endswith(".json") or text.lstrip().startswith(("{", "[")):
        try:
            return [load_json(text, source=source.name)]
        except YamlError:
            if source.name.endswith(".json"):
                raise  # else it may be flow-style YAML: the YAML loader decides
    return [doc.obj for doc in load_documents(text, source=source.name) if doc.obj is not None]
