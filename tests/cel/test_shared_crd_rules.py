"""Every CEL rule of the CRDs in the vendored upstream CRDs (tests/data/upstream/crds): an object violating it gets the rule's finding (its
message, the rule text, the node's path), an object conforming to it gets none.

The rules are discovered from the CRD files at collection time, so a CRD update that brings a new
rule fails here until the rule has a sample below.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.cel.inventory import schema_rules
from generator.cel.rules import CelRule, RuleStatus, analyze
from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.findings import PathPart, Severity, format_path
from generator.schemastore.crd import convert_documents
from generator.schemastore.store import SchemaStore
from tests.conftest import SHARED


@dataclass(frozen=True)
class SharedRule:
    api_version: str
    kind: str
    path: str  # inventory form: spec.items[*].name
    rule: CelRule

    @property
    def id(self) -> str:
        return f"{self.kind}.{self.api_version.rpartition('/')[2]}:{self.path}"


def discover() -> list[SharedRule]:
    found: list[SharedRule] = []
    for path in sorted((SHARED / "crds").glob("*/*.yaml")):
        documents = list(yaml.safe_load_all(path.read_text()))
        for converted in convert_documents(documents):
            for where, rule in schema_rules(converted.schema):
                gvk = converted.gvk
                found.append(SharedRule(gvk.api_version, gvk.kind, where, rule))
    return found


SHARED_RULES = discover() if (SHARED / "crds").is_dir() else []

_UNIQUE_NAMES_BAD = [{"name": "v", "value": "1"}, {"name": "v", "value": "2"}]
_UNIQUE_NAMES_GOOD = [{"name": "v", "value": "1"}, {"name": "w", "value": "2"}]
# rule text -> (violating value, conforming value) at the rule's node
SAMPLES: dict[str, tuple[Any, Any]] = {
    "!(self in ['Ready','Available','HealthCheckSucceeded','OwnerRemediated','ExternallyRemediated'])": (
        "Ready",
        "DiskPressure",
    ),
    "self.all(x, self.exists_one(y, x.name == y.name))": (_UNIQUE_NAMES_BAD, _UNIQUE_NAMES_GOOD),
    "[has(self.layout),has(self.diskLayout)].filter(x,x==true).size() == 1": (
        {"device": "/dev/sda", "layout": True, "diskLayout": [{"percentage": 50}]},
        {"device": "/dev/sda", "layout": True},
    ),
    "self.matches('^(Linux|LinuxSwap|LinuxRAID|LVM|Fat32|NTFS|LinuxExtended|[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12})$')": (
        "Ext4",
        "8300ABCD-0000-1111-2222-333344445555",
    ),
    # Flux kustomize-controller v1.9.4: Kustomization spec.kubeConfig
    "has(self.configMapRef) || has(self.secretRef)": ({}, {"secretRef": {"name": "kc"}}),
    "!has(self.configMapRef) || !has(self.secretRef)": (
        {"configMapRef": {"name": "a"}, "secretRef": {"name": "b"}},
        {"secretRef": {"name": "kc"}},
    ),
    # Flux source-controller v1.9.1: Bucket spec (each bad sample breaks one of the seven rules)
    "self.provider == 'aws' || self.provider == 'generic' || !has(self.sts)": (
        {"provider": "gcp", "sts": {"provider": "aws"}},
        {"provider": "aws", "sts": {"provider": "aws"}},
    ),
    "self.provider != 'aws' || !has(self.sts) || self.sts.provider == 'aws'": (
        {"provider": "aws", "sts": {"provider": "ldap"}},
        {"provider": "aws", "sts": {"provider": "aws"}},
    ),
    "self.provider != 'generic' || !has(self.sts) || self.sts.provider == 'ldap'": (
        {"provider": "generic", "sts": {"provider": "aws"}},
        {"provider": "generic", "sts": {"provider": "ldap"}},
    ),
    "!has(self.sts) || self.sts.provider != 'aws' || !has(self.sts.secretRef)": (
        {"provider": "aws", "sts": {"provider": "aws", "secretRef": {"name": "s"}}},
        {"provider": "aws", "sts": {"provider": "aws"}},
    ),
    "!has(self.sts) || self.sts.provider != 'aws' || !has(self.sts.certSecretRef)": (
        {"provider": "aws", "sts": {"provider": "aws", "certSecretRef": {"name": "c"}}},
        {"provider": "aws", "sts": {"provider": "aws"}},
    ),
    "self.provider != 'generic' || !has(self.serviceAccountName)": (
        {"provider": "generic", "serviceAccountName": "sa"},
        {"provider": "aws", "serviceAccountName": "sa"},
    ),
    "!has(self.secretRef) || !has(self.serviceAccountName)": (
        {"provider": "aws", "secretRef": {"name": "s"}, "serviceAccountName": "sa"},
        {"provider": "aws", "secretRef": {"name": "s"}},
    ),
    # Flux source-controller v1.9.1: GitRepository spec
    "!has(self.serviceAccountName) || (has(self.provider) && (self.provider == 'azure' || "
    "self.provider == 'aws'))": (
        {"serviceAccountName": "sa", "provider": "generic"},
        {"serviceAccountName": "sa", "provider": "azure"},
    ),
}


def parse_steps(path: str) -> list[str]:
    """``a.b[*].c`` -> ``["a", "b", "[*]", "c"]``."""
    result: list[str] = []
    for segment in path.split("."):
        stars = 0
        while segment.endswith("[*]"):
            segment = segment[:-3]
            stars += 1
        if segment:
            result.append(segment)
        result.extend(["[*]"] * stars)
    return result


def build(rule: SharedRule, value: Any) -> tuple[dict[str, Any], tuple[PathPart, ...]]:
    """A minimal object of the rule's kind with ``value`` at the rule's node (lists of one)."""
    obj: dict[str, Any] = {
        "apiVersion": rule.api_version,
        "kind": rule.kind,
        "metadata": {"name": "sample", "namespace": "default"},
    }
    parts = parse_steps(rule.path)
    concrete: list[PathPart] = []
    node: Any = obj
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        child: Any = copy.deepcopy(value) if last else ([] if parts[position + 1] == "[*]" else {})
        if part == "[*]":
            node.append(child)
            concrete.append(0)
        else:
            node[part] = child
            concrete.append(part)
        node = child
    return obj, tuple(concrete)


def cel_findings(store: SchemaStore, obj: dict[str, Any]) -> list[Any]:
    findings = validate_documents([Document("sample.yaml", 0, obj)], store, ValidationOptions())
    return [f for f in findings if f.rule == "cel"]


def test_the_shared_crds_have_cel_rules() -> None:
    assert len(SHARED_RULES) >= 17, [r.id for r in SHARED_RULES]
    assert {r.rule.rule for r in SHARED_RULES} <= set(SAMPLES), "a new rule needs a sample"


@pytest.mark.parametrize("shared_rule", SHARED_RULES, ids=lambda r: r.id)
def test_every_shared_rule_is_evaluable(shared_rule: SharedRule) -> None:
    assert analyze(shared_rule.rule.rule).status is RuleStatus.EVALUABLE


@pytest.mark.parametrize("shared_rule", SHARED_RULES, ids=lambda r: r.id)
def test_violating_object_gets_the_rules_finding(
    shared_rule: SharedRule, shared_store: SchemaStore
) -> None:
    bad, _ = SAMPLES[shared_rule.rule.rule]
    obj, path = build(shared_rule, bad)
    findings = cel_findings(shared_store, obj)
    assert len(findings) == 1, [f.to_text() for f in findings]
    (finding,) = findings
    assert finding.severity is Severity.ERROR
    assert finding.origin == "cel"
    assert finding.path == path, format_path(finding.path)
    assert finding.message == f"{shared_rule.rule.message} (rule: {shared_rule.rule.rule})"
    assert finding.subject.kind == shared_rule.kind


@pytest.mark.parametrize("shared_rule", SHARED_RULES, ids=lambda r: r.id)
def test_conforming_object_gets_no_cel_finding(
    shared_rule: SharedRule, shared_store: SchemaStore
) -> None:
    _, good = SAMPLES[shared_rule.rule.rule]
    obj, _ = build(shared_rule, good)
    assert cel_findings(shared_store, obj) == []


@pytest.mark.parametrize("shared_rule", SHARED_RULES[:1], ids=lambda r: r.id)
def test_no_cel_option_turns_evaluation_off(
    shared_rule: SharedRule, shared_store: SchemaStore
) -> None:
    bad, _ = SAMPLES[shared_rule.rule.rule]
    obj, _ = build(shared_rule, bad)
    findings = validate_documents(
        [Document("sample.yaml", 0, obj)], shared_store, ValidationOptions(cel=False)
    )
    assert [f for f in findings if f.rule == "cel"] == []


def test_released_capz_templates_pass_every_cel_rule(
    shared_store: SchemaStore, corpus_dir: Path
) -> None:
    for template in sorted(corpus_dir.glob("cluster-template-aks*.yaml")):
        objects = [o for o in yaml.safe_load_all(template.read_text()) if isinstance(o, dict)]
        documents = [Document(template.name, i, o) for i, o in enumerate(objects)]
        findings = validate_documents(documents, shared_store, ValidationOptions())
        assert [f.to_text() for f in findings if f.rule == "cel"] == [], template.name
