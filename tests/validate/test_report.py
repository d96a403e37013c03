"""Text and JSON rendering of findings, and the rule table of ``--list-rules``."""

from __future__ import annotations

import json

from generator.checks import known_rule_ids
from generator.checks.report import render_json, render_text
from generator.checks.rule_table import describe_rules
from generator.checks.rules import RULES
from generator.findings import Finding, Gate, Severity, Subject

DOC = Subject(file="c.yaml", document=1, kind="AzureASOManagedMachinePool", name="demo-pool0")
EMBEDDED = DOC.embedded(
    ("spec", "resources", 0), {"kind": "ManagedClustersAgentPool", "metadata": {"name": "p"}}
)


def windows_pool_name(where: Subject) -> Finding:
    """A provisioning error on an embedded agent pool's azureName, with a line."""
    return Finding(
        Severity.ERROR,
        "CAPZ-POOL-NAME",
        "'winpool1' is 8 characters; a Windows pool name has at most 6",
        where,
        ("spec", "resources", 0, "spec", "azureName"),
        line=12,
        gate=Gate.PROVISIONING,
        why="AKS refuses the pool name",
    )


FINDINGS = [
    windows_pool_name(EMBEDDED),
    Finding(Severity.WARNING, "CAPZ-NS-MIXED", "has no namespace", DOC, ("metadata",)),
]


def test_render_text() -> None:
    text = render_text(FINDINGS, documents=7)
    assert text.splitlines() == [
        "c.yaml:12: AzureASOManagedMachinePool/demo-pool0 > ManagedClustersAgentPool/p: spec.azureName: "
        "'winpool1' is 8 characters; a Windows pool name has at most 6 (CAPZ-POOL-NAME) "
        "[provisioning: AKS refuses the pool name]",
        "c.yaml: AzureASOManagedMachinePool/demo-pool0: metadata: warning: has no namespace "
        "(CAPZ-NS-MIXED) [admission]",
        "7 documents checked: 1 error, 1 warning",
    ]


def test_render_text_without_findings() -> None:
    assert render_text([], documents=1) == "1 document checked: 0 errors, 0 warnings\n"


def test_render_json() -> None:
    text = render_json(FINDINGS, documents=7)
    data = json.loads(text)
    assert list(data) == ["findings", "summary"]
    assert data["summary"] == {
        "documents": 7,
        "errors": 1,
        "warnings": 1,
        "info": 0,
        "text": "7 documents checked: 1 error, 1 warning",
    }
    first = data["findings"][0]
    assert first["rule"] == "CAPZ-POOL-NAME"
    assert first["path"] == "spec.resources[0].spec.azureName"
    assert first["display_path"] == "spec.azureName"
    assert first["embedded_path"] == "spec.resources[0]"
    assert first["severity"] == "error" and first["line"] == 12
    assert first["gate"] == "provisioning" and first["why"] == "AKS refuses the pool name"
    second = data["findings"][1]
    assert second["gate"] == "admission" and "why" not in second, "why only where it is set"
    assert list(first) == sorted(first), "keys are in a stable (sorted) order"
    assert render_json(FINDINGS, documents=7) == text


def test_describe_rules_lists_every_rule() -> None:
    table = describe_rules().splitlines()
    assert table[0].split() == ["RULE", "SEVERITY", "GATE", "DESCRIPTION"]
    ids = [line.split()[0] for line in table[1:]]
    assert ids == known_rule_ids()
    pool_name = next(line for line in table if line.startswith("CAPZ-POOL-NAME "))
    assert " error " in pool_name and "(C14, K3, O4)" not in pool_name  # no internal reference IDs
    assert pool_name.split()[2] == "both" and "Admission on AzureManagedMachinePool" in pool_name
    mixed = next(line for line in table if line.startswith("CAPZ-NS-MIXED "))
    assert mixed.split()[1:3] == ["warning", "provisioning"]
    schema = next(line for line in table if line.startswith("schema "))
    assert schema.split()[1:3] == ["error", "admission"]
    # header, engine (admission included) and CEL checks, CAPZ rules, the two ClusterClass
    # patch rules
    assert len(table) == 1 + 7 + len(RULES) + 2
