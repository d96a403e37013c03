"""The CI options end to end: ``validate --output sarif|junit|github``, ``generate --report``
(the manifests stay on stdout) and ``--fail-on warning`` on validate, generate cluster and fleet."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from junitparser import JUnitXml

from tests.conftest import DEMO_FLEET, GENERATE_DEMO

SARIF_SCHEMA = json.loads(
    (Path(__file__).parents[1] / "data" / "schemastore" / "sarif-2.1.0.json").read_text()
)
TYPO = [arg.replace("westeurope", "westeurop") for arg in GENERATE_DEMO]  # two warnings
OLD_K8S = [arg.replace("v1.31.1", "v1.29.0") for arg in GENERATE_DEMO]  # unsupported: warnings


@pytest.fixture
def warned(run_cli: Any, tmp_path: Path) -> Path:
    """A cluster whose only findings are CAPZ-AZURE-REGION warnings."""
    result = run_cli([*TYPO, "--no-validate"])
    assert result.exit_code == 0, result.stderr
    path = tmp_path / "warned.yaml"
    path.write_text(result.stdout)
    return path


def test_validate_sarif_names_the_file_relative_to_the_root(
    run_cli: Any, warned: Path, tmp_path: Path
) -> None:
    result = run_cli(["validate", str(warned), "--output", "sarif", "--sarif-root", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    log = json.loads(result.stdout)
    jsonschema_rs.validate(SARIF_SCHEMA, log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["CAPZ-AZURE-REGION"] * 2
    assert {r["level"] for r in results} == {"warning"}
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"warned.yaml"}
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results)


def test_fail_on_warning_fails_validate_in_every_format(run_cli: Any, warned: Path) -> None:
    for fmt in ("text", "json", "sarif", "junit", "github"):
        assert run_cli(["validate", str(warned), "--output", fmt]).exit_code == 0
        failed = run_cli(["validate", str(warned), "--output", fmt, "--fail-on", "warning"])
        assert failed.exit_code == 1, fmt


def test_validate_junit_and_github(run_cli: Any, warned: Path, tmp_path: Path) -> None:
    result = run_cli(["validate", str(warned), "--output", "junit"])
    report = tmp_path / "report.xml"
    report.write_text(result.stdout)
    suite = next(iter(JUnitXml.fromfile(str(report))))
    assert (suite.failures, suite.errors) == (0, 0)  # warnings do not fail a test case
    assert suite.tests == 3  # the two documents with a warning, then the five without
    assert ET.fromstring(result.stdout).tag == "testsuites"
    lines = run_cli(["validate", str(warned), "--output", "github"]).stdout.splitlines()
    assert [line.split(" ")[0] for line in lines[:-1]] == ["::warning"] * 2
    assert lines[-1] == "7 documents checked: 0 errors, 2 warnings"


def test_a_clean_file_gives_an_empty_valid_sarif_log(run_cli: Any, tmp_path: Path) -> None:
    clean = run_cli(GENERATE_DEMO)
    path = tmp_path / "clean.yaml"
    path.write_text(clean.stdout)
    result = run_cli(["validate", str(path), "--output", "sarif", "--fail-on", "warning"])
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    jsonschema_rs.validate(SARIF_SCHEMA, log)
    assert log["runs"][0]["results"] == []


def test_generate_reports_to_a_file_and_keeps_stdout_the_manifests(
    run_cli: Any, tmp_path: Path
) -> None:
    sarif = tmp_path / "capzgen.sarif"
    result = run_cli([*TYPO, "--report", f"sarif={sarif}"])
    assert result.exit_code == 0
    assert result.stdout.startswith("apiVersion:") and "westeurop" in result.stdout
    assert "CAPZ-AZURE-REGION" not in result.stderr
    log = json.loads(sarif.read_text())
    jsonschema_rs.validate(SARIF_SCHEMA, log)
    assert len(log["runs"][0]["results"]) == 2


@pytest.mark.parametrize("argv", [TYPO, OLD_K8S], ids=["region", "kubernetes-version"])
def test_fail_on_warning_makes_generate_write_nothing(
    run_cli: Any, tmp_path: Path, argv: list[str]
) -> None:
    target = tmp_path / "out.yaml"
    junit = tmp_path / "report.xml"
    passed = run_cli([*argv, "--write-to", str(target)])
    assert passed.exit_code == 0 and target.exists()
    target.unlink()
    failed = run_cli(
        [*argv, "--write-to", str(target), "--fail-on", "warning", "--report", f"junit={junit}"]
    )
    assert failed.exit_code == 1
    assert not target.exists() and failed.stdout == ""
    assert "--fail-on warning" in failed.stderr
    suite = next(iter(JUnitXml.fromfile(str(junit))))  # the report is written on failure too
    assert suite.tests >= 1 and suite.failures == 0


def test_generate_github_report_goes_to_stderr(run_cli: Any) -> None:
    result = run_cli([*TYPO, "--report", "github"])
    assert result.exit_code == 0 and result.stdout.startswith("apiVersion:")
    commands = [line for line in result.stderr.splitlines() if line.startswith("::")]
    assert len(commands) == 2 and all(c.startswith("::warning file=") for c in commands)


@pytest.mark.parametrize("value", ["xml", "sarif=", "json=  "])
def test_a_bad_report_value_is_a_usage_error(run_cli: Any, value: str) -> None:
    result = run_cli([*GENERATE_DEMO, "--report", value])
    assert result.exit_code == 2
    assert "--report" in result.stderr


FLEET = (
    DEMO_FLEET
    + """\
  - name: typo
    values: {AZURE_LOCATION: westeurop}
"""
)


def test_fail_on_warning_makes_the_fleet_write_nothing(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    out = tmp_path / "out"
    sarif = tmp_path / "fleet.sarif"
    argv = ["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args]
    failed = run_cli([*argv, "--fail-on", "warning", "--report", f"sarif={sarif}"])
    assert failed.exit_code == 1, failed.stderr
    assert not out.exists()
    log = json.loads(sarif.read_text())
    jsonschema_rs.validate(SARIF_SCHEMA, log)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"CAPZ-AZURE-REGION"}
    passed = run_cli(argv)
    assert passed.exit_code == 0, passed.stderr
    assert (out / "east").is_dir() and (out / "typo").is_dir()


MIGRATE = Path(__file__).parents[1] / "migrate"


def _with_a_region_typo(command: str, tmp_path: Path) -> list[str]:
    """``migrate`` or ``adopt`` on an input whose region is misspelt (a warning)."""
    if command == "migrate":
        source = tmp_path / "legacy.yaml"
        text = (MIGRATE / "inputs" / "all-fields.yaml").read_text()
        argv = ["migrate", str(source), "-n", "migrated"]
    else:
        source = tmp_path / "aks.json"
        text = (MIGRATE / "az" / "aks-show.json").read_text()
        argv = ["adopt", "--from-az", str(source), "-n", "adopted"]
    source.write_text(text.replace("westeurope", "westeurop"))
    return argv


@pytest.mark.parametrize("command", ["migrate", "adopt"])
def test_fail_on_warning_makes_migrate_and_adopt_write_nothing(
    run_cli: Any, tmp_path: Path, command: str
) -> None:
    argv = _with_a_region_typo(command, tmp_path)
    passed = run_cli(argv)
    assert passed.exit_code == 0, passed.stderr
    assert "CAPZ-AZURE-REGION" in passed.stderr and passed.stdout
    failed = run_cli([*argv, "--fail-on", "warning"])
    assert failed.exit_code == 1
    assert failed.stdout == "" and "CAPZ-AZURE-REGION" in failed.stderr


def test_a_kept_fleet_cluster_is_judged_again_by_fail_on(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    """A cluster written earlier with a warning is not rendered again (its inputs are the same:
    --fail-on is not one of them), and its recorded warning still fails --fail-on warning."""
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    out = tmp_path / "out"
    argv = ["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args]
    assert run_cli(argv).exit_code == 0
    failed = run_cli([*argv, "--fail-on", "warning"])
    assert failed.exit_code == 1, failed.stderr
    assert "CAPZ-AZURE-REGION" in failed.stderr and "nothing was written" in failed.stderr
    again = run_cli(argv)
    assert again.exit_code == 0 and "2 clusters unchanged" in again.stderr


@pytest.mark.parametrize("command", ["migrate", "adopt"])
def test_migrate_and_adopt_report_as_ci_asks(run_cli: Any, tmp_path: Path, command: str) -> None:
    """``--report FORMAT=FILE`` on migrate and adopt: their findings in a CI format beside the
    text they print, written whether the run passes or fails (--fail-on warning)."""
    argv = _with_a_region_typo(command, tmp_path)
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    passed = run_cli([*argv, "--report", f"sarif={sarif}"])
    assert passed.exit_code == 0, passed.stderr
    log = json.loads(sarif.read_text())
    jsonschema_rs.validate(SARIF_SCHEMA, log)
    assert "CAPZ-AZURE-REGION" in {r["ruleId"] for r in log["runs"][0]["results"]}
    failed = run_cli([*argv, "--fail-on", "warning", "--report", f"junit={junit}"])
    assert failed.exit_code == 1 and failed.stdout == ""
    suites = JUnitXml.fromfile(str(junit))
    assert sum(suite.tests for suite in suites) >= 1
    github = run_cli([*argv, "--report", "github"])
    assert "::warning file=" in github.stderr and "title=CAPZ-AZURE-REGION" in github.stderr
