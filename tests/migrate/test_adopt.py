"""migrate --adopt and --live: the objects of CAPZ's adoption procedure (issue 16 items 1-3, 5, 7),
with golden files for the documented examples and CAPZ's legacy cluster-template-aks.yaml."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions
from generator.errors import MigrationError
from generator.migrate import MigrationOptions, migrate_text
from generator.migrate.engine import read_items
from generator.migrate.live import read_live
from generator.schemastore.store import SchemaStore
from generator.validate.check import SourceText, check_sources
from generator.yamlio.load import load_documents
from tests.migrate.test_migrate import CASES, INPUTS, NO_SCHEMA_CASES, case_text

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "adopt"
LIVE = HERE / "live"
ADOPT = "sigs.k8s.io/cluster-api-provider-azure-adopt"
CREDENTIAL = "serviceoperator.azure.com/credential-from"
# Every input that holds a legacy cluster (the aso-v1alpha1 inputs only move versions).
LEGACY_CASES = [c for c in CASES if not c.startswith("aso-v1alpha1")]


def objects(text: str) -> list[dict[str, Any]]:
    return [d.obj for d in load_documents(text, source="t") if d.obj is not None]


def write_case(case: str, corpus_dir: Path, tmp_path: Path) -> Path:
    source = tmp_path / f"{case}.yaml"
    source.write_text(case_text(case, corpus_dir), encoding="utf-8")
    return source


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return SchemaStore.from_search_path([])


# --- golden files and validity ----------------------------------------------------------------


@pytest.mark.parametrize("case", LEGACY_CASES)
def test_adopt_golden(
    case: str, corpus_dir: Path, run_cli: Any, snapshot: Any, tmp_path: Path
) -> None:
    source = write_case(case, corpus_dir, tmp_path)
    skip = ["--ignore-missing-schemas"] if case in NO_SCHEMA_CASES else []
    result = run_cli(["migrate", str(source), "--adopt", "-n", "migrated", *skip])
    assert result.exit_code == 0, result.stderr
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.stdout, f"{case}.yaml")
    snapshot.assert_match(result.stderr.replace(str(tmp_path), "<tmp>"), f"{case}.stderr.txt")


def test_adopt_golden_with_live_dump(run_cli: Any, snapshot: Any) -> None:
    result = run_cli(
        [
            "migrate",
            str(INPUTS / "capz-docs-specification.yaml"),
            "--adopt",
            "-n",
            "migrated",
            "--live",
            str(LIVE / "capz-docs-specification.json"),
        ]
    )
    assert result.exit_code == 0, result.stderr
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.stdout, "capz-docs-specification.live.yaml")
    snapshot.assert_match(
        result.stderr.replace(str(HERE), "<tests>"), "capz-docs-specification.live.stderr.txt"
    )


@pytest.mark.parametrize("case", LEGACY_CASES)
def test_every_adoption_output_validates(case: str, corpus_dir: Path, store: SchemaStore) -> None:
    result = migrate_text(
        case_text(case, corpus_dir),
        source=case,
        options=MigrationOptions(namespace="migrated", adopt=True, schemas=store),
    )
    report = check_sources([SourceText("out.yaml", result.text())], store, ValidationOptions())
    findings = [
        f.to_text()
        for f in report.findings
        # the CAPZ docs' examples keep Kubernetes 1.21.2: the version warning is right
        if f.rule != "CAPZ-K8S-VERSION-SUPPORTED"
    ]
    assert findings == []


# --- the objects of steps 6.1-6.3 ---------------------------------------------------------------


def test_adoption_objects_in_apply_order(corpus_dir: Path, store: SchemaStore) -> None:
    result = migrate_text(
        case_text("capz-corpus-cluster-template-aks", corpus_dir),
        source="aks",
        options=MigrationOptions(namespace="migrated", adopt=True, schemas=store),
    )
    out = objects(result.text())
    assert [o["kind"] for o in out] == [
        "ResourceGroup",
        "ManagedCluster",
        "ManagedClustersAgentPool",
        "ManagedClustersAgentPool",
    ]
    assert {o["metadata"]["namespace"] for o in out} == {"migrated"}
    rg, mc, *pools = out
    assert rg["spec"]["azureName"] == "my-cluster"
    assert rg["metadata"]["annotations"] == {CREDENTIAL: "my-cluster-aso-secret"}
    assert mc["metadata"]["annotations"][ADOPT] == "true"
    assert mc["metadata"]["annotations"][CREDENTIAL] == "my-cluster-aso-secret"
    assert mc["spec"]["owner"] == {"name": rg["metadata"]["name"]}
    assert mc["spec"]["kubernetesVersion"] == "1.33.1"
    profiles = mc["spec"]["agentPoolProfiles"]
    assert [p["name"] for p in profiles] == [p["spec"]["azureName"] for p in pools]
    for pool in pools:
        assert pool["metadata"]["annotations"][ADOPT] == "true"
        assert pool["spec"]["owner"] == {"name": mc["metadata"]["name"]}
    # Without --live the profiles are computed, and the output says what may differ.
    assert any(
        n.path == "spec.agentPoolProfiles" and "may differ from the live cluster" in n.reason
        for n in result.notes
    )


def test_subnet_reference_becomes_an_arm_id(store: SchemaStore) -> None:
    text = (INPUTS / "capz-docs-specification.yaml").read_text(encoding="utf-8")
    options = MigrationOptions(namespace="migrated", adopt=True, schemas=store)
    out = objects(migrate_text(text, source="spec", options=options).text())
    subnet = (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/foo-bar/providers/"
        "Microsoft.Network/virtualNetworks/my-cluster-control-plane/subnets/my-cluster-control-plane"
    )
    for pool in out[2:]:
        assert pool["spec"]["vnetSubnetReference"] == {"armId": subnet}


def test_subnet_without_subscription_is_reported(store: SchemaStore) -> None:
    text = (INPUTS / "capz-docs-specification.yaml").read_text(encoding="utf-8")
    text = text.replace("  subscriptionID: 00000000-0000-0000-0000-000000000000 # fake uuid\n", "")
    options = MigrationOptions(namespace="migrated", adopt=True, schemas=store)
    result = migrate_text(text, source="spec", options=options)
    unmapped = [n for n in result.unmapped if "vnetSubnetReference.armId by hand" in n.reason]
    assert {n.kind for n in unmapped} == {"ManagedCluster", "ManagedClustersAgentPool"}


# --- --live ------------------------------------------------------------------------------------


def live_dump(**changes: Any) -> dict[str, Any]:
    dump: dict[str, Any] = json.loads(
        (LIVE / "capz-docs-specification.json").read_text(encoding="utf-8")
    )
    dump["metadata"]["annotations"].update(changes)
    return dump


def test_live_profiles_are_copied_from_status(tmp_path: Path, store: SchemaStore) -> None:
    dump = live_dump(**{CREDENTIAL: "legacy-creds"})
    text = json.dumps(dump)
    live = tuple(read_live(read_items(text, "live.json"), "live.json"))
    options = MigrationOptions(namespace="migrated", adopt=True, live=live, schemas=store)
    source = (INPUTS / "capz-docs-specification.yaml").read_text(encoding="utf-8")
    result = migrate_text(source, source="spec", options=options)
    rg, mc, *pools = objects(result.text())
    profiles = mc["spec"]["agentPoolProfiles"]
    assert [p["count"] for p in profiles] == [2, 2]
    assert profiles[0]["vnetSubnetReference"]["armId"].endswith("/subnets/my-cluster-control-plane")
    for read_only in ("provisioningState", "nodeImageVersion", "currentOrchestratorVersion"):
        assert read_only not in profiles[0]
        assert any(n.path == f"status.agentPoolProfiles[0].{read_only}" for n in result.notes)
    # The Secret keeps the name the live objects use, everywhere.
    annotations = {o["metadata"]["annotations"][CREDENTIAL] for o in [rg, mc, *pools]}
    assert annotations == {"legacy-creds"}
    assert "kubectl -n default get secret legacy-creds -o json" in result.report()


def test_live_list_takes_the_secret_from_any_old_object(store: SchemaStore) -> None:
    mc = live_dump()
    del mc["metadata"]["annotations"][CREDENTIAL]
    group = {
        "apiVersion": "resources.azure.com/v1api20200601",
        "kind": "ResourceGroup",
        "metadata": {"name": "foo-bar", "annotations": {CREDENTIAL: "from-the-group"}},
    }
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [group, mc]})
    (live,) = read_live(read_items(text, "list.json"), "list.json")
    assert live.credential_secret == "from-the-group"
    assert live.agent_pool_profiles is not None


def test_live_dump_without_managed_cluster_is_refused(run_cli: Any, tmp_path: Path) -> None:
    dump = tmp_path / "live.json"
    dump.write_text('{"apiVersion": "v1", "kind": "List", "items": []}', encoding="utf-8")
    out = tmp_path / "out.yaml"
    result = run_cli(
        [
            "migrate",
            str(INPUTS / "capz-docs-specification.yaml"),
            "--adopt",
            "-n",
            "new",
            "--live",
            str(dump),
            "--write-to",
            str(out),
        ]
    )
    assert result.exit_code == 1
    assert "no containerservice.azure.com ManagedCluster in the live dump" in result.stderr
    assert not out.exists()


def test_live_profiles_must_be_a_list(tmp_path: Path) -> None:
    dump = live_dump()
    dump["status"]["agentPoolProfiles"] = "agentpool0"
    with pytest.raises(MigrationError, match="not a list of mappings"):
        read_live(read_items(json.dumps(dump), "live.json"), "live.json")


# --- the namespace ------------------------------------------------------------------------------


def test_adopt_needs_a_namespace(run_cli: Any) -> None:
    result = run_cli(["migrate", str(INPUTS / "capz-docs-specification.yaml"), "--adopt"])
    assert result.exit_code == 2
    assert "--adopt needs -n/--namespace" in result.stderr


def test_declarative_migration_needs_a_namespace_too(run_cli: Any) -> None:
    result = run_cli(["migrate", str(INPUTS / "capz-docs-specification.yaml")])
    assert result.exit_code == 2
    assert "needs -n/--namespace" in result.stderr


@pytest.mark.parametrize("adopt", [[], ["--adopt"]])
def test_the_source_namespace_is_refused(adopt: list[str], run_cli: Any) -> None:
    result = run_cli(
        ["migrate", str(INPUTS / "capz-docs-specification.yaml"), "-n", "default", *adopt]
    )
    assert result.exit_code == 1
    assert "is the namespace of the legacy cluster my-cluster" in result.stderr
    assert result.stdout == ""


def test_adopt_without_a_legacy_cluster_is_refused(run_cli: Any) -> None:
    result = run_cli(["migrate", str(INPUTS / "aso-v1alpha1.yaml"), "--adopt", "-n", "new"])
    assert result.exit_code == 1
    assert "--adopt needs a legacy AzureManagedControlPlane" in result.stderr


# --- the checklist --------------------------------------------------------------------------------

# What each step of CAPZ's procedure must say, in the doc's order.
DOC_ORDER = [
    '"paused":true',
    "clusterctl.cluster.x-k8s.io/block-move is gone",
    "reconcile-policy=skip",
    '"finalizers":null',
    "kubectl create namespace migrated",
    "get secret my-cluster-aso-secret -o json",
    "wait resourcegroup/foo-bar --for=condition=Ready",
    "wait azureasomanagedcontrolplane/my-cluster-control-plane --for=create",
    "report AVAILABLE=True",
    "wait cluster/my-cluster-control-plane --for=condition=Available",
    "delete cluster my-cluster --wait=false",
    "delete azuremanagedcluster my-cluster --wait=false",
    "delete azuremanagedcontrolplane my-cluster-control-plane --wait=false",
    "delete machinepool agentpool0 agentpool1 --wait=false",
    "delete azuremanagedmachinepool agentpool0 agentpool1 --wait=false",
    "patch azuremanagedmachinepool agentpool0 agentpool1",
    "patch machinepool agentpool0 agentpool1",
    "patch azuremanagedcontrolplane my-cluster-control-plane",
    """patch cluster my-cluster --type merge -p '{"metadata":{"finalizers":null}}'""",
    "old ASO objects are gone",
]


def test_checklist_follows_the_doc_order(run_cli: Any) -> None:
    result = run_cli(
        ["migrate", str(INPUTS / "capz-docs-specification.yaml"), "--adopt", "-n", "migrated"]
    )
    assert result.exit_code == 0, result.stderr
    positions = [result.stderr.find(marker) for marker in DOC_ORDER]
    assert -1 not in positions, [m for m, p in zip(DOC_ORDER, positions, strict=True) if p < 0]
    assert positions == sorted(positions)


@pytest.mark.parametrize("adopt", [[], ["--adopt"]])
def test_output_json_gives_the_same_steps(adopt: list[str], run_cli: Any) -> None:
    args = ["migrate", str(INPUTS / "capz-docs-specification.yaml"), "-n", "migrated", *adopt]
    text = run_cli(args)
    data = run_cli([*args, "--output", "json"])
    assert data.exit_code == 0, data.stderr
    assert data.stderr == ""
    parsed = json.loads(data.stdout)
    assert parsed["manifests"] == text.stdout
    (checklist,) = parsed["checklists"]
    flat = "\n".join("\n".join([step["text"], *step["commands"]]) for step in checklist["steps"])
    positions = [flat.find(marker) for marker in DOC_ORDER]
    assert -1 not in positions
    assert positions == sorted(positions)
    assert [s["number"] for s in checklist["steps"]] == list(range(1, len(checklist["steps"]) + 1))
    (credentials,) = parsed["credentials"]
    assert credentials["name"] == "my-cluster-aso-secret"
    assert any(n["category"] == "unmapped" for n in parsed["notes"])


def test_output_json_with_write_to(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "adopt.yaml"
    args = ["migrate", str(INPUTS / "capz-docs-specification.yaml"), "-n", "migrated", "--adopt"]
    result = run_cli([*args, "--output", "json", "--write-to", str(out)])
    assert result.exit_code == 0, result.stderr
    parsed = json.loads(result.stdout)
    assert parsed["written_to"] == str(out)
    assert "manifests" not in parsed
    assert [o["kind"] for o in objects(out.read_text(encoding="utf-8"))][:2] == [
        "ResourceGroup",
        "ManagedCluster",
    ]


# --- legacy groups and output validation --------------------------------------------------------------


def test_exp_group_inputs_migrate_with_a_note() -> None:
    text = (INPUTS / "capz-docs-exp-v1alpha4.yaml").read_text(encoding="utf-8")
    exp = migrate_text(text, source="exp", options=MigrationOptions(namespace="migrated"))
    current = migrate_text(
        (INPUTS / "capz-docs-specification.yaml").read_text(encoding="utf-8"),
        source="spec",
        options=MigrationOptions(namespace="migrated"),
    )
    assert exp.text() == current.text()
    moved = [n for n in exp.notes if n.path == "apiVersion"]
    assert {n.kind for n in moved} == {
        "Cluster",
        "AzureManagedControlPlane",
        "AzureManagedCluster",
        "MachinePool",
        "AzureManagedMachinePool",
    }
    assert "exp.infrastructure.cluster.x-k8s.io/v1alpha4 read as" in moved[1].reason


PATCH_TYPO = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata:
  name: my-cluster
spec:
  location: eastus
  version: v1.33.1
  subscriptionID: 00000000-0000-0000-0000-000000000001
  asoManagedClusterPatches:
  - '{"spec": {"networkProfile": {"networkPolicy": "cilium"}}}'
  - '{"spec": {"netwrokProfile": {"networkPolicy": "cilium"}}}'
"""


@pytest.mark.parametrize("adopt", [[], ["--adopt"]])
def test_invalid_output_is_refused_naming_the_patch(
    adopt: list[str], run_cli: Any, tmp_path: Path
) -> None:
    source = tmp_path / "typo.yaml"
    source.write_text(PATCH_TYPO, encoding="utf-8")
    out = tmp_path / "out.yaml"
    result = run_cli(["migrate", str(source), "-n", "new", "--write-to", str(out), *adopt])
    assert result.exit_code == 1
    assert not out.exists()
    assert result.stdout == ""
    assert 'unknown field "netwrokProfile"' in result.stderr
    assert (
        "spec.netwrokProfile is set by AzureManagedControlPlane/my-cluster "
        "spec.asoManagedClusterPatches[1]"
    ) in result.stderr
    assert "nothing was written" in result.stderr


POOL_PATCH_TYPO = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata:
  name: my-cluster
spec:
  location: eastus
  version: v1.33.1
  subscriptionID: 00000000-0000-0000-0000-000000000001
  asoManagedClusterPatches:
  - '{"spec": {"networkProfile": {"networkPolicy": "cilium"}}}'
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata:
  name: pool0
  labels:
    cluster.x-k8s.io/cluster-name: my-cluster
spec:
  mode: System
  sku: Standard_D2s_v3
  asoManagedClustersAgentPoolPatches:
  - '{"spec": {"maxPod": 40}}'
"""


def test_agent_pool_patch_typo_names_the_pool_patch(run_cli: Any, tmp_path: Path) -> None:
    source = tmp_path / "typo.yaml"
    source.write_text(POOL_PATCH_TYPO, encoding="utf-8")
    result = run_cli(["migrate", str(source), "-n", "new"])
    assert result.exit_code == 1
    assert (
        "ManagedClustersAgentPool/pool0: spec.maxPod is set by AzureManagedMachinePool/pool0 "
        "spec.asoManagedClustersAgentPoolPatches[0]"
    ) in result.stderr
    assert "asoManagedClusterPatches" not in result.stderr


def test_live_profiles_without_a_schema_are_copied_and_reported(
    corpus_dir: Path, shared_dir: Path
) -> None:
    text = case_text("capz-docs-preview", corpus_dir)
    dump = live_dump()
    dump["metadata"]["name"] = "my-cluster"
    live = tuple(read_live(read_items(json.dumps(dump), "live.json"), "live.json"))
    # A search path without the preview's schema (the bundle has it): only the catalog's files.
    store = SchemaStore.from_search_path([shared_dir / "schemas"], use_bundle=False)
    options = MigrationOptions(namespace="migrated", adopt=True, live=live, schemas=store)
    result = migrate_text(text, source="preview", options=options)
    mc = objects(result.text())[1]
    assert mc["spec"]["agentPoolProfiles"] == dump["status"]["agentPoolProfiles"]
    assert any("copied from the live status unchanged" in n.reason for n in result.unmapped)
