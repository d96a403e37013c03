"""Folder walks without recursion, to a bounded depth.

``os.walk`` recurses (on Python 3.11), so a folder tree a few thousand levels deep ends in a
``RecursionError``; the walks of capzgen's inputs (``validate`` folders, schema folders) use
:func:`walk_folders` instead: an explicit stack, names sorted, hidden entries skipped, folder
links listed but not followed (no cycles), and a tree deeper than ``max_depth`` levels below the
folder named is an :class:`~generator.errors.InputOutputError` naming the first folder too deep.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Final

from generator.errors import InputOutputError, Location

MAX_FOLDER_DEPTH: Final = 64
"""Deepest folder read below a folder named on the command line. Real trees (GitOps repositories,
schema caches by group and kind) are under ten levels deep."""


def too_deep(folder: str, max_depth: int) -> InputOutputError:
    """The error for ``folder``, the first folder found more than ``max_depth`` levels down."""
    msg = f"folders nested more than {max_depth} levels deep; not read"
    return InputOutputError(
        msg,
        location=Location(file=folder),
        hint=f"capzgen reads folders up to {max_depth} levels below the folder named",
    )


def ignore(_error: OSError) -> None:
    """An ``onerror`` that skips a folder that cannot be listed, as ``os.walk`` does."""


def _listed(folder: str, skip_hidden: bool) -> tuple[list[str], list[str], set[str]]:
    """The sub-folders, files and links to folders of ``folder``, sorted (may raise OSError)."""
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    dirs: list[str] = []
    files: list[str] = []
    links: set[str] = set()
    for entry in entries:
        if skip_hidden and entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            dirs.append(entry.name)
            if entry.is_symlink():
                links.add(entry.name)
        else:
            files.append(entry.name)
    return dirs, files, links


class _Seen:
    """The real folders a walk that follows links has entered (a link loop ends there)."""

    def __init__(self) -> None:
        self.folders: set[tuple[int, int]] = set()

    def first_visit(self, folder: str) -> bool:
        """Whether ``folder`` (its real folder) is entered now for the first time."""
        info = os.stat(folder)
        key = (info.st_dev, info.st_ino)
        if key in self.folders:
            return False
        self.folders.add(key)
        return True


def walk_folders(
    top: str,
    *,
    max_depth: int = MAX_FOLDER_DEPTH,
    onerror: Callable[[OSError], None] | None = None,
    skip_hidden: bool = True,
    follow_links: bool = False,
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(folder, sub-folder names, file names)`` of every folder below ``top``, top-down, in
    sorted order, like ``os.walk(top)`` with hidden names left out (unless not ``skip_hidden``).

    As with ``os.walk``, the caller may prune the sub-folder list in place; a link to a folder is
    listed among the sub-folders but not entered, unless ``follow_links`` (then every real folder
    is entered once, so a link loop ends). A folder that cannot be listed goes to ``onerror``
    (and is skipped) or, without it, raises its ``OSError``.
    """
    stack: list[tuple[str, int]] = [(top, 0)]
    seen = _Seen()
    while stack:
        folder, depth = stack.pop()
        try:
            if follow_links and not seen.first_visit(folder):
                continue
            dirs, files, links = _listed(folder, skip_hidden)
        except OSError as error:
            if onerror is None:
                raise
            onerror(error)
            continue
        yield folder, dirs, files
        below = [name for name in dirs if follow_links or name not in links]
        if below and depth + 1 > max_depth:
            raise too_deep(os.path.join(folder, below[0]), max_depth)
        stack.extend((os.path.join(folder, name), depth + 1) for name in reversed(below))
