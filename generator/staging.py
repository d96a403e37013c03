"""Folder output, all or nothing: every file is staged first, then switched in by journaled renames.

Folder output (``--output-dir``, ``generate fleet``, ``release``) goes through
:func:`open_transaction`: whatever a command writes below its output folder (the *root*) ends up
either entirely there or not at all, even when the process is killed (``kill -9``, power loss) or
the disk fills up. Files the command does not change are never touched (their modification times
stay), and other files in the folder are left alone.

The protocol, and why each step is safe:

1. **Lock.** The run takes ``flock`` locks on the root and its parent folder (parent first; an
   open directory, so no lock file is ever left behind) and keeps them to the end. Runs writing the
   same folder, or a fleet folder and one of its cluster folders, take turns. A lock dies with its
   process, so ``kill -9`` leaves none behind.
2. **Recover.** Under those locks no staging folder in the root, in its parent or in a cluster
   folder below it can belong to a live run (its owner would hold one of them), so each one there
   is finished off: if it holds a journal (step 4) the interrupted switch is *rolled back* (step
   6), then the staging folder is removed. In the parent only a fleet's staging whose journal names
   this folder is ours to undo; the others are left to runs writing that folder. Temporary files of
   capzgen's earlier file-by-file writes (``.NAME.<12 hex>.tmp``) are removed too. Only then does
   the command read the folder (plan, look for conflicts), so it never mistakes a half-switched
   folder for edits.
3. **Stage.** Every new or changed file is written into ``ROOT/.capzgen-staging-<token>/new/<i>``
   (a folder that does not exist yet is staged whole, as one entry), with its final permissions,
   and fsynced; so are the staging folders. Nothing outside the staging folder has changed, so a
   failure (a full disk) or a kill here leaves the output as it was: the failing run removes its
   staging folder, and after a kill the next run does (step 2).
4. **Journal.** ``journal.json`` lists the renames in order: for entry ``i``, its path below the
   root, whether the old file is moved aside to ``old/<i>`` and whether ``new/<i>`` is moved in. It
   is written to a temporary name, fsynced and renamed, so it exists complete or not at all; its
   existence means "a switch may be under way".
5. **Switch.** For each entry in order: the old file (if any) is renamed to ``old/<i>``, then
   ``new/<i>`` is renamed to its place. Renames within one file system are atomic, so each entry is
   in one of three states, and which one can be read from where its files are. Then the changed
   folders are fsynced and the journal is removed: **that unlink is the commit**. Removing the
   staging folder (with the old files) afterwards is cleanup; a leftover is removed by step 2.
6. **Roll back** (an error or Ctrl-C during step 5 here, or the journal found by step 2): entries in
   reverse order: a ``new/<i>`` that is gone was moved in, so the file at its place goes back to
   ``new/<i>``; an ``old/<i>`` that exists goes back to its place. Each move depends only on which
   files exist, so a rollback that is itself interrupted is simply run again. The folders are
   fsynced before the journal is removed, and the journal is always removed before anything else
   in the staging folder: a rollback must never see ``new/<i>`` gone because it was deleted.

A journal therefore always means "undo": the folder holds the old content until the commit and the
new content after it, and the only mixed state is a switch in progress, which no later run can see
without first rolling it back. Staging inside the root keeps every rename on one file system; a
target folder on another file system (a symlink to elsewhere) is refused before anything moves.
Without ``flock`` (no ``fcntl``, or a file system that refuses locks), step 2 only recovers a
staging folder whose owner process, recorded in ``owner.json``, is known to be gone, and otherwise
asks the user to remove it. A run that creates the root (and missing parents) records that in
``owner.json``; a failed run removes them again when they are empty.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
import socket
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from generator.errors import InputOutputError, Location, YamlError
from generator.yamlio.load import load_json, read_source

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, see the module docstring
    fcntl = None  # type: ignore[assignment]

STAGING_PREFIX = ".capzgen-staging-"
JOURNAL_NAME = "journal.json"
OWNER_NAME = "owner.json"
NEW_DIR = "new"
OLD_DIR = "old"
JOURNAL_VERSION = 1
LOCK_WAIT_SECONDS = 60.0  # how long a run waits for another one writing the same folders
_LOCK_POLL_SECONDS = 0.05
_STAGING = re.compile(r"^\.capzgen-staging-[0-9a-f]{12}$")
_LEGACY_TMP = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")  # fsio.write_atomically's temporary files
_THREADS = 16  # fsync waits on the disk, not the CPU: overlap them

_T = TypeVar("_T")


# --- the journal ---------------------------------------------------------------------------------


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
    return _safe_relative(step.path) and isinstance(step.new, bool) and isinstance(step.old, bool)


def _safe_relative(text: Any) -> bool:
    if not isinstance(text, str) or not text or "\\" in text:
        return False
    path = PurePosixPath(text)
    return not path.is_absolute() and all(part not in ("", ".", "..") for part in path.parts)


# --- the transaction -----------------------------------------------------------------------------


class FolderTransaction:
    """Files to write or delete below one root folder, switched in all at once by :meth:`commit`.

    Obtained from :func:`open_transaction`, which holds the locks and has already finished any
    interrupted run; nothing on disk changes before :meth:`commit`.
    """

    def __init__(self, root: Path, created: int) -> None:
        self.root = root
        self.committed = False
        # Levels of the root (the root, its parent...) this run, or a dead one before it, made.
        self._created = created
        self._changes: dict[PurePosixPath, bytes | None] = {}
        self._staging: Path | None = None
        self._keep_staging = False  # a journal whose rollback failed: the next run needs it

    def write(self, path: Path, data: str | bytes) -> None:
        """Have ``path`` (below the root) hold ``data`` after the commit."""
        self._changes[self._relative(path)] = (
            data.encode("utf-8") if isinstance(data, str) else data
        )

    def delete(self, path: Path) -> None:
        """Have ``path`` (below the root) gone after the commit; a file already gone is fine."""
        self._changes[self._relative(path)] = None

    def _relative(self, path: Path) -> PurePosixPath:
        relative = PurePosixPath(*path.relative_to(self.root).parts)
        if not _safe_relative(relative.as_posix()):
            msg = f"{path} is not below {self.root}"
            raise ValueError(msg)
        return relative

    def commit(self) -> None:
        """Stage every change, then switch them in (module docstring, steps 3-6).

        Raises InputOutputError when a file cannot be written; the folder then holds exactly what
        it held before (or, if even undoing failed, the next run restores it).
        """
        if self.committed:
            msg = "transaction already committed"
            raise RuntimeError(msg)
        if not self._changes:
            self.committed = True
            return
        staging = self._make_staging()
        steps = self._stage(staging)
        _write_small_file(staging / JOURNAL_NAME, journal_text(steps), self.root)
        try:
            _switch(self.root, staging, steps)
            _fsync_dirs(_touched_dirs(self.root, staging, steps))
            _unlink(staging / JOURNAL_NAME)  # the commit
            _fsync_dir(staging)
        except BaseException as failure:
            try:
                roll_back(self.root, staging, steps)
            except BaseException as undo:
                self._keep_staging = True  # its journal tells the next run what to undo
                msg = (
                    f"cannot write ({_reason(failure)}), nor undo the partial write "
                    f"({_reason(undo)}); the next capzgen run writing this folder restores it"
                )
                raise InputOutputError(msg, location=Location(file=str(self.root))) from failure
            if isinstance(failure, OSError):
                raise _io_error(failure, self.root) from failure
            raise
        self.committed = True
        self._staging = None
        shutil.rmtree(staging, ignore_errors=True)  # a leftover is removed by the next run

    def discard(self) -> None:
        """Remove what an uncommitted transaction left: its staging folder, the folders it made.

        The journal goes first: until it is gone, the staging folder must stay whole (step 6
        reads where its files are).
        """
        if self._keep_staging:
            return
        if self._staging is not None:
            with contextlib.suppress(OSError):
                _unlink_if_present(self._staging / JOURNAL_NAME)
                shutil.rmtree(self._staging)
            self._staging = None
        remove_created(self.root, self._created)

    def _make_staging(self) -> Path:
        staging = self.root / f"{STAGING_PREFIX}{secrets.token_hex(6)}"
        try:
            os.mkdir(staging, 0o700)
        except OSError as exc:
            raise _io_error(exc, self.root) from exc
        self._staging = staging
        owner = {"created": self._created, "host": socket.gethostname(), "pid": os.getpid()}
        _write_small_file(staging / OWNER_NAME, json.dumps(owner) + "\n", self.root)
        for name in (NEW_DIR, OLD_DIR):
            try:
                os.mkdir(staging / name)
            except OSError as exc:
                raise _io_error(exc, self.root) from exc
        return staging

    def _stage(self, staging: Path) -> list[Step]:
        """Write every new file into ``staging/new`` and fsync it (step 3); the switch's steps."""
        steps: list[Step] = []
        jobs: list[tuple[Path, bytes, int | None, Path]] = []  # staged, data, mode, target
        folders: dict[Path, None] = dict.fromkeys([staging / NEW_DIR, staging / OLD_DIR, staging])
        whole: dict[PurePosixPath, int] = {}  # a folder that does not exist yet -> its step
        try:
            checked = _FolderCheck(self.root)
            for relative, data in self._changes.items():
                target = self.root / relative
                missing = checked.missing_folder(relative)
                if missing is not None:
                    if data is None:
                        continue  # below a folder that does not exist: nothing to delete
                    index = whole.get(missing)
                    if index is None:
                        index = whole[missing] = len(steps)
                        steps.append(Step(missing.as_posix(), new=True, old=False))
                    inner = relative.relative_to(missing)
                    base = staging / NEW_DIR / str(index)
                    for part in (PurePosixPath("."), *reversed(inner.parents[:-1])):
                        folder = base / part
                        if folder not in folders:
                            os.mkdir(folder)
                            folders[folder] = None
                    jobs.append((base / inner, data, None, target))
                    continue
                checked.same_file_system(relative.parent)
                current = _lstat(target)
                if current is not None and stat.S_ISDIR(current.st_mode):
                    msg = "cannot write: a folder is in the way"
                    raise InputOutputError(msg, location=Location(file=str(target)))
                if data is None:
                    if current is not None:
                        steps.append(Step(relative.as_posix(), new=False, old=True))
                    continue
                index = len(steps)
                steps.append(Step(relative.as_posix(), new=True, old=current is not None))
                jobs.append((staging / NEW_DIR / str(index), data, _mode(target, current), target))
        except OSError as exc:
            raise _io_error(exc, self.root) from exc
        _parallel(_stage_file, jobs)
        _fsync_dirs(folders)
        return steps


def _stage_file(job: tuple[Path, bytes, int | None, Path]) -> None:
    staged, data, mode, target = job
    try:
        write_new_file(staged, data, mode)
    except OSError as exc:
        raise _io_error(exc, target) from exc


def write_new_file(path: Path, data: bytes, mode: int | None) -> None:
    """Create ``path`` with ``data`` (mode ``mode``, else 0666 minus the umask) and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        if mode is not None:
            os.chmod(path, mode)
        os.fsync(handle.fileno())


def _mode(target: Path, current: os.stat_result | None) -> int | None:
    """An existing file keeps its permissions (those of a symlink's target)."""
    if current is None:
        return None
    if stat.S_ISLNK(current.st_mode):
        try:
            current = os.stat(target)
        except OSError:
            return None
    return current.st_mode & 0o777


class _FolderCheck:
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


# --- switching and undoing -----------------------------------------------------------------------


def _switch(root: Path, staging: Path, steps: Sequence[Step]) -> None:
    """Step 5: per entry, the old file aside, then the new one in."""
    for index, step in enumerate(steps):
        target = root / step.path
        try:
            if step.old:
                with contextlib.suppress(FileNotFoundError):  # gone meanwhile: nothing to keep
                    rename(target, staging / OLD_DIR / str(index))
            if step.new:
                rename(staging / NEW_DIR / str(index), target)
        except OSError as exc:
            raise _io_error(exc, target) from exc


def roll_back(root: Path, staging: Path, steps: Sequence[Step]) -> None:
    """Step 6: undo a switch that may have been interrupted anywhere, then remove its journal."""
    for index in reversed(range(len(steps))):
        step = steps[index]
        target = root / step.path
        new = staging / NEW_DIR / str(index)
        old = staging / OLD_DIR / str(index)
        if step.new and not os.path.lexists(new) and os.path.lexists(target):
            rename(target, new)  # ours: it was moved in
        if step.old and os.path.lexists(old):
            rename(old, target)
    _fsync_dirs(_touched_dirs(root, staging, steps))
    _unlink_if_present(staging / JOURNAL_NAME)
    _fsync_dir(staging)


def rename(source: Path, target: Path) -> None:
    """Every rename of a switch and of a rollback (a seam for the tests' failure injection)."""
    os.replace(source, target)


def _touched_dirs(root: Path, staging: Path, steps: Sequence[Step]) -> list[Path]:
    folders = {(root / step.path).parent for step in steps}
    return [*sorted(folders), staging / NEW_DIR, staging / OLD_DIR]


# --- opening: locks and recovery -----------------------------------------------------------------


@contextlib.contextmanager
def open_transaction(
    root: Path, *, subfolders: Iterable[Path] = (), create: bool = True
) -> Iterator[FolderTransaction]:
    """Lock ``root`` and its parent, finish interrupted runs (module docstring, steps 1-2) and yield
    a transaction; what it does not commit is discarded. ``subfolders`` are folders directly below
    the root that the command writes (a fleet's cluster folders): their leftovers are cleaned too.

    ``create`` makes the root (and missing parents) first; a run that fails removes them again
    if they are still empty.
    """
    created = make_folder(root) if create else 0
    locks = _Locks()
    transaction: FolderTransaction | None = None
    absolute = Path(os.path.abspath(root))
    try:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        for folder in (absolute.parent, absolute):
            if folder.is_dir():
                locks.take(folder, deadline)
        inherited = _recover(root, list(subfolders), locks)
        transaction = FolderTransaction(root, max(created, inherited))
        yield transaction
    finally:
        try:
            if transaction is None:
                if locks.holds(absolute) or fcntl is None:  # not while another run holds it
                    remove_created(root, created)
            elif not transaction.committed:
                transaction.discard()
        finally:
            locks.release()


def recover(root: Path, *, subfolders: Iterable[Path] = ()) -> None:
    """What every run writing ``root`` does first: undo an interrupted switch there, remove
    staging folders and temporary files killed runs left (module docstring, step 2)."""
    with open_transaction(root, subfolders=subfolders, create=False):
        pass


def _recover(root: Path, subfolders: Sequence[Path], locks: _Locks) -> int:
    """Recover every staging folder that concerns ``root``; how many levels of the root a dead
    run had created (so that this run removes them if it fails too)."""
    inherited = 0
    absolute = Path(os.path.abspath(root))
    for staging in _stagings(absolute.parent):
        # A fleet's staging in the folder above: ours only if its switch touched this folder.
        journal = staging / JOURNAL_NAME
        if os.path.lexists(journal) and any(
            PurePosixPath(step.path).parts[0] == absolute.name for step in read_journal(journal)
        ):
            _recover_staging(staging, absolute.parent, locks)
    for folder in (root, *subfolders):
        for staging in _stagings(folder):
            levels = _recover_staging(staging, folder, locks)
            if folder == root:
                inherited = max(inherited, levels)
            else:
                remove_created(folder, min(levels, 1))  # a cluster folder it made
        _remove_legacy_tmp(folder)
    return inherited


def _stagings(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            return sorted(
                Path(entry.path)
                for entry in entries
                if _STAGING.match(entry.name) and entry.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []  # no folder (yet), or unreadable: nothing of capzgen's to recover there


def _recover_staging(staging: Path, folder: Path, locks: _Locks) -> int:
    """Roll back and remove one staging folder of a dead run; the levels it had created."""
    owner = _read_owner(staging)
    _check_owner_gone(staging, owner, locks)
    journal = staging / JOURNAL_NAME
    try:
        if os.path.lexists(journal):
            roll_back(folder, staging, read_journal(journal))
        shutil.rmtree(staging)
    except OSError as exc:
        msg = f"cannot undo an interrupted capzgen write: {_reason(exc)}"
        raise InputOutputError(
            msg,
            location=Location(file=str(staging)),
            hint="fix the cause and run again; the folder holds its earlier content once undone",
        ) from exc
    created = owner.get("created", 0)
    return created if isinstance(created, int) and 0 <= created <= 64 else 0


def _read_owner(staging: Path) -> dict[str, Any]:
    try:
        data = load_json(read_source(str(staging / OWNER_NAME)), source=str(staging / OWNER_NAME))
    except (YamlError, InputOutputError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _check_owner_gone(staging: Path, owner: dict[str, Any], locks: _Locks) -> None:
    """Raise unless the run that made ``staging`` has certainly ended (it held these locks)."""
    folder = staging.parent
    if locks.holds(folder) or locks.holds(folder.parent):
        return
    pid = owner.get("pid")
    if owner.get("host") == socket.gethostname() and isinstance(pid, int) and not _running(pid):
        return
    msg = "another capzgen run may be writing here (this file system has no locks to tell)"
    raise InputOutputError(
        msg,
        location=Location(file=str(staging)),
        hint=f"if no capzgen run is writing this folder, delete {staging} and run again",
    )


def _running(pid: int) -> bool:
    if os.name != "posix":  # pragma: no cover - os.kill(pid, 0) would end the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove_legacy_tmp(folder: Path) -> None:
    """Remove ``.NAME.<12 hex>.tmp`` files a killed file-by-file write of capzgen left."""
    try:
        with os.scandir(folder) as entries:
            stray = [
                Path(entry.path)
                for entry in entries
                if _LEGACY_TMP.match(entry.name) and entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        return
    for path in stray:
        with contextlib.suppress(OSError):
            path.unlink()


class _Locks:
    """``flock`` locks on folders, held until :meth:`release` (or the process's end)."""

    def __init__(self) -> None:
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
                    msg = f"another capzgen run is writing this folder; waited {LOCK_WAIT_SECONDS:.0f} s"
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


# --- small helpers -------------------------------------------------------------------------------


def make_folder(root: Path) -> int:
    """Create ``root`` and missing parents; how many levels were created (0: it existed)."""
    missing = 0
    for folder in (Path(os.path.abspath(root)), *Path(os.path.abspath(root)).parents):
        if os.path.lexists(folder):
            break
        missing += 1
    try:
        root.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        msg = "output folder is a file"
        raise InputOutputError(msg, location=Location(file=str(root))) from None
    except OSError as exc:
        msg = f"cannot create the output folder: {_reason(exc)}"
        raise InputOutputError(msg, location=Location(file=str(root))) from exc
    return missing


def remove_created(root: Path, levels: int) -> None:
    """Remove ``root`` and up to ``levels - 1`` folders above it, as long as they are empty."""
    folder = Path(os.path.abspath(root))
    for _ in range(levels):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _write_small_file(path: Path, text: str, root: Path) -> None:
    """The owner record or the journal: complete (temporary name, fsync, rename) or absent."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        write_new_file(tmp, text.encode("utf-8"), None)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        raise _io_error(exc, root) from exc


def _fsync_dirs(folders: Iterable[Path]) -> None:
    _parallel(_fsync_dir, list(dict.fromkeys(folders)))


def _fsync_dir(folder: Path) -> None:
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


def _parallel(function: Callable[[_T], None], items: Sequence[_T]) -> None:
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


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _unlink(path: Path) -> None:
    os.unlink(path)


def _unlink_if_present(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, InputOutputError):
        return exc.message
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return type(exc).__name__


def _io_error(exc: OSError, path: Path) -> InputOutputError:
    msg = f"cannot write: {_reason(exc)}"
    return InputOutputError(msg, location=Location(file=str(path)))
