"""The GitOps drift check (``generate fleet --check``, ``generate cluster --output-dir --check``):
what writing would change in the output folders, as a unified diff, with nothing written.

A repository's CI renders its fleet again and fails when the committed folders differ from what
capzgen would write: a hand edit, a stale render after a flavor change, a file deleted by
mistake. The comparison is the write plan's own (:func:`generator.output.gitops.plan_directory`),
made with ``force`` so that an edited file shows as a difference instead of stopping the check.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.output.gitops import MANIFEST_NAME, WritePlan
from generator.output.staging_support import STAGING_PREFIX

MAX_DIFF_LINES = 2_000  # of one file's diff: a folder rewritten from scratch is not a review


@dataclass(frozen=True)
class Drift:
    """What differs: files to write (new or changed), files to delete, folders whose manifest
    alone is stale, an interrupted write left in a folder, and the diff to show."""

    changed: tuple[str, ...]
    removed: tuple[str, ...]
    manifests: tuple[str, ...]
    pending: tuple[str, ...]
    diff: tuple[str, ...]

    @property
    def found(self) -> bool:
        """Whether writing would change anything."""
        return bool(self.changed or self.removed or self.manifests or self.pending)

    def describe(self) -> str:
        """``N files differ, R would be removed`` (or ``no drift``), for the closing line."""
        if not self.found:
            return "no drift: every file is what capzgen would write"
        parts = [f"{len(self.changed)} file{'s' if len(self.changed) != 1 else ''} differ"]
        if self.removed:
            parts.append(f"{len(self.removed)} would be removed")
        if self.manifests:
            parts.append(f"{len(self.manifests)} stale {MANIFEST_NAME}")
        if self.pending:
            parts.append(f"{len(self.pending)} interrupted write(s) pending")
        return ", ".join(parts)


def drift_of(plans: Sequence[WritePlan], roots: Sequence[Path] = ()) -> Drift:
    """The drift the ``plans`` describe (made with ``force``), and interrupted writes left in
    ``roots`` (a staging folder the next write completes or undoes)."""
    changed: list[str] = []
    removed: list[str] = []
    manifests: list[str] = []
    diff: list[str] = []
    for plan in plans:
        for name, text in sorted(plan.writes.items()):
            path = plan.directory / name
            changed.append(str(path))
            diff.extend(_file_diff(path, _current(path), text))
        for name in sorted(plan.deletes):
            path = plan.directory / name
            removed.append(str(path))
            diff.extend(_file_diff(path, _current(path), ""))
        if plan.manifest is not None and not plan.writes and not plan.deletes:
            manifests.append(str(plan.directory / MANIFEST_NAME))
    pending = [str(path) for root in roots for path in _staging_folders(root)]
    return Drift(tuple(changed), tuple(removed), tuple(manifests), tuple(pending), tuple(diff))


def _current(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def _file_diff(path: Path, old: str, new: str) -> Iterator[str]:
    """The unified diff of one file (git's ``a/`` and ``b/`` labels), clipped."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{path}" if old else "/dev/null",
            tofile=f"b/{path}" if new else "/dev/null",
        )
    )
    for line in lines[:MAX_DIFF_LINES]:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
    if len(lines) > MAX_DIFF_LINES:
        yield f"... {len(lines) - MAX_DIFF_LINES} more diff lines of {path}\n"


def _staging_folders(root: Path) -> list[Path]:
    try:
        return sorted(p for p in root.iterdir() if p.name.startswith(STAGING_PREFIX))
    except OSError:
        return []
