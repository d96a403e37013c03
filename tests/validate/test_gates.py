"""Every finding says which gate it stands for (issue 25, item 3).

``admission``: the management cluster refuses the apply; ``provisioning``: it admits it and AKS,
ARM or a controller fails later, and the finding says who. These tests hold the registry to that
(every rule has a gate, every provisioning rule a reason), pin the gate of representative rules
and engine findings, including the cases the issue names as stricter than admission (checked with
CAPZ v1.26.0's webhooks), and check that the gate survives every way a finding travels: text,
JSON, equality, pickling to workers and the fleet's record.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions, validate_documents
from generator.checks.clusterclass.rule_ids import DESCRIPTIONS as CLASS_PATCH_RULES
from generator.checks.report import render_json, shown_findings
from generator.checks.rule_table import rule_rows
from generator.checks.rules import RULES
from generator.checks.rules.base import LEGACY_POOLS, Rule
from generator.findings import Finding, Gate, Severity, Subject
from generator.fleet import digest
from generator.fleet.rules import FLEET_RULES, FLEET_WHY
from tests.validate.conftest import EXAMPLES, parse_documents

RULES_ONLY = ValidationOptions(schemas=False)
INVALID = EXAMPLES / "invalid"


def _findings(text: str, rule: str) -> list[Finding]:
    found = validate_documents(parse_documents(text), None, RULES_ONLY)
    return [f for f in found if f.rule == rule]


def _example(rule: str, name: str, store: Any = None) -> list[Finding]:
    text = (INVALID / rule / name).read_text(encoding="utf-8")
    options = RULES_ONLY if store is None else ValidationOptions()
    found = validate_documents(parse_documents(text, name), store, options)
    return [f for f in found if f.rule == rule]


# --- the registry ---------------------------------------------------------------------------------


def test_every_rule_has_a_gate_and_every_provisioning_rule_a_why() -> None:
    for entry in RULES.values():
        rule = entry.rule
        assert isinstance(rule.gate, Gate), rule.id
        if rule.gate is Gate.PROVISIONING:
            assert rule.why and len(rule.why) <= 100, f"{rule.id}: a short why"
    for rule_id, _severity, gate, why, _text in rule_rows():
        assert gate in ("admission", "provisioning", "both"), rule_id
        if gate != "admission":
            assert why, f"{rule_id}: findings that can be provisioning say who fails them"
    assert [row[0] for row in CLASS_PATCH_RULES] == ["CC-PATCH-TEMPLATE", "CC-PATCH-UNCHECKED"]
    assert set(FLEET_WHY) == set(FLEET_RULES)


def test_a_record_that_cannot_say_its_gate_is_refused() -> None:
    with pytest.raises(ValueError, match="says why"):
        Rule("X-1", "d", Severity.ERROR, Gate.PROVISIONING)
    with pytest.raises(ValueError, match="only narrow"):
        Rule("X-2", "d", Severity.ERROR, Gate.ADMISSION, webhook_kinds=LEGACY_POOLS)
    rule = Rule("X-3", "d", Severity.ERROR, Gate.ADMISSION)
    top = _Where(Subject("f.yaml", 0, "ConfigMap", "x"))
    with pytest.raises(ValueError, match="needs a why"):
        rule.at(top, (), "m", gate=Gate.PROVISIONING)
    assert rule.at(top, (), "m", gate=Gate.PROVISIONING, why="w").why == "w"


class _Where:
    def __init__(self, subject: Subject) -> None:
        self.subject = subject
        self.path = ()


@pytest.mark.parametrize(
    ("rule_id", "gates"),
    [
        ("CAPZ-POOL-SUBNET-NAME", "admission"),  # CAPZ validateMPSubnetName, legacy only
        ("CAPZ-MC-VNET", "admission"),
        ("CAPZ-IDENTITY-FIELDS", "admission"),
        ("CAPZ-MP-BOOTSTRAP", "admission"),  # CAPI's MachinePool webhook
        ("ASO-OWNER", "admission"),  # ASO's webhook
        ("ASO-REFERENCE", "admission"),
        ("CAPZ-POOL-MAXPODS", "both"),  # CAPZ's webhook for the legacy pool, AKS for ASO's
        ("CAPZ-MC-DNSPREFIX", "both"),
        ("CAPZ-POOL-AUTOSCALE", "provisioning"),  # min above max: no webhook checks it
        ("CAPZ-VM-SIZE", "provisioning"),  # an empty SKU is admitted
        ("CAPZ-MC-PRIVATE-DNS-IDENTITY", "provisioning"),
        ("CAPZ-POOL-TAINTS", "provisioning"),
        ("CAPZ-REF-INFRA", "provisioning"),
        ("ASO-IDENTITY-USERASSIGNED", "provisioning"),  # ARM's MissingIdentityIds
    ],
)
def test_representative_rules_stand_for_their_gate(rule_id: str, gates: str) -> None:
    assert RULES[rule_id].rule.gates == gates


def test_engine_rules_are_admission_and_class_patches_provisioning() -> None:
    rows = {row[0]: row for row in rule_rows()}
    for rule_id in ("yaml", "structure", "schema", "no-schema", "cel", "cel-cost"):
        assert rows[rule_id][2] == "admission"
    for rule_id in ("CC-PATCH-TEMPLATE", "CC-PATCH-UNCHECKED"):
        assert rows[rule_id][2] == "provisioning" and rows[rule_id][3]


# --- findings of rules ------------------------------------------------------------------------------

LEGACY_POOL = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: p1, namespace: default}
spec: {mode: User, sku: Standard_D2s_v3, name: NAME, maxPods: 300}
"""


def test_a_webhook_rule_is_admission_on_the_legacy_kind_and_provisioning_embedded() -> None:
    legacy = _findings(LEGACY_POOL.replace("NAME", "pool"), "CAPZ-POOL-MAXPODS")
    assert [(f.gate, f.why) for f in legacy] == [(Gate.ADMISSION, None)]
    aso = _example("CAPZ-POOL-MAXPODS", "max-pods.yaml")
    assert aso and all(f.subject.embedded_path is not None for f in aso)
    assert {(f.gate, f.why) for f in aso} == {
        (Gate.PROVISIONING, "AKS refuses maxPods outside 10-250")
    }


@pytest.mark.parametrize(
    ("name", "gate"),
    [
        ("pöol", Gate.PROVISIONING),  # CAPZ's webhook reads lower-case as Unicode does
        ("Pool", Gate.ADMISSION),
        ("pool-1", Gate.ADMISSION),
        ("1pöl", Gate.ADMISSION),
    ],
)
def test_pool_name_pattern_follows_capz_webhook(name: str, gate: Gate) -> None:
    found = _findings(LEGACY_POOL.replace("NAME", f'"{name}"'), "CAPZ-POOL-NAME")
    assert [f.gate for f in found if "must start" in f.message] == [gate]


@pytest.mark.parametrize(
    ("rule", "example"),
    [
        ("CAPZ-POOL-AUTOSCALE", "min-max.yaml"),
        ("CAPZ-VM-SIZE", "vm-size.yaml"),
        ("CAPZ-MC-PRIVATE-DNS-IDENTITY", "identity.yaml"),
    ],
)
def test_stricter_than_admission_is_provisioning(rule: str, example: str) -> None:
    found = _example(rule, example)
    assert found, f"{rule} finds nothing in {example}"
    assert {f.gate for f in found} == {Gate.PROVISIONING}
    assert all(f.why == RULES[rule].rule.why for f in found)


def test_empty_sku_is_provisioning() -> None:
    text = LEGACY_POOL.replace("NAME", "pool").replace("sku: Standard_D2s_v3", 'sku: ""')
    found = _findings(text, "CAPZ-VM-SIZE")
    assert found and {f.gate for f in found} == {Gate.PROVISIONING}


LEGACY_NETWORK = """\
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  clusterNetwork:
    services: {cidrBlocks: [10.0.0.0/16, 10.1.0.0/16]}
  controlPlaneRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureManagedControlPlane
    name: c1
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureManagedCluster
    name: c1
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata:
  name: c1
  namespace: default
LABELS
spec:
  location: westeurope
  resourceGroupName: rg
  subscriptionID: 00000000-0000-0000-0000-000000000000
  identityRef: {kind: AzureClusterIdentity, name: id, namespace: default}
  version: VERSION
  dnsServiceIP: 10.2.0.10
"""


def _network(labelled: bool, version: str = "v1.31.1") -> str:
    labels = "  labels: {cluster.x-k8s.io/cluster-name: c1}" if labelled else ""
    return LEGACY_NETWORK.replace("LABELS\n", labels + "\n").replace("VERSION", version)


@pytest.mark.parametrize(("labelled", "gate"), [(True, Gate.ADMISSION), (False, Gate.PROVISIONING)])
def test_network_checks_are_admission_only_with_the_cluster_name_label(
    labelled: bool, gate: Gate
) -> None:
    """CAPZ's AzureManagedControlPlane webhook reads the Cluster by the label and skips its
    network checks without it (checked with capz-oracle)."""
    text = _network(labelled)
    dns = _findings(text, "CAPZ-MC-DNSSERVICEIP")
    assert [f.message for f in dns] == ["10.2.0.10 is outside the service CIDR 10.0.0.0/16"]
    assert [f.gate for f in dns] == [gate]
    assert [f.gate for f in _findings(text, "CAPZ-CLUSTER-CIDRS")] == [gate]


@pytest.mark.parametrize(
    ("version", "gate"),
    [("vhonk.version", Gate.ADMISSION), ("1.31.1.5", Gate.PROVISIONING)],
)
def test_legacy_version_format_follows_the_webhook_pattern(version: str, gate: Gate) -> None:
    found = _findings(_network(True, version), "CAPZ-VERSION-FORMAT")
    assert [f.gate for f in found] == [gate]


def test_a_bogus_aso_control_plane_version_is_provisioning() -> None:
    found = _example("CAPZ-VERSION-FORMAT", "format.yaml")
    aso = [f for f in found if f.subject.kind == "AzureASOManagedControlPlane"]
    assert aso and {f.gate for f in aso} == {Gate.PROVISIONING}


@pytest.mark.parametrize(
    ("name", "gate"), [("Bad_Cluster", Gate.ADMISSION), ("a" * 70, Gate.PROVISIONING)]
)
def test_cluster_name_is_admission_only_where_the_api_server_refuses_it(
    name: str, gate: Gate
) -> None:
    text = f"apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {{name: {name}}}\n"
    assert [f.gate for f in _findings(text, "CAPZ-CLUSTER-NAME")] == [gate]


def test_fic_without_issuer_is_provisioning_and_with_both_admission() -> None:
    found = _example("ASO-FIC-ISSUER", "standalone.yaml")
    gates = {("neither" in f.message, f.gate) for f in found}
    assert gates == {(True, Gate.PROVISIONING), (False, Gate.ADMISSION)}


# --- engine findings ------------------------------------------------------------------------------


def test_engine_findings_are_admission(store: Any) -> None:
    text = (
        "- not a mapping\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nbad: 1\n---\n"
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n"
        "kind: ConfigMap\nmetadata: {name: y}\n"
    )
    found = validate_documents(parse_documents(text), store)
    by_rule = {f.rule: f for f in found}
    assert {"yaml", "schema", "no-schema", "structure"} <= set(by_rule)
    for rule in ("yaml", "schema", "no-schema", "structure"):
        assert (by_rule[rule].gate, by_rule[rule].why) == (Gate.ADMISSION, None), rule


def test_more_findings_takes_the_gate_of_what_it_stands_for() -> None:
    subject = Subject("f.yaml")
    provisioning = Finding(
        Severity.ERROR, "R", "m", subject, gate=Gate.PROVISIONING, why="AKS refuses it"
    )
    admission = Finding(Severity.ERROR, "S", "n", subject)
    limits = type("L", (), {"findings_per_file": 1})()
    only_later = shown_findings([admission, provisioning, provisioning], limits)
    assert only_later[-1].gate is Gate.PROVISIONING and only_later[-1].why
    refused = shown_findings([provisioning, admission, provisioning], limits)
    assert refused[-1].gate is Gate.ADMISSION and "1 admission" in refused[-1].message


# --- how findings travel ---------------------------------------------------------------------------

PROVISIONING = Finding(
    Severity.ERROR,
    "CAPZ-POOL-AUTOSCALE",
    "minCount 5 is above maxCount 3",
    Subject("c.yaml", 0, "AzureManagedMachinePool", "p"),
    ("spec", "scaling", "minSize"),
    line=7,
    gate=Gate.PROVISIONING,
    why="AKS refuses the autoscaling bounds",
)


def test_text_and_json_show_the_gate() -> None:
    assert PROVISIONING.to_text().endswith(
        "(CAPZ-POOL-AUTOSCALE) [provisioning: AKS refuses the autoscaling bounds]"
    )
    kubeconform = Finding(Severity.ERROR, "schema", "bad", Subject("c.yaml"), origin="kubeconform")
    assert kubeconform.to_text().endswith("(schema) [admission] [kubeconform]")
    data = json.loads(render_json([PROVISIONING, kubeconform], documents=1))["findings"]
    assert (data[0]["gate"], data[0]["why"]) == (
        "provisioning",
        "AKS refuses the autoscaling bounds",
    )
    assert data[1]["gate"] == "admission" and "why" not in data[1]


def test_gate_takes_no_part_in_equality() -> None:
    """A finding reached by two paths dedupes, whatever gate each path gave it."""
    other = Finding(
        PROVISIONING.severity,
        PROVISIONING.rule,
        PROVISIONING.message,
        PROVISIONING.subject,
        PROVISIONING.path,
        line=7,
    )
    assert other == PROVISIONING and hash(other) == hash(PROVISIONING)
    assert len({other, PROVISIONING}) == 1


def test_gate_survives_pickling_to_workers() -> None:
    copy = pickle.loads(pickle.dumps(PROVISIONING))
    assert (copy.gate, copy.why) == (Gate.PROVISIONING, PROVISIONING.why)


def test_gate_survives_the_fleet_record() -> None:
    """The fleet keeps a cluster's warnings in its record and reports them from there while the
    cluster's inputs are unchanged: the gate and why come back with them."""
    warning = Finding(
        Severity.WARNING,
        "CAPZ-AZURE-REGION",
        "'westeu' is not an Azure public region",
        Subject("<cluster east>", 0, "ManagedCluster", "east", ("spec", "resources", 0)),
        ("spec", "location"),
        line=3,
        gate=Gate.PROVISIONING,
        why="ARM refuses an unknown location",
    )
    record = digest.Record("inputs", 7, [], [warning, PROVISIONING])
    data = json.loads(digest.record_text(record))
    assert data["findings"][0]["gate"] == "provisioning"
    back = digest._parse_record(data)
    assert [(f.gate, f.why) for f in back.findings] == [
        (Gate.PROVISIONING, "ARM refuses an unknown location"),
        (Gate.PROVISIONING, "AKS refuses the autoscaling bounds"),
    ]
    assert back.findings == record.findings


def test_a_fleet_record_without_gates_is_rendered_again(tmp_path: Path) -> None:
    (tmp_path / digest.RECORD_NAME).write_text(
        json.dumps({"format": 1, "inputs": "d", "objects": 0, "facts": [], "findings": []}),
        encoding="utf-8",
    )
    assert digest.unchanged(tmp_path, "d") is None


LEGACY_CONTROL_PLANE = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: c1, namespace: default}
spec:
  location: westeurope
  resourceGroupName: rg
  subscriptionID: 00000000-0000-0000-0000-000000000000
  identityRef: {kind: AzureClusterIdentity, name: id, namespace: default}
  version: v1.31.1
"""
_IDENTITY = (
    "  identity: {type: UserAssigned, userAssignedIdentityResourceID: /subscriptions/x/"
    "resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i}\n"
)
_ZONE = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/"


@pytest.mark.parametrize(
    ("rule", "extra", "gate"),
    [
        # each checked with CAPZ v1.26.0's AzureManagedControlPlane webhook (capz-oracle)
        ("CAPZ-MC-NETWORK-PLUGIN", "  networkPlugin: kubenet\n  networkPolicy: azure\n", "P"),
        ("CAPZ-MC-NETWORK-PLUGIN", "  networkPlugin: kubenet\n  networkPluginMode: overlay\n", "A"),
        ("CAPZ-MC-LOCAL-ACCOUNTS", "  disableLocalAccounts: true\n", "A"),
        (
            "CAPZ-MC-LOCAL-ACCOUNTS",
            "  disableLocalAccounts: true\n  aadProfile: {managed: false, adminGroupObjectIDs: [x]}\n",
            "P",
        ),
        (
            "CAPZ-MC-APISERVER",
            "  apiServerAccessProfile: {enablePrivateCluster: true, privateDNSZone: "
            f"{_ZONE}privatelink.eastus.azmk8s.io}}\n{_IDENTITY}",
            "P",
        ),
        (
            "CAPZ-MC-APISERVER",
            "  apiServerAccessProfile: {enablePrivateCluster: true, privateDNSZone: "
            f"{_ZONE}foo.example.com}}\n{_IDENTITY}",
            "A",
        ),
    ],
)
def test_legacy_cases_the_webhook_admits_are_provisioning(rule: str, extra: str, gate: str) -> None:
    found = _findings(LEGACY_CONTROL_PLANE + extra, rule)
    expected = Gate.ADMISSION if gate == "A" else Gate.PROVISIONING
    assert found and {f.gate for f in found} == {expected}


def test_an_empty_legacy_pool_name_is_the_one_the_webhook_fills_in() -> None:
    """CAPZ's mutating webhook sets an empty spec.name to metadata.name before anything checks
    it (capz-oracle admits the pool with name p1), so there is nothing to report."""
    assert _findings(LEGACY_POOL.replace("NAME", '""'), "CAPZ-POOL-NAME") == []


def test_cli_text_and_json_carry_the_gate(run_cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text("resources: [pool.yaml, missing.yaml]\n")
    (folder / "pool.yaml").write_text(LEGACY_POOL.replace("NAME", '"pöol"'))
    text = run_cli(["validate", "--no-cache", str(folder)]).stdout
    assert "(CAPZ-POOL-MAXPODS) [admission]" in text
    assert "(CAPZ-POOL-NAME) [provisioning: AKS refuses the pool name]" in text
    data = json.loads(run_cli(["validate", "--no-cache", "--output", "json", str(folder)]).stdout)
    gates = {f["rule"]: (f["gate"], f.get("why")) for f in data["findings"]}
    assert gates["CAPZ-POOL-MAXPODS"] == ("admission", None)
    assert gates["CAPZ-POOL-NAME"] == ("provisioning", "AKS refuses the pool name")
    # kubectl apply -k builds the kustomization first: what it cannot build stops the apply
    assert gates["kustomization"] == ("admission", None)
