"""Findings as GitHub Actions workflow commands: annotations on the pull request's files.

``::error file=...,line=...,title=...::message`` printed by a step becomes an annotation at that
line without uploading anything, which is what a repository without code scanning can use. The
runner reads ``%``, CR and LF as escapes in the message, and ``:`` and ``,`` too in a property,
so each is escaped, or a message with a newline would end the command half-way.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.checks.report import shown_findings
from generator.findings import Finding, Severity, summarize

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """A command's message as the runner reads it back (``%``, CR and LF escaped)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (file, title) as the runner reads it back: also ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(finding: Finding) -> str:
    """One finding as ``::error``/``::warning``/``::notice``, with the line when it is known."""
    properties = [f"file={escape_property(finding.subject.file)}"]
    if finding.line is not None:
        properties.append(f"line={finding.line}")
    properties.append(f"title={escape_property(f'{finding.rule} [{finding.gate.value}]')}")
    subject = finding.subject
    text = f"{subject.label()}: {finding.display_path or '(object)'}: {finding.message}"
    text += finding.operation_label()  # on --against: [update] (was HEAD~1:file:line)
    if finding.why:
        text += f" (provisioning: {finding.why})"
    if finding.hint:
        text += f"\nhint: {finding.hint}"
    return f"::{_COMMANDS[finding.severity]} {','.join(properties)}::{escape_data(text)}"


def render_github(findings: Sequence[Finding], documents: int) -> str:
    """A command for every finding shown (at most so many a file), then the summary line as a
    plain log line."""
    lines = [workflow_command(finding) for finding in shown_findings(findings)]
    lines.append(summarize(findings, documents))
    return "\n".join(lines) + "\n"
