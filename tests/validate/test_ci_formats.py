"""The CI report formats, each read back by what reads it in CI: SARIF by the OASIS schema (and
GitHub code scanning's documented requirements), JUnit XML by junitparser and ElementTree,
workflow commands by the runner's own unescaping rules."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from junitparser import Failure, JUnitXml

from generator.checks.formats import REPORT_FORMATS, render_report
from generator.checks.junit import render_junit
from generator.checks.rule_table import rule_rows
from generator.checks.sarif import artifact_uri, fingerprint, render_sarif
from generator.checks.workflow_commands import escape_data, escape_property, render_github
from generator.findings import Finding, Gate, Severity, Subject
from tests.validate.test_report import windows_pool_name

SCHEMAS = Path(__file__).parents[1] / "data" / "schemastore"

DOC = Subject(file="clusters/c.yaml", document=1, kind="AzureASOManagedMachinePool", name="pool0")
EMBEDDED = DOC.embedded(
    ("spec", "resources", 0), {"kind": "ManagedClustersAgentPool", "metadata": {"name": "p"}}
)
OTHER = Subject(file="clusters/d,e:f.yaml", document=0, kind="Cluster", name="demo")
FINDINGS = [
    windows_pool_name(EMBEDDED),
    Finding(Severity.ERROR, "schema", "100% wrong:\nsecond line, too", DOC, ("spec",), line=3),
    Finding(
        Severity.WARNING,
        "CAPZ-AZURE-REGION",
        "'westeurop' is not an Azure public region",
        OTHER,
        ("spec", "location"),
        line=7,
        gate=Gate.PROVISIONING,
        why="ARM refuses an unknown location",
    ),
    Finding(Severity.INFO, "admission", "the webhook sets spec.version", OTHER),  # no line
]


@pytest.fixture(scope="module")
def sarif_schema() -> Any:
    return json.loads((SCHEMAS / "sarif-2.1.0.json").read_text())


# --- SARIF ---------------------------------------------------------------------------------------


def test_sarif_is_valid_and_has_what_code_scanning_needs(sarif_schema: Any) -> None:
    log = render_sarif(FINDINGS, root=Path.cwd())
    jsonschema_rs.validate(sarif_schema, log)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "capzgen"
    assert [rule["id"] for rule in driver["rules"]] == [
        "CAPZ-POOL-NAME",
        "schema",
        "CAPZ-AZURE-REGION",
        "admission",
    ]
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["properties"]["gate"]
    results = run["results"]
    assert [r["level"] for r in results] == ["error", "error", "warning", "note"]
    for result in results:  # GitHub: ruleId, message text, a location with a relative uri
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert not re.match(r"^[a-z]+:|/", artifact["uri"])  # no scheme, not absolute
        assert len(result["partialFingerprints"]["capzgen/v1"]) == 32
    first = results[0]
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 12}
    assert first["properties"] == {
        "gate": "provisioning",
        "why": "AKS refuses the pool name",
        "object": "AzureASOManagedMachinePool/pool0 > ManagedClustersAgentPool/p",
        "path": "spec.resources[0].spec.azureName",
    }
    assert "region" not in results[3]["locations"][0]["physicalLocation"]  # no line known
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "clusters/d%2Ce%3Af.yaml"
    )


def test_sarif_rule_descriptions_come_from_the_registry() -> None:
    rows = {row[0]: row for row in rule_rows()}
    rules = render_sarif(FINDINGS)["runs"][0]["tool"]["driver"]["rules"]
    region = next(rule for rule in rules if rule["id"] == "CAPZ-AZURE-REGION")
    assert region["fullDescription"]["text"] == rows["CAPZ-AZURE-REGION"][4]
    assert region["properties"] == {"gate": "provisioning", "why": rows["CAPZ-AZURE-REGION"][3]}
    assert region["defaultConfiguration"] == {"level": "warning"}


def test_sarif_without_findings_is_valid(sarif_schema: Any) -> None:
    log = render_sarif([])
    jsonschema_rs.validate(sarif_schema, log)
    assert log["runs"][0]["results"] == []


def test_a_broken_sarif_log_fails_the_schema(sarif_schema: Any) -> None:
    """The schema check has teeth: a result without its message is refused."""
    log = render_sarif(FINDINGS)
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema_rs.ValidationError):
        jsonschema_rs.validate(sarif_schema, log)


def test_fingerprints_ignore_the_line_and_tell_findings_apart() -> None:
    moved = [
        Finding(f.severity, f.rule, f.message, f.subject, f.path, line=(f.line or 0) + 5)
        for f in FINDINGS
    ]
    assert [fingerprint(f) for f in FINDINGS] == [fingerprint(f) for f in moved]
    assert len({fingerprint(f) for f in FINDINGS}) == len(FINDINGS)


def test_uris_are_relative_to_the_root(tmp_path: Path) -> None:
    assert artifact_uri(str(tmp_path / "a" / "b c.yaml"), tmp_path) == "a/b%20c.yaml"
    assert artifact_uri(str(tmp_path / "x.yaml"), tmp_path / "sub") == "../x.yaml"
    assert artifact_uri("<stdin>", tmp_path) == "%3Cstdin%3E"
    # a name whose bytes are not UTF-8 (as the file system gives it): those very bytes
    assert artifact_uri(str(tmp_path / os.fsdecode(b"\xfe.yaml")), tmp_path) == "%FE.yaml"


def test_a_file_name_that_is_not_utf8_has_a_fingerprint() -> None:
    subject = Subject(file=os.fsdecode(b"clusters/\xfe.yaml"), document=0, kind="Cluster")
    finding = Finding(Severity.ERROR, "schema", "bad", subject, ("spec",))
    assert len(fingerprint(finding)) == 32


# --- JUnit XML -----------------------------------------------------------------------------------


def test_junit_is_read_by_junitparser(tmp_path: Path) -> None:
    path = tmp_path / "report.xml"
    path.write_text(render_junit(FINDINGS, documents=5))
    xml = JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (3, 1, 0, 0)
    cases = {(case.classname, case.name): case for case in suite}
    assert set(cases) == {
        ("clusters/c.yaml", "AzureASOManagedMachinePool/pool0"),
        ("clusters/d,e:f.yaml", "Cluster/demo"),
        ("capzgen", "3 documents without findings"),
    }
    failing = cases["clusters/c.yaml", "AzureASOManagedMachinePool/pool0"]
    failures = [result for result in failing.result if isinstance(result, Failure)]
    assert [f.type for f in failures] == ["CAPZ-POOL-NAME"]
    assert "second line, too (schema)" in (failures[0].text or "")
    warned = cases["clusters/d,e:f.yaml", "Cluster/demo"]
    assert warned.is_passed and "CAPZ-AZURE-REGION" in (warned.system_out or "")


def test_junit_is_read_by_elementtree() -> None:
    root = ET.fromstring(render_junit(FINDINGS, documents=2))
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    assert len(suite.findall("testcase")) == 2  # every document has a finding
    assert [f.get("type") for f in suite.iter("failure")] == ["CAPZ-POOL-NAME"]


def test_junit_without_findings_passes_and_survives_control_characters(tmp_path: Path) -> None:
    path = tmp_path / "clean.xml"
    path.write_text(render_junit([], documents=4))
    suite = next(iter(JUnitXml.fromfile(str(path))))
    assert (suite.tests, suite.failures) == (1, 0)
    odd = Finding(Severity.ERROR, "yaml", "bad \x00\x1b byte", Subject("x.yaml"), line=1)
    root = ET.fromstring(render_junit([odd], documents=0))
    assert [case.get("name") for case in root.iter("testcase")] == ["(file)"]


# --- GitHub workflow commands --------------------------------------------------------------------

COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def _unescape(text: str) -> str:
    """What the runner does to a command's data and properties."""
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


def test_workflow_commands_parse_back() -> None:
    lines = render_github(FINDINGS, documents=5).splitlines()
    assert lines[-1] == "5 documents checked: 2 errors, 1 warning, 1 info"
    parsed = []
    for line in lines[:-1]:
        match = COMMAND.match(line)
        assert match, line
        props = dict(item.split("=", 1) for item in match.group(2).split(","))
        parsed.append((match.group(1), {k: _unescape(v) for k, v in props.items()}, match[3]))
    assert [kind for kind, _, _ in parsed] == ["error", "error", "warning", "notice"]
    assert parsed[2][1] == {
        "file": "clusters/d,e:f.yaml",
        "line": "7",
        "title": "CAPZ-AZURE-REGION [provisioning]",
    }
    assert "line" not in parsed[3][1]
    second = _unescape(parsed[1][2])
    assert second.endswith("spec: 100% wrong:\nsecond line, too")
    assert "\n" not in parsed[1][2] and "%25" in parsed[1][2]


def test_escaping_follows_the_runner() -> None:
    assert escape_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert escape_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_every_format_renders_without_findings(fmt: str) -> None:
    assert render_report(fmt, [], 0)
