"""The report formats every command that reports findings offers, by name.

Kept apart from :mod:`generator.checks.report`, and loading each renderer only when it is asked
for, so that a command can offer the option without loading the rule registry at start-up, and
the text report does not load what only CI asks for (SARIF, JUnit XML, workflow commands).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from generator.findings import Finding

REPORT_FORMATS = ("text", "json", "sarif", "junit", "github")
"""``text`` for people, ``json`` for scripts, ``sarif`` for code scanning, ``junit`` for a CI
test report, ``github`` for annotations through GitHub Actions workflow commands."""


def render_report(
    fmt: str, findings: Sequence[Finding], documents: int, *, root: Path | None = None
) -> str:
    """``findings`` (of ``documents`` checked) in the format named ``fmt``; ``root`` is what
    SARIF file names are relative to (default: the working directory)."""
    # lazy: the report module loads the rule registry; a command offering the option need not
    from generator.checks.report import render_json, render_text

    if fmt == "json":
        return render_json(findings, documents)
    if fmt == "sarif":
        # lazy: only a CI run asks for SARIF (and the rule registry's descriptions)
        from generator.checks.sarif import render_sarif

        return json.dumps(render_sarif(findings, root=root), indent=2) + "\n"
    if fmt == "junit":
        # lazy: only a CI run asks for JUnit XML, and ElementTree costs start-up time
        from generator.checks.junit import render_junit

        return render_junit(findings, documents)
    if fmt == "github":
        # lazy: only a GitHub Actions run asks for workflow commands
        from generator.checks.workflow_commands import render_github

        return render_github(findings, documents)
    return render_text(findings, documents)
