"""The engine: per-document shape and schema checks (top-level and embedded), options, sorting."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from generator.checks import ValidationOptions, known_rule_ids, validate_documents
from generator.checks.rules import RULES
from generator.documents import Document
from generator.findings import Operation, Severity, format_path, sort_findings

Parse = Callable[..., list[Document]]

CONTROL_PLANE = """
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: demo, namespace: default}
spec:
  version: v1.31.1
  resources:
  - apiVersion: resources.azure.com/v1api20200601
    kind: ResourceGroup
    metadata: {name: demo}
    spec: {location: westeurope}
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {name: demo-mc}
    spec:
      owner: {name: demo}
      location: westeurope
      dnsPrefx: demo
      identity: {type: Managed}
      enableRBAC: "yes"
"""

MACHINE_POOL = """
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: demo-pool0}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: demo-pool0}
    spec: {owner: {name: demo-mc}, azureName: pool0, mode: Sytem, count: "2"}
"""

SCHEMA_ONLY = ValidationOptions(disabled_rules=frozenset(RULES))


def _by_path(findings: list[Any]) -> dict[str, Any]:
    return {format_path(f.path): f for f in findings}


def test_embedded_managed_cluster_is_validated_by_its_own_schema(
    parse: Parse, fake_store: Any
) -> None:
    findings = validate_documents(parse(CONTROL_PLANE, "cp.yaml"), fake_store, SCHEMA_ONLY)
    assert ("containerservice.azure.com/v1api20240901", "ManagedCluster") in fake_store.lookups
    assert ("resources.azure.com/v1api20200601", "ResourceGroup") in fake_store.lookups
    paths = _by_path(findings)
    assert set(paths) == {
        "spec.resources[1].spec",
        "spec.resources[1].spec.identity.type",
        "spec.resources[1].spec.enableRBAC",
    }
    typo = paths["spec.resources[1].spec"]
    assert typo.rule == "schema" and "dnsPrefx" in typo.message and typo.severity is Severity.ERROR
    assert typo.subject.kind == "AzureASOManagedControlPlane" and typo.subject.name == "demo"
    assert typo.subject.embedded_path == ("spec", "resources", 1)
    assert (typo.subject.embedded_kind, typo.subject.embedded_name) == ("ManagedCluster", "demo-mc")
    assert typo.display_path == "spec"  # relative to the embedded resource in reports
    assert "is not one of" in paths["spec.resources[1].spec.identity.type"].message
    assert 'is not of type "boolean"' in paths["spec.resources[1].spec.enableRBAC"].message
    text = typo.to_text()
    assert text.startswith(
        "cp.yaml: AzureASOManagedControlPlane/demo > ManagedCluster/demo-mc: spec: "
    )


def test_embedded_agent_pool_enum_and_type(parse: Parse, fake_store: Any) -> None:
    findings = validate_documents(parse(MACHINE_POOL), fake_store, SCHEMA_ONLY)
    paths = _by_path(findings)
    assert set(paths) == {"spec.resources[0].spec.mode", "spec.resources[0].spec.count"}
    assert "is not one of" in paths["spec.resources[0].spec.mode"].message
    assert paths["spec.resources[0].spec.count"].subject.embedded_kind == "ManagedClustersAgentPool"


def test_missing_schema_is_an_error_unless_ignored(parse: Parse, fake_store: Any) -> None:
    text = CONTROL_PLANE.replace("v1api20240901", "v1api20250801")
    findings = validate_documents(parse(text), fake_store, SCHEMA_ONLY)
    assert [(f.rule, format_path(f.path), f.message) for f in findings] == [
        (
            "no-schema",
            "spec.resources[1].apiVersion",
            "no schema for containerservice.azure.com/v1api20250801, Kind=ManagedCluster "
            "(searched: the fake schemas of tests/validate/fake_schemas.yaml)",
        )
    ]
    assert findings[0].subject.embedded_kind == "ManagedCluster"
    assert findings[0].hint is not None and "schemas import --from-cluster" in findings[0].hint
    ignored = ValidationOptions(
        disabled_rules=SCHEMA_ONLY.disabled_rules, ignore_missing_schemas=True
    )
    skipped = validate_documents(parse(text), fake_store, ignored)
    assert [(f.severity, f.rule, format_path(f.path)) for f in skipped] == [
        (Severity.WARNING, "no-schema", "spec.resources[1].apiVersion")
    ]
    assert skipped[0].message.startswith("skipped: no schema for containerservice.azure.com/")


def test_schemas_off_or_no_store_skip_schema_checks(parse: Parse, fake_store: Any) -> None:
    off = ValidationOptions(disabled_rules=SCHEMA_ONLY.disabled_rules, schemas=False)
    assert validate_documents(parse(CONTROL_PLANE), fake_store, off) == []
    assert fake_store.lookups == []
    assert validate_documents(parse(CONTROL_PLANE), None, SCHEMA_ONLY) == []


def test_top_level_schema_violation(parse: Parse, fake_store: Any) -> None:
    text = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: demo}\nspec: {paused: 1}\n"
    findings = validate_documents(parse(text), fake_store, SCHEMA_ONLY)
    assert [(f.rule, format_path(f.path)) for f in findings] == [("schema", "spec.paused")]
    assert findings[0].subject.embedded_path is None


def test_non_mapping_documents_and_missing_identity(parse: Parse) -> None:
    text = "- 1\n---\n42\n---\n---\nkind: Secret\nmetadata: {}\n---\napiVersion: v1\nmetadata: {name: x}\n"
    findings = validate_documents(parse(text), None)
    got = sorted((f.subject.document, f.rule, format_path(f.path)) for f in findings)
    assert got == [
        (0, "yaml", ""),
        (1, "yaml", ""),
        (3, "structure", "apiVersion"),
        (3, "structure", "metadata.name"),
        (4, "structure", "kind"),
    ]


def test_wrongly_typed_identity_fields(parse: Parse) -> None:
    text = "apiVersion: 1\nkind: [Secret]\nmetadata: {name: 3}\n"
    messages = [f.message for f in validate_documents(parse(text), None)]
    assert messages == [
        "apiVersion 1 is not of the form [group/]version",
        "kind ['Secret'] is not a non-empty string",
        "metadata.name 3 is not a non-empty string",
    ]


def test_non_mapping_embedded_item_is_reported_once(parse: Parse, fake_store: Any) -> None:
    text = (
        "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureASOManagedCluster\n"
        "metadata: {name: x}\nspec:\n  resources: [oops]\n"
    )
    with_store = validate_documents(parse(text), fake_store, SCHEMA_ONLY)
    assert [(f.rule, format_path(f.path)) for f in with_store] == [("schema", "spec.resources[0]")]
    without = validate_documents(parse(text), None, SCHEMA_ONLY)
    assert [(f.rule, format_path(f.path)) for f in without] == [("structure", "spec.resources[0]")]
    assert without[0].subject.embedded_path == ("spec", "resources", 0)


def test_disabled_rules_are_skipped(parse: Parse, fake_store: Any) -> None:
    docs = parse(CONTROL_PLANE + "---\n- 1\n")
    every = validate_documents(docs, fake_store)
    assert {"schema", "yaml", "CAPZ-OWNED-K8S-VERSION"} - {f.rule for f in every} == {
        "CAPZ-OWNED-K8S-VERSION"
    }
    assert "CAPZ-REF-UNREFERENCED" not in {f.rule for f in every}  # no Cluster: a fragment
    disabled = ValidationOptions(disabled_rules=frozenset({"schema", "yaml", "CAPZ-CRED-MISSING"}))
    rules = {f.rule for f in validate_documents(docs, fake_store, disabled)}
    assert rules.isdisjoint({"schema", "yaml", "CAPZ-CRED-MISSING"})
    assert "CAPZ-CRED-MISSING" in {f.rule for f in every}


def test_findings_are_sorted(parse: Parse, fake_store: Any) -> None:
    docs = parse(MACHINE_POOL + "---\n" + CONTROL_PLANE + "---\n7\n", "multi.yaml")
    findings = validate_documents(docs, fake_store)
    assert len(findings) > 5
    assert findings == sort_findings(findings)
    assert all(f.line is None for f in findings)


def test_known_rule_ids() -> None:
    ids = known_rule_ids()
    assert ids[:7] == ["yaml", "structure", "schema", "no-schema", "admission", "cel", "cel-cost"]
    assert ids[7 : 7 + len(RULES)] == list(RULES)
    assert ids[7 + len(RULES) :] == ["CC-PATCH-TEMPLATE", "CC-PATCH-UNCHECKED"]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("rule", list(RULES.values()), ids=lambda r: r.id)
def test_rule_metadata(rule: Any) -> None:
    assert re.fullmatch(r"(CAPZ|ASO)(-[A-Z0-9]+)+", rule.id)
    cited = re.search(r"\(([^()]*)\)$", rule.description)
    assert cited is not None, (
        f"{rule.id}: the description must end with the reference IDs in brackets"
    )
    if rule.operation is Operation.CREATE:
        assert re.search(r"\b[RCOKWP]\d+\b|§\d", cited.group(1)), rule.description
    else:  # an update or delete rule cites the upstream webhook it mirrors
        assert rule.description.startswith(f"on {rule.operation.value}: "), rule.description
        assert ".go" in cited.group(1) or "ASO v2" in cited.group(1), rule.description
    assert rule.severity in (Severity.ERROR, Severity.WARNING)
