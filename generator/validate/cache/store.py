"""Results of earlier ``capzgen validate`` runs, so that unchanged clusters are not checked again.

A GitOps repository is validated on every commit, and most clusters in it did not change. Two
things are remembered, in one SQLite file below the cache root:

* for each file text (under one code fingerprint): where its documents lie and their partition
  keys (:mod:`generator.validate.partition_keys`), so an unchanged file is not parsed in pass 1;
* for each whole input (every file's text, in order, under one configuration) that was
  validated with no finding at all: how many documents it has, so a rerun on an unchanged
  repository only reads and hashes its files;
* for each *part* (one component with the hub documents it needs, under one configuration; see
  :class:`generator.validate.batches.Part`) that was validated with **no finding at all**:
  its key (:func:`generator.validate.cache.keys.part_key`).

Only clean parts are remembered: a part with any finding, even a warning, is validated again on
every run, so every message is always produced fresh, with its lines. A cache that cannot be
opened, read or written (locked by a concurrent run, corrupt, a read-only disk) is never an
error: the run validates everything and says why in a debug log line. A stored entry that is not
exactly what this module writes is treated as missing.

Every key is stored as its HMAC under the run's secret (:mod:`generator.validate.cache.secret`,
kept outside the cache folder), and every stored file index carries an HMAC of its content, so
whoever can write the cache folder but does not hold the secret cannot make anything "clean": an
entry not made with the secret (planted, or copied from another machine) is simply not found.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from generator.validate.cache.records import CacheLimits, FileIndex
from generator.validate.cache.secret import KEY_BYTES as MIN_SECRET_BYTES
from generator.validate.cache.secret import mac

log = logging.getLogger(__name__)

FILE_NAME = "results-v2.sqlite3"  # v2: keys and file indexes authenticated
FLUSH_PARTS = 4096  # clean parts are written once this many are pending
# The bound is applied by SQLite, before a value is handed over (a damaged file could hold a
# value of any size).
_INDEX_QUERY = "SELECT data FROM files WHERE key = ? AND length(data) <= ?"
_MAC_HEX = 64  # a stored file index starts with the hex HMAC of the rest
_QUERY_CHUNK = 500  # keys per SELECT (SQLite's bound on parameters is 32,766)
_TIMEOUT = 2.0  # seconds to wait for a concurrent run's write lock

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS parts (key BLOB PRIMARY KEY, used INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files (key BLOB PRIMARY KEY, used INTEGER NOT NULL,"
    " data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs (key BLOB PRIMARY KEY, used INTEGER NOT NULL,"
    " documents INTEGER NOT NULL)",
)


class ResultCache:
    """The SQLite file of remembered results; every failure turns it off for the run."""

    def __init__(self, connection: sqlite3.Connection, secret: bytes, limits: CacheLimits) -> None:
        self.limits = limits
        self._secret = secret
        self._db: sqlite3.Connection | None = connection
        self._generation = 0
        self._new_parts: set[bytes] = set()
        self._used_parts: set[bytes] = set()
        self._new_files: dict[bytes, str] = {}  # written whenever flush_index_bytes pile up
        self._pending_bytes = 0
        self._used_files: set[bytes] = set()
        self._runs: dict[bytes, int] = {}

    @classmethod
    def open(
        cls, folder: Path, secret: bytes, limits: CacheLimits | None = None
    ) -> ResultCache | None:
        """The cache in ``folder`` (created) whose entries are made with ``secret``, or None
        when it cannot be used (or there is no secret: never unauthenticated)."""
        if len(secret) < MIN_SECRET_BYTES:
            return None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(folder / FILE_NAME, timeout=_TIMEOUT)
            cache = cls(connection, secret, limits or CacheLimits())
            with connection:
                for statement in _SCHEMA:
                    connection.execute(statement)
            row = connection.execute("SELECT value FROM meta WHERE name = 'generation'").fetchone()
            cache._generation = (row[0] if row and type(row[0]) is int else 0) + 1
            return cache
        except (OSError, sqlite3.Error) as error:
            log.debug("result cache in %s not used: %s", folder, error)
            return None

    def _key(self, kind: bytes, key: bytes) -> bytes:
        """What ``key`` (of a ``kind`` of entry) is stored as: its HMAC under the secret."""
        return mac(self._secret, kind + b"\0" + key)

    def _sealed(self, key: bytes, data: str) -> str:
        """A file index as stored: the HMAC of its key and content, then the content."""
        return mac(self._secret, b"index\0" + key + data.encode()).hex() + data

    def _opened(self, key: bytes, stored: str) -> str | None:
        """The content of a stored file index, if its HMAC is this secret's; else None."""
        seal, data = stored[:_MAC_HEX], stored[_MAC_HEX:]
        expected = self._sealed(key, data)[:_MAC_HEX]
        return data if hmac.compare_digest(seal, expected) else None

    def _failed(self, error: Exception) -> None:
        log.debug("result cache turned off for this run: %s", error)
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        self._db = None

    def _value(self, query: str, *parameters: bytes | int) -> object:
        """The one column ``query`` selects for ``key``; None when there is no row (or no cache
        any more: a failing query turns the cache off)."""
        if self._db is None:
            return None
        try:
            row = self._db.execute(query, parameters).fetchone()
        except sqlite3.Error as error:
            self._failed(error)
            return None
        return None if row is None else row[0]

    def file_index(self, key: bytes) -> FileIndex | None:
        """The stored index of the file text with ``key``, if any (and made with the secret)."""
        key = self._key(b"file", key)
        stored = self._value(_INDEX_QUERY, key, self.limits.max_index_bytes + _MAC_HEX)
        data = self._opened(key, stored) if type(stored) is str else None
        index = FileIndex.from_json(data, self.limits.max_index_bytes) if data is not None else None
        if index is not None:
            self._used_files.add(key)
        return index

    def clean_run(self, key: bytes) -> int | None:
        """How many documents the input with ``key`` had when it was validated clean, if it was."""
        key = self._key(b"run", key)
        documents = self._value("SELECT documents FROM runs WHERE key = ?", key)
        if type(documents) is not int or documents < 0:
            return None
        self._runs[key] = documents
        return documents

    def remember_run(self, key: bytes, documents: int) -> None:
        """Remember that the input with ``key`` (``documents`` documents) was validated clean."""
        if self._db is not None:
            self._runs[self._key(b"run", key)] = documents

    def remember_file(self, key: bytes, index: FileIndex) -> None:
        """Store ``index`` for the file text with ``key`` (a fact about the text alone, so it is
        written as the run goes, keeping memory flat on a repository of many files)."""
        data = index.to_json() if self._db is not None else None
        if data is None:
            return
        key = self._key(b"file", key)
        stored = self._sealed(key, data)
        self._new_files[key] = stored
        self._pending_bytes += len(stored)
        if self._pending_bytes >= self.limits.flush_index_bytes and self._db is not None:
            try:  # into the run's open transaction: committed only by close(save=True)
                _write_files(self._db, self._new_files, self._generation)
            except sqlite3.Error as error:
                self._failed(error)
            self._new_files, self._pending_bytes = {}, 0

    def clean_parts(self, keys: Sequence[bytes]) -> set[bytes]:
        """Which of ``keys`` were validated clean before."""
        found: set[bytes] = set()
        if self._db is None:
            return found
        stored = {self._key(b"part", key): key for key in keys}
        macs = list(stored)
        try:
            for at in range(0, len(macs), _QUERY_CHUNK):
                chunk = macs[at : at + _QUERY_CHUNK]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key FROM parts WHERE key IN ({marks})"
                found.update(row[0] for row in self._db.execute(query, chunk))
        except sqlite3.Error as error:
            self._failed(error)
            return set()
        self._used_parts |= found
        return {stored[key] for key in found if key in stored}

    def remember_parts(self, keys: Iterable[bytes]) -> None:
        """Remember ``keys`` as clean (each part was validated without a finding: a fact that
        stands whatever happens later, so they are written as the run goes)."""
        if self._db is None:
            return
        self._new_parts.update(self._key(b"part", key) for key in keys)
        if len(self._new_parts) >= FLUSH_PARTS:
            try:  # into the run's open transaction: committed only by close(save=True)
                _write_parts(self._db, self._new_parts, self._generation)
            except sqlite3.Error as error:
                self._failed(error)
            self._new_parts = set()

    def close(self, *, save: bool) -> None:
        """Write what this run learned (when ``save``) in one transaction, and close; without
        ``save`` (the run failed: a file changed while it was read, an interrupt) nothing it
        wrote on the way is kept either (the transaction is rolled back)."""
        db, self._db = self._db, None
        if db is None:
            return
        try:
            if save:
                _save(db, self)
        except sqlite3.Error as error:
            log.debug("result cache not written: %s", error)
        finally:
            db.close()

    def pending(self) -> tuple[dict[bytes, str], set[bytes], set[bytes], dict[bytes, int]]:
        """New files, files used, clean parts (new and used), clean runs: what :func:`_save`
        writes."""
        return self._new_files, self._used_files, self._new_parts | self._used_parts, self._runs

    @property
    def generation(self) -> int:
        """This run's number (one more than the last run that wrote the cache)."""
        return self._generation


def _save(db: sqlite3.Connection, cache: ResultCache) -> None:
    new_files, used_files, parts, runs = cache.pending()
    now = cache.generation
    with db:
        _write_files(db, new_files, now)
        db.executemany("UPDATE files SET used = ? WHERE key = ?", [(now, k) for k in used_files])
        _write_parts(db, parts, now)
        db.executemany(
            "INSERT OR REPLACE INTO runs (key, used, documents) VALUES (?, ?, ?)",
            [(key, now, documents) for key, documents in runs.items()],
        )
        db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('generation', ?)", (now,))
        limits = cache.limits
        if now % limits.prune_every == 0:
            _prune(db, "parts", limits.max_parts)
            _prune(db, "files", limits.max_files)
            _prune(db, "runs", limits.max_files)


def _write_parts(db: sqlite3.Connection, parts: Iterable[bytes], generation: int) -> None:
    db.executemany(
        "INSERT OR REPLACE INTO parts (key, used) VALUES (?, ?)",
        [(key, generation) for key in parts],
    )


def _write_files(db: sqlite3.Connection, files: dict[bytes, str], generation: int) -> None:
    db.executemany(
        "INSERT OR REPLACE INTO files (key, used, data) VALUES (?, ?, ?)",
        [(key, generation, data) for key, data in files.items()],
    )


def _prune(db: sqlite3.Connection, table: str, limit: int) -> None:
    """Keep the ``limit`` most recently used rows of ``table``."""
    (count,) = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    if count > limit:
        db.execute(
            f"DELETE FROM {table} WHERE key IN (SELECT key FROM {table} ORDER BY used LIMIT ?)",
            (count - limit,),
        )
