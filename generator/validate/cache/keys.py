"""What a result of ``capzgen validate`` depends on, as digests (:mod:`generator.validate.cache.store`).

A cached result may only be reused when everything that could change it is the same: the
document texts (and the file names findings would carry), capzgen's own code and data, the
libraries that parse and validate, every schema source on the search path, and the options.
Code, data and the built-in schemas are fingerprinted by each file's path, size and modification
time (reading them all would cost more than the validation saved); the user's schema sources by
the contents of their schema files (they may be edited in place, size and time put back);
documents by their text.

Anything this module cannot describe (a store that is only a lookup, not a whole catalog) gives no
fingerprint, and then nothing is cached.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path

from generator.checks import ValidationOptions
from generator.errors import CapzgenError
from generator.output.fsio import write_atomically
from generator.resources import builtin_schemas_dir
from generator.schemastore.types import SchemaCatalog, SchemaLookup
from generator.validate.cache.records import DIGEST_BYTES
from generator.yamlio.block import VERSION as BLOCK_READER
from generator.yamlio.walk import ignore, walk_folders

FORMAT = b"capzgen-results-1"  # bump when what is stored, or how keys are made, changes

# The libraries whose behaviour decides a result: the parsers, the validators, the CEL engine
# (and capzgen's own C block reader, keyed by its VERSION in code_fingerprint: a fixed reader
# must not reuse verdicts reached with an older one).
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
    digest.update(f"blockyaml={BLOCK_READER}".encode())  # which C block reader ran, if any
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        origin = spec.origin if spec is not None else None
        digest.update(f"{library}=".encode())
        if origin is not None:
            digest.update(_stat_line(Path(origin), Path(origin).parent))
    return digest.digest()


def store_fingerprint(store: SchemaLookup | None) -> bytes | None:
    """Every schema source on the search path, in order; None for a store that is no catalog
    (it cannot say where its schemas come from).

    The user's sources (``--schema-dir``, ``$CAPZGEN_SCHEMA_PATH``, the user's schema cache) are
    keyed by the *contents* of their schema files: a schema edited in place with its size and
    modification time put back must not replay a verdict reached with the old one. The built-in
    bundle (``shipped``) and the core kinds (``versioned``) come with capzgen and its libraries:
    the bundle's paths, sizes and times are enough, and the core kinds are not even walked.
    """
    digest = _hasher()
    if store is None:
        return digest.digest()
    if not isinstance(store, SchemaCatalog):
        return None
    for files in store.source_files():
        digest.update(f"{files.kind} {files.path}\n".encode("utf-8", "surrogateescape"))
        if files.versioned or not files.path.exists():
            continue
        if files.shipped:
            for line in _tree_lines(files.path):
                digest.update(line)
            continue
        memo = DigestMemo.open(files.digests, files.path)
        for line in content_lines(files.path, memo):
            digest.update(line)
        memo.save()
    return digest.digest()


# What a schema source may read (the store's walk, ``schemastore.loading.schema_files``, and
# the cache's provenance record, hidden ones included to be safe): these files are digested, any
# other file is keyed by its stat.
_SCHEMA_SUFFIXES = (".yaml", ".yml", ".json")
_READ_CHUNK = 1 << 20
_MEMO_MAX_BYTES = 16 << 20  # a memo larger than this is not ours (or not worth reading)
_RACY_NS = 2_000_000_000  # a file changed this recently may change again within one ctime tick


class DigestMemo:
    """The digests of one source's files from the last run, by each file's identity (path, size,
    modification time, inode, device, change time): a file whose identity is unchanged is not
    read again. The change time is what makes this safe: putting back size and modification
    time (``touch -d``, :func:`os.utime`) sets it to now, and a user cannot set it back, so the
    edited file is read and its new contents decide. A file changed less than two seconds ago is
    not memoised (a second change within the file system's ctime tick could go unseen).
    ``file`` None (no cache folder): every file is read on every run.
    """

    def __init__(self, file: Path | None, known: dict[str, list[object]]) -> None:
        self.file = file
        self.known = known
        self.seen: dict[str, list[object]] = {}
        self.now = time.time_ns()  # what "changed recently" is measured from

    @classmethod
    def open(cls, folder: Path | None, source: Path) -> DigestMemo:
        """The memo of ``source`` kept in ``folder``; an empty one if it is unreadable."""
        if folder is None:
            return cls(None, {})
        name = hashlib.blake2b(os.fsencode(os.path.abspath(source)), digest_size=16).hexdigest()
        file = folder / f"{name}.json"
        try:
            with open(file, "rb") as handle:
                data = json.loads(handle.read(_MEMO_MAX_BYTES + 1) or b"null")
        except (OSError, ValueError):
            data = None
        known = data if isinstance(data, dict) else {}
        return cls(file, {k: v for k, v in known.items() if isinstance(v, list) and len(v) == 6})

    def digest(
        self, relative: str, info: os.stat_result, read: Callable[[], str | None]
    ) -> str | None:
        """The digest of the file at ``relative`` whose stat is ``info``: remembered, or ``read``."""
        identity: list[object] = [
            info.st_size,
            info.st_mtime_ns,
            info.st_ino,
            info.st_dev,
            info.st_ctime_ns,
        ]
        entry = self.known.get(relative)
        if entry is not None and entry[:5] == identity and isinstance(entry[5], str):
            self.seen[relative] = entry
            return entry[5]
        value = read()
        if value is not None and info.st_ctime_ns < self.now - _RACY_NS:
            self.seen[relative] = [*identity, value]
        return value

    def save(self) -> None:
        """Keep what this run learned (files gone are forgotten); a failure only costs speed."""
        if self.file is None or self.seen == self.known:
            return
        data = json.dumps(self.seen, separators=(",", ":"), sort_keys=True).encode()
        if len(data) > _MEMO_MAX_BYTES:
            return
        with contextlib.suppress(CapzgenError):
            write_atomically(self.file, data, make_parents=True)


def content_lines(root: Path, memo: DigestMemo) -> Iterable[bytes]:
    """Every file below ``root`` (or ``root`` itself) in a stable order: schema files by the
    digest of their contents, anything else as :func:`_stat_line` describes it."""
    if not root.is_dir():
        yield _content_line(root, root.parent, memo)
        return
    for folder, _dirs, files in walk_folders(str(root), onerror=ignore, skip_hidden=False):
        for name in files:
            path = Path(folder) / name
            yield (
                _content_line(path, root, memo)
                if name.endswith(_SCHEMA_SUFFIXES)
                else _stat_line(path, root)
            )


def _content_line(path: Path, base: Path, memo: DigestMemo) -> bytes:
    """One file's identity by its contents. Only a regular file is read: a FIFO or device is
    described by its type, never opened for reading's sake."""
    relative = str(path.relative_to(base) if path != base else Path(path.name))
    try:
        info = path.stat()
    except OSError:
        return f"{relative}:missing\n".encode("utf-8", "surrogateescape")
    if not stat.S_ISREG(info.st_mode):
        return _stat_line(path, base)
    value = memo.digest(relative, info, lambda: _file_digest(path, info))
    if value is None:  # unknown contents: a key that matches no run, this one's included
        return f"{relative}:unknown:{os.urandom(16).hex()}\n".encode("utf-8", "surrogateescape")
    return f"{relative}:{value}\n".encode("utf-8", "surrogateescape")


def _file_digest(path: Path, before: os.stat_result) -> str | None:
    """The digest of a regular file's contents, or None if it cannot be read or is not the file
    ``before`` describes (swapped or changed while being read). Opened without blocking and
    checked again once open, so a FIFO swapped in after the check is never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_ino != before.st_ino:
            return None
        contents = _hasher()
        while chunk := os.read(fd, _READ_CHUNK):
            contents.update(chunk)
        after = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if (after.st_size, after.st_mtime_ns, after.st_ctime_ns) != (
        before.st_size,
        before.st_mtime_ns,
        before.st_ctime_ns,
    ):
        return None  # changed while read: unknown, so this run's key matches no earlier one
    return contents.hexdigest()


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
