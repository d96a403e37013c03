"""Findings per file are capped in both reports (issue 24): a file with more findings than
``ReportLimits.findings_per_file`` shows that many, then one "and N more" finding, still an error;
the summary counts every finding."""

from __future__ import annotations

import json

from generator.checks.report import (
    MORE_RULE,
    REPORT_LIMITS,
    ReportLimits,
    render_json,
    render_text,
    shown_findings,
)
from generator.findings import Finding, Severity, Subject, sort_findings


def bad(file: str, index: int, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(severity, "schema", f"value {index} is wrong", Subject(file, 0), ("l", index))


def test_the_default_cap_is_a_thousand_a_file() -> None:
    assert REPORT_LIMITS.findings_per_file == 1_000


def test_a_file_over_the_cap_shows_the_cap_then_one_more_finding_per_file() -> None:
    findings = sort_findings(
        [bad("a.yaml", i) for i in range(7)]
        + [bad("b.yaml", i) for i in range(2)]
        + [bad("c.yaml", i, Severity.WARNING) for i in range(5)]
    )
    shown = shown_findings(findings, ReportLimits(findings_per_file=3))
    assert [(f.subject.file, f.rule) for f in shown] == [
        *[("a.yaml", "schema")] * 3,
        ("a.yaml", MORE_RULE),
        *[("b.yaml", "schema")] * 2,
        *[("c.yaml", "schema")] * 3,
        ("c.yaml", MORE_RULE),
    ]
    more_a, more_c = shown[3], shown[-1]
    assert more_a.severity is Severity.ERROR
    assert more_a.message.startswith("and 4 more findings in this file not shown (4 errors, 0 ")
    assert more_c.severity is Severity.WARNING  # only warnings left out


def test_the_text_report_is_bounded_and_the_summary_counts_everything() -> None:
    findings = [bad("m.yaml", i) for i in range(200_000)]
    text = render_text(findings, 1, ReportLimits(findings_per_file=10))
    lines = text.splitlines()
    assert len(lines) == 12
    assert "and 199,990 more findings in this file not shown" in lines[10]
    assert lines[-1] == "1 document checked: 200000 errors, 0 warnings"


def test_the_json_report_is_capped_the_same_way() -> None:
    findings = [bad("m.yaml", i) for i in range(50)]
    payload = json.loads(render_json(findings, 1, ReportLimits(findings_per_file=5)))
    assert len(payload["findings"]) == 6
    assert payload["findings"][-1]["rule"] == MORE_RULE
    assert payload["summary"]["errors"] == 50


def test_a_report_under_the_cap_is_unchanged() -> None:
    findings = [bad("m.yaml", i) for i in range(5)]
    assert shown_findings(findings, ReportLimits(findings_per_file=5)) == findings
