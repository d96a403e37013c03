"""Webhook parity: CAPZ v1.26.0's create-time admission defects, each caught with its field named.

``parity/cases.yaml`` holds the defects of the test tables of CAPZ's webhooks
(``internal/webhooks/*_test.go``), written as merge patches on a valid cluster in the legacy
AzureManaged* shape (``parity/base-legacy.yaml``) and, where the ASO API has the same setting, in
the AzureASOManaged* shape (``parity/base-aso.yaml``). Every case is validated like ``capzgen
validate`` does (schemas, CEL, rules) and must produce a finding of its rule, at its field when the
case names one. ``docs/webhook-parity.md`` maps each upstream validation to the rule covering it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks import ValidationOptions, validate_documents
from generator.checks.rules.ssh_keys import authorized_key_problem
from generator.documents import Document
from generator.findings import Finding, format_path
from generator.jsonpatch import merge_patch

PARITY = Path(__file__).resolve().parent / "parity"
SHAPES = ("legacy", "aso")
TEMPLATE_SHAPES = {"legacy": "template", "aso": "aso-template"}

# Where each target of a case lives in the base documents: (top-level kind, metadata.name, index
# of the embedded resource or None for the object itself).
_TARGETS: dict[tuple[str, str], tuple[str, str, int | None]] = {
    ("legacy", "ControlPlane"): ("AzureManagedControlPlane", "demo", None),
    ("legacy", "Pool"): ("AzureManagedMachinePool", "demo-pool1", None),
    ("legacy", "SystemPool"): ("AzureManagedMachinePool", "demo-pool0", None),
    ("legacy", "Cluster"): ("Cluster", "demo", None),
    ("legacy", "ClusterIdentity"): ("AzureClusterIdentity", "identity", None),
    ("aso", "ControlPlane"): ("AzureASOManagedControlPlane", "demo", 0),
    ("aso", "ControlPlaneObject"): ("AzureASOManagedControlPlane", "demo", None),
    ("aso", "Pool"): ("AzureASOManagedMachinePool", "demo-pool1", 0),
    ("aso", "SystemPool"): ("AzureASOManagedMachinePool", "demo-pool0", 0),
    ("aso", "Cluster"): ("Cluster", "demo", None),
    ("template", "ControlPlane"): ("AzureManagedControlPlaneTemplate", "demo-control-plane", None),
    ("template", "Pool"): ("AzureManagedMachinePoolTemplate", "demo-pool1", None),
    ("template", "SystemPool"): ("AzureManagedMachinePoolTemplate", "demo-pool0", None),
    ("aso-template", "ControlPlane"): ("AzureASOManagedControlPlaneTemplate", "demo", 0),
    ("aso-template", "ControlPlaneObject"): ("AzureASOManagedControlPlaneTemplate", "demo", None),
    ("aso-template", "Pool"): ("AzureASOManagedMachinePoolTemplate", "demo-pool1", 0),
    ("aso-template", "SystemPool"): ("AzureASOManagedMachinePoolTemplate", "demo-pool0", 0),
}


@dataclass(frozen=True)
class Case:
    id: str
    upstream: str
    shape: str
    patches: tuple[tuple[str, Any], ...]  # (target, merge patch)
    expect: str
    path: str | None


def _load_cases() -> list[Case]:
    raw = yaml.safe_load((PARITY / "cases.yaml").read_text())["cases"]
    cases = []
    for item in raw:
        patches = [(item["target"], item["patch"])]
        if "also" in item:
            patches.append((item["also"]["target"], item["also"]["patch"]))
        cases.append(
            Case(
                item["id"],
                item["upstream"],
                item["shape"],
                tuple(patches),
                item["expect"],
                item.get("path"),
            )
        )
    return cases


CASES = _load_cases()


def _base(shape: str) -> list[Any]:
    text = (PARITY / f"base-{shape}.yaml").read_text()
    return [obj for obj in yaml.safe_load_all(text) if obj is not None]


def _apply(objects: list[Any], shape: str, target: str, patch: Any) -> None:
    kind, name, index = _TARGETS[(shape, target)]
    for position, obj in enumerate(objects):
        if obj["kind"] != kind or obj["metadata"]["name"] != name:
            continue
        spec = obj["spec"]["template"]["spec"] if shape.endswith("template") else obj["spec"]
        if index is None:
            if spec is not obj["spec"] and set(patch) == {"spec"}:
                patch = {"spec": {"template": {"spec": patch["spec"]}}}
            objects[position] = merge_patch(obj, patch)
        else:
            resources = spec["resources"]
            resources[index] = merge_patch(resources[index], patch)
        return
    msg = f"no {kind}/{name} in base-{shape}.yaml"
    raise AssertionError(msg)


def documents_of(case: Case) -> list[Document]:
    objects = _base(case.shape)
    for target, patch in case.patches:
        _apply(objects, case.shape, target, patch)
    source = f"{case.id}.yaml"
    return [Document(source, index, obj) for index, obj in enumerate(objects)]


def _describe(findings: list[Finding]) -> str:
    return "\n".join(f"  {f.rule} {format_path(f.path) or '-'}: {f.message}" for f in findings)


@pytest.mark.parametrize("shape", [*SHAPES, *TEMPLATE_SHAPES.values()])
def test_base_cluster_is_valid(shape: str, shared_store: Any) -> None:
    objects = _base(shape)
    documents = [Document(f"base-{shape}.yaml", i, obj) for i, obj in enumerate(objects)]
    findings = validate_documents(documents, shared_store, ValidationOptions())
    assert findings == [], _describe(findings)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_upstream_defect_is_caught(case: Case, shared_store: Any) -> None:
    findings = validate_documents(documents_of(case), shared_store, ValidationOptions())
    hits = [f for f in findings if f.rule == case.expect and f.is_error]
    assert hits, f"{case.upstream}: no {case.expect} error\n{_describe(findings)}"
    if case.path is not None:
        paths = [format_path(f.path) for f in hits]
        assert case.path in paths, f"{case.upstream}: {case.expect} at {paths}, not {case.path}"


# The same defects written in the ClusterClass templates (base-template.yaml, base-aso-template.yaml),
# where the case's `spec` becomes the template's `spec.template.spec`. CAPZ v1.26.0's
# AzureManagedControlPlaneTemplate / AzureManagedMachinePoolTemplate webhooks run most of the
# legacy checks on it; the ASO template kinds have no webhook, and ASO checks their embedded
# resources when CAPZ creates them for a Cluster, so every ASO case holds there as well.
# Legacy cases that come out differently on a template, with why (docs/webhook-parity.md).
# "admitted": the template webhook does not run the check, and it is no AKS constraint either, so
# capzgen reports nothing of the case's rule either (the Cluster's copy is checked when created).
# "schema": the template's class spec has no such field; the schema check reports it.
# "aks": the template webhook does not run the check, but AKS refuses the value, which every Cluster
# built from the template takes to it: capzgen reports it on the template all the same.
_TEMPLATE_ADMITS = {
    "CAPZ-MC-IDENTITY": "validateAzureManagedControlPlaneIdentity: not in the template validation",
    "CAPZ-POOL-SUBNET-NAME": "validateMPSubnetName: not in the template's ValidateCreate",
    "CAPZ-MC-DNSSERVICEIP": "validateManagedClusterNetwork: a template names no Cluster",
}
_TEMPLATE_CASE_VERDICTS = {
    "overlay-kubenet": "aks",  # K16: AKS's overlay needs the azure plugin
    "disable-local-accounts-no-aad": "aks",  # K18: AKS needs managed Entra ID for it
    "disable-local-accounts-false-no-aad": "admitted",  # ...DisableLocalAccounts: not run
    "private-endpoint-ip": "admitted",  # validatePrivateEndpoints: only with the Cluster
    "private-endpoint-no-connection": "admitted",
    "ssh-key-not-base64": "schema",  # sshPublicKey, dnsPrefix, fleetsMember.name: not class spec
    "ssh-key-not-a-key": "schema",
    "dns-prefix-start": "schema",
    "dns-prefix-long": "schema",
    "dns-prefix-underscore": "schema",
    "dns-prefix-special": "schema",
    "fleets-member-name": "schema",
}


def _template_path(path: str | None) -> str | None:
    """Where a case's field is in the template: ``spec.x`` -> ``spec.template.spec.x``."""
    if path is None or not (path == "spec" or path.startswith(("spec.", "spec["))):
        return path
    return "spec.template.spec" + path[len("spec") :]


def _template_cases() -> list[tuple[Case, str]]:
    """(case on the template shape, verdict: "caught", "aks", "admitted" or "schema")."""
    found = []
    for case in CASES:
        shape = TEMPLATE_SHAPES[case.shape]
        if any((shape, target) not in _TARGETS for target, _ in case.patches):
            continue  # a defect of the Cluster or the identity, which no template holds
        verdict = "caught"
        if shape == "template":
            verdict = _TEMPLATE_CASE_VERDICTS.get(
                case.id, "admitted" if case.expect in _TEMPLATE_ADMITS else "caught"
            )
        moved = replace(case, id=f"{case.id}-template", shape=shape, path=_template_path(case.path))
        if verdict == "schema":
            moved = replace(moved, expect="schema")
        found.append((moved, verdict))
    return found


TEMPLATE_CASES = _template_cases()


@pytest.mark.parametrize(
    ("case", "verdict"), TEMPLATE_CASES, ids=[case.id for case, _ in TEMPLATE_CASES]
)
def test_upstream_defect_in_a_template(case: Case, verdict: str, shared_store: Any) -> None:
    if verdict != "admitted":
        test_upstream_defect_is_caught(case, shared_store)
        return
    findings = validate_documents(documents_of(case), shared_store, ValidationOptions())
    hits = [f for f in findings if f.rule == case.expect]
    assert hits == [], f"{case.upstream}: not run on templates\n{_describe(hits)}"


def test_template_cases_cover_the_legacy_checks() -> None:
    """The legacy cases on templates as measured against CAPZ v1.26.0's webhooks (capz-oracle):
    it refuses the 54 "caught" and 7 "schema" ones, admits the 2 "aks" and 14 "admitted" ones."""
    verdicts = [verdict for case, verdict in TEMPLATE_CASES if case.shape == "template"]
    counts = {
        verdict: verdicts.count(verdict) for verdict in ("caught", "aks", "admitted", "schema")
    }
    assert counts == {"caught": 54, "aks": 2, "admitted": 14, "schema": 7}
    assert all(verdict == "caught" for case, verdict in TEMPLATE_CASES if case.shape != "template")


def test_cases_are_distinct_and_cover_both_shapes() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))
    assert {case.shape for case in CASES} == set(SHAPES)


def test_merge_patch_deletes_merges_and_replaces() -> None:
    merged: Callable[[Any, Any], Any] = merge_patch
    assert merged({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": None, "e": 3}, "d": [2]}) == {
        "a": {"c": 2, "e": 3},
        "d": [2],
    }
    assert merged("text", {"a": 1}) == {"a": 1}


# ASO's own samples for the kinds capzgen ships schemas for (tests/data/upstream/aso-samples,
# provenance in tests/data/upstream/README.md): valid upstream input must pass, each file alone.
ASO_SAMPLES = sorted((PARITY.parent.parent / "data" / "upstream" / "aso-samples").rglob("*.yaml"))


@pytest.mark.parametrize("path", ASO_SAMPLES, ids=lambda p: p.name)
def test_aso_sample_is_accepted(path: Path, shared_store: Any) -> None:
    documents = [
        Document(path.name, index, obj)
        for index, obj in enumerate(yaml.safe_load_all(path.read_text()))
    ]
    findings = validate_documents(documents, shared_store, ValidationOptions())
    errors = [f for f in findings if f.is_error]
    assert errors == [], _describe(errors)


def test_aso_samples_are_vendored() -> None:
    kinds = {path.parent.parent.name for path in ASO_SAMPLES}
    assert kinds == {"authorization", "containerservice", "managedidentity", "network"}


# CAPZ v1.26.0's released AKS templates (both APIs), with plain values for their variables.
_TEMPLATE_VALUES = {
    "${AZURE_RESOURCE_GROUP:=${CLUSTER_NAME}}": "demo",
    '${AZURE_SSH_PUBLIC_KEY_B64:=""}': '""',
    "${CLUSTER_IDENTITY_TYPE:=WorkloadIdentity}": "WorkloadIdentity",
    "${CLUSTER_IDENTITY_NAME}": "cluster-identity",
    "${AZURE_SUBSCRIPTION_ID}": "00000000-0000-0000-0000-000000000000",
    "${AZURE_TENANT_ID}": "00000000-0000-0000-0000-000000000001",
    "${AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY}": "00000000-0000-0000-0000-000000000002",
    "${ASO_CREDENTIAL_SECRET_NAME}": "aso-credentials",
    "${AZURE_LOCATION}": "westeurope",
    "${AZURE_NODE_MACHINE_TYPE}": "Standard_D2s_v3",
    "${CLUSTER_CLASS_NAME}": "demo-class",
    "${CLUSTER_NAME}": "demo",
    "${KUBERNETES_VERSION}": "v1.31.1",
    "${WORKER_MACHINE_COUNT:=2}": "2",
}
# The released aks-clusterclass template's AzureManagedControlPlaneTemplate has no
# resourceGroupName, which the v1.26.0 CRD requires: CAPZ's mutating webhook answers with the
# object re-encoded from its Go type, whose resourceGroupName has no omitempty, so the API server
# validates resourceGroupName: "" and admits it (capz-oracle agrees). capzgen admits it too, with
# an informational finding saying so (generator.checks.admission).
CAPZ_TEMPLATES = sorted(
    (PARITY.parent.parent / "data" / "upstream" / "corpus" / "capz-templates").glob("*.yaml")
)


@pytest.mark.parametrize("path", CAPZ_TEMPLATES, ids=lambda p: p.name)
def test_released_capz_template_is_accepted(path: Path, shared_store: Any) -> None:
    text = path.read_text()
    for key, value in _TEMPLATE_VALUES.items():
        text = text.replace(key, value)
    assert "${" not in text
    documents = [Document(path.name, i, obj) for i, obj in enumerate(yaml.safe_load_all(text))]
    findings = validate_documents(documents, shared_store, ValidationOptions())
    errors = [f for f in findings if f.is_error]
    assert errors == [], _describe(errors)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me", None),
        ("ssh-rsa AAAA", "too short"),
        ("ssh-rsa !!!!", "not base64"),
        ("ssh-rsa AAAAC3NzaC1lZDI1NTE5", "does not hold a ssh-rsa key"),
        ("just text", "is not an SSH public key"),
    ],
)
def test_authorized_key_problem(line: str, problem: str | None) -> None:
    found = authorized_key_problem(line)
    assert (found is None) if problem is None else (found is not None and problem in found)
