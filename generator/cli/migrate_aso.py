"""``capzgen migrate --aso-version VERSION FILE|DIR|-``: the CLI edge of moving ASO resources
between API versions (:mod:`generator.migrate.aso_move` does the moving).

Here the inputs are read (a folder walked without following symbolic links), the whole migrated
set is validated as ``capzgen validate`` would, and only then is anything written: to stdout, to
``--write-to``, or back into the files with ``--in-place`` (a folder in one transaction of
:mod:`generator.output.staging`, so a failure leaves every file as it was).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import click

from generator.checks.context import CheckOptions
from generator.cli.migrate_output import deliver, refuse
from generator.cli.report_options import ReportTarget, report_also
from generator.errors import CapzgenError, ExitCode, InputOutputError, Location, UsageError
from generator.findings import fails
from generator.migrate.aso_move import AsoMigration, MovedFile, move_versions
from generator.migrate.aso_target import parse_target
from generator.output.fsio import write_atomically
from generator.output.staging import open_transaction
from generator.schemastore.store import SchemaStore
from generator.validate.check import CheckReport, SourceText, check_sources
from generator.validate.kustomization import collect_inputs
from generator.yamlio.source import STDIN, STDIN_NAME, read_source

MAX_FILES = 10_000  # a GitOps repository holds hundreds; more is a mistaken folder


@dataclass(frozen=True)
class AsoRun:
    """What ``migrate --aso-version`` was asked: the one options value of this path."""

    source: str  # FILE, DIR or "-"
    versions: tuple[str, ...]  # the --aso-version words
    in_place: bool
    write_to: str | None
    json_output: bool
    store: SchemaStore
    checks: CheckOptions
    report: ReportTarget | None
    drop_removed: bool = False  # fields the target version lacks: dropped, else the move is refused


def run_aso_migration(run: AsoRun) -> int:
    """Read, move, validate, then write (or refuse: exit 1, nothing written)."""
    target = parse_target(run.versions)
    if run.in_place and (run.write_to or "").strip():
        msg = "--in-place and --write-to cannot be combined"
        raise UsageError(msg)
    sources, skipped = read_inputs(run.source, in_place=run.in_place)
    result = move_versions(sources, target, run.store)
    checked = _validate(result, run)
    report_also(run.report, checked.findings, None)
    notes = "".join(f"skipped: {line}\n" for line in skipped)
    notes += result.report()
    if result.dropped and not run.drop_removed:
        return _refuse_drops(len(result.dropped), notes)
    if fails(checked.findings, run.checks.fail_on):
        click.echo(notes, err=True, nl=False)
        return refuse(checked, [])
    notes += "".join(f"{f.to_text()}\n" for f in checked.findings)
    data = {**result.report_data(), "skipped": skipped} if run.json_output else None
    if not run.in_place:
        deliver(result.text(), run.write_to, notes, data)
        return 0
    written = write_in_place(run.source, result)
    if data is not None:
        click.echo(json.dumps({"written_in_place": written, **data}, indent=2, sort_keys=True))
    else:
        plural = "s" if written != 1 else ""
        notes += f"migrate --aso-version: {written} file{plural} written in place\n"
        click.echo(notes, err=True, nl=False)
    return 0


def _refuse_drops(count: int, notes: str) -> int:
    """Fields the user set would be lost: nothing is written unless --drop-removed says so."""
    click.echo(notes, err=True, nl=False)
    msg = (
        f"error: {count} field{'s' if count != 1 else ''} set in the input "
        f"{'have' if count != 1 else 'has'} no place in the target version (removed: above); "
        "nothing was written. Pass --drop-removed to drop them, or choose another version"
    )
    click.echo(msg, err=True)
    return int(ExitCode.INVALID)


def _validate(result: AsoMigration, run: AsoRun) -> CheckReport:
    """The whole migrated set, validated together as ``capzgen validate FILES...`` would."""
    # A rewritten file is validated as its new text: its findings' lines are of that text, so
    # they are not given the name of the file on disk, whose lines differ.
    texts = [
        SourceText(f"{f.name} (migrated)" if f.changed else f.name, f.output())
        for f in result.files
    ]
    return check_sources(
        texts, run.store, run.checks.validation, kubeconform=run.checks.kubeconform
    )


# --- reading ------------------------------------------------------------------------------------


def read_inputs(source: str, *, in_place: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """``(name, text)`` of every input file, and what was skipped inside a folder (and why).

    A folder's files are the ones ``capzgen validate`` reads there; one reached through a symbolic
    link is skipped, since writing it in place would replace the link or write outside what was
    named. A file named directly may be a link for reading, but not for ``--in-place``.
    """
    if source == STDIN:
        if in_place:
            msg = "--in-place needs a FILE or DIR, not standard input"
            raise UsageError(msg)
        return [(STDIN_NAME, read_source(STDIN))], []
    if os.path.isdir(source) and not os.path.islink(source):
        return _folder_inputs(source)
    if os.path.islink(source) and in_place:
        msg = (
            "a symbolic link; --in-place writes only the files it names, not what a link points to"
        )
        raise UsageError(msg, location=Location(file=source))
    if os.path.isdir(source):
        msg = "a symbolic link to a folder; name the folder itself"
        raise UsageError(msg, location=Location(file=source))
    return [(source, read_source(source))], []


def _folder_inputs(folder: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The files ``capzgen validate DIR`` reads (its kustomization.yaml decides, else every YAML
    file), less those reached through a symbolic link; what was skipped, and why."""
    found = collect_inputs(folder)
    skipped = [f"{f.subject.file}: {f.message}" for f in (*found.refused, *found.findings)]
    files: list[str] = []
    for path in found.files:
        link = _link_on_the_way(folder, path)
        if link is None:
            files.append(path)
        else:
            skipped.append(f"{link}: a symbolic link (not followed)")
    if len(files) > MAX_FILES:
        msg = f"more than {MAX_FILES} YAML files; name a smaller folder"
        raise UsageError(msg, location=Location(file=folder))
    if not files:
        msg = "no YAML files to migrate in this folder"
        raise UsageError(msg, location=Location(file=folder))
    return [(path, read_source(path)) for path in files], sorted(set(skipped))


def _link_on_the_way(folder: str, path: str) -> str | None:
    """The first symbolic link (or way out of ``folder``) on the way from ``folder`` to ``path``."""
    relative = os.path.relpath(path, folder)
    if relative.startswith(os.pardir):
        return path
    here = folder
    for part in relative.split(os.sep):
        here = os.path.join(here, part)
        if os.path.islink(here):
            return here
    return None


# --- writing ------------------------------------------------------------------------------------


def write_in_place(source: str, result: AsoMigration) -> int:
    """Write every changed file back; a folder's files are switched in together. Returns how
    many files were written."""
    changed = [f for f in result.files if f.changed]
    if not changed:
        return 0
    if os.path.isdir(source):
        root = Path(os.path.normpath(source))
        with open_transaction(root, create=False) as transaction:
            # The lock is held and an interrupted earlier run put back: a file that differs now
            # from what was read (edited meanwhile, or restored) would be overwritten blind.
            _unchanged_since_read(changed)
            for moved in changed:
                transaction.write(Path(os.path.normpath(moved.name)), moved.output())
            transaction.commit()
    else:
        (moved,) = changed
        _unchanged_since_read(changed)
        write_atomically(Path(source), moved.output())
    return len(changed)


def _unchanged_since_read(files: list[MovedFile]) -> None:
    """Refuse (exit 2, nothing written) when a file no longer holds the text it was read with."""
    for moved in files:
        try:
            now = read_source(moved.name)
        except CapzgenError:
            now = None
        if now != moved.original:
            msg = "changed since it was read; nothing was written: run the migration again"
            raise InputOutputError(msg, location=Location(file=moved.name))
