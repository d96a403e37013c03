"""`capzgen generate cluster`: the main job, through the CLI edge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

CAPZ_ENV = {
    "AZURE_LOCATION": "eastus",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
}


def kinds(text: str) -> list[str]:
    return [d["kind"] for d in yaml.safe_load_all(text) if d]


def test_default_flavor_is_aks_and_output_is_complete(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli(
        ["generate", "cluster", "demo", "--kubernetes-version", "v1.31.1", *schema_args],
        env={"AZURE_LOCATION": "westeurope"},
    )
    assert result.exit_code == 0, result.stderr
    assert kinds(result.stdout) == [
        "Cluster",
        "AzureASOManagedControlPlane",
        "AzureASOManagedCluster",
        "MachinePool",
        "AzureASOManagedMachinePool",
        "MachinePool",
        "AzureASOManagedMachinePool",
    ]


def test_flags_beat_var_values_file_environment_and_config(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("AZURE_LOCATION: from-values\nWORKER_MACHINE_COUNT: 4\n")
    config = tmp_path / "clusterctl.yaml"
    config.write_text("AZURE_LOCATION: fromconfig\nKUBERNETES_VERSION: v1.30.0\n")
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--values",
            str(values),
            "--config",
            str(config),
            "--var",
            "AZURE_LOCATION=fromvar",
            "--worker-machine-count",
            "5",
            *schema_args,
        ],
        env={"AZURE_LOCATION": "fromenv"},
    )
    assert result.exit_code == 0, result.stderr
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    control_plane = next(d for d in docs if d["kind"] == "AzureASOManagedControlPlane")
    assert control_plane["spec"]["resources"][0]["spec"]["location"] == "fromvar"
    assert control_plane["spec"]["version"] == "v1.30.0"  # from the config file
    assert {d["spec"]["replicas"] for d in docs if d["kind"] == "MachinePool"} == {5}


def test_values_file_gives_typed_node_pools(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "NODE_POOLS:\n- {name: sys, mode: System}\n- {name: u1, mode: User}\n- {name: u2, mode: User, replicas: 7}\n"
    )
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--values",
            str(values),
            "--var",
            "AZURE_LOCATION=eastus",
            "--kubernetes-version",
            "v1.31.1",
            *schema_args,
        ]
    )
    assert result.exit_code == 0, result.stderr
    pools = [d for d in yaml.safe_load_all(result.stdout) if d and d["kind"] == "MachinePool"]
    assert [(p["metadata"]["name"], p["spec"]["replicas"]) for p in pools] == [
        ("demo-sys", 2),
        ("demo-u1", 2),
        ("demo-u2", 7),
    ]


def test_missing_and_mistyped_variables_are_named_together(
    run_cli: Any, schema_args: list[str]
) -> None:
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--var",
            "WORKER_MACHINE_COUNT=many",
            "--var",
            "AKS_SKU_TIER=Gold",
            *schema_args,
        ]
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    for name in ("AZURE_LOCATION", "KUBERNETES_VERSION", "WORKER_MACHINE_COUNT", "AKS_SKU_TIER"):
        assert name in result.stderr
    assert result.stderr.count("Error:") == 1


def test_invalid_output_is_never_written(
    run_cli: Any, schema_args: list[str], tmp_path: Path, corpus_dir: Path
) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("previous content\n")
    # clusterctl's injected WORKER_MACHINE_COUNT=0 makes CAPZ's System pool invalid.
    template = str(corpus_dir / "cluster-template-aks-aso.yaml")
    result = run_cli(
        [
            "generate",
            "cluster",
            "c1",
            "--from",
            template,
            "--kubernetes-version",
            "v1.31.1",
            "--write-to",
            str(target),
            *schema_args,
        ],
        env=CAPZ_ENV,
    )
    assert result.exit_code == 1
    assert "CAPZ-POOL-SCALESET" in result.stderr
    assert target.read_text() == "previous content\n"
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left behind


def test_too_short_cluster_name_is_a_variable_error(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli(
        [
            "generate",
            "cluster",
            "d",
            "--var",
            "AZURE_LOCATION=eastus",
            "--kubernetes-version",
            "v1.31.1",
            *schema_args,
        ]
    )
    assert result.exit_code == 1
    assert "CLUSTER_NAME" in result.stderr


def test_write_to_replaces_the_file_atomically(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    target = tmp_path / "out.yaml"
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--var",
            "AZURE_LOCATION=eastus",
            "--kubernetes-version",
            "v1.31.1",
            "--write-to",
            str(target),
            *schema_args,
        ]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert kinds(target.read_text())[0] == "Cluster"
    assert (target.stat().st_mode & 0o777) == 0o600


def test_target_namespace_moves_every_object(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "-n",
            "team-a",
            "--var",
            "AZURE_LOCATION=eastus",
            "--kubernetes-version",
            "v1.31.1",
            *schema_args,
        ]
    )
    assert result.exit_code == 0, result.stderr
    assert {d["metadata"]["namespace"] for d in yaml.safe_load_all(result.stdout) if d} == {
        "team-a"
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-n", "Bad_NS"], "invalid target-namespace"),
        (["--kubernetes-version", "1.x"], "invalid KubernetesVersion"),
        (["--worker-machine-count", "-1"], "WorkerMachineCount"),
        (["--var", "no-equals"], "KEY=VALUE"),
        (["--flavor", "aks", "--from", "x.yaml"], "either --flavor or --from"),
        (["--disable-rule", "NOPE"], "unknown rule"),
    ],
)
def test_usage_errors_exit_2(run_cli: Any, args: list[str], message: str) -> None:
    result = run_cli(["generate", "cluster", "demo", *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_flavor_lists_the_available_ones(run_cli: Any) -> None:
    result = run_cli(["generate", "cluster", "demo", "--flavor", "nope"])
    assert result.exit_code == 1
    assert "unknown flavor 'nope'" in result.stderr
    assert "aks-maintenance" in result.stderr


def test_from_capz_template_injects_zero_workers_like_clusterctl(
    run_cli: Any, schema_args: list[str], corpus_dir: Path
) -> None:
    """clusterctl injects WORKER_MACHINE_COUNT=0 when it is set nowhere, beating the template's
    `${WORKER_MACHINE_COUNT:=2}`; for CAPZ's System pool that is invalid, and capzgen says so
    before anything is written (clusterctl would emit it and AKS would reject it)."""
    template = str(corpus_dir / "cluster-template-aks-aso.yaml")
    args = ["generate", "cluster", "c1", "--from", template, "--kubernetes-version", "v1.31.1"]
    result = run_cli([*args, *schema_args], env=CAPZ_ENV)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "MachinePool/c1-pool0: spec.replicas: is 0" in result.stderr
    result = run_cli([*args, "--worker-machine-count", "2", *schema_args], env=CAPZ_ENV)
    assert result.exit_code == 0, result.stderr
    pools = [d for d in yaml.safe_load_all(result.stdout) if d and d["kind"] == "MachinePool"]
    assert {p["spec"]["replicas"] for p in pools} == {2}


def test_list_variables_for_a_clusterctl_template(run_cli: Any, corpus_dir: Path) -> None:
    result = run_cli(
        [
            "generate",
            "cluster",
            "c1",
            "-n",
            "ns1",
            "--list-variables",
            "--from",
            str(corpus_dir / "cluster-template-aks-aso.yaml"),
        ]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Required Variables:\n  - ASO_CREDENTIAL_SECRET_NAME\n")
    assert "  - CLUSTER_NAME          (defaults to c1)\n" in result.stdout
    assert "  - WORKER_MACHINE_COUNT  (defaults to 0)\n" in result.stdout


def test_list_variables_for_a_flavor_uses_clusterctls_layout(run_cli: Any) -> None:
    result = run_cli(["generate", "cluster", "demo", "--flavor", "aks", "--list-variables"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        "Required Variables:\n  - AZURE_LOCATION\n  - KUBERNETES_VERSION\n\nOptional Variables:\n"
    )
    assert "  - WORKER_MACHINE_COUNT             (defaults to 2)\n" in result.stdout
    assert "  - CLUSTER_NAME                     (defaults to demo)\n" in result.stdout


def test_missing_flavors_dir_is_an_io_error(run_cli: Any) -> None:
    result = run_cli(["generate", "cluster", "demo", "--flavors-dir", "/nonexistent-flavors"])
    assert result.exit_code == 2
    assert "/nonexistent-flavors: flavors folder does not exist" in result.stderr
