"""No silent typos (issue 14, items 1, 2 and 5): every mistake a clusterctl user makes is named,
with the nearest right value, through the CLI edge (exact message lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.azure_data import is_vm_size_name
from tests.conftest import GENERATE_DEMO

UNKNOWN_HINT = (
    "Hint: check the spelling (--list-variables lists the variables), or pass "
    "--allow-unknown-vars to set them anyway"
)
VALUES_HINT = (
    "Hint: see `capzgen generate cluster NAME --flavor aks --list-variables` for types and defaults"
)


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_unknown_var_is_an_error_with_the_nearest_name(
    run_cli: Any, schema_args: list[str]
) -> None:
    result = run_cli(
        [*GENERATE_DEMO, "--var", "AZURE_NODE_MACHNE_TYPE=Standard_D4s_v5", *schema_args]
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert lines(result.stderr) == [
        "Error: 1 unknown variable given to flavor aks",
        "  AZURE_NODE_MACHNE_TYPE: not a variable of flavor aks; did you mean "
        "AZURE_NODE_MACHINE_TYPE?",
        UNKNOWN_HINT,
    ]


def test_every_unknown_name_is_listed_once_with_its_place(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "AZURE_LOCATION: westeurope\nNODE_POOL:\n  - {name: a, mode: System}\nQQQ: 1\n"
    )
    result = run_cli(
        [
            *GENERATE_DEMO,
            "--values",
            str(values),
            "--var",
            "WORKER_MACHNE_COUNT=3",
            "--var",
            "WORKER_MACHNE_COUNT=4",
            *schema_args,
        ]
    )
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        "Error: 3 unknown variables given to flavor aks",
        "  WORKER_MACHNE_COUNT: not a variable of flavor aks; did you mean WORKER_MACHINE_COUNT?",
        f"  NODE_POOL: not a variable of flavor aks; did you mean NODE_POOLS? ({values}:2)",
        f"  QQQ: not a variable of flavor aks ({values}:4)",
        UNKNOWN_HINT,
    ]


def test_allow_unknown_vars_renders_anyway(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli(
        [*GENERATE_DEMO, "--var", "MY_OWN_NOTE=x", "--allow-unknown-vars", *schema_args]
    )
    assert result.exit_code == 0, result.stderr
    assert "MachinePool" in result.stdout


def test_names_match_as_the_layers_look_them_up(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli([*GENERATE_DEMO, "--var", "worker_machine_count=3", *schema_args])
    assert result.exit_code == 0, result.stderr


def test_environment_and_config_file_are_not_checked(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    config = tmp_path / "clusterctl.yaml"
    config.write_text("SOME_OTHER_TEMPLATE_VAR: x\nAZURE_NODE_MACHNE_TYPE: y\n")
    result = run_cli(
        [*GENERATE_DEMO, "--config", str(config), *schema_args],
        env={"AZURE_CLIENT_SECRET_FOR_ANOTHER_TEMPLATE": "x", "NODE_POOL": "x"},
    )
    assert result.exit_code == 0, result.stderr


def test_a_template_accepts_only_the_names_it_uses(
    run_cli: Any, tmp_path: Path, corpus_dir: Path, schema_args: list[str]
) -> None:
    template = corpus_dir / "cluster-template-aks-aso.yaml"
    base = ["generate", "cluster", "demo", "--from", str(template), "--worker-machine-count", "2"]
    base.append("--kubernetes-version")
    env = {
        "AZURE_LOCATION": "eastus",
        "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
        "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
    }
    result = run_cli([*base, "v1.31.1", "--var", "AZURE_LOCATON=eastus", *schema_args], env=env)
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        f"Error: 1 unknown variable given to template {template}",
        f"  AZURE_LOCATON: not a variable of template {template}; did you mean AZURE_LOCATION?",
        UNKNOWN_HINT,
    ]
    # clusterctl's own flag variables are always accepted, used by the template or not
    ok = run_cli(
        [*base, "v1.31.1", "--var", "CONTROL_PLANE_MACHINE_COUNT=1", *schema_args], env=env
    )
    assert ok.exit_code == 0, ok.stderr


def test_fleet_values_are_checked_per_cluster(
    run_cli: Any, schema_args: list[str], tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)  # a short file name: a fleet's grouped error is clipped at 500
    fleet = Path("fleet.yaml")
    fleet.write_text(
        "defaults: {kubernetesVersion: v1.31.1, values: {AZURE_LOCATION: westeurope}}\n"
        "clusters:\n  - name: east\n    values: {NODE_POOL: [{name: a, mode: System}]}\n"
    )
    out = tmp_path / "out"
    argv = ["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args]
    result = run_cli(argv)
    assert result.exit_code == 1
    assert lines(result.stderr)[1:] == [
        "  east: 1 unknown variable given to flavor aks",
        "  NODE_POOL: not a variable of flavor aks; did you mean NODE_POOLS? (values of fleet.yaml)",
        "  hint: check the spelling (--list-variables lists the variables), or pass "
        "--allow-unknown-vars to set them anyway",
    ]
    assert not out.exists()
    assert run_cli([*argv, "--allow-unknown-vars"]).exit_code == 0


def test_nested_field_and_enum_typos_name_the_values_file_line(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "NODE_POOLS:\n"
        "  - name: sys\n"
        "    mode: Sytem\n"
        "  - name: apps\n"
        "    mode: User\n"
        "    vmsize: Standard_D4s_v5\n"
    )
    result = run_cli([*GENERATE_DEMO, "--values", str(values), *schema_args])
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        "Error: 2 problems with the variables of flavor 'aks'",
        "  NODE_POOLS[0].mode: 'Sytem' is not one of System, User; did you mean System? "
        f"({values}:3)",
        f"  NODE_POOLS[1].vmsize: unknown field 'vmsize'; did you mean vmSize? ({values}:6)",
        VALUES_HINT,
    ]


def test_a_region_display_name_gets_a_human_message(run_cli: Any, schema_args: list[str]) -> None:
    argv = ["generate", "cluster", "demo", "--kubernetes-version", "v1.31.1", *schema_args]
    result = run_cli([*argv, "--var", "AZURE_LOCATION=West Europe"])
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        "Error: 1 problem with the variables of flavor 'aks'",
        "  AZURE_LOCATION: 'West Europe' is not an Azure region name (lower-case letters and "
        "digits, as `az account list-locations -o table` names them, e.g. westeurope); did you "
        "mean westeurope? (from command line)",
        VALUES_HINT,
    ]
    assert "does not match" not in result.stderr  # no raw regular expression


def test_an_unknown_region_and_an_unsupported_version_warn(
    run_cli: Any, schema_args: list[str]
) -> None:
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--kubernetes-version",
            "v1.99.0",
            "--var",
            "AZURE_LOCATION=westeu",
            *schema_args,
        ]
    )
    assert result.exit_code == 0, result.stderr
    region = (
        "spec.location: warning: 'westeu' is not an Azure public region (list of 2026-11-24); "
        "did you mean westeurope or westus? (CAPZ-AZURE-REGION) "
        "[provisioning: ARM refuses an unknown location]"
    )
    version = (
        "spec.version: warning: Kubernetes v1.99.0 is outside the versions CAPZ v1.26.0 "
        "supports (v1.30 to v1.36; Cluster API v1.13 release notes, workload clusters, checked "
        "2026-11-24) (CAPZ-K8S-VERSION-SUPPORTED) "
        "[provisioning: AKS or CAPZ v1.26.0 does not offer this version]"
    )
    assert (
        f"<generated>:33: AzureASOManagedControlPlane/demo > ManagedCluster/demo: {region}"
        in lines(result.stderr)
    )
    assert f"<generated>:43: AzureASOManagedControlPlane/demo: {version}" in lines(result.stderr)


def test_a_vm_size_that_is_no_vm_size_is_refused(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli(
        [*GENERATE_DEMO, "--var", "AZURE_NODE_MACHINE_TYPE=Standard_Foo", *schema_args]
    )
    assert result.exit_code == 1
    assert lines(result.stderr)[:2] == [
        "Error: 1 problem with the variables of flavor 'aks'",
        "  AZURE_NODE_MACHINE_TYPE: 'Standard_Foo' is not a VM size name "
        "(Standard_<family><vCPUs>[<features>][_<version>], e.g. Standard_D4s_v5 or "
        "Standard_B2ms) (from command line)",
    ]


@pytest.mark.parametrize("size", ["standard_d2s_v3", "STANDARD_D4S_V5", "Standard_Foo", "D4s_v5"])
def test_generate_and_validate_agree_on_a_vm_size(
    run_cli: Any, schema_args: list[str], tmp_path: Path, size: str
) -> None:
    """One rule: what ``generate`` refuses, ``validate`` refuses (lower case passes both, as
    Azure reads VM size names in any case)."""
    generated = run_cli([*GENERATE_DEMO, "--var", f"AZURE_NODE_MACHINE_TYPE={size}", *schema_args])
    accepted = is_vm_size_name(size)
    assert (generated.exit_code == 0) is accepted, generated.stderr
    default = run_cli([*GENERATE_DEMO, *schema_args])
    assert default.exit_code == 0, default.stderr
    manifest = tmp_path / "c.yaml"
    manifest.write_text(default.stdout.replace("vmSize: Standard_D2s_v3", f"vmSize: {size}"))
    validated = run_cli(["validate", str(manifest), *schema_args])
    assert (validated.exit_code == 0) is accepted, validated.stdout
    assert ("(CAPZ-VM-SIZE)" in validated.stdout) is not accepted


def test_capz_template_names_are_flavor_aliases(run_cli: Any, schema_args: list[str]) -> None:
    plain = run_cli([*GENERATE_DEMO, *schema_args])
    aliased = run_cli([*GENERATE_DEMO, "--flavor", "aks-aso", *schema_args])
    assert aliased.exit_code == 0, aliased.stderr
    assert aliased.stdout == plain.stdout
    listing = run_cli(["flavors", "list"])
    rows = {line.split()[0]: line for line in lines(listing.stdout)}
    assert rows["aks"].endswith("(alias: aks-aso)")
    assert rows["aks-clusterclass"].endswith("(alias: aks-aso-clusterclass)")
    assert rows["aks-maintenance"].endswith("(alias: aks-aso-maintenance)")
    assert rows["aks-topology"].endswith("(alias: aks-aso-topology)")
    assert "alias" not in rows["aks-legacy"]
    shown = run_cli(["flavors", "show", "aks-aso-maintenance"])
    assert shown.stdout.startswith("aks-maintenance: ")


def test_an_unknown_flavor_suggests_the_nearest(run_cli: Any) -> None:
    result = run_cli(["generate", "cluster", "demo", "--flavor", "ask"])
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        "Error: unknown flavor 'ask'",
        "Hint: did you mean aks? available flavors: aks, aks-automatic, aks-clusterclass, "
        "aks-legacy, aks-maintenance, aks-multi-tenancy, aks-topology",
    ]
    near_alias = run_cli(["flavors", "show", "aks-aso-maintenace"])
    assert "Hint: did you mean aks-aso-maintenance or aks-maintenance?" in near_alias.stderr


def test_generate_yaml_hint_names_only_what_it_accepts(run_cli: Any, tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: '${NAME}'}\n")
    result = run_cli(["generate", "yaml", "--from", str(template)])
    assert result.exit_code == 1
    assert lines(result.stderr) == [
        "Error: value for variables [NAME] is not set",
        "Hint: set them in the environment or in the clusterctl config file (--config, else "
        "$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml or ~/.cluster-api/clusterctl.yaml)",
    ]
    assert "--var" not in result.stderr and "--values" not in result.stderr


def test_generate_cluster_keeps_the_full_missing_variable_hint(
    run_cli: Any, tmp_path: Path
) -> None:
    template = tmp_path / "t.yaml"
    template.write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: '${NAME}'}\n")
    result = run_cli(["generate", "cluster", "demo", "--from", str(template), "--no-validate"])
    assert result.exit_code == 1
    assert "--var or --values" in result.stderr


def test_list_variables_is_not_stopped_by_unknown_names(run_cli: Any) -> None:
    result = run_cli(["generate", "cluster", "demo", "--var", "NODE_POOL=x", "--list-variables"])
    assert result.exit_code == 0, result.stderr
    assert "NODE_POOLS" in result.stdout
