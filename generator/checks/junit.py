"""Findings as JUnit XML, the test report most CI systems show without a plug-in.

A CI user reads a JUnit report as "which tests failed": a document is a test, an error finding
is its failure. The streaming validator does not keep the documents it checked, so the documents
without any finding are one passing test case that says how many there were (so ``tests``
counts the documents with findings, plus one), and the summary line is the suite's output.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from generator.checks.report import shown_findings
from generator.findings import Finding, summarize

SUITE = "capzgen"


def render_junit(findings: Sequence[Finding], documents: int) -> str:
    """One ``<testsuite>``: a test case per document with findings (classname the file, name
    ``Kind/name``), failing when any of its findings is an error, with warnings and info in its
    ``<system-out>``; then one passing case standing for the documents without findings."""
    cases = _by_document(shown_findings(findings))
    suite = ET.Element("testsuite", name=SUITE)
    failures = 0
    for (file, document), found in cases.items():
        name = _xml(_case_name(document, found))
        case = ET.SubElement(suite, "testcase", classname=_xml(file), name=name)
        errors = [finding for finding in found if finding.is_error]
        if errors:
            failures += 1
            ET.SubElement(
                case, "failure", message=_xml(errors[0].message), type=errors[0].rule
            ).text = _xml("\n".join(finding.to_text() for finding in errors))
        others = [finding for finding in found if not finding.is_error]
        if others:
            ET.SubElement(case, "system-out").text = _xml("\n".join(f.to_text() for f in others))
    clean = max(0, documents - len(cases))
    if clean:
        name = f"{clean} document{'s' if clean != 1 else ''} without findings"
        ET.SubElement(suite, "testcase", classname=SUITE, name=name)
    tests = len(cases) + (1 if clean else 0)
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    ET.SubElement(suite, "system-out").text = summarize(findings, documents)
    root = ET.Element("testsuites", name=SUITE, tests=str(tests), failures=str(failures))
    root.set("errors", "0")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _by_document(findings: Sequence[Finding]) -> dict[tuple[str, int | None], list[Finding]]:
    """Findings grouped by file and document, in report order (a finding of no document, such
    as an unreadable file's, is its file's own case)."""
    cases: dict[tuple[str, int | None], list[Finding]] = {}
    for finding in findings:
        cases.setdefault((finding.subject.file, finding.subject.document), []).append(finding)
    return cases


def _case_name(document: int | None, found: Sequence[Finding]) -> str:
    """``Kind/name`` of the document when known, else ``document N`` (1-based), else the file."""
    subject = found[0].subject
    if subject.kind or subject.name:
        return f"{subject.kind or '?'}/{subject.name or '?'}"
    if document is not None:
        return f"document {document + 1}"
    return "(file)"


# Characters XML 1.0 cannot hold even escaped (control characters a YAML value may carry).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """``text`` with what XML 1.0 cannot carry replaced, so a consumer can always parse it."""
    return _NOT_XML.sub("\ufffd", text)
