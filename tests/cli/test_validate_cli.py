"""`capzgen validate`: real CAPZ templates, exit codes, output formats and hostile input."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_generate_yaml import FULL_VARIABLES

CLEAN_TEMPLATES = [
    "cluster-template-aks-aso.yaml",
    "cluster-template-aks-aso-maintenance.yaml",
    "cluster-template-aks-aso-clusterclass.yaml",
    "cluster-template-aks-aso-topology.yaml",
    "cluster-template-aks.yaml",
    "cluster-template-aks-topology.yaml",
]


def substituted(run_cli: Any, template: Path, tmp_path: Path) -> Path:
    result = run_cli(["generate", "yaml", "--from", str(template)], env=FULL_VARIABLES)
    assert result.exit_code == 0, result.stderr
    out = tmp_path / template.name
    out.write_text(result.stdout)
    return out


@pytest.mark.parametrize("name", CLEAN_TEMPLATES)
def test_capz_released_templates_validate_clean(
    run_cli: Any, corpus_dir: Path, tmp_path: Path, schema_args: list[str], name: str
) -> None:
    manifest = substituted(run_cli, corpus_dir / name, tmp_path)
    result = run_cli(["validate", str(manifest), *schema_args])
    assert result.exit_code == 0, result.stdout
    assert result.stdout.endswith("0 errors, 0 warnings\n")


def test_legacy_clusterclass_template_is_admitted_as_the_api_server_admits_it(
    run_cli: Any, corpus_dir: Path, tmp_path: Path, schema_args: list[str]
) -> None:
    """AzureManagedControlPlaneTemplate v1beta1 requires resourceGroupName, which CAPZ's released
    aks-clusterclass template does not set; CAPZ's mutating webhook re-encodes the object from its
    Go type (resourceGroupName has no omitempty), so the API server validates ``""`` and admits
    it (capz-oracle agrees): passed, with one informational finding saying so."""
    manifest = substituted(run_cli, corpus_dir / "cluster-template-aks-clusterclass.yaml", tmp_path)
    result = run_cli(["validate", str(manifest), *schema_args])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"{manifest}:51: AzureManagedControlPlaneTemplate/c1-control-plane: "
        "spec.template.spec.resourceGroupName: info: passes the schema because the API server "
        'sets on create: spec.template.spec.resourceGroupName="" (Go JSON encoding of '
        'api/v1beta1/types_class.go); as written it would fail: required field "resourceGroupName" '
        "is missing (admission) [admission]",
        "8 documents checked: 0 errors, 0 warnings, 1 info",
    ]


BROKEN = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata:
  name: c1
  namespace: default
spec:
  version: v1.31.1
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata:
      name: c1
      annotations:
        serviceoperator.azure.com/credential-from: aso
    spec:
      location: eastus
      dnsPrefx: c1
      owner:
        name: c1
"""


def test_typo_inside_an_embedded_managed_cluster_is_found_with_its_line(
    run_cli: Any, tmp_path: Path, schema_args: list[str]
) -> None:
    path = tmp_path / "cp.yaml"
    path.write_text(BROKEN)
    result = run_cli(
        ["validate", str(path), "--disable-rule", "CAPZ-REF-UNREFERENCED", *schema_args]
    )
    assert result.exit_code == 1
    assert (
        f"{path}:17: AzureASOManagedControlPlane/c1 > ManagedCluster/c1: spec.dnsPrefx: "
        'unknown field "dnsPrefx" (schema)'
    ) in result.stdout


def test_json_output_carries_the_same_findings(
    run_cli: Any, tmp_path: Path, schema_args: list[str]
) -> None:
    path = tmp_path / "cp.yaml"
    path.write_text(BROKEN)
    result = run_cli(["validate", str(path), "--output", "json", *schema_args])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    typo = [f for f in data["findings"] if f["rule"] == "schema"]
    assert typo[0]["line"] == 17
    assert typo[0]["embedded_kind"] == "ManagedCluster"


def test_stdin_and_folders(run_cli: Any, tmp_path: Path, schema_args: list[str]) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "cp.yml").write_text(BROKEN)
    (tmp_path / "notes.txt").write_text("not yaml: [")
    from_folder = run_cli(["validate", str(tmp_path), *schema_args])
    from_stdin = run_cli(["validate", "-", *schema_args], stdin=BROKEN)
    assert from_folder.exit_code == from_stdin.exit_code == 1
    assert "notes.txt" not in from_folder.stdout
    assert "<stdin>:17:" in from_stdin.stdout


def test_missing_schema_is_an_error_unless_ignored(
    run_cli: Any, tmp_path: Path, schema_args: list[str]
) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
    result = run_cli(["validate", str(path), *schema_args])
    assert result.exit_code == 1
    assert "example.com/v1, Kind=Widget" in result.stdout
    assert run_cli(["validate", str(path), "--ignore-missing-schemas", *schema_args]).exit_code == 0


def test_usage_and_io_problems_exit_2(run_cli: Any, tmp_path: Path) -> None:
    assert run_cli(["validate"]).exit_code == 2
    missing = run_cli(["validate", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2
    assert "nope.yaml" in missing.stderr


def test_list_rules(run_cli: Any) -> None:
    result = run_cli(["validate", "--list-rules"])
    assert result.exit_code == 0
    assert "CAPZ-POOL-NAME" in result.stdout


# --- hostile input: a clear error naming the place, quickly, with nothing crashing -----------------


def _alias_bomb() -> str:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "content", "expect"),
    [
        ("bomb.yaml", _alias_bomb(), "alias"),
        ("deep.yaml", "a: " + "[" * 10_000 + "]" * 10_000 + "\n", "deeper"),
        ("garbage.yaml", bytes(range(256)) * 40, "not a text file"),
        ("dup.yaml", "apiVersion: v1\nkind: Secret\nkind: ConfigMap\n", "duplicate key"),
    ],
)
def test_hostile_input_is_a_located_error(
    run_cli: Any, tmp_path: Path, name: str, content: str | bytes, expect: str
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    started = time.monotonic()
    result = run_cli(["validate", str(path)])
    assert time.monotonic() - started < 30  # a hang guard only; speed lives in `make bench`
    assert result.exit_code in (1, 2)
    assert str(path) in result.stdout + result.stderr
    assert (
        expect in (result.stdout + result.stderr).lower() or expect in result.stdout + result.stderr
    )
    assert "Traceback" not in result.stderr


def test_oversized_file_is_refused(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("w") as handle:
        line = "k" * 99 + "\n"
        for _ in range(500_000):  # 50 MB
            handle.write(line)
    result = run_cli(["validate", str(path)])
    assert result.exit_code in (1, 2)
    assert "big.yaml" in result.stdout + result.stderr
    assert "MiB" in result.stdout + result.stderr or "bytes" in result.stdout + result.stderr


def test_one_unreadable_file_does_not_hide_the_others(
    run_cli: Any, tmp_path: Path, schema_args: list[str]
) -> None:
    (tmp_path / "a-garbage.yaml").write_bytes(b"\x00\x01\x02")
    (tmp_path / "b-cp.yaml").write_text(BROKEN)
    result = run_cli(["validate", str(tmp_path), *schema_args])
    assert result.exit_code == 1
    assert "a-garbage.yaml:1:1: ?/?: (object): not a text file" in result.stdout
    assert 'unknown field "dnsPrefx"' in result.stdout


def test_unreadable_entries_of_a_folder_are_findings_and_the_rest_is_checked(
    run_cli: Any, tmp_path: Path
) -> None:
    import os

    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n")
    (folder / "b.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nbad: 1\n")
    (folder / "c.yaml").symlink_to(tmp_path / "gone.yaml")
    os.mkfifo(folder / "d.yaml")
    result = run_cli(["validate", str(folder)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert (
        f"{folder / 'c.yaml'}: ?/?: (object): cannot read: dangling symbolic link (yaml) "
        "[admission]" in lines
    )
    assert (
        f"{folder / 'd.yaml'}: ?/?: (object): not a regular file (a FIFO, socket or device); "
        "not read (yaml) [admission]" in lines
    )
    assert any(line.startswith(f"{folder / 'b.yaml'}:4: ConfigMap/x: bad:") for line in lines)
    assert lines[-1] == "2 documents checked: 3 errors, 0 warnings"
    as_json = json.loads(run_cli(["validate", "--output", "json", str(folder)]).stdout)
    assert as_json["summary"]["errors"] == 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["validate", "--output", "json", "/nonexistent/x.yaml"], "no such file or directory"),
        (["validate", "--output", "json", "--schema-dir", "/nonexistent", "-"], "does not exist"),
        (["validate", "--output", "json"], "no input"),
    ],
)
def test_json_output_is_json_on_every_exit_code(
    run_cli: Any, argv: list[str], message: str
) -> None:

    result = run_cli(argv, stdin="")
    assert result.exit_code == 2
    payload = json.loads(result.stdout)
    assert message in payload["error"]["message"]
    assert payload["error"]["exit_code"] == 2
    assert payload["findings"] == []
    assert result.stderr.startswith("Error: ")


def test_values_file_over_8_mib_is_refused(run_cli: Any, tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("A: " + "x" * (8 * 1024 * 1024) + "\n")
    result = run_cli(["generate", "cluster", "demo", "--values", str(values)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {values}: input is larger than 8 MiB")
    assert len(result.stderr) < 1000


def test_endless_stdin_import_stops_at_the_bound(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(["schemas", "import", "-"], stdin="a" * (32 * 1024 * 1024 + 10))
    assert result.exit_code == 1
    assert "Error: <stdin>: input is larger than 32 MiB" in result.stderr


def test_long_messages_are_clipped() -> None:
    from generator.findings import clip

    assert clip("x" * 10) == "x" * 10
    assert clip("x" * 600) == "x" * 500 + "... (100 more characters)"


LEGACY_PATCHED = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata:
  name: demo
  namespace: default
spec:
  location: westeurope
  resourceGroupName: demo
  subscriptionID: 00000000-0000-0000-0000-000000000000
  version: v1.31.1
  identityRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureClusterIdentity
    name: demo-identity
  asoManagedClusterPatches:
    - '{"spec": {"disableLocalAcounts": true}}'
    - '{"spec": {"tags": {"team": "a"}'
"""


def test_option7_patches_are_validated_with_the_built_in_schemas(
    run_cli: Any, tmp_path: Path
) -> None:
    """The issue's case: a typo in a patch used to pass with exit 0."""
    manifest = tmp_path / "legacy.yaml"
    manifest.write_text(LEGACY_PATCHED)
    result = run_cli(["validate", str(manifest)])
    assert result.exit_code == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"{manifest}:16: AzureManagedControlPlane/demo: spec.asoManagedClusterPatches[0]: "
        'spec.disableLocalAcounts: unknown field "disableLocalAcounts" (in no shipped version) '
        "[containerservice.azure.com/v1api20240901 ManagedCluster] (CAPZ-ASO-PATCH-SCHEMA) "
        "[provisioning: ASO refuses the resource CAPZ's controller builds from the patches]",
        f"{manifest}:17: AzureManagedControlPlane/demo: spec.asoManagedClusterPatches[1]: "
        "not valid JSON: Expecting ',' delimiter (line 1, column 32 of the patch) "
        "(CAPZ-ASO-PATCH-JSON) [provisioning: CAPZ's controller cannot apply the patch]",
        "1 document checked: 2 errors, 0 warnings",
    ]


def test_a_raw_template_is_met_with_a_hint_to_render_it_first(
    run_cli: Any, corpus_dir: Path, schema_args: list[str]
) -> None:
    template = corpus_dir / "cluster-template-aks.yaml"
    result = run_cli(["validate", str(template), *schema_args])
    assert result.exit_code == 1
    hint = f"capzgen generate cluster NAME --from {template}"
    assert [line for line in result.stdout.splitlines() if hint in line] == [
        f"hint: {template} looks like a clusterctl template (unresolved ${{VAR}} placeholders); "
        f"validate what it renders to: {hint}"
    ]
    piped = run_cli(["validate", "-", *schema_args], stdin=template.read_text())
    assert "capzgen generate cluster NAME --from -" in piped.stdout
    as_json = run_cli(["validate", str(template), "--output", "json", *schema_args])
    assert hint in as_json.stdout


def test_rendered_manifests_get_no_template_hint(
    run_cli: Any, corpus_dir: Path, tmp_path: Path, schema_args: list[str]
) -> None:
    manifest = substituted(run_cli, corpus_dir / "cluster-template-aks.yaml", tmp_path)
    text = manifest.read_text().replace("replicas: 2", "replicas: -1", 1)
    manifest.write_text(text)
    result = run_cli(["validate", str(manifest), *schema_args])
    assert result.exit_code == 1
    assert "generate cluster" not in result.stdout


def test_a_yaml_error_names_its_line_and_column_in_text_and_json(
    run_cli: Any, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n")
    text = run_cli(["validate", str(bad)])
    assert text.exit_code == 1
    assert f"{bad}:5:1: ?/?: (object): did not find expected ',' or ']'" in text.stdout
    finding = json.loads(run_cli(["validate", "--output", "json", str(bad)]).stdout)["findings"][0]
    assert (finding["line"], finding["column"], finding["rule"]) == (5, 1, "yaml")
