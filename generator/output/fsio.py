"""Writing files so that a reader (or a crash) never sees half of one.

Every command that writes a single regular file goes through :func:`write_atomically`: the data goes
to a temporary file in the same folder, which then replaces the target in one rename. (Folder output
is switched in all at once by :mod:`generator.output.staging`.) A path the user
names as the destination (``--write-to``) goes through :func:`write_to_named_path`, which keeps
clusterctl's behaviour for what is not a plain file: a symlink is written through (its target is
replaced, the link stays), and a character device or FIFO (``/dev/stdout``, ``/dev/null``, a
process substitution) is written to directly, since it cannot be renamed over.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from generator.errors import InputOutputError, Location

# Permissions of what capzgen writes, whatever the umask: files holding credentials are the
# owner's alone; other files and folders are never group- or world-writable.
PRIVATE_FILE_MODE = 0o600
FILE_MODE = 0o644  # at most: the umask may take more away
FOLDER_MODE = 0o755  # at most, as above
_SECRET = re.compile(rb"^kind:[ \t]*[\"']?Secret[\"']?[ \t]*$", re.MULTILINE)


def holds_credentials(data: str | bytes) -> bool:
    """Whether ``data`` (YAML as capzgen writes it) holds a Kubernetes Secret: a document whose
    top-level ``kind`` is ``Secret`` (nested keys and block scalars are indented, so a line
    ``kind: Secret`` at the start of a line is a document's own kind)."""
    return _SECRET.search(data.encode("utf-8") if isinstance(data, str) else data) is not None


def file_mode(existing: int | None, data: str | bytes) -> int | None:
    """The permissions a file written with ``data`` gets: 0600 when it holds credentials; an
    existing file's own permissions without group/world write; None for a new file (created
    0644 minus the umask)."""
    if holds_credentials(data):
        return PRIVATE_FILE_MODE
    if existing is None:
        return None
    return existing & 0o777 & ~0o022


def make_folders(folder: Path) -> None:
    """``mkdir -p`` with every folder it creates 0755 at most (``Path.mkdir(parents=True)``
    gives the folders above the last one 0777 minus the umask)."""
    missing = []
    for level in (folder, *folder.parents):
        if os.path.isdir(level):
            break
        missing.append(level)
    for level in reversed(missing):
        try:
            os.mkdir(level, FOLDER_MODE)
        except FileExistsError:
            if not os.path.isdir(level):
                raise


def write_atomically(
    path: Path, data: str | bytes, *, new_file_mode: int | None = None, make_parents: bool = False
) -> None:
    """Replace ``path`` with ``data``.

    An existing file keeps its permissions (never group/world-writable); a new one gets
    ``new_file_mode`` (``--write-to`` uses 0600, as clusterctl does) or else 0644 minus the umask
    (files meant for Git); a file holding credentials is 0600 either way. On failure the old
    content stays and no temporary file is left behind.
    """
    # os.urandom is what secrets.token_hex reads; the secrets module would add ~2 ms of start-up
    tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    try:
        if make_parents:
            make_folders(path.parent)
        existing = path.stat().st_mode if path.exists() else None
        mode = file_mode(existing, data)
        if mode is None:
            mode = new_file_mode
        # private until the chmod below; a new file without a mode: 0644 minus the umask
        create = FILE_MODE if mode is None else PRIVATE_FILE_MODE
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, create)
    except OSError as exc:
        msg = f"cannot write: {exc.strerror or exc}"
        raise InputOutputError(msg, location=Location(file=str(path))) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        msg = f"cannot write: {exc.strerror or exc}"
        raise InputOutputError(msg, location=Location(file=str(path))) from exc


def write_to_named_path(path: Path, data: str | bytes, *, new_file_mode: int | None = None) -> None:
    """Write ``data`` where the user said: straight to devices and FIFOs, through symlinks, and
    atomically (:func:`write_atomically`) for regular files, new or existing.

    The type comes from :func:`os.stat` of the path itself, which follows symlinks including the
    kernel's ``/proc/self/fd`` links (``/dev/stdout`` of a pipe has no real path to resolve).
    """
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None  # new file, or a dangling symlink: create what it names
    except OSError as exc:
        msg = f"cannot write: {exc.strerror or exc}"
        raise InputOutputError(msg, location=Location(file=str(path))) from exc
    if mode is not None and stat.S_ISDIR(mode):
        msg = "cannot write: is a folder"
        raise InputOutputError(msg, location=Location(file=str(path)))
    if mode is not None and not stat.S_ISREG(mode):
        _write_stream(path, data)
        return
    write_atomically(Path(os.path.realpath(path)), data, new_file_mode=new_file_mode)


def _write_stream(path: Path, data: str | bytes) -> None:
    """A device, FIFO or socket: opened for writing as it is (nothing to rename over)."""
    try:
        with open(path, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as exc:
        msg = f"cannot write: {exc.strerror or exc}"
        raise InputOutputError(msg, location=Location(file=str(path))) from exc
