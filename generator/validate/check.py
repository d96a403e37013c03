"""Validating texts and files end to end: load, validate, and put line numbers on findings.

Documents from all inputs are validated together, because references cross files (a GitOps folder
holds one object per file). Line numbers are located only for documents that have findings, so a
clean run never pays for the slower position-aware parse.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.errors import InputOutputError, YamlError
from generator.findings import Finding, sort_findings, summarize
from generator.schemastore.types import SchemaLookup
from generator.validate.inputs import (
    expand_paths,
    read_error_finding,
    yaml_error_finding,
)
from generator.yamlio.load import load_documents, read_source
from generator.yamlio.locate import LineLocator

if TYPE_CHECKING:
    from generator.kubeconform.process import KubeconformOptions
    from generator.kubeconform.report import KubeconformResult

log = logging.getLogger(__name__)


@dataclass
class SourceText:
    """One input to validate: a display name for findings (a path or ``<stdin>``) and its text."""

    name: str
    text: str


class CheckReport:
    """What validating a set of inputs produced: documents, sorted findings, kubeconform's notes
    (a plain class: imported before the workers fork, where a dataclass cost ~0.4 ms)."""

    __slots__ = ("counted_documents", "documents", "findings", "notes")

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self.findings: list[Finding] = []
        self.notes: list[str] = []  # problems of a second opinion (kubeconform)
        self.counted_documents = 0  # documents validated without being kept in ``documents``

    @property
    def document_count(self) -> int:
        """How many documents held something (empty documents are not counted)."""
        return self.counted_documents + sum(1 for d in self.documents if d.obj is not None)

    @property
    def has_errors(self) -> bool:
        """Whether any finding is an error (warnings alone do not fail a run)."""
        return any(f.is_error for f in self.findings)

    def summary(self) -> str:
        """The one-line count of documents, errors and warnings that ends a validation."""
        return summarize(self.findings, self.document_count)


def check_sources(
    sources: Sequence[SourceText],
    store: SchemaLookup | None,
    options: ValidationOptions,
    *,
    kubeconform: KubeconformOptions | None = None,
) -> CheckReport:
    """Validate ``sources`` together; with ``kubeconform``, merge kubeconform's findings too."""
    report = CheckReport()
    texts: dict[str, str] = {}
    for source in sources:
        texts[source.name] = source.text
        try:
            report.documents.extend(load_documents(source.text, source=source.name))
        except YamlError as error:
            report.findings.append(yaml_error_finding(error, source.name))
    log.info("validating %d documents", report.document_count)
    if kubeconform is None:
        findings = validate_documents(report.documents, store, options)
    else:
        # lazy: the kubeconform wrapper costs ~6 ms of start-up; only --kubeconform loads it
        from generator.kubeconform.process import start_kubeconform

        with start_kubeconform(report.documents, store, kubeconform) as pending:
            findings = validate_documents(report.documents, store, options)  # meanwhile
            findings += second_opinion(report, pending.finish(), options)
    report.findings = sort_findings([*report.findings, *with_lines(findings, texts)])
    return report


def check_paths(
    paths: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
) -> CheckReport:
    """Validate files, folders (recursively *.yaml, *.yml, *.json) and ``-`` (stdin), all held
    in memory together: the reference the streaming validator (:mod:`generator.validate.stream`,
    what ``capzgen validate`` runs) is tested against.

    A folder holding a ``kustomization.yaml`` is read through it: its ``resources`` decide what is
    validated, and the kustomization file itself is not (:mod:`generator.validate.kustomization`).
    A file that cannot be read is a finding for that file and the others are still checked:
    binary or oversized content, a permission problem, a dangling symlink, and, inside a folder,
    anything that is not a regular file (a FIFO or device there would block or never end; one
    named on the command line, such as ``<(kubectl get ...)``, is read as given).
    """
    inputs, unreadable = expand_paths(paths)
    sources: list[SourceText] = []
    for name, label in inputs:
        try:
            sources.append(SourceText(label, read_source(name)))
        except (YamlError, InputOutputError) as error:
            unreadable.append(read_error_finding(error, label))
    report = check_sources(sources, store, options)
    report.findings = sort_findings([*unreadable, *report.findings])
    return report


def second_opinion(
    report: CheckReport, result: KubeconformResult, options: ValidationOptions
) -> list[Finding]:
    """kubeconform's findings (rules the user disabled are dropped from them too); problems with
    kubeconform itself become the report's notes, logged as one warning line each."""
    for note in result.notes:
        log.warning("%s", note)
    report.notes.extend(result.notes)
    return [f for f in result.findings if f.rule not in options.disabled_rules]


def with_lines(findings: Sequence[Finding], texts: dict[str, str]) -> list[Finding]:
    """``findings`` with the line each names, found in the texts of their files."""
    locators: dict[str, LineLocator] = {}
    located = []
    for finding in findings:
        subject = finding.subject
        text = texts.get(subject.file)
        if finding.line is not None or text is None or subject.document is None:
            located.append(finding)
            continue
        locator = locators.get(subject.file)
        if locator is None:
            locator = locators[subject.file] = LineLocator(text)
        located.append(replace(finding, line=locator.line_of(subject.document, finding.path)))
    return located
