"""Where schemas come from, as a user meets it: the built-in bundle with nothing configured, a
missing schema that explains itself, --ignore-missing-schemas on every command that validates,
and configured paths that do not exist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GENERATE_DEMO, validated_line

GENERATE = GENERATE_DEMO
UNKNOWN_VERSION = """\
target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}
patch: {apiVersion: resources.azure.com/v1api20990101}
"""


@pytest.fixture
def patch_file(tmp_path: Path) -> Path:
    path = tmp_path / "unknown-version.yaml"
    path.write_text(UNKNOWN_VERSION)
    return path


def test_generate_validates_with_the_bundle_and_nothing_configured(run_cli: Any) -> None:
    result = run_cli(GENERATE)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == validated_line()
    assert result.stdout.count("\nkind: ") + result.stdout.startswith("kind: ") == 7


def test_missing_schema_names_the_kind_the_sources_and_the_fix(
    run_cli: Any, patch_file: Path, isolated_cache: Path
) -> None:
    result = run_cli([*GENERATE, "--patch", str(patch_file)])
    assert result.exit_code == 1
    assert result.stdout == ""
    finding, hint, error = result.stderr.splitlines()
    # The patch set the apiVersion, so the finding names it before the rendered line.
    assert finding.startswith(
        f"{patch_file} (document 1) -> <generated>:52: "
        "AzureASOManagedCluster/demo > ResourceGroup/demo: apiVersion: "
        "no schema for resources.azure.com/v1api20990101, Kind=ResourceGroup (searched: "
        f"cache {isolated_cache / 'schemas'}; the built-in bundle ("
    )
    assert "kubernetes-sigs/cluster-api-provider-azure@v1.26.0" in finding
    assert "the core Kubernetes kinds of kubernetes-validate" in finding
    assert hint == (
        "hint: pin the CRDs your management cluster runs with `capzgen schemas import "
        "--from-cluster` (or `kubectl get crds -o yaml | capzgen schemas import -`), or pass "
        "--ignore-missing-schemas to report such objects as skipped"
    )
    assert (
        error == "Error: generated manifests are invalid (7 documents checked: 1 error, 0 warnings)"
    )


def test_generate_cluster_ignore_missing_schemas_reports_the_skip(
    run_cli: Any, patch_file: Path
) -> None:
    result = run_cli([*GENERATE, "--patch", str(patch_file), "--ignore-missing-schemas"])
    assert result.exit_code == 0, result.stderr
    assert "apiVersion: resources.azure.com/v1api20990101" in result.stdout
    assert result.stderr == (
        f"{patch_file} (document 1) -> "
        "<generated>:52: AzureASOManagedCluster/demo > ResourceGroup/demo: apiVersion: warning: "
        "skipped: no schema for resources.azure.com/v1api20990101, Kind=ResourceGroup; not "
        "checked against a schema (--ignore-missing-schemas) (no-schema) [admission]\n"
    ) + validated_line(warnings=1)


def test_validate_ignore_missing_schemas(run_cli: Any, tmp_path: Path) -> None:
    manifest = tmp_path / "widget.yaml"
    manifest.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
    failed = run_cli(["validate", str(manifest)])
    assert failed.exit_code == 1
    assert "no schema for example.com/v1, Kind=Widget (searched: " in failed.stdout
    assert "hint: pin the CRDs your management cluster runs" in failed.stdout
    skipped = run_cli(["validate", "--ignore-missing-schemas", str(manifest)])
    assert skipped.exit_code == 0
    assert "warning: skipped: no schema for example.com/v1, Kind=Widget" in skipped.stdout
    assert skipped.stdout.endswith("1 document checked: 0 errors, 1 warning\n")


def test_generate_fleet_ignore_missing_schemas(run_cli: Any, tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "defaults:\n"
        "  values: {AZURE_LOCATION: westeurope}\n"
        "  kubernetesVersion: v1.31.1\n"
        "clusters:\n"
        "  - name: east\n"
        "    overrides:\n"
        "      - target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}\n"
        "        patch: {apiVersion: resources.azure.com/v1api20990101}\n"
    )
    out = tmp_path / "out"
    failed = run_cli(["generate", "fleet", str(fleet), "--output-dir", str(out)])
    assert failed.exit_code == 1
    assert "no schema for resources.azure.com/v1api20990101, Kind=ResourceGroup" in failed.stderr
    assert "hint: pin the CRDs" in failed.stderr
    assert not out.exists()
    done = run_cli(
        ["generate", "fleet", str(fleet), "--output-dir", str(out), "--ignore-missing-schemas"]
    )
    assert done.exit_code == 0, done.stderr
    assert "skipped: no schema for resources.azure.com/v1api20990101" in done.stderr
    assert (out / "east" / "kustomization.yaml").is_file()


@pytest.mark.parametrize("command", ["generate", "validate", "schemas"])
def test_schema_path_entry_that_does_not_exist_is_a_usage_error(
    run_cli: Any, tmp_path: Path, command: str
) -> None:
    missing = tmp_path / "no-such-folder"
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    argv = {
        "generate": GENERATE,
        "validate": ["validate", str(manifest)],
        "schemas": ["schemas", "list"],
    }[command]
    result = run_cli(argv, env={"CAPZGEN_SCHEMA_PATH": str(missing)})
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"Error: {missing}: $CAPZGEN_SCHEMA_PATH names a schema folder or file that does not exist",
        "Hint: fix the path, or drop it from $CAPZGEN_SCHEMA_PATH",
    ]
    assert result.stdout == ""


def test_schema_dir_that_does_not_exist_is_a_usage_error(run_cli: Any, tmp_path: Path) -> None:
    missing = tmp_path / "typo"
    result = run_cli([*GENERATE, "--schema-dir", str(missing)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"Error: {missing}: --schema-dir names a schema folder or file that does not exist"
    )
