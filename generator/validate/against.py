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
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from generator.checks import ValidationOptions
from generator.checks.update import document_identity, validate_changes
from generator.documents import Document
from generator.errors import InputOutputError, Location, UsageError, YamlError
from generator.findings import Finding, Operation, Severity, sort_findings
from generator.jsontypes import dig
from generator.schemastore.types import SchemaLookup
from generator.validate.check import CheckReport, SourceText, check_sources, with_lines
from generator.validate.inputs import Inputs, collect_inputs, read_error_finding
from generator.validate.kustomization import InputRules
from generator.yamlio.load import load_documents
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import STDIN, decode_source

if TYPE_CHECKING:
    from generator.checks.update import Key
    from generator.history.revision import OldFile

RATCHETED = ("schema", "cel")  # the API server's own checks, which ratchet on update


def old_sources(
    against: str,
    paths: Sequence[str],
    rules: InputRules,
    environ: Mapping[str, str],
) -> list[SourceText]:
    """The old revision's texts: OLD_PATH's files when ``against`` exists, else the files under
    each PATH at the git revision ``against``. Anything that cannot be read is an error (exit 2):
    comparing with half of the old revision would call kept objects new."""
    if os.path.lexists(against):
        return _from_path(against, rules)
    if STDIN in paths:
        msg = f"--against {against}: standard input has no git history; name OLD_PATH instead"
        raise UsageError(msg)
    texts: dict[str, str] = {}
    for path in paths:
        for old in _revision_files(Path(path), against, environ):
            texts.setdefault(old.display, decode_source(old.data, old.display))
    return [SourceText(name, text) for name, text in texts.items()]


def _revision_files(path: Path, rev: str, environ: Mapping[str, str]) -> tuple[OldFile, ...]:
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
        msg = f"--against: {first.message}"
        raise InputOutputError(msg, location=Location(file=first.subject.file))
    sources = []
    for path, name in zip(inputs.paths, inputs.names, strict=True):
        sources.append(SourceText(name, inputs.read(path)))
    return sources


def check_against(
    inputs: Inputs,
    old: Sequence[SourceText],
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
    old_documents, problems = _parse(old)
    changes = validate_changes(report.documents, old_documents, store, options)
    texts = {source.name: source.text for source in (*sources, *old)}
    located = [_old_line(f, texts) for f in with_lines(changes, texts)]
    created = _ratchet(report.findings, report.documents, old_documents)
    report.findings = sort_findings([*unreadable, *problems, *created, *located])
    return report


def _parse(old: Sequence[SourceText]) -> tuple[list[Document], list[Finding]]:
    documents: list[Document] = []
    problems: list[Finding] = []
    for source in old:
        try:
            documents.extend(load_documents(source.text, source=source.name))
        except YamlError as error:
            problems.append(
                replace(read_error_finding(error, source.name), operation=Operation.UPDATE)
            )
    return documents, problems


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
