"""The result cache's secret: every entry is stored under an HMAC made with it, so an entry that
was not made with it (planted in the cache folder, or copied from another machine's cache) is
simply not found.

The secret lives outside the cache folder: given by the CI as ``$CAPZGEN_CACHE_KEY`` (a
secret of the pipeline), or a random key created on first use, readable by its owner alone, in
the user's configuration folder (the CLI computes both from its environment and hands them
down). When neither can be had (the key file cannot be created or read, or is not what this
module writes), the result cache is off for the run: it is never used unauthenticated.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import stat
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

KEY_BYTES = 32
_KEY_TEXT = 2 * KEY_BYTES + 1  # hex digits and a newline


def cache_secret(given: str | None, key_file: Path | None) -> bytes | None:
    """The secret the result cache is keyed with: from ``given`` (``$CAPZGEN_CACHE_KEY``) if it
    is set, else from ``key_file`` (created on first use); None: no cache for this run."""
    if given:
        return hashlib.sha256(
            b"capzgen result cache\0" + given.encode("utf-8", "surrogateescape")
        ).digest()
    if key_file is None:
        return None
    try:
        return _read_or_create(key_file)
    except OSError as error:
        log.debug("result cache off: its key %s cannot be used: %s", key_file, error)
        return None


def mac(secret: bytes, message: bytes) -> bytes:
    """The HMAC-SHA-256 of ``message`` under ``secret``."""
    return hmac.new(secret, message, hashlib.sha256).digest()


def _read_or_create(path: Path) -> bytes | None:
    """The key in ``path``; a new random one written there first if there is none (atomically:
    two first runs at once agree on one key)."""
    with contextlib.suppress(FileNotFoundError):
        return _read(path)
    # The configuration folder (~/.config) and capzgen's in it are made if missing, never the
    # folders above them: a home that does not exist is not created (the cache is off).
    for folder in (path.parent.parent, path.parent):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
    handle, temporary = tempfile.mkstemp(prefix=".cache-key-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(handle, "w", encoding="ascii") as stream:
            stream.write(os.urandom(KEY_BYTES).hex() + "\n")
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(FileExistsError):  # another run made it first: theirs
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
    return _read(path)


def _read(path: Path) -> bytes | None:
    """The key in ``path`` if it is exactly what :func:`_read_or_create` writes, in a regular
    file of this user that nobody else can read or write; None otherwise (no cache)."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(handle, "rb") as stream:
        st = os.fstat(stream.fileno())
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_mode & 0o077
            or (hasattr(os, "geteuid") and st.st_uid != os.geteuid())
        ):
            log.debug("result cache off: its key %s is not a private file of this user", path)
            return None
        text = stream.read(_KEY_TEXT + 1)
    try:
        key = bytes.fromhex(text.decode("ascii").rstrip("\n"))
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES or len(text) != _KEY_TEXT:
        log.debug("result cache off: its key %s is not a key", path)
        return None
    return key
