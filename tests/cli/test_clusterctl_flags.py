"""clusterctl's flags on `generate cluster`: --control-plane-machine-count, -i/--infrastructure,
-v at any position, and --list-variables in clusterctl's layout for flavors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.cli.options import clusterctl_verbosity
from generator.clusterctl.providers import CAPZ_VERSION, parse_infrastructure
from generator.errors import UsageError
from tests.conftest import GENERATE_DEMO, validated_line

COUNTS_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${CLUSTER_NAME}
data:
  controlPlane: "${CONTROL_PLANE_MACHINE_COUNT}"
  workers: "${WORKER_MACHINE_COUNT}"
"""


@pytest.fixture
def counts_template(tmp_path: Path) -> Path:
    path = tmp_path / "counts.yaml"
    path.write_text(COUNTS_TEMPLATE)
    return path


# --- --control-plane-machine-count ----------------------------------------------------------------


def test_control_plane_machine_count_sets_the_variable(run_cli: Any, counts_template: Path) -> None:
    args = ["generate", "cluster", "c1", "--from", str(counts_template)]
    result = run_cli([*args, "--control-plane-machine-count", "3"])
    assert result.exit_code == 0, result.stderr
    assert 'controlPlane: "3"' in result.stdout
    assert 'workers: "0"' in result.stdout
    # Without the flag, clusterctl's default of 1 (the environment is consulted first).
    assert 'controlPlane: "1"' in run_cli(args).stdout
    env = {"CONTROL_PLANE_MACHINE_COUNT": "5"}
    assert 'controlPlane: "5"' in run_cli(args, env=env).stdout
    assert (
        'controlPlane: "3"'
        in run_cli([*args, "--control-plane-machine-count", "3"], env=env).stdout
    )


def test_control_plane_machine_count_below_one_is_refused(run_cli: Any) -> None:
    result = run_cli([*GENERATE_DEMO, "--control-plane-machine-count", "0"])
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: invalid ControlPlaneMachineCount. Please use a number greater than or equal to 1\n"
    )


def test_control_plane_machine_count_is_accepted_and_unused_by_aks_flavors(run_cli: Any) -> None:
    plain = run_cli(GENERATE_DEMO)
    counted = run_cli([*GENERATE_DEMO, "--control-plane-machine-count", "3"])
    assert counted.exit_code == 0, counted.stderr
    assert counted.stdout == plain.stdout


def test_list_variables_of_a_template_shows_the_control_plane_count(
    run_cli: Any, counts_template: Path
) -> None:
    result = run_cli(
        [
            *("generate", "cluster", "c1", "-n", "ns1", "--from", str(counts_template)),
            *("--list-variables", "--control-plane-machine-count", "3"),
        ]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "\nOptional Variables:\n"
        "  - CLUSTER_NAME                 (defaults to c1)\n"
        "  - CONTROL_PLANE_MACHINE_COUNT  (defaults to 3)\n"
        "  - WORKER_MACHINE_COUNT         (defaults to 0)\n"
        "\n"
    )


# --- -i/--infrastructure ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["azure", "Azure", f"azure:{CAPZ_VERSION}", "AZURE:v1.26.0"])
def test_infrastructure_azure_at_our_capz_version_is_accepted(run_cli: Any, value: str) -> None:
    plain = run_cli(GENERATE_DEMO)
    result = run_cli([*GENERATE_DEMO, "-i", value])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == validated_line()
    assert result.stdout == plain.stdout


def test_another_patch_release_is_rendered_with_a_warning(run_cli: Any) -> None:
    result = run_cli([*GENERATE_DEMO, "--infrastructure", "azure:v1.26.3"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        "warning: capzgen's flavors follow CAPZ v1.26.0; rendering them for azure:v1.26.3 "
        "(same minor release)\n" + validated_line()
    )


def test_another_minor_release_is_an_error_pointing_at_its_template(run_cli: Any) -> None:
    result = run_cli([*GENERATE_DEMO, "-i", "azure:v1.25.0"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "Error: capzgen's flavors follow CAPZ v1.26.0 and cannot render azure:v1.25.0\n"
        "Hint: drop the version, or render that release's own template: --from "
        "https://github.com/kubernetes-sigs/cluster-api-provider-azure/releases/download/"
        "v1.25.0/cluster-template-aks-aso.yaml\n"
    )


def test_other_providers_are_refused(run_cli: Any) -> None:
    result = run_cli([*GENERATE_DEMO, "-i", "AWS:v2.0.0"])
    assert result.exit_code == 2
    assert result.stderr == (
        'Error: infrastructure provider "aws" is not supported: capzgen renders clusters for '
        "the azure provider (CAPZ) only\n"
        "Hint: use -i azure, or --from with that provider's template\n"
    )


@pytest.mark.parametrize("value", ["azure:", ":v1.26.0", "azure:v1:x", ""])
def test_malformed_provider_names_use_clusterctls_message(value: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_infrastructure(value)
    assert caught.value.message == (
        f'invalid provider name "{value}". Provider name should be in the form name[:version] '
        "and name cannot be empty"
    )


@pytest.mark.parametrize("version", ["1.26.0", "latest", "v1.26"])
def test_a_version_must_be_a_release_tag(version: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_infrastructure(f"azure:{version}")
    assert caught.value.message == (
        f'invalid provider version "{version}": expected a release tag such as v1.26.0'
    )


def test_infrastructure_and_from_exclude_each_other(run_cli: Any, counts_template: Path) -> None:
    result = run_cli(["generate", "cluster", "c1", "-i", "azure", "--from", str(counts_template)])
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: invalid cluster template source: use either --infrastructure or --from, not both\n"
    )


# --- -v at any position ---------------------------------------------------------------------------

PROGRESS = "capzgen: rendering flavor aks\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["-v", *GENERATE_DEMO],
        ["generate", "-v", *GENERATE_DEMO[1:]],
        [*GENERATE_DEMO[:2], "-v", *GENERATE_DEMO[2:]],
        [*GENERATE_DEMO, "-v"],
        [*GENERATE_DEMO, "--verbose"],
    ],
    ids=["before-group", "after-group", "after-subcommand", "last", "long"],
)
def test_verbose_is_accepted_at_any_position(run_cli: Any, argv: list[str]) -> None:
    result = run_cli(argv)
    assert result.exit_code == 0, result.stderr
    assert PROGRESS in result.stderr


def test_verbosity_adds_up_across_positions_and_resets_per_run(run_cli: Any) -> None:
    once = run_cli([*GENERATE_DEMO, "-v"])
    twice = run_cli(["-v", *GENERATE_DEMO, "-v"])
    quiet = run_cli(GENERATE_DEMO)
    assert "schema for cluster.x-k8s.io/v1beta1, Kind=Cluster" not in once.stderr
    assert "capzgen: schema for cluster.x-k8s.io/v1beta1, Kind=Cluster from" in twice.stderr
    assert quiet.stderr == validated_line()


def test_verbose_on_other_commands(run_cli: Any, tmp_path: Path) -> None:
    assert run_cli(["flavors", "list", "-v"]).exit_code == 0
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    result = run_cli(["validate", str(manifest), "-v"])
    assert result.exit_code == 0, result.stderr
    assert "capzgen: validating 1 documents" in result.stderr


def test_kubeconform_passthrough_keeps_its_own_v() -> None:
    from generator.cli import cli
    from generator.cli.kubeconform import kubeconform

    cli.get_command(None, "kubeconform")  # type: ignore[arg-type]
    assert all(param.name != "verbose" for param in kubeconform.params)


# --- --list-variables for flavors -----------------------------------------------------------------


def _line(name: str, value: str) -> str:
    return f"  - {name}".ljust(37) + f"(defaults to {value})\n"


def test_flavor_listing_honours_the_values_given(run_cli: Any, tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("NODE_POOLS: [{name: sys, mode: System}]\n")
    result = run_cli(
        [
            *GENERATE_DEMO,
            *("--values", str(values), "--var", "AKS_SKU_TIER=Standard", "--list-variables"),
        ],
        env={"AZURE_TENANT_ID": "tenant-from-env"},
    )
    assert result.exit_code == 0, result.stderr
    # Every required variable has a value: no "Required Variables:" section, as clusterctl.
    assert result.stdout.startswith("\nOptional Variables:\n  - AKS_AAD ")
    for name, value in [
        ("AZURE_LOCATION", "westeurope"),
        ("CLUSTER_NAME", "demo"),
        ("KUBERNETES_VERSION", "v1.31.1"),
        ("NAMESPACE", "default"),
        ("AKS_SKU_TIER", "Standard"),
        ("AZURE_TENANT_ID", "tenant-from-env"),
        ("NODE_POOLS", '[{"mode": "System", "name": "sys"}]'),
        ("AKS_NETWORK_PLUGIN", '"azure"'),
        ("AZURE_CLIENT_ID", '""'),
        ("AKS_PRIVATE_CLUSTER", "false"),
        ("WORKER_MACHINE_COUNT", "2"),
    ]:
        assert _line(name, value) in result.stdout, name
    assert result.stdout.endswith(_line("WORKER_MACHINE_COUNT", "2") + "\n")


def test_flavor_listing_without_values_lists_the_required_ones(run_cli: Any) -> None:
    result = run_cli(
        ["generate", "cluster", "demo", "-f", "aks-legacy", "-n", "team", "--list-variables"]
    )
    assert result.exit_code == 0, result.stderr
    required, optional = result.stdout.split("\n\n", 1)
    assert required.startswith("Required Variables:\n  - ")
    assert "  - KUBERNETES_VERSION" in required.splitlines()
    assert "  - CLUSTER_NAME" not in required.splitlines()
    assert "(defaults to team)" in optional
    assert "- NAMESPACE " in optional


def test_flavor_listing_quotes_a_given_value_that_would_break_the_line(run_cli: Any) -> None:
    result = run_cli([*GENERATE_DEMO, "--list-variables"], env={"AZURE_TENANT_ID": "two\nlines"})
    assert result.exit_code == 0, result.stderr
    assert _line("AZURE_TENANT_ID", '"two\\nlines"') in result.stdout


def test_flavor_listing_checks_the_flags_like_a_render(run_cli: Any) -> None:
    result = run_cli(["generate", "cluster", "Bad_Name", "--list-variables"])
    assert result.exit_code == 2
    assert "invalid cluster name 'Bad_Name'" in result.stderr


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["-v", "5", "validate", "a.yaml"], ["-v"] * 5 + ["validate", "a.yaml"]),
        (["validate", "--v=2", "a.yaml"], ["validate", "-v", "-v", "a.yaml"]),
        (["validate", "-v=3"], ["validate", "-v", "-v", "-v"]),
        (["validate", "-v4"], ["validate"] + ["-v"] * 4),
        (["validate", "--v", "0", "a.yaml"], ["validate", "a.yaml"]),
        (["validate", "-v", "99"], ["validate"] + ["-v"] * 10),
        (["validate", "-v", "a.yaml"], ["validate", "-v", "a.yaml"]),  # a path, not a level
        (["validate", "-vv", "a.yaml"], ["validate", "-vv", "a.yaml"]),
        (["validate", "--", "-v", "5"], ["validate", "--", "-v", "5"]),
        (["kubeconform", "-v", "5"], ["kubeconform", "-v", "5"]),  # kubeconform's own -v
    ],
)
def test_clusterctl_verbosity_levels_become_counted_v(
    given: list[str], expected: list[str]
) -> None:
    assert clusterctl_verbosity(given) == expected


def test_a_clusterctl_verbosity_level_works_on_the_command_line(run_cli: Any) -> None:
    loud = run_cli(["-v", "5", *GENERATE_DEMO])
    assert loud.exit_code == 0, loud.stderr
    assert "capzgen: schema for cluster.x-k8s.io/v1beta1, Kind=Cluster from" in loud.stderr
    quiet = run_cli([*GENERATE_DEMO, "--v=0"])
    assert quiet.exit_code == 0, quiet.stderr
    assert PROGRESS not in quiet.stderr


def test_a_version_without_v_is_written_with_it_for_a_flavor(run_cli: Any) -> None:
    argv = [*GENERATE_DEMO[:-1], "1.31.1"]
    assert GENERATE_DEMO[-2] == "--kubernetes-version"
    result = run_cli(argv)
    assert result.exit_code == 0, result.stderr
    assert "note: --kubernetes-version 1.31.1 is written as v1.31.1" in result.stderr
    assert "version: v1.31.1" in result.stdout
    assert "version: 1.31.1" not in result.stdout


# --- WORKER_MACHINE_COUNT's fallback 0 ----------------------------------------------------------------


def _aks_template_run(
    run_cli: Any, corpus_dir: Path, schema_args: list[str], *extra: str, env: dict[str, str]
) -> Any:
    from tests.cli.test_generate_yaml import FULL_VARIABLES

    template = corpus_dir / "cluster-template-aks.yaml"
    args = ["generate", "cluster", "c1", "--from", str(template), *schema_args, *extra]
    variables = {k: v for k, v in FULL_VARIABLES.items() if k != "CLUSTER_NAME"}
    return run_cli(args, env={**variables, **env})


def test_a_system_pool_left_at_zero_by_the_missing_flag_names_the_flag(
    run_cli: Any, corpus_dir: Path, schema_args: list[str]
) -> None:
    result = _aks_template_run(run_cli, corpus_dir, schema_args, env={})
    assert result.exit_code == 1
    assert "MachinePool/c1-pool0: spec.replicas: is 0" in result.stderr
    hints = [line for line in result.stderr.splitlines() if line.startswith("hint:")]
    assert len(hints) == 1
    assert "pass --worker-machine-count N" in hints[0]


@pytest.mark.parametrize(
    ("extra", "env"),
    [
        (("--worker-machine-count", "0"), {}),
        (("--var", "WORKER_MACHINE_COUNT=0"), {}),
        ((), {"WORKER_MACHINE_COUNT": "0"}),
    ],
)
def test_a_zero_the_user_gave_gets_no_flag_hint(
    run_cli: Any,
    corpus_dir: Path,
    schema_args: list[str],
    extra: tuple[str, ...],
    env: dict[str, str],
) -> None:
    result = _aks_template_run(run_cli, corpus_dir, schema_args, *extra, env=env)
    assert result.exit_code == 1
    assert "spec.replicas: is 0" in result.stderr
    assert "--worker-machine-count" not in result.stderr


def test_the_flag_fixes_what_the_hint_names(
    run_cli: Any, corpus_dir: Path, schema_args: list[str]
) -> None:
    result = _aks_template_run(
        run_cli, corpus_dir, schema_args, "--worker-machine-count", "2", env={}
    )
    assert result.exit_code == 0, result.stderr


def test_generate_says_what_it_validated_or_that_it_did_not(run_cli: Any) -> None:
    checked = run_cli(GENERATE_DEMO)
    assert checked.stderr.splitlines()[-1].startswith("validated 7 objects (4 embedded ASO ")
    fewer = run_cli([*GENERATE_DEMO, "--no-cel", "--disable-rule", "CAPZ-VM-SIZE"])
    assert ": schemas, " in fewer.stderr and "CEL" not in fewer.stderr
    skipped = run_cli([*GENERATE_DEMO, "--no-validate"])
    assert skipped.exit_code == 0
    assert skipped.stderr == "not validated (--no-validate)\n"
    assert skipped.stdout == checked.stdout  # stdout stays the manifests
