"""Step 2 of :mod:`generator.output.staging`: finishing off the staging folders of dead runs.

Every path here is below the real output folder (its symbolic links resolved when the run
started); a subfolder reached through a link is not capzgen's to recover, and every journal's
steps are confined to the folder before anything moves (``undo`` is
:func:`generator.output.staging.roll_back`, which refuses a step crossing a link).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath

from generator.errors import InputOutputError, Location
from generator.output.staging_support import (
    JOURNAL_NAME,
    Locks,
    Step,
    check_owner_gone,
    lstat,
    read_journal,
    read_owner,
    reason,
    remove_created,
    remove_legacy_tmp,
    stagings,
    symlink_on_the_way,
)

Undo = Callable[[Path, Path, Sequence[Step]], None]  # (folder, staging folder, steps)


def real_subfolders(root: Path, real: Path, subfolders: Iterable[Path]) -> list[Path]:
    """``subfolders`` (below ``root``) as folders below its real path ``real``; one that is
    reached through a symbolic link is left out: its staging folders are not capzgen's to undo
    (and nothing is written through a link)."""
    found = []
    base = Path(os.path.abspath(root))
    for folder in subfolders:
        try:
            relative = Path(os.path.abspath(folder)).relative_to(base)
        except ValueError:
            continue
        if not relative.parts:
            continue
        path = PurePosixPath(*relative.parts, "entry").as_posix()
        info = lstat(real / relative)
        if symlink_on_the_way(real, path) is None and (info is None or stat.S_ISDIR(info.st_mode)):
            found.append(real / relative)
    return found


def recover_folders(
    root: Path, subfolders: Sequence[Path], locks: Locks, undo: Undo
) -> tuple[int, int]:
    """Recover every staging folder that concerns ``root``; how many levels of the root a dead
    run had created (so that this run removes them if it fails too), and how many interrupted
    switches were rolled back."""
    inherited = 0
    undone = 0
    absolute = root  # already real (open_transaction)
    for staging in stagings(absolute.parent):
        # A fleet's staging in the folder above: ours only if its switch touched this folder.
        journal = staging / JOURNAL_NAME
        if os.path.lexists(journal) and any(
            PurePosixPath(step.path).parts[0] == absolute.name for step in read_journal(journal)
        ):
            recover_staging(staging, absolute.parent, locks, undo)
            undone += 1
    for folder in (root, *subfolders):
        for staging in stagings(folder):
            undone += os.path.lexists(staging / JOURNAL_NAME)
            levels = recover_staging(staging, folder, locks, undo)
            if folder == root:
                # only the root itself: a planted owner record must not make a failing run
                # remove (empty) folders above the one the user named
                inherited = max(inherited, min(levels, 1))
            else:
                remove_created(folder, min(levels, 1))  # a cluster folder it made
        remove_legacy_tmp(folder)
    return inherited, undone


def recover_staging(staging: Path, folder: Path, locks: Locks, undo: Undo) -> int:
    """Roll back and remove one staging folder of a dead run; the levels it had created."""
    owner = read_owner(staging)
    check_owner_gone(staging, owner, locks)
    journal = staging / JOURNAL_NAME
    try:
        if os.path.lexists(journal):
            undo(folder, staging, read_journal(journal))
        shutil.rmtree(staging)
    except OSError as exc:
        msg = f"cannot undo an interrupted capzgen write: {reason(exc)}"
        raise InputOutputError(
            msg,
            location=Location(file=str(staging)),
            hint="fix the cause and run again; the folder holds its earlier content once undone",
        ) from exc
    created = owner.get("created", 0)
    return created if isinstance(created, int) and 0 <= created <= 64 else 0
