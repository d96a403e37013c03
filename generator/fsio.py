"""Writing files so that a reader (or a crash) never sees half of one.

Every command that writes goes through :func:`write_atomically`: the data goes to a temporary file
in the same folder, which then replaces the target in one rename.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from generator.errors import InputOutputError, Location


def write_atomically(
    path: Path, data: str | bytes, *, new_file_mode: int | None = None, make_parents: bool = False
) -> None:
    """Replace ``path`` with ``data``.

    An existing file keeps its permissions; a new one gets ``new_file_mode`` (``--write-to`` uses
    0600, as clusterctl does) or else 0666 minus the umask (files meant for Git). On failure the old
    content stays and no temporary file is left behind.
    """
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else new_file_mode
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise InputOutputError(
            f"cannot write: {exc.strerror or exc}", location=Location(file=str(path))
        ) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputOutputError(
            f"cannot write: {exc.strerror or exc}", location=Location(file=str(path))
        ) from exc
