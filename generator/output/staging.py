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

**Confinement.** Everything happens in the folder the root resolves to when the run starts (a
root that is a symbolic link is resolved once: a failed run removes its own staging folder there
even if the link changes meanwhile). No step may cross a symbolic link below it: a target folder
that is a link is refused before staging, and a journal found on disk (which a cloned repository
may have planted) is refused whole, before anything moves, when a step's path crosses a link or
its staging folder's ``new``/``old`` are links (exit 2, naming the journal and the step). A
subfolder that is a link is not recovered (:mod:`generator.output.recovery`).

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
import json
import os
import secrets
import shutil
import socket
import stat
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath

from generator.errors import InputOutputError, Location
from generator.output.fsio import FILE_MODE, FOLDER_MODE, PRIVATE_FILE_MODE, file_mode
from generator.output.recovery import real_subfolders, recover_folders
from generator.output.staging_support import (
    JOURNAL_NAME,
    LOCK_WAIT_SECONDS,
    NEW_DIR,
    OLD_DIR,
    OWNER_NAME,
    STAGING_PREFIX,
    SYNCFS_FROM,
    FolderCheck,
    Locks,
    Step,
    confine_steps,
    fsync_dir,
    fsync_dirs,
    io_error,
    journal_text,
    locks_available,
    lstat,
    make_folder,
    mode,
    parallel,
    read_journal,
    reason,
    remove_created,
    safe_relative,
    symlink_on_the_way,
    sync_file_system,
    touched_dirs,
    unlink_if_present,
)

# --- the journal ---------------------------------------------------------------------------------


# --- the transaction -----------------------------------------------------------------------------


class FolderTransaction:
    """Files to write or delete below one root folder, switched in all at once by :meth:`commit`.

    Obtained from :func:`open_transaction`, which holds the locks and has already finished any
    interrupted run; nothing on disk changes before :meth:`commit`.
    """

    def __init__(self, root: Path, created: int, *, real: Path | None = None) -> None:
        self.root = root  # as the caller names it (paths given to write/delete are below it)
        # Where the root resolved when the run started: every file is staged, switched and
        # removed there, even if a symbolic link on the way is changed meanwhile.
        self.real = real if real is not None else Path(os.path.realpath(root))
        self.committed = False
        # Levels of the root (the root, its parent...) this run, or a dead one before it, made.
        self._created = created
        self._changes: dict[PurePosixPath, bytes | None] = {}
        self._staging: Path | None = None
        self._keep_staging = False  # a journal whose rollback failed: the next run needs it
        # Interrupted switches this run rolled back when it opened: anything read from the
        # folder before that (a fleet's unchanged clusters) may have been read half-switched.
        self.undone = 0

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
        if not safe_relative(relative.as_posix()):
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
            _switch(self.real, staging, steps)
            fsync_dirs(touched_dirs(self.real, staging, steps))
            remove_journal(staging / JOURNAL_NAME)  # the commit
            fsync_dir(staging)
        except BaseException as failure:
            try:
                roll_back(self.real, staging, steps)
            except BaseException as undo:
                self._keep_staging = True  # its journal tells the next run what to undo
                msg = (
                    f"cannot write ({reason(failure)}), nor undo the partial write "
                    f"({reason(undo)}); the next capzgen run writing this folder restores it"
                )
                raise InputOutputError(msg, location=Location(file=str(self.root))) from failure
            if isinstance(failure, OSError):
                raise io_error(failure, self.root) from failure
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
                unlink_if_present(self._staging / JOURNAL_NAME)
                shutil.rmtree(self._staging)
            self._staging = None
        remove_created(self.real, self._created)

    def _make_staging(self) -> Path:
        staging = self.real / f"{STAGING_PREFIX}{secrets.token_hex(6)}"
        try:
            os.mkdir(staging, 0o700)
        except OSError as exc:
            raise io_error(exc, self.root) from exc
        self._staging = staging
        owner = {"created": self._created, "host": socket.gethostname(), "pid": os.getpid()}
        _write_small_file(staging / OWNER_NAME, json.dumps(owner) + "\n", self.root)
        for name in (NEW_DIR, OLD_DIR):
            try:
                os.mkdir(staging / name)
            except OSError as exc:
                raise io_error(exc, self.root) from exc
        return staging

    def _stage(self, staging: Path) -> list[Step]:
        """Write every new file into ``staging/new`` and fsync it (step 3); the switch's steps."""
        steps: list[Step] = []
        jobs: list[_Job] = []
        folders: dict[Path, None] = dict.fromkeys([staging / NEW_DIR, staging / OLD_DIR, staging])
        whole: dict[PurePosixPath, int] = {}  # a folder that does not exist yet -> its step
        try:
            checked = FolderCheck(self.real)
            for relative, data in self._changes.items():
                missing = checked.missing_folder(relative)
                if missing is None:
                    job = self._stage_in_place(staging, relative, data, steps, checked)
                elif data is not None:  # below a missing folder there is nothing to delete
                    job = self._stage_in_new_folder(
                        staging, relative, missing, data, (steps, whole, folders)
                    )
                else:
                    job = None
                if job is not None:
                    jobs.append(job)
        except OSError as exc:
            raise io_error(exc, self.root) from exc
        if len(jobs) >= SYNCFS_FROM:
            for job in jobs:  # no waiting on the disk here: threads would only add overhead
                _stage_file_unsynced(job)
            if sync_file_system(staging):  # files and folders alike, with one call
                return steps
            parallel(_sync_staged, jobs)
        else:
            parallel(_stage_file, jobs)
        fsync_dirs(folders)
        return steps

    def _stage_in_new_folder(
        self,
        staging: Path,
        relative: PurePosixPath,
        missing: PurePosixPath,
        data: bytes,
        state: tuple[list[Step], dict[PurePosixPath, int], dict[Path, None]],
    ) -> _Job:
        """A file below a folder that does not exist yet: the whole folder is staged as one step
        and moved in with one rename."""
        steps, whole, folders = state
        index = whole.get(missing)
        if index is None:
            index = whole[missing] = len(steps)
            steps.append(Step(missing.as_posix(), new=True, old=False))
        inner = relative.relative_to(missing)
        base = staging / NEW_DIR / str(index)
        for part in (PurePosixPath("."), *reversed(inner.parents[:-1])):
            folder = base / part
            if folder not in folders:
                os.mkdir(folder, FOLDER_MODE)
                folders[folder] = None
        return (base / inner, data, file_mode(None, data), self.real / relative)

    def _stage_in_place(
        self,
        staging: Path,
        relative: PurePosixPath,
        data: bytes | None,
        steps: list[Step],
        checked: FolderCheck,
    ) -> _Job | None:
        """A file in an existing folder: its step (write, replace or delete) and, to write, its
        staging job."""
        target = self.real / relative
        checked.same_file_system(relative.parent)
        current = lstat(target)
        if current is not None and stat.S_ISDIR(current.st_mode):
            msg = "cannot write: a folder is in the way"
            raise InputOutputError(msg, location=Location(file=str(target)))
        if data is None:
            if current is not None:
                steps.append(Step(relative.as_posix(), new=False, old=True))
            return None
        index = len(steps)
        steps.append(Step(relative.as_posix(), new=True, old=current is not None))
        existing = mode(target, current)
        return (staging / NEW_DIR / str(index), data, file_mode(existing, data), target)


_Job = tuple[Path, bytes, int | None, Path]  # staged file, data, mode, target


def _stage_file(job: _Job) -> None:
    staged, data, mode, target = job
    try:
        write_new_file(staged, data, mode)
    except OSError as exc:
        raise io_error(exc, target) from exc


def _stage_file_unsynced(job: _Job) -> None:
    staged, data, mode, target = job
    try:
        write_new_file(staged, data, mode, sync=False)
    except OSError as exc:
        raise io_error(exc, target) from exc


def _sync_staged(job: _Job) -> None:
    staged, _data, _mode, target = job
    try:
        fd = os.open(staged, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:  # pragma: no cover - syncfs is there wherever this runs
        raise io_error(exc, target) from exc


def write_new_file(path: Path, data: bytes, mode: int | None, *, sync: bool = True) -> None:
    """Create ``path`` with ``data`` (mode ``mode``, else 0644 minus the umask: never group- or
    world-writable) and, unless the caller flushes the whole file system afterwards (``sync``
    False), fsync it. A file with a mode is private until its chmod."""
    create = FILE_MODE if mode is None else PRIVATE_FILE_MODE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, create)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        if mode is not None:
            os.chmod(path, mode)
        if sync:
            os.fsync(handle.fileno())


# --- switching and undoing -----------------------------------------------------------------------


def _switch(root: Path, staging: Path, steps: Sequence[Step]) -> None:
    """Step 5: per entry, the old file aside, then the new one in."""
    for index, step in enumerate(steps):
        target = root / step.path
        crossing = symlink_on_the_way(root, step.path)
        if crossing is not None:  # a link made since the step was planned: never written through
            msg = f"cannot write: {crossing} became a symbolic link (or not a folder)"
            raise InputOutputError(msg, location=Location(file=str(root / crossing)))
        try:
            if step.old:
                with contextlib.suppress(FileNotFoundError):  # gone meanwhile: nothing to keep
                    rename(target, staging / OLD_DIR / str(index))
            if step.new:
                rename(staging / NEW_DIR / str(index), target)
        except OSError as exc:
            raise io_error(exc, target) from exc


def roll_back(root: Path, staging: Path, steps: Sequence[Step]) -> None:
    """Step 6: undo a switch that may have been interrupted anywhere, then remove its journal.

    ``root`` is a real folder (no symbolic link left in it); a step whose path crosses a link
    below it, or a staging folder whose ``new``/``old`` are links, is refused before anything
    moves (:func:`confine_steps`): a journal found on disk may have been planted."""
    confine_steps(root, staging, steps, staging / JOURNAL_NAME)
    for index in reversed(range(len(steps))):
        step = steps[index]
        target = root / step.path
        new = staging / NEW_DIR / str(index)
        old = staging / OLD_DIR / str(index)
        if step.new and not os.path.lexists(new) and os.path.lexists(target):
            rename(target, new)  # ours: it was moved in
        if step.old and os.path.lexists(old):
            rename(old, target)
    fsync_dirs(touched_dirs(root, staging, steps))
    unlink_if_present(staging / JOURNAL_NAME)
    fsync_dir(staging)


def rename(source: Path, target: Path) -> None:
    """Every rename of a switch and of a rollback (a seam for the tests' failure injection)."""
    os.replace(source, target)


# --- opening: locks and recovery -----------------------------------------------------------------


@contextlib.contextmanager
def open_transaction(
    root: Path,
    *,
    subfolders: Iterable[Path] = (),
    create: bool = True,
    lock_wait: float = LOCK_WAIT_SECONDS,
) -> Iterator[FolderTransaction]:
    """Lock ``root`` and its parent, finish interrupted runs (module docstring, steps 1-2) and yield
    a transaction; what it does not commit is discarded. ``subfolders`` are folders directly below
    the root that the command writes (a fleet's cluster folders): their leftovers are cleaned too.

    ``create`` makes the root (and missing parents) first; a run that fails removes them again
    if they are still empty. ``lock_wait`` is how long to wait for another run writing there.
    """
    created = make_folder(root) if create else 0
    locks = Locks(lock_wait)
    transaction: FolderTransaction | None = None
    # Every rename, unlink and removal happens in the folder the root resolves to now.
    absolute = Path(os.path.realpath(root))
    try:
        deadline = time.monotonic() + lock_wait
        for folder in (absolute.parent, absolute):
            if folder.is_dir():
                locks.take(folder, deadline)
        inside = real_subfolders(root, absolute, subfolders)
        inherited, undone = recover_folders(absolute, inside, locks, roll_back)
        transaction = FolderTransaction(root, max(created, inherited), real=absolute)
        transaction.undone = undone
        yield transaction
    finally:
        try:
            if transaction is None:
                if locks.holds(absolute) or not locks_available():  # not while another run holds it
                    remove_created(absolute, created)
            elif not transaction.committed:
                transaction.discard()
        finally:
            locks.release()


def recover(
    root: Path, *, subfolders: Iterable[Path] = (), lock_wait: float = LOCK_WAIT_SECONDS
) -> None:
    """What every run writing ``root`` does first: undo an interrupted switch there, remove
    staging folders and temporary files killed runs left (module docstring, step 2)."""
    with open_transaction(root, subfolders=subfolders, create=False, lock_wait=lock_wait):
        pass


# --- small helpers -------------------------------------------------------------------------------


def _write_small_file(path: Path, text: str, root: Path) -> None:
    """The owner record or the journal: complete (temporary name, fsync, rename) or absent."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        write_new_file(tmp, text.encode("utf-8"), None)
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except OSError as exc:
        raise io_error(exc, root) from exc


def remove_journal(path: Path) -> None:
    """Remove a staging folder's journal: the commit point of a switch (a seam of its own, so a
    test can kill a run exactly there)."""
    os.unlink(path)


__all__ = [
    "JOURNAL_NAME",
    "STAGING_PREFIX",
    "FolderTransaction",
    "Step",
    "open_transaction",
    "read_journal",
    "recover",
    "rename",
    "roll_back",
    "write_new_file",
]
