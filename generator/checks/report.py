"""Rendering of findings for people (text) and for tools (JSON); the rule table
(``--list-rules``, docs/rules.md) is :mod:`generator.checks.rule_table`, so that rendering a
report does not load the rule registry (a ``-j N`` run's parent never loads it).

Both renderings show at most :attr:`ReportLimits.findings_per_file` findings of each file, the
rest replaced by one "and N more" finding of that file (an error when any of the rest is one), so
a file with millions of bad values prints a report of bounded size. The summary line and the JSON
counts still count every finding, and the run's exit code is decided on all of them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from generator.errors import CapzgenError
from generator.findings import Finding, Gate, Severity, Subject, hint_lines, summarize


@dataclass(frozen=True, slots=True)
class ReportLimits:
    """How much of a run's findings a report shows."""

    findings_per_file: int = 1_000


REPORT_LIMITS = ReportLimits()
MORE_RULE = "more-findings"


def shown_findings(
    findings: Sequence[Finding], limits: ReportLimits = REPORT_LIMITS
) -> list[Finding]:
    """``findings`` in their order, at most ``limits.findings_per_file`` of each file; the rest of
    a file is one "and N more" finding placed after that file's last one shown."""
    cap = limits.findings_per_file
    seen: dict[str, int] = {}
    left_out: dict[str, list[int]] = {}  # file -> [errors, warnings, info, admission] not shown
    last: dict[str, int] = {}  # file -> index in ``shown`` of its last finding shown
    shown: list[Finding] = []
    for finding in findings:
        file = finding.subject.file
        count = seen.get(file, 0)
        seen[file] = count + 1
        if count < cap:
            last[file] = len(shown)
            shown.append(finding)
        else:
            tally = left_out.setdefault(file, [0, 0, 0, 0])
            tally[_TALLY[finding.severity]] += 1
            tally[3] += finding.gate is Gate.ADMISSION
    for file in sorted(left_out, key=last.__getitem__, reverse=True):
        errors, warnings, infos, admission = left_out[file]
        shown.insert(last[file] + 1, _more(file, (errors, warnings, infos, admission), cap))
    return shown


_TALLY = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _more(file: str, counts: tuple[int, int, int, int], cap: int) -> Finding:
    """The finding that stands for those not shown (``counts``: errors, warnings, info and how
    many of them are admission findings). Its gate is admission when any of them is (the apply
    would be refused), else provisioning, as all of them are."""
    errors, warnings, infos, admission = counts
    severity = Severity.ERROR if errors else Severity.WARNING if warnings else Severity.INFO
    info = f", {infos:,} info" if infos else ""
    return Finding(
        severity,
        MORE_RULE,
        f"and {errors + warnings + infos:,} more findings in this file not shown ({errors:,} "
        f"errors, {warnings:,} warnings{info}; {admission:,} admission): a report shows the "
        f"first {cap:,} findings of each file",
        Subject(file),
        gate=Gate.ADMISSION if admission else Gate.PROVISIONING,
        why=None if admission else "every finding not shown is a provisioning one",
    )


def render_text(
    findings: Sequence[Finding], documents: int, limits: ReportLimits = REPORT_LIMITS
) -> str:
    """The text report: one line per finding (at most ``limits.findings_per_file`` a file),
    each distinct hint once, then the summary line, which counts every finding."""
    shown = shown_findings(findings, limits)
    lines = [finding.to_text() for finding in shown]
    lines.extend(hint_lines(shown))
    lines.append(summarize(findings, documents))
    return "\n".join(lines) + "\n"


def render_json(
    findings: Sequence[Finding], documents: int, limits: ReportLimits = REPORT_LIMITS
) -> str:
    """The JSON report: the findings (see :meth:`Finding.to_json`; at most
    ``limits.findings_per_file`` a file) and a summary counting every finding."""
    errors = sum(1 for finding in findings if finding.is_error)
    infos = sum(1 for finding in findings if finding.severity is Severity.INFO)
    payload = {
        "findings": [finding.to_json() for finding in shown_findings(findings, limits)],
        "summary": {
            "documents": documents,
            "errors": errors,
            "warnings": len(findings) - errors - infos,
            "info": infos,
            "text": summarize(findings, documents),
        },
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def render_error_json(error: CapzgenError) -> str:
    """The JSON report of a run that stopped before validating (usage or I/O error, exit 2):
    the same shape as :func:`render_json`, no findings, and the error."""
    location = error.location
    payload = {
        "error": {
            "message": error.message,
            "file": location.file if location else None,
            "line": location.line if location else None,
            "details": list(error.details),
            "hint": error.hint,
            "exit_code": int(error.exit_code),
        },
        "findings": [],
        "summary": {
            "documents": 0,
            "errors": 0,
            "warnings": 0,
            "info": 0,
            "text": f"Error: {error}",
        },
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"
