"""What a result of ``capzgen validate`` depends on, as digests (:mod:`generator.validate.cache.store`).

A cached result may only be reused when everything that could change it is the same: the
document texts (and the file names findings would carry), capzgen's own code and data, the
libraries that parse and validate, every schema source on the search path, and the options.
Code, data and schema folders are fingerprinted by each file's path, size and modification time
(reading them all would cost more than the validation saved); documents by their text.

Anything this module cannot describe (a store that is only a lookup, not a whole catalog) gives no
fingerprint, and then nothing is cached.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path

from generator.checks import ValidationOptions
from generator.resources import builtin_schemas_dir
from generator.schemastore.types import SchemaCatalog, SchemaLookup
from generator.yamlio.walk import ignore, walk_folders

DIGEST_BYTES = 16
FORMAT = b"capzgen-results-1"  # bump when what is stored, or how keys are made, changes

# The libraries whose behaviour decides a result: the parsers, the validators, the CEL engine.
LIBRARIES = ("ryaml", "yaml", "jsonschema_rs", "kubernetes_validate", "celpy", "lark", "re2")

_PACKAGE_DIR = Path(__file__).resolve().parent


def _hasher() -> hashlib.blake2b:
    return hashlib.blake2b(digest_size=DIGEST_BYTES)


def _stat_line(path: Path, base: Path) -> bytes:
    """One file's identity without reading it: path, size, modification time (ns)."""
    try:
        st = path.stat()
    except OSError:
        return f"{path.relative_to(base)}:missing\n".encode("utf-8", "surrogateescape")
    relative = path.relative_to(base) if path != base else Path(path.name)
    return f"{relative}:{st.st_size}:{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape")


def _tree_lines(root: Path) -> Iterable[bytes]:
    """Every file below ``root`` (or ``root`` itself), in a stable order, caches left out."""
    if not root.is_dir():
        yield _stat_line(root, root.parent)
        return
    for folder, dirs, files in walk_folders(str(root), onerror=ignore, skip_hidden=False):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".pyc"):
                yield _stat_line(Path(folder) / name, root)


def code_fingerprint() -> bytes:
    """capzgen's code and data, the Python running it and the libraries it validates with: what
    parsing a file into partition keys depends on."""
    digest = _hasher()
    digest.update(FORMAT)
    digest.update(sys.version.encode())
    for root in (_PACKAGE_DIR, builtin_schemas_dir()):
        digest.update(str(root).encode("utf-8", "surrogateescape"))
        for line in _tree_lines(root):
            digest.update(line)
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        origin = spec.origin if spec is not None else None
        digest.update(f"{library}=".encode())
        if origin is not None:
            digest.update(_stat_line(Path(origin), Path(origin).parent))
    return digest.digest()


def store_fingerprint(store: SchemaLookup | None) -> bytes | None:
    """Every schema source on the search path, in order; None for a store that is no catalog
    (it cannot say where its schemas come from)."""
    digest = _hasher()
    if store is None:
        return digest.digest()
    if not isinstance(store, SchemaCatalog):
        return None
    for files in store.source_files():
        digest.update(f"{files.kind} {files.path}\n".encode("utf-8", "surrogateescape"))
        if files.versioned or not files.path.exists():
            continue
        for line in _tree_lines(files.path):
            digest.update(line)
    return digest.digest()


def options_fingerprint(options: ValidationOptions) -> bytes:
    """Every option that can change findings: all fields of the options but where caches live
    (a field added later is covered without anyone remembering to add it here)."""
    described = []
    for option in fields(options):
        if option.name in _NOT_ABOUT_FINDINGS:
            continue
        value = getattr(options, option.name)
        if isinstance(value, frozenset):
            value = sorted(value)
        described.append((option.name, value))
    return hashlib.blake2b(repr(described).encode(), digest_size=DIGEST_BYTES).digest()


_NOT_ABOUT_FINDINGS = frozenset({"cache_root"})


def chunk_digest(name: str, text: str) -> bytes:
    """A chunk of a file: its text and the file name its findings would carry."""
    digest = _hasher()
    digest.update(name.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


def document_digest(chunk: bytes, offset: int, documents: int) -> bytes:
    """The ``offset``-th of ``documents`` documents of a chunk (most chunks hold one)."""
    if documents == 1:
        return chunk
    return hashlib.blake2b(chunk + offset.to_bytes(4, "big"), digest_size=DIGEST_BYTES).digest()


def part_key(config: bytes, home: Iterable[bytes], guests: Iterable[bytes]) -> bytes:
    """A component validated with its guests, under one configuration."""
    digest = _hasher()
    digest.update(config)
    for document in home:
        digest.update(document)
    digest.update(b"|")
    for document in guests:
        digest.update(document)
    return digest.digest()


def file_key(code: bytes, text_digest: str) -> bytes:
    """A file text's pass-1 index under one version of capzgen."""
    return hashlib.blake2b(code + text_digest.encode(), digest_size=DIGEST_BYTES).digest()
