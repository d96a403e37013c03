"""capzgen adopt --from-az: adoption objects for an AKS cluster CAPZ never managed (issue 16 item 6),
from az JSON written after the Azure REST API's response shape (tests/migrate/az/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions
from generator.errors import MigrationError
from generator.migrate.az import READ_ONLY, AzInput, adopt_from_az, flatten
from generator.migrate.shape import fit, spelled_as
from generator.schemastore.store import SchemaStore
from generator.validate.check import SourceText, check_sources
from generator.yamlio.load import load_documents

AZ = Path(__file__).resolve().parent / "az"
GOLDEN = Path(__file__).resolve().parent / "golden" / "adopt-az"
ADOPT = "sigs.k8s.io/cluster-api-provider-azure-adopt"
CASES = {
    "aks-show": ["--from-az", str(AZ / "aks-show.json")],
    "rest": [
        "--from-az",
        str(AZ / "rest-managedcluster.json"),
        "--node-pools",
        str(AZ / "rest-nodepool-list.json"),
    ],
}


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return SchemaStore.from_search_path([])


def load(name: str) -> Any:
    return json.loads((AZ / name).read_text(encoding="utf-8"))


def objects(text: str) -> list[dict[str, Any]]:
    return [d.obj for d in load_documents(text, source="t") if d.obj is not None]


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, run_cli: Any, snapshot: Any) -> None:
    result = run_cli(["adopt", *CASES[case], "-n", "adopted"])
    assert result.exit_code == 0, result.stderr
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.stdout, f"{case}.yaml")
    snapshot.assert_match(result.stderr, f"{case}.stderr.txt")


@pytest.mark.parametrize(
    ("cluster", "pools"),
    [("aks-show.json", None), ("rest-managedcluster.json", "rest-nodepool-list.json")],
)
def test_output_validates(cluster: str, pools: str | None, store: SchemaStore) -> None:
    given = AzInput(load(cluster), load(pools) if pools else None, cluster)
    result = adopt_from_az(given, store, "adopted", None)
    report = check_sources([SourceText("out.yaml", result.text())], store, ValidationOptions())
    # the REST fixture's GPU pool uses Standard_NC6s_v3, outside capzgen's VM size list (the NCv3
    # series is retired): a warning, never an error
    assert [f.to_text() for f in report.findings if f.rule != "CAPZ-VM-SIZE-KNOWN"] == []
    assert not any(f.is_error for f in report.findings)


def test_adoption_objects(store: SchemaStore) -> None:
    given = AzInput(load("rest-managedcluster.json"), load("rest-nodepool-list.json"), "az")
    result = adopt_from_az(given, store, "adopted", "team-creds")
    rg, mc, *pools = objects(result.text())
    assert [rg["kind"], mc["kind"]] == ["ResourceGroup", "ManagedCluster"]
    assert rg["spec"] == {"azureName": "team-rg", "location": "eastus2"}
    assert mc["metadata"]["annotations"] == {
        ADOPT: "true",
        "serviceoperator.azure.com/credential-from": "team-creds",
    }
    assert mc["spec"]["owner"] == {"name": "team-rg"}
    assert mc["spec"]["azureName"] == "team-aks"
    # A user-assigned identity keyed by ID becomes a list of references.
    assert mc["spec"]["identity"]["userAssignedIdentities"] == [
        {
            "reference": {
                "armId": "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/"
                "team-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/team-aks-cp"
            }
        }
    ]
    kubelet = mc["spec"]["identityProfile"]["kubeletidentity"]
    assert kubelet["resourceReference"]["armId"].endswith("/team-aks-agentpool")
    assert [p["spec"]["azureName"] for p in pools] == ["nodepool1", "gpu"]
    assert {p["metadata"]["annotations"][ADOPT] for p in pools} == {"true"}
    assert {p["spec"]["owner"]["name"] for p in pools} == {"team-aks"}
    gpu = pools[1]["spec"]
    assert gpu["scaleSetPriority"] == "Spot"
    assert "nodeLabels" not in gpu  # only AKS's own label was there
    assert "spec.nodeLabels" not in result.report()


def test_every_schema_field_in_the_input_is_mapped(store: SchemaStore) -> None:
    """Each settable field of the az output that ASO's ManagedCluster spec has is carried over."""
    cluster = flatten(load("aks-show.json"))
    handle = store.lookup("containerservice.azure.com/v1api20240901", "ManagedCluster")
    assert handle is not None
    properties = handle.schema["properties"]["spec"]["properties"]
    result = adopt_from_az(AzInput(load("aks-show.json"), None, "az"), store, "adopted", None)
    spec = objects(result.text())[1]["spec"]
    expected = {
        spelled_as(key, properties)
        for key, value in cluster.items()
        if value is not None and key not in READ_ONLY and spelled_as(key, properties)
    }
    assert expected <= spec.keys()
    assert {"networkProfile", "aadProfile", "autoScalerProfile", "securityProfile"} <= expected


def test_read_only_and_unknown_fields_are_listed(store: SchemaStore) -> None:
    given = AzInput(load("rest-managedcluster.json"), None, "az")
    result = adopt_from_az(given, store, "adopted", None)
    text = result.report()
    assert "note: ManagedCluster/team-aks: fqdn: read-only (set by Azure): dropped" in text
    assert (
        "unmapped: ManagedCluster/team-aks: futureAksSetting: not a field of the ASO spec" in text
    )
    assert "1 field not mapped" in result.summary
    spec = objects(result.text())[1]["spec"]
    assert not {"fqdn", "provisioningState", "futureAksSetting", "maxAgentPools"} & spec.keys()
    assert "effectiveOutboundIPs" not in spec["networkProfile"]["loadBalancerProfile"]


def test_az_cli_spelling_is_folded(store: SchemaStore) -> None:
    result = adopt_from_az(AzInput(load("aks-show.json"), None, "az"), store, "adopted", None)
    spec = objects(result.text())[1]["spec"]
    assert spec["enableRBAC"] is True
    assert spec["networkProfile"]["dnsServiceIP"] == "10.0.0.10"
    assert spec["apiServerAccessProfile"]["authorizedIPRanges"] == ["203.0.113.0/24"]
    assert spec["autoScalerProfile"]["balance-similar-node-groups"] == "false"
    assert spec["agentPoolProfiles"][0]["osDiskSizeGB"] == 128
    assert spec["agentPoolProfiles"][0]["vnetSubnetReference"]["armId"].endswith("/subnets/aks")


def test_output_json(run_cli: Any) -> None:
    result = run_cli(["adopt", *CASES["aks-show"], "-n", "adopted", "--output", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [o["kind"] for o in objects(data["manifests"])][:2] == [
        "ResourceGroup",
        "ManagedCluster",
    ]
    steps = data["checklists"][0]["steps"]
    assert "kubectl create namespace adopted" in steps[0]["text"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "expected an object (az aks show), got list"),
        ("{", "invalid JSON"),
        ('{"name": "x"}', "name and resourceGroup must be strings"),
    ],
)
def test_bad_input(content: str, message: str, run_cli: Any, tmp_path: Path) -> None:
    source = tmp_path / "show.json"
    source.write_text(content, encoding="utf-8")
    result = run_cli(["adopt", "--from-az", str(source), "-n", "adopted"])
    assert result.exit_code == 1
    assert message in result.stderr
    assert result.stdout == ""


def test_node_pools_must_be_a_list(run_cli: Any, tmp_path: Path) -> None:
    pools = tmp_path / "pools.json"
    pools.write_text("{}", encoding="utf-8")
    result = run_cli(["adopt", *CASES["aks-show"], "--node-pools", str(pools), "-n", "x"])
    assert result.exit_code == 1
    assert "expected a list (az aks nodepool list)" in result.stderr


@pytest.mark.parametrize("args", [["-n", "Bad_NS"], ["-n", "ok", "--credential-secret", "a/b"]])
def test_bad_names(args: list[str], run_cli: Any) -> None:
    result = run_cli(["adopt", *CASES["aks-show"], *args])
    assert result.exit_code == 2


def test_invalid_output_is_refused(run_cli: Any, tmp_path: Path) -> None:
    show = load("aks-show.json")
    show["agentPoolProfiles"][0]["osDiskType"] = "Floppy"  # not in the enum
    source = tmp_path / "show.json"
    source.write_text(json.dumps(show), encoding="utf-8")
    out = tmp_path / "out.yaml"
    result = run_cli(["adopt", "--from-az", str(source), "-n", "a", "--write-to", str(out)])
    assert result.exit_code == 1, result.stderr
    assert "nothing was written" in result.stderr
    assert not out.exists()


def test_missing_schema_is_an_error(tmp_path: Path) -> None:
    empty = SchemaStore.from_search_path([], use_bundle=False)
    with pytest.raises(MigrationError, match="no schema for"):
        adopt_from_az(AzInput(load("aks-show.json"), None, "az"), empty, "adopted", None)


# --- fitting onto a schema -------------------------------------------------------------------------

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "enum": ["Standard", "Basic"]},
        "count": {"type": "integer"},
        "subnetReference": {"type": "object", "properties": {"armId": {"type": "string"}}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        "zones": {"type": "array", "items": {"type": "string"}},
        "open": {"type": "object"},
    },
}


def test_fit_keeps_converts_and_reports() -> None:
    fitted = fit(
        {
            "sku": "standard",
            "count": "3",
            "subnetID": "/subscriptions/s/resourceGroups/r",
            "free": {"any": [1]},
            "tags": {"a": "b", "n": 1},
            "zones": ["1", 2],
            "open": {"x": 1},
            "state": "Succeeded",
            "gone": None,
        },
        SCHEMA,
        ["spec"],
        read_only=frozenset({"state"}),
    )
    assert fitted.value == {
        "sku": "Standard",
        "subnetReference": {"armId": "/subscriptions/s/resourceGroups/r"},
        "free": {"any": [1]},
        "tags": {"a": "b"},
        "zones": ["1"],
        "open": {"x": 1},
    }
    assert dict(fitted.dropped) == {
        "spec.count": "a integer in the ASO schema",
        "spec.tags.n": "a string in the ASO schema",
        "spec.zones[1]": "a string in the ASO schema",
        "spec.state": "read-only (set by Azure): dropped",
    }


def test_fit_refuses_a_reference_that_is_not_an_id() -> None:
    fitted = fit({"subnetId": 5, "boolCount": True}, SCHEMA)
    assert fitted.value == {}
    assert ("subnetId", "an ARM ID string was expected") in fitted.dropped
