"""Findings as SARIF 2.1.0, the format GitHub code scanning (and other CI tools) reads.

A pure function of the findings: what makes the log useful in a pull request is that each result
points at a file in the repository (a URI relative to ``%SRCROOT%``, never an absolute one, which
code scanning refuses), names a rule the log also describes, and carries a fingerprint that stays
the same while the finding does, so an alert is not closed and opened again when lines move.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from generator import __version__
from generator.checks.report import shown_findings
from generator.checks.rule_table import rule_rows
from generator.findings import Finding, Operation, Severity, clip, format_path
from generator.jsontypes import JsonObject

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "capzgen/v1"
_DESCRIPTION_LIMIT = 900  # code scanning keeps at most 1,024 characters of a description
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def render_sarif(
    findings: Sequence[Finding], *, root: Path | None = None, information_uri: str | None = None
) -> JsonObject:
    """A SARIF log of one run: every finding shown (as the text report, at most so many a file)
    as a result, and every rule that appears described from the rule registry. File names are
    made relative to ``root`` (default: the working directory), the repository root in CI."""
    base = Path.cwd() if root is None else root
    shown = shown_findings(findings)
    rule_ids = list(dict.fromkeys(finding.rule for finding in shown))
    driver: JsonObject = {
        "name": "capzgen",
        "version": __version__,
        "rules": [_rule(rule_id) for rule_id in rule_ids],
    }
    if information_uri:
        driver["informationUri"] = information_uri
    index = {rule_id: number for number, rule_id in enumerate(rule_ids)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {SRCROOT: {"description": {"text": "The repository root"}}},
                "results": [_result(finding, index[finding.rule], base) for finding in shown],
                "columnKind": "unicodeCodePoints",
            }
        ],
    }


def _rule(rule_id: str) -> JsonObject:
    """One rule's descriptor: its description from the registry (a rule outside it, such as a
    kubeconform finding's or the fleet rules, is described by its id) and its default level."""
    rows = _rule_table()
    severity, gate, why, text = rows.get(rule_id, (Severity.WARNING, "", None, rule_id))
    short = clip(text.split(". ")[0], _DESCRIPTION_LIMIT)
    properties: JsonObject = {"gate": gate} if gate else {}
    if why:
        properties["why"] = why
    rule: JsonObject = {
        "id": rule_id,
        "name": rule_id,
        "shortDescription": {"text": short},
        "fullDescription": {"text": clip(text, _DESCRIPTION_LIMIT)},
        "help": {"text": f"{text} (gate: {gate})" if gate else text},
        "defaultConfiguration": {"level": _LEVELS[severity]},
    }
    if properties:
        rule["properties"] = properties
    return rule


def _rule_table() -> dict[str, tuple[Severity, str, str | None, str]]:
    """Every registered rule by id: severity, gate, who fails it later, description."""
    return {row[0]: row[1:] for row in rule_rows()}


def _result(finding: Finding, rule_index: int, root: Path) -> JsonObject:
    """One finding as a result: the message names the object and the path (a code scanning
    alert shows the message alone), the location the file and line."""
    subject = finding.subject
    text = f"{subject.label()}: {finding.display_path or '(object)'}: {finding.message}"
    text += finding.operation_label()  # on --against: [update] (was HEAD~1:file:line)
    if finding.hint:
        text += f" (hint: {finding.hint})"
    physical: JsonObject = {
        "artifactLocation": {"uri": artifact_uri(subject.file, root), "uriBaseId": SRCROOT}
    }
    if finding.line is not None:
        physical["region"] = {"startLine": finding.line}
    properties: JsonObject = {"gate": finding.gate.value, "object": subject.label()}
    if finding.operation is not Operation.CREATE:
        properties["operation"] = finding.operation.value
    if finding.why:
        properties["why"] = finding.why
    if finding.path:
        properties["path"] = format_path(finding.path)
    if finding.origin != "capzgen":
        properties["origin"] = finding.origin
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": _LEVELS[finding.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT: fingerprint(finding)},
        "properties": properties,
    }


def artifact_uri(file: str, root: Path) -> str:
    """``file`` as a relative URI reference under ``root``: a path outside it keeps its ``..``
    steps, a name such as ``<stdin>`` is percent-encoded; never absolute."""
    if file.startswith("<"):
        relative = file
    else:  # a relative name is relative to the working directory, as the user gave it
        relative = os.path.relpath(os.path.abspath(file), os.path.abspath(root))
    # a name the file system gave as bytes that are not UTF-8 (decoded with surrogateescape)
    # is percent-encoded as those very bytes
    return quote(Path(relative).as_posix(), safe="/-._~", errors="surrogateescape")


def fingerprint(finding: Finding) -> str:
    """A digest of what the finding is (rule, file, object, path, message), without its line:
    the same finding keeps its fingerprint when lines are added above it."""
    subject = finding.subject
    parts = (
        finding.rule,
        subject.file,
        subject.label(),
        format_path(finding.path),
        finding.message,
    )
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:32]
