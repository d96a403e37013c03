"""The real upstream data (vendored in tests/data/upstream): every CRD and every ASO JSON Schema converts and compiles."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml

from generator.schemastore.catalog import catalog_gvk, load_catalog_schema
from generator.schemastore.compiler import compile_schema
from generator.schemastore.crd import convert_documents
from generator.schemastore.handle import CompiledSchema
from generator.schemastore.loading import SourceBytes, parse_documents
from generator.schemastore.repair import repair_schema
from generator.schemastore.store import SchemaStore
from generator.schemastore.types import GroupVersionKind

RESOURCE_GROUP = "schemas/resources.azure.com/resourcegroup_v1api20200601.json"


def crd_files(shared_dir: Path) -> list[Path]:
    return sorted((shared_dir / "crds").glob("*/*.yaml"))


def test_every_shared_crd_converts_every_served_version(shared_dir: Path) -> None:
    files = crd_files(shared_dir)
    assert len(files) == 22  # CAPZ 13, CAPI 5, Flux 4
    for path in files:
        documents = parse_documents(SourceBytes.read(path))
        served = {
            (d["spec"]["names"]["kind"], v["name"])
            for d in documents
            for v in d["spec"]["versions"]
            if v["served"]
        }
        converted = convert_documents(documents)
        assert {(c.gvk.kind, c.gvk.version) for c in converted} == served, path
        for item in converted:
            validator = compile_schema(item.schema, source=str(path))
            # The root is strict and requires apiVersion/kind.
            assert not validator.is_valid({"kind": item.gvk.kind})


def test_capi_cel_rules_survive_conversion(shared_dir: Path) -> None:
    path = shared_dir / "crds/capi-v1.13.3/cluster.x-k8s.io_clusters.yaml"
    converted = convert_documents(parse_documents(SourceBytes.read(path)))
    text = json.dumps([c.schema for c in converted])
    assert text.count('"x-kubernetes-validations"') > 0
    assert '"description": "' not in text  # documentation strings are dropped


def test_every_aso_json_schema_compiles(shared_dir: Path) -> None:
    files = sorted((shared_dir / "schemas").glob("*/*.json"))
    assert len(files) == 109
    for path in files:
        gvk = catalog_gvk(path)
        assert gvk is not None, path
        schema = load_catalog_schema(path)
        validator = compile_schema(schema, source=str(path))
        base = {"apiVersion": gvk.api_version, "kind": gvk.kind, "metadata": {"name": "x"}}
        assert validator.is_valid(base), path
        assert not validator.is_valid({**base, "spex": {}}), path  # root made strict


def test_resource_group_defect_is_repaired_and_logged(
    shared_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = shared_dir / RESOURCE_GROUP
    raw = json.loads(path.read_bytes())
    assert raw["properties"]["status"]["properties"]["additionalProperties"] is False  # the defect
    repairs = repair_schema(raw)
    assert [(r.pointer, r.keyword) for r in repairs] == [
        ("/properties/status", "additionalProperties")
    ]
    assert "additionalProperties" not in raw["properties"]["status"]["properties"]
    assert raw["properties"]["status"]["additionalProperties"] is False

    # Logged at INFO (shown with -v): the repair happens on every lookup, so a warning would
    # repeat on every run of every command.
    with caplog.at_level(logging.INFO):
        load_catalog_schema(path)
    assert str(path) in caplog.text
    assert "repaired" in caplog.text


def test_repaired_resource_group_still_catches_unknown_fields(shared_dir: Path) -> None:
    store = SchemaStore.from_search_path([shared_dir / "schemas"])
    handle = store.lookup("resources.azure.com/v1api20200601", "ResourceGroup")
    assert isinstance(handle, CompiledSchema)
    obj = {
        "apiVersion": "resources.azure.com/v1api20200601",
        "kind": "ResourceGroup",
        "metadata": {"name": "rg"},
        "spec": {"location": "westeurope", "locaton": "typo"},
        "status": {"properties": {"provisioningState": "Succeeded"}, "bogus": 1},
    }
    found = {(v.path, v.message) for v in handle.iter_violations(obj)}
    assert found == {
        (("spec", "locaton"), 'unknown field "locaton"'),
        (("status", "bogus"), 'unknown field "bogus"'),
    }


AKS_GVKS = [
    ("cluster.x-k8s.io/v1beta2", "Cluster"),
    ("cluster.x-k8s.io/v1beta2", "MachinePool"),
    ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedCluster"),
    ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedControlPlane"),
    ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedMachinePool"),
    ("resources.azure.com/v1api20200601", "ResourceGroup"),
    ("containerservice.azure.com/v1api20240901", "ManagedCluster"),
    ("containerservice.azure.com/v1api20240901", "ManagedClustersAgentPool"),
]


def test_aks_manifest_kinds_resolve_from_the_shared_dirs(shared_schema_dirs: list[Path]) -> None:
    store = SchemaStore.from_search_path(shared_schema_dirs)
    for api_version, kind in AKS_GVKS:
        handle = store.lookup(api_version, kind)
        assert handle is not None, (api_version, kind)
        assert handle.gvk == GroupVersionKind.from_api_version(api_version, kind)


def test_shared_aks_templates_embedded_resources_validate(
    corpus_dir: Path, shared_schema_dirs: list[Path]
) -> None:
    """The ASO resources CAPZ ships in spec.resources pass their own schemas (no false positives)."""
    store = SchemaStore.from_search_path(shared_schema_dirs)
    checked = 0
    text = (corpus_dir / "cluster-template-aks-aso.yaml").read_text(encoding="utf-8")
    for document in yaml.safe_load_all(text):
        for resource in (document or {}).get("spec", {}).get("resources", []) or []:
            handle = store.lookup(resource["apiVersion"], resource["kind"])
            assert handle is not None
            problems = [v for v in handle.iter_violations(resource) if "${" not in str(v)]
            # ${VAR} placeholders may break a format or enum; nothing else may fail.
            assert all("unknown field" not in v.message for v in problems), problems
            checked += 1
    assert checked >= 3
