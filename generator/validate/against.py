"""``validate PATH --against REV|OLD_PATH``: the new revision checked as an update of the old one.

The new files get every create check, as without ``--against`` (:func:`check_sources`, serially
and in memory: comparing two revisions needs both whole, and correctness comes before the
streaming run's speed). The old files are read from a git revision of the repository holding
each PATH (:func:`generator.history.revision.read_revision`) or from OLD_PATH, and the update and
delete rules run on the two (:func:`generator.checks.update.validate_changes`). The API server's
ratcheting is applied to the create findings: a schema or CEL error on a value that did not change
since the old revision does not stop an update, so it is reported as info, not as an error.

Whether ``--against`` names a path or a revision: a file or folder that exists is OLD_PATH;
anything else is a revision (``./main`` names a folder, ``main^0`` the branch).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from generator.checks import ValidationOptions
from generator.checks.update import document_identity, validate_changes
from generator.documents import Document
from generator.errors import CapzgenError, InputOutputError, Location, UsageError, YamlError
from generator.findings import Finding, Severity, sort_findings
from generator.jsontypes import dig
from generator.schemastore.types import SchemaLookup
from generator.validate.check import CheckReport, SourceText, check_sources, with_lines
from generator.validate.inputs import (
    Inputs,
    collect_inputs,
    read_error_finding,
    unreadable_finding,
)
from generator.validate.kustomization import InputRules
from generator.yamlio.load import load_documents
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import STDIN, decode_source

if TYPE_CHECKING:
    from generator.checks.update import Key
    from generator.history.revision import Revision

RATCHETED = ("schema", "cel")  # the API server's own checks, which ratchet on update


@dataclass(frozen=True)
class OldSide:
    """The old revision as read: its texts (by display name), their documents, and warnings
    about the reading (a PATH that did not exist at REV, links not read)."""

    sources: tuple[SourceText, ...]
    documents: tuple[Document, ...]
    notes: tuple[Finding, ...] = ()


def old_sources(
    against: str,
    paths: Sequence[str],
    rules: InputRules,
    environ: Mapping[str, str],
) -> OldSide:
    """The old revision: OLD_PATH's files when ``against`` exists, else the files under each
    PATH at the git revision ``against``. Anything that cannot be read or parsed is an error
    (exit 2) naming the place: comparing with half of the old revision would call kept objects
    new."""
    if os.path.lexists(against):
        return _parsed(against, _from_path(against, rules), ())
    if STDIN in paths:
        msg = f"--against {against}: standard input has no git history; name OLD_PATH instead"
        raise UsageError(msg)
    texts: dict[str, str] = {}
    notes: list[Finding] = []
    for path in paths:
        revision = _revision_files(Path(path), against, environ)
        notes.extend(_revision_notes(path, against, revision))
        for old in revision.files:
            if old.display not in texts:
                texts[old.display] = _old_text(old.data, old.display, against)
    sources = [SourceText(name, text) for name, text in texts.items()]
    return _parsed(against, sources, tuple(notes))


def _revision_notes(path: str, rev: str, revision: Revision) -> list[Finding]:
    """Warnings on reading ``path`` at ``rev``: it held nothing then (so every object is new,
    which the run must not pass over in silence), or links were set aside unread."""
    notes = [
        unreadable_finding(link, f"not read: symbolic link at {link}", Severity.WARNING)
        for link in revision.links
    ]
    if not revision.existed:
        message = f"{path} did not exist at {rev}; every object is checked as new"
        notes.append(unreadable_finding(path, message, Severity.WARNING))
    return notes


def _old_text(data: bytes, name: str, against: str) -> str:
    try:
        return decode_source(data, name)
    except YamlError as error:
        raise old_input_error(error, against) from None


def old_input_error(error: CapzgenError, against: str) -> InputOutputError:
    """An old file that cannot be read or parsed, as the input error (exit 2) naming its place
    and the ``--against`` value: the old side is input, not something to validate."""
    return InputOutputError(
        f"--against {against}: {error.message}", location=error.location, hint=error.hint
    )


def _parsed(against: str, sources: Sequence[SourceText], notes: tuple[Finding, ...]) -> OldSide:
    documents: list[Document] = []
    for source in sources:
        try:
            documents.extend(load_documents(source.text, source=source.name))
        except YamlError as error:
            raise old_input_error(error, against) from None
    return OldSide(tuple(sources), tuple(documents), notes)


def _revision_files(path: Path, rev: str, environ: Mapping[str, str]) -> Revision:
    # lazy: only --against REV runs git
    from generator.history.revision import NotARepository, UnknownRevision, read_revision

    try:
        return read_revision(path, rev, environ=environ)
    except (NotARepository, UnknownRevision) as error:
        msg = (
            f"--against {rev}: no such file or folder, and not a revision of a git "
            f"repository holding {path} ({error.message})"
        )
        hint = "name an existing OLD_PATH, or a commit, branch or tag"
        raise UsageError(msg, hint=hint) from None


def _from_path(against: str, rules: InputRules) -> list[SourceText]:
    inputs = collect_inputs([against], rules)
    if inputs.failures:
        first = inputs.failures[0]
        msg = f"--against {against}: {first.message}"
        raise InputOutputError(msg, location=Location(file=first.subject.file))
    sources = []
    for path, name in zip(inputs.paths, inputs.names, strict=True):
        try:
            sources.append(SourceText(name, inputs.read(path)))
        except (YamlError, InputOutputError) as error:
            raise old_input_error(error, against) from None
    return sources


def check_against(
    inputs: Inputs,
    old: OldSide,
    store: SchemaLookup | None,
    options: ValidationOptions,
) -> CheckReport:
    """The create checks of the new files, ratcheted, and the update and delete findings."""
    sources: list[SourceText] = []
    unreadable = list(inputs.unreadable)
    for path, name in zip(inputs.paths, inputs.names, strict=True):
        try:
            sources.append(SourceText(name, inputs.read(path)))
        except (YamlError, InputOutputError) as error:
            unreadable.append(read_error_finding(error, name))
    report = check_sources(sources, store, options)
    changes = validate_changes(report.documents, list(old.documents), store, options)
    texts = {source.name: source.text for source in (*sources, *old.sources)}
    located = with_old_lines(changes, texts)
    created = _ratchet(report.findings, report.documents, old.documents)
    report.findings = sort_findings([*unreadable, *old.notes, *created, *located])
    return report


def with_old_lines(findings: Sequence[Finding], texts: Mapping[str, str]) -> list[Finding]:
    """Update and delete findings with their lines, in the new text and in the old one."""
    return [_old_line(finding, texts) for finding in with_lines(findings, dict(texts))]


def _old_line(finding: Finding, texts: Mapping[str, str]) -> Finding:
    place = finding.old
    if place is None or place.document is None or place.file not in texts:
        return finding
    line = LineLocator(texts[place.file]).line_of(place.document, place.path)
    return replace(finding, old=replace(place, line=line))


def _ratchet(
    findings: Sequence[Finding], new: Sequence[Document], old: Sequence[Document]
) -> list[Finding]:
    """Schema and CEL errors on values equal to the old revision's, as info: the API server
    does not check an unchanged value again on update (CRD validation ratcheting)."""
    before: dict[Key, object] = {}
    for document in old:
        key = document_identity(document)
        if key is not None:
            before.setdefault(key, document.obj)
    by_place = {(d.source, d.index): d.obj for d in new}
    out = []
    for finding in findings:
        subject = finding.subject
        obj = by_place.get((subject.file, subject.document if subject.document is not None else -1))
        key = document_identity(Document(subject.file, 0, obj)) if obj is not None else None
        if (
            finding.is_error
            and finding.rule in RATCHETED
            and key in before
            and finding.path
            and dig(obj, *finding.path) == dig(before[key], *finding.path)
        ):
            finding = replace(
                finding,
                severity=Severity.INFO,
                message=f"{finding.message} (unchanged since the old revision: the API server "
                "does not check it again on update)",
            )
        out.append(finding)
    return out
