"""`capzgen generate fleet`: many clusters, validated together, written only when all are valid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import FleetError
from generator.fleet.digest import RECORD_NAME
from generator.fleet.file import deep_merge, parse_fleet
from generator.fleet.render import SERIAL_BELOW, FleetOptions, render_fleet
from generator.output.gitops import FluxOptions
from tests.gitops.conftest import read_dir, stat_dir

GOLDEN = Path(__file__).parent / "golden"

FLEET = """\
defaults:
  flavor: aks
  kubernetesVersion: v1.31.1
  namespace: fleet
  values:
    AZURE_LOCATION: westeurope
    NODE_POOLS:
      - {name: system, mode: System}
      - {name: user, mode: User}
  overrides:
    - target: {kind: Cluster, name: "{cluster}"}
      patch: {metadata: {labels: {fleet: demo}}}
clusters:
  - name: east
    values: {AZURE_LOCATION: eastus}
  - name: west
    workerMachineCount: 3
    values:
      NODE_POOLS:
        - {name: system, mode: System, vmSize: Standard_D4s_v5}
  - name: north
    flavor: aks-maintenance
    kubernetesVersion: v1.30.4
    namespace: north
    overrides:
      - target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}
        patch: {spec: {sku: {tier: Standard}}}
"""


def write_fleet(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fleet.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def fleet_cli(run_cli: Any, schema_args: list[str], tmp_path: Path):  # type: ignore[no-untyped-def]
    def run(text: str, *extra: str, out: Path | None = None) -> Any:
        fleet = write_fleet(tmp_path, text)
        target = out or tmp_path / "out"
        return run_cli(
            ["generate", "fleet", str(fleet), "--output-dir", str(target), *schema_args, *extra]
        )

    return run


def test_three_clusters_with_overrides_match_golden(
    fleet_cli: Any, tmp_path: Path, snapshot: Any
) -> None:
    result = fleet_cli(FLEET, "--layout", "flux", "--flux-path", "clusters")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "3 clusters, 19 objects: 0 errors, 0 warnings" in result.stderr
    assert "25 files written, 0 unchanged, 0 removed" in result.stderr
    # the input records hold digests of the flavor files: they change with every flavor edit
    files = {
        name: text
        for name, text in read_dir(tmp_path / "out").items()
        if not name.endswith(f"/{RECORD_NAME}")
    }
    assert sorted({name.split("/")[0] for name in files}) == ["east", "north", "west"]
    snapshot.snapshot_dir = GOLDEN
    nested: dict[str, dict[str, str]] = {}
    for name, text in files.items():
        cluster, file = name.split("/")
        nested.setdefault(cluster, {})[file] = text
    snapshot.assert_match_dir(nested, "three-clusters")


def test_fleet_folders_equal_generate_cluster_output_dirs(
    fleet_cli: Any, run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    assert fleet_cli(FLEET).exit_code == 0
    values = tmp_path / "values.yaml"
    values.write_text(
        "AZURE_LOCATION: eastus\nNODE_POOLS:\n- {name: system, mode: System}\n- {name: user, mode: User}\n"
    )
    label = tmp_path / "label.yaml"
    label.write_text(
        "target: {kind: Cluster, name: east}\npatch: {metadata: {labels: {fleet: demo}}}\n"
    )
    single = tmp_path / "single"
    result = run_cli(
        [
            "generate",
            "cluster",
            "east",
            "--values",
            str(values),
            "--kubernetes-version",
            "v1.31.1",
            "-n",
            "fleet",
            "--patch",
            str(label),
            "--output-dir",
            str(single),
            *schema_args,
        ]
    )
    assert result.exit_code == 0, result.stderr
    fleet_folder = read_dir(tmp_path / "out" / "east")
    assert "inputs" in fleet_folder.pop(RECORD_NAME)  # only a fleet records its inputs
    assert read_dir(single) == fleet_folder


def test_rerun_changes_no_byte(fleet_cli: Any, tmp_path: Path) -> None:
    assert fleet_cli(FLEET).exit_code == 0
    before = stat_dir(tmp_path / "out")
    again = fleet_cli(FLEET)
    assert again.exit_code == 0, again.stderr
    assert "0 files written, 22 unchanged, 0 removed" in again.stderr
    assert stat_dir(tmp_path / "out") == before


def test_edited_file_in_one_cluster_blocks_the_whole_fleet(fleet_cli: Any, tmp_path: Path) -> None:
    assert fleet_cli(FLEET).exit_code == 0
    edited = tmp_path / "out" / "west" / "cluster-west.yaml"
    edited.write_text("edited: true\n")
    before = stat_dir(tmp_path / "out")
    refused = fleet_cli(FLEET.replace("AZURE_LOCATION: westeurope", "AZURE_LOCATION: northeurope"))
    assert refused.exit_code == 1
    assert f"{edited}: edited since capzgen wrote it" in refused.stderr
    assert stat_dir(tmp_path / "out") == before


def test_cross_cluster_duplicates_are_findings_and_nothing_is_written(
    fleet_cli: Any, tmp_path: Path
) -> None:
    text = """\
defaults:
  kubernetesVersion: v1.31.1
  values: {AZURE_LOCATION: westeurope}
clusters:
  - name: alpha
    overrides:
      - target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}
        patch: {spec: {azureName: Shared-RG}}
  - name: beta
    overrides:
      - target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}
        patch: {spec: {azureName: shared-rg}}
      - target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}
        patch: {spec: {dnsPrefix: alpha}}
  - name: gamma
    overrides:
      - target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}
        patch: {spec: {azureName: SHARED-rg}}
  - name: alpha
"""
    result = fleet_cli(text)
    assert result.exit_code == 1
    fleet = tmp_path / "fleet.yaml"
    for expected in (
        f"{fleet}: Fleet/alpha: clusters[3].name: clusters[0] and clusters[3] are both named 'alpha' (FLEET-001)",
        "<cluster beta>: AzureASOManagedCluster/beta > ResourceGroup/beta: spec.azureName: "
        "clusters 'alpha' and 'beta' both use resource group 'shared-rg' (FLEET-002)",
        "<cluster beta>: AzureASOManagedControlPlane/beta > ManagedCluster/beta: spec.dnsPrefix: "
        "clusters 'alpha' and 'beta' both use DNS prefix 'alpha' (FLEET-003)",
        "<cluster gamma>: AzureASOManagedCluster/gamma > ResourceGroup/gamma: spec.azureName: "
        "clusters 'alpha' and 'gamma' both use resource group 'SHARED-rg' (FLEET-002)",
    ):
        assert expected in result.stderr, expected
    assert (
        "Error: fleet is invalid (4 clusters, 28 objects: 4 errors, 0 warnings "
        "(clusters with problems: alpha, beta, gamma)); nothing was written"
    ) in result.stderr
    assert "nothing was written" in result.stderr
    assert not (tmp_path / "out").exists()


def test_resource_group_rule_can_be_disabled(fleet_cli: Any) -> None:
    text = """\
defaults:
  kubernetesVersion: v1.31.1
  values: {AZURE_LOCATION: westeurope}
  overrides:
    - target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}
      patch: {spec: {azureName: shared}}
clusters: [{name: aa}, {name: bb}]
"""
    assert fleet_cli(text).exit_code == 1
    result = fleet_cli(text, "--disable-rule", "FLEET-002")
    assert result.exit_code == 0, result.stderr


def test_invalid_fleet_file_lists_every_problem(fleet_cli: Any, tmp_path: Path) -> None:
    text = """\
kind: Flotilla
defaults:
  flavr: aks
  values: {bad-name: 1}
clusters:
  - name: Bad_Name
    workerMachineCount: -1
  - values: {}
  - name: ok
    overrides:
      - target: {kind: Cluster}
      - target: {kind: Cluster}
        clusters: [nobody]
        patch: {}
"""
    result = fleet_cli(text)
    assert result.exit_code == 1
    assert f"Error: {tmp_path / 'fleet.yaml'}: invalid fleet file" in result.stderr
    for expected in (
        'kind: "Fleet" was expected',
        "defaults: Additional properties are not allowed ('flavr' was unexpected)",
        'defaults.values: "bad-name" does not match',
        'clusters[0].name: "Bad_Name" does not match',
        "clusters[0].workerMachineCount: -1 is less than the minimum of 0",
        'clusters[1]: "name" is a required property',
    ):
        assert expected in result.stderr, expected
    assert not (tmp_path / "out").exists()


def test_invalid_overrides_are_listed_together(fleet_cli: Any) -> None:
    text = """\
clusters:
  - name: ok
    overrides:
      - target: {kind: Cluster}
      - target: {kind: Cluster}
        clusters: [nobody]
        patch: {}
"""
    result = fleet_cli(text)
    assert result.exit_code == 1
    assert "clusters[0].overrides[0]: needs exactly one of `patch`" in result.stderr
    assert "clusters[0].overrides[1].clusters: no cluster named nobody" in result.stderr


def test_render_errors_of_several_clusters_are_reported_together(
    fleet_cli: Any, tmp_path: Path
) -> None:
    text = """\
defaults: {kubernetesVersion: v1.31.1}
clusters:
  - name: one
  - name: two
    values: {AZURE_LOCATION: westeurope}
  - name: three
    values: {AZURE_LOCATION: westeurope, WORKER_MACHINE_COUNT: many}
"""
    result = fleet_cli(text)
    assert result.exit_code == 1
    assert "2 failed to render" in result.stderr
    assert "  one: " in result.stderr and "AZURE_LOCATION" in result.stderr
    assert "  three: " in result.stderr and "WORKER_MACHINE_COUNT" in result.stderr
    assert not (tmp_path / "out").exists()


def test_patch_files_apply_to_every_cluster_or_to_selected_ones(
    fleet_cli: Any, tmp_path: Path
) -> None:
    patch = tmp_path / "tier.yaml"
    patch.write_text(
        "target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}\n"
        "clusters: [east, west]\n"
        "patch: {spec: {sku: {tier: Premium}}}\n---\n"
        "target: {kind: MachinePool, name: '{cluster}-system'}\n"
        "patch: {spec: {replicas: 4}}\n"
    )
    result = fleet_cli(FLEET, "--patch", str(patch))
    assert result.exit_code == 0, result.stderr
    out = tmp_path / "out"
    assert "tier: Premium" in (out / "east" / "azureasomanagedcontrolplane-east.yaml").read_text()
    assert (
        "tier: Standard" in (out / "north" / "azureasomanagedcontrolplane-north.yaml").read_text()
    )
    for name in ("east", "west", "north"):
        assert "replicas: 4" in (out / name / f"machinepool-{name}-system.yaml").read_text()


def test_patch_selecting_an_unknown_cluster_is_an_error(fleet_cli: Any, tmp_path: Path) -> None:
    patch = tmp_path / "p.yaml"
    patch.write_text("target: {kind: Cluster}\nclusters: [south]\npatch: {}\n")
    result = fleet_cli(FLEET, "--patch", str(patch))
    assert result.exit_code == 1
    assert f"{patch}: document 1: no cluster named south" in result.stderr


def test_deep_merge_merges_mappings_and_replaces_lists() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1, "e": 2}
    assert deep_merge(base, {"a": {"c": [3]}, "d": None, "f": {"g": 1}}) == {
        "a": {"b": 1, "c": [3]},
        "e": 2,
        "f": {"g": 1},
    }
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1, "e": 2}


def test_parse_fleet_resolves_settings_over_defaults() -> None:
    fleet = parse_fleet(FLEET, source="fleet.yaml")
    east, west, north = fleet.clusters
    assert east.values["AZURE_LOCATION"] == "eastus"
    assert east.values["NODE_POOLS"] == [
        {"name": "system", "mode": "System"},
        {"name": "user", "mode": "User"},
    ]
    assert west.worker_machine_count == 3
    assert west.values["NODE_POOLS"] == [
        {"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5"}
    ]
    assert (north.flavor, north.kubernetes_version, north.namespace) == (
        "aks-maintenance",
        "v1.30.4",
        "north",
    )
    assert [o.where for o in north.overrides] == [
        "defaults.overrides[0]",
        "clusters[2].overrides[0]",
    ]


def test_a_fleet_file_holds_one_document() -> None:
    with pytest.raises(FleetError, match="one YAML document, not 2"):
        parse_fleet("clusters: [{name: a}]\n---\nclusters: [{name: b}]\n", source="f.yaml")


def test_parallel_rendering_equals_serial_and_reports_progress(
    shared_schema_dirs: list[Path],
) -> None:
    count = SERIAL_BELOW + 2
    names = "\n".join(f"  - name: c{i:02d}" for i in range(count))
    fleet = parse_fleet(
        f"defaults:\n  kubernetesVersion: v1.31.1\n  values: {{AZURE_LOCATION: westeurope}}\n"
        f"clusters:\n{names}\n",
        source="fleet.yaml",
    )
    flux = FluxOptions(name="", path="./clusters")
    ticks: list[int] = []
    parallel = render_fleet(
        fleet,
        FleetOptions(schema_dirs=shared_schema_dirs, jobs=2, flux=flux),
        progress=ticks.append,
    )
    serial = render_fleet(fleet, FleetOptions(schema_dirs=shared_schema_dirs, jobs=1, flux=flux))
    assert len(ticks) == count
    assert not parallel.has_errors
    assert [o.name for o in parallel.outcomes] == [f"c{i:02d}" for i in range(count)]
    assert [o.files for o in parallel.outcomes] == [o.files for o in serial.outcomes]
    assert "  path: ./clusters/c07\n" in parallel.outcomes[7].files["flux-kustomization.yaml"]


def test_setup_problems_are_reported_once(run_cli: Any, tmp_path: Path) -> None:
    fleet = write_fleet(tmp_path, FLEET)
    out = tmp_path / "out"
    for option in ("--schema-dir", "--flavors-dir"):
        result = run_cli(
            [
                "generate",
                "fleet",
                str(fleet),
                "--output-dir",
                str(out),
                option,
                str(tmp_path / "no"),
            ]
        )
        assert result.exit_code in (1, 2)
        assert result.stderr.count("does not exist") == 1, result.stderr
    assert not out.exists()


def test_identical_render_errors_are_grouped(fleet_cli: Any) -> None:
    names = "".join(f"  - name: c{i}x\n" for i in range(8))
    result = fleet_cli(f"defaults: {{flavor: nope}}\nclusters:\n{names}")
    assert result.exit_code == 1
    assert "8 failed to render" in result.stderr
    assert "  c0x, c1x, c2x, c3x, c4x and 3 more: unknown flavor 'nope'\n" in result.stderr
    assert result.stderr.count("unknown flavor") == 1
