"""The parts of :mod:`generator.output.staging` that are not the transaction itself: the journal's
format, the folder checks, the locks and their owner records, and small file-system helpers.

Kept apart so that each module stays small; :mod:`generator.output.staging` holds the protocol (stage,
journal, switch, undo, recover) and its module docstring explains why each step is safe.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import socket
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypeVar

from generator.errors import InputOutputError, Location, YamlError
from generator.jsontypes import Json, JsonObject
from generator.output.fsio import make_folders
from generator.yamlio.load import load_json, read_source

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, see the module docstring
    fcntl = None  # type: ignore[assignment]


def locks_available() -> bool:
    """Whether ``flock`` can be used here (a platform without ``fcntl`` has no locks)."""
    return fcntl is not None


STAGING_PREFIX = ".capzgen-staging-"
JOURNAL_NAME = "journal.json"
OWNER_NAME = "owner.json"
NEW_DIR = "new"
OLD_DIR = "old"
JOURNAL_VERSION = 1
LOCK_WAIT_SECONDS = 60.0  # how long a run waits for another one writing the same folders
_LOCK_POLL_SECONDS = 0.05
STAGING = re.compile(r"^\.capzgen-staging-[0-9a-f]{12}$")
LEGACY_TMP = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")  # fsio.write_atomically's temporary files
_THREADS = 16  # fsync waits on the disk, not the CPU: overlap them

_T = TypeVar("_T")


@dataclass(frozen=True)
class Step:
    """One entry of a switch: ``path`` below the root; ``old``: the entry there is moved aside to
    ``old/<i>``; ``new``: ``new/<i>`` is moved in (a file, or a whole new folder)."""

    path: str
    new: bool
    old: bool


def journal_text(steps: Sequence[Step]) -> str:
    """``journal.json``: the switch's renames, in order."""
    data = {
        "comment": "An interrupted capzgen write; the next capzgen run writing here undoes it.",
        "steps": [{"path": s.path, "new": s.new, "old": s.old} for s in steps],
        "version": JOURNAL_VERSION,
    }
    return json.dumps(data, indent=1) + "\n"


def read_journal(path: Path) -> list[Step]:
    """The steps of a journal; InputOutputError if it is damaged (capzgen never writes one so)."""
    try:
        data = load_json(read_source(str(path)), source=str(path))  # bounded: the user's folder
        if data.get("version") != JOURNAL_VERSION:
            msg = f"unknown version {data.get('version')!r}"
            raise ValueError(msg)
        steps = [Step(s["path"], s["new"], s["old"]) for s in data["steps"]]
        bad = [s for s in steps if not _well_formed(s)]
        if bad:
            msg = f"bad step {bad[0]}"
            raise ValueError(msg)
    except (ValueError, KeyError, TypeError, AttributeError, YamlError) as exc:
        msg = f"the journal of an interrupted capzgen write is damaged ({exc})"
        raise InputOutputError(
            msg,
            location=Location(file=str(path)),
            hint=f"restore the folder from version control, then delete {path.parent}",
        ) from None
    return steps


def _well_formed(step: Step) -> bool:
    return safe_relative(step.path) and isinstance(step.new, bool) and isinstance(step.old, bool)


def safe_relative(text: Json) -> bool:
    """Whether a journal path is a plain relative path (no absolute, empty, dot or dot-dot parts)."""
    if not isinstance(text, str) or not text or "\\" in text:
        return False
    path = PurePosixPath(text)
    return not path.is_absolute() and all(part not in ("", ".", "..") for part in path.parts)


def symlink_on_the_way(root: Path, relative: str) -> str | None:
    """The first folder of ``relative`` (below ``root``, a real folder) that is a symbolic link or
    not a folder at all, as a path below the root; None when every folder on the way is a real
    one (or missing: nothing below a missing folder exists to be reached). The entry itself is
    not looked at: a rename replaces or moves a symbolic link, it never follows one."""
    folder = root
    parts = PurePosixPath(relative).parts
    for number, part in enumerate(parts[:-1]):
        folder = folder / part
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(info.st_mode):  # a symbolic link (lstat), or a file in the way
            return PurePosixPath(*parts[: number + 1]).as_posix()
    return None


def confine_steps(root: Path, staging: Path, steps: Sequence[Step], journal: Path) -> None:
    """Refuse, before anything moves, a journal whose renames would leave the real folder
    ``root``: a step whose path crosses a symbolic link (``evil/x`` with ``evil -> /elsewhere``),
    or a staging folder whose ``new``/``old`` folders are links (a rename there would move a
    file out of the folder, or one from elsewhere in)."""
    for name in (NEW_DIR, OLD_DIR):
        info = lstat(staging / name)
        if info is not None and not stat.S_ISDIR(info.st_mode):
            msg = (
                f"refusing to undo the interrupted write this journal describes: {name}/ of its "
                "staging folder is not a real folder (capzgen never moves files through a link)"
            )
            raise InputOutputError(
                msg,
                location=Location(file=str(journal)),
                hint=f"this journal was not written by capzgen; delete {staging}",
            )
    for step in steps:
        crossing = symlink_on_the_way(root, step.path)
        if crossing is not None:
            msg = (
                f"refusing the step {step.path!r} of the journal of an interrupted capzgen "
                f"write: {crossing} is a symbolic link or not a folder, so the step would "
                f"reach outside {root}; nothing was changed"
            )
            raise InputOutputError(
                msg,
                location=Location(file=str(journal)),
                hint=f"this journal was not written by capzgen; delete {staging}",
            )


class FolderCheck:
    """Cached facts about the folders of a transaction's targets."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.device = os.stat(root).st_dev
        self.exists: dict[PurePosixPath, bool] = {}
        self.checked: set[PurePosixPath] = set()

    def missing_folder(self, relative: PurePosixPath) -> PurePosixPath | None:
        """The outermost folder above ``relative`` (below the root) that does not exist."""
        for folder in reversed(relative.parents[:-1]):  # outermost first; the root exists
            known = self.exists.get(folder)
            if known is None:
                known = self.exists[folder] = os.path.lexists(self.root / folder)
            if not known:
                return folder
        return None

    def same_file_system(self, folder: PurePosixPath) -> None:
        """Refuse a target folder that is not a folder, or is on another file system (a rename
        could not move staged files there)."""
        if folder in self.checked:
            return
        path = self.root / folder
        crossing = symlink_on_the_way(self.root, (folder / "entry").as_posix())
        if crossing is not None:
            msg = (
                f"cannot write: {crossing} is a symbolic link (or not a folder); capzgen writes "
                f"only into real folders below {self.root}"
            )
            raise InputOutputError(
                msg,
                location=Location(file=str(self.root / crossing)),
                hint="replace the link by a folder, or name the folder it points to",
            )
        info = os.stat(path)
        if not stat.S_ISDIR(info.st_mode):
            msg = "cannot write: not a folder"
            raise InputOutputError(msg, location=Location(file=str(path)))
        if info.st_dev != self.device:
            msg = (
                f"cannot write: on another file system than {self.root}, where capzgen stages files"
            )
            raise InputOutputError(
                msg,
                location=Location(file=str(path)),
                hint="write into a folder on one file system (capzgen switches files in by renames)",
            )
        self.checked.add(folder)


def read_owner(staging: Path) -> JsonObject:
    """The owner record of a staging folder (pid, host), or {} when it is missing or damaged."""
    try:
        data = load_json(read_source(str(staging / OWNER_NAME)), source=str(staging / OWNER_NAME))
    except (YamlError, InputOutputError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def running(pid: int) -> bool:
    """Whether a process with this pid exists on this machine."""
    if os.name != "posix":  # pragma: no cover - os.kill(pid, 0) would end the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class Locks:
    """``flock`` locks on folders, held until :meth:`release` (or the process's end)."""

    def __init__(self, wait: float = LOCK_WAIT_SECONDS) -> None:
        self.wait = wait  # seconds a run waits for another one (named in the message)
        self._fds: dict[str, int] = {}

    def take(self, folder: Path, deadline: float) -> None:
        """Wait for ``folder``'s lock until ``deadline``; without lock support, go on unlocked."""
        key = os.path.realpath(folder)
        if key in self._fds or fcntl is None:
            return
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            return  # unreadable folder: no lock (recovery then asks before removing anything)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    msg = f"another capzgen run is writing this folder; waited {self.wait:.0f} s"
                    raise InputOutputError(
                        msg,
                        location=Location(file=str(folder)),
                        hint="run again once the other run has finished",
                    ) from None
                time.sleep(_LOCK_POLL_SECONDS)
                continue
            except OSError:
                os.close(fd)  # the file system has no locks
                return
            self._fds[key] = fd
            return

    def holds(self, folder: Path) -> bool:
        """Whether this run holds ``folder``'s lock."""
        return os.path.realpath(folder) in self._fds

    def release(self) -> None:
        """Release every lock."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


def make_folder(root: Path) -> int:
    """Create ``root`` and missing parents; how many levels were created (0: it existed)."""
    missing = 0
    for folder in (Path(os.path.abspath(root)), *Path(os.path.abspath(root)).parents):
        if os.path.lexists(folder):
            break
        missing += 1
    try:
        make_folders(root)  # 0755 at most, whatever the umask
    except FileExistsError:
        msg = "output folder is a file"
        raise InputOutputError(msg, location=Location(file=str(root))) from None
    except OSError as exc:
        msg = f"cannot create the output folder: {reason(exc)}"
        raise InputOutputError(msg, location=Location(file=str(root))) from exc
    return missing


def fsync_dirs(folders: Iterable[Path]) -> None:
    """fsync each folder once, in parallel."""
    parallel(fsync_dir, list(dict.fromkeys(folders)))


SYNCFS_FROM = 16  # staging this many files or more: one syncfs instead of a fsync each


def sync_file_system(folder: Path) -> bool:
    """Flush everything written to ``folder``'s file system with one ``syncfs`` (Linux): for a
    thousand staged files far cheaper than a fsync each (0.16 s against 1.2 s for 8,000 small
    files here), and as durable. False when the platform has no syncfs or it fails: the caller
    then fsyncs file by file."""
    try:
        # lazy: ctypes costs a few ms of start-up; only large folder writes use it
        import ctypes

        # lazy: as above
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        syncfs = libc.syncfs
    except (OSError, AttributeError, TypeError):  # pragma: no cover - not glibc/Linux
        return False
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - the folder was just made by capzgen
        return False
    try:
        return bool(syncfs(fd) == 0)
    finally:
        os.close(fd)


def fsync_dir(folder: Path) -> None:
    """Make a folder's entries durable (new names, renames, removals)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):  # pragma: no cover - cannot open: skip
            return
        raise
    try:
        os.fsync(fd)
    except OSError as exc:  # some platforms and file systems cannot fsync a folder
        if exc.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP, errno.EACCES):
            raise
    finally:
        os.close(fd)


def parallel(function: Callable[[_T], None], items: Sequence[_T]) -> None:
    """Run ``function`` on every item, a few at a time (fsync waits on the disk); the first
    exception is raised after every call has finished."""
    if len(items) <= 1:
        for item in items:
            function(item)
        return
    # lazy: concurrent.futures costs ~5 ms of start-up, and a rerun that changes nothing needs none
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(_THREADS, len(items))) as pool:
        futures = [pool.submit(function, item) for item in items]
        try:
            for future in futures:
                future.result()
        except BaseException:
            for future in futures:
                future.cancel()  # a full disk: do not try the thousand others
            raise


def lstat(path: Path) -> os.stat_result | None:
    """``os.lstat``, or None when nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def unlink_if_present(path: Path) -> None:
    """Delete ``path`` if it is there."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def reason(exc: BaseException) -> str:
    """What went wrong, in a few words for a message."""
    if isinstance(exc, InputOutputError):
        return exc.message
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return type(exc).__name__


def io_error(exc: OSError, path: Path) -> InputOutputError:
    """A failed write as the domain error the CLI reports (exit 2)."""
    msg = f"cannot write: {reason(exc)}"
    return InputOutputError(msg, location=Location(file=str(path)))


def mode(target: Path, current: os.stat_result | None) -> int | None:
    """An existing file keeps its permissions (those of a symlink's target)."""
    if current is None:
        return None
    if stat.S_ISLNK(current.st_mode):
        try:
            current = os.stat(target)
        except OSError:
            return None
    return current.st_mode & 0o777


def touched_dirs(root: Path, staging: Path, steps: Sequence[Step]) -> list[Path]:
    """The folders a switch changes, to fsync them."""
    folders = {(root / step.path).parent for step in steps}
    return [*sorted(folders), staging / NEW_DIR, staging / OLD_DIR]


def stagings(folder: Path) -> list[Path]:
    """The staging folders of dead or live runs directly inside ``folder``."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                Path(entry.path)
                for entry in entries
                if STAGING.match(entry.name) and entry.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []  # no folder (yet), or unreadable: nothing of capzgen's to recover there


def check_owner_gone(staging: Path, owner: JsonObject, locks: Locks) -> None:
    """Raise unless the run that made ``staging`` has certainly ended (it held these locks)."""
    folder = staging.parent
    if locks.holds(folder) or locks.holds(folder.parent):
        return
    pid = owner.get("pid")
    if owner.get("host") == socket.gethostname() and isinstance(pid, int) and not running(pid):
        return
    msg = "another capzgen run may be writing here (this file system has no locks to tell)"
    raise InputOutputError(
        msg,
        location=Location(file=str(staging)),
        hint=f"if no capzgen run is writing this folder, delete {staging} and run again",
    )


def remove_legacy_tmp(folder: Path) -> None:
    """Remove ``.NAME.<12 hex>.tmp`` files a killed file-by-file write of capzgen left."""
    try:
        with os.scandir(folder) as entries:
            stray = [
                Path(entry.path)
                for entry in entries
                if LEGACY_TMP.match(entry.name) and entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        return
    for path in stray:
        with contextlib.suppress(OSError):
            path.unlink()


def remove_created(root: Path, levels: int) -> None:
    """Remove ``root`` and up to ``levels - 1`` folders above it, as long as they are empty."""
    folder = Path(os.path.abspath(root))
    for _ in range(levels):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
