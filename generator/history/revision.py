"""The YAML files under a path as they were at a git revision.

:func:`read_revision` is the one reader of history: ``validate --against REV`` compares a
manifest with its previous version, and ``topology plan --against REV`` plans from it. The
repository is the one holding the path (``git rev-parse --show-toplevel``), the files are listed
with ``git ls-tree`` (so their sizes are known and bounded before any byte is read) and read in
one ``git cat-file --batch``. Links are set aside unread and listed, never followed: a link blob
names a path, possibly outside the repository, that the user did not name. Submodules are not
entered. Hidden files and folders below the named path are skipped, as the folder walk of the
working tree does; the named path itself may be hidden (``.config/clusters``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final

from generator.errors import InputOutputError, Location, UsageError
from generator.history.git import find_git, git_failed, run_git
from generator.yamlio.limits import MAX_BYTES
from generator.yamlio.source import YAML_SUFFIXES

LINK_MODE: Final = "120000"
SMALL_OUTPUT: Final = 1 << 16  # rev-parse answers


class NotARepository(InputOutputError):
    """The path is in no git work tree (exit 2)."""


class UnknownRevision(UsageError):
    """The repository has no commit by that name (exit 2)."""


@dataclass(frozen=True)
class HistoryLimits:
    """Bounds of one read: bytes per file and in all, files, and seconds per git command."""

    max_file_bytes: int = MAX_BYTES
    max_total_bytes: int = 256 * 1024 * 1024
    max_files: int = 20_000
    timeout_seconds: float = 60.0


@dataclass(frozen=True)
class OldFile:
    """One file at the revision: its path in the repository (``clusters/a.yaml``), how findings
    name it (``HEAD~1:clusters/a.yaml``, the revision as the user wrote it) and its bytes."""

    name: str
    display: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Revision:
    """What was read under a path at a revision: its files, the links set aside unread (their
    display names; a link names a path the user did not name, so it is never followed), and
    whether the path held anything at all then (a path created or moved since held nothing)."""

    files: tuple[OldFile, ...]
    links: tuple[str, ...] = ()
    existed: bool = True


@dataclass(frozen=True)
class _Entry:
    mode: str
    kind: str
    oid: str
    size: int
    name: str


def _repository(path: Path, git: str, environ: Mapping[str, str], limits: HistoryLimits) -> Path:
    """The top folder of the work tree holding ``path``; outside a repository is an error."""
    start = path if path.is_dir() else path.parent
    result = run_git(
        git,
        ["-C", str(start), "rev-parse", "--show-toplevel"],
        environ=environ,
        limit=SMALL_OUTPUT,
        timeout=limits.timeout_seconds,
    )
    if result.returncode != 0 or not result.stdout.strip():
        said = result.stderr.splitlines()[0] if result.stderr else ""
        msg = f"not inside a git repository ({said})" if said else "not inside a git repository"
        raise NotARepository(
            msg,
            location=Location(file=str(path)),
            hint="--against REV needs PATH in a git work tree",
        )
    return Path(os.fsdecode(result.stdout.rstrip(b"\n")))


def _relative(path: Path, top: Path) -> str:
    """``path`` relative to the repository's top, refusing anything outside it."""
    try:
        relative = path.absolute().resolve().relative_to(top.resolve())
    except ValueError:
        msg = f"not inside the repository {top}"
        raise InputOutputError(msg, location=Location(file=str(path))) from None
    return relative.as_posix() if relative.parts else "."


def _commit(
    rev: str, top: Path, git: str, environ: Mapping[str, str], limits: HistoryLimits
) -> str:
    """The commit ``rev`` names; an unknown revision is a usage error, exit 2."""
    if not rev or rev.startswith("-") or "\n" in rev or "\0" in rev:
        msg = f"--against {rev!r}: not a revision"
        raise UsageError(msg, hint="name a commit, branch or tag")
    result = run_git(
        git,
        [
            "-C",
            str(top),
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{rev}^{{commit}}",
        ],
        environ=environ,
        limit=SMALL_OUTPUT,
        timeout=limits.timeout_seconds,
    )
    if result.returncode != 0:
        msg = f"unknown revision {rev!r} in {top}"
        raise UnknownRevision(msg, hint="git log --oneline lists the revisions")
    return result.stdout.decode("ascii").strip()


def _parse_entry(raw: bytes, rev: str) -> _Entry:
    """One ``ls-tree -l -z`` line: ``mode type oid size<TAB>name``."""
    head, _, name_bytes = raw.partition(b"\t")
    mode, kind, oid, size = head.decode("ascii").split()
    try:
        name = name_bytes.decode("utf-8")
    except UnicodeDecodeError:
        msg = f"a file name at {rev} is not UTF-8: {name_bytes!r}"
        raise InputOutputError(msg) from None
    return _Entry(mode, kind, oid, int(size) if size.isdigit() else 0, name)


@dataclass(frozen=True)
class _Listing:
    entries: tuple[_Entry, ...]
    links: tuple[str, ...]
    existed: bool


def _wanted(entry: _Entry, rev: str, single: bool, relative: str) -> bool:
    """Whether ``entry`` is read: YAML blobs (any blob when a single file was named), no hidden
    parts below ``relative``; links among them are set aside by :func:`_listing`. The folders the user named are
    read even when hidden (``validate .config/d``), as the walk of the working tree does."""
    named = 0 if relative == "." else len(PurePosixPath(relative).parts)
    parts = PurePosixPath(entry.name).parts[named:] or PurePosixPath(entry.name).parts[-1:]
    if entry.kind != "blob" or any(part.startswith(".") for part in parts[:-1]):
        return False
    return single or not (parts[-1].startswith(".") or not entry.name.endswith(YAML_SUFFIXES))


def _listing(
    relative: str,
    commit: str,
    rev: str,
    top: Path,
    git: str,
    environ: Mapping[str, str],
    limits: HistoryLimits,
) -> _Listing:
    """The blobs read under ``relative`` at ``commit``, checked against the limits."""
    result = run_git(
        git,
        ["-C", str(top), "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", relative],
        environ=environ,
        limit=limits.max_files * 4096,
        timeout=limits.timeout_seconds,
    )
    if result.returncode != 0:
        msg = f"cannot list {relative} at {rev}"
        raise git_failed(msg, result)
    entries = [_parse_entry(raw, rev) for raw in result.stdout.split(b"\0") if raw]
    single = len(entries) == 1 and entries[0].name == relative
    wanted = [entry for entry in entries if _wanted(entry, rev, single, relative)]
    chosen = tuple(entry for entry in wanted if entry.mode != LINK_MODE)
    _check_sizes(chosen, rev, limits)
    links = tuple(f"{rev}:{entry.name}" for entry in wanted if entry.mode == LINK_MODE)
    return _Listing(chosen, links, bool(entries))


def _check_sizes(entries: tuple[_Entry, ...], rev: str, limits: HistoryLimits) -> None:
    if len(entries) > limits.max_files:
        msg = f"more than {limits.max_files} files at {rev}; not read"
        raise InputOutputError(msg, hint="name a smaller folder")
    for entry in entries:
        if entry.size > limits.max_file_bytes:
            msg = f"file is larger than {limits.max_file_bytes / (1 << 20):g} MiB"
            raise InputOutputError(msg, location=Location(file=f"{rev}:{entry.name}"))
    if sum(entry.size for entry in entries) > limits.max_total_bytes:
        msg = f"the files at {rev} hold more than {limits.max_total_bytes / (1 << 20):g} MiB"
        raise InputOutputError(msg, hint="name a smaller folder")


def _contents(
    entries: tuple[_Entry, ...],
    rev: str,
    top: Path,
    git: str,
    environ: Mapping[str, str],
    limits: HistoryLimits,
) -> tuple[OldFile, ...]:
    """The bytes of ``entries`` from one ``cat-file --batch`` (sizes already bounded)."""
    if not entries:
        return ()
    request = b"".join(f"{entry.oid}\n".encode("ascii") for entry in entries)
    budget = sum(entry.size + 128 for entry in entries)
    result = run_git(
        git,
        ["-C", str(top), "cat-file", "--batch"],
        environ=environ,
        limit=budget,
        timeout=limits.timeout_seconds,
        stdin=request,
    )
    if result.returncode != 0:
        msg = f"cannot read the files at {rev}"
        raise git_failed(msg, result)
    files: list[OldFile] = []
    offset = 0
    out = result.stdout
    for entry in entries:
        size, start = _batch_header(out, offset, entry, rev)
        files.append(OldFile(entry.name, f"{rev}:{entry.name}", out[start : start + size]))
        offset = start + size + 1
    return tuple(files)


def _batch_header(out: bytes, offset: int, entry: _Entry, rev: str) -> tuple[int, int]:
    """The size and first byte of ``entry`` in ``cat-file --batch`` output at ``offset``: the
    header is ``<oid> blob <size>``; anything else (``<oid> missing`` in a partial clone or a
    damaged repository, short output) is an input error naming REV:path."""
    header_end = out.find(b"\n", offset)
    fields = out[offset:header_end].split() if header_end >= 0 else []
    start = header_end + 1
    if len(fields) != 3 or fields[1] != b"blob" or not fields[2].isdigit():
        said = b" ".join(fields[1:]).decode("ascii", "replace") or "no answer"
        msg = f"git cannot read this file ({said}); the repository may be incomplete"
        raise InputOutputError(msg, location=Location(file=f"{rev}:{entry.name}"))
    size = int(fields[2])
    if start + size > len(out):
        msg = "git's answer ended early"
        raise InputOutputError(msg, location=Location(file=f"{rev}:{entry.name}"))
    return size, start


def read_revision(
    path: Path,
    rev: str,
    limits: HistoryLimits = HistoryLimits(),
    *,
    environ: Mapping[str, str] | None = None,
) -> Revision:
    """The files under ``path`` (a file or folder of a git work tree) as they were at ``rev``,
    in the repository's order. A path that did not exist then gives no files (``existed`` is
    false); symbolic links are listed in ``links``, not read. ``environ``
    supplies git's ``PATH`` (the CLI passes the run's settings; the core reads no environment).
    Errors: no git, not a repository, path outside it, unknown revision (exit 2 each)."""
    env = environ if environ is not None else {}
    git = find_git(env)
    top = _repository(path, git, env, limits)
    relative = _relative(path, top)
    commit = _commit(rev, top, git, env, limits)
    listing = _listing(relative, commit, rev, top, git, env, limits)
    files = _contents(listing.entries, rev, top, git, env, limits)
    return Revision(files, listing.links, listing.existed)
