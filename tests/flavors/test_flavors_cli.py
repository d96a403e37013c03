"""`capzgen flavors list` and `capzgen flavors show` through generator.cli.main."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.cli.flavors import format_table, format_value

BUILTIN = [
    "aks",
    "aks-automatic",
    "aks-clusterclass",
    "aks-legacy",
    "aks-maintenance",
    "aks-multi-tenancy",
    "aks-topology",
]


@pytest.fixture
def user_flavors(tmp_path: Path) -> Path:
    """A user folder with a flavor shadowing the built-in `aks`, built on the built-in _lib macros."""
    folder = tmp_path / "aks"
    folder.mkdir()
    (folder / "flavor.yaml").write_text(
        "name: aks\n"
        "description: Team AKS with our defaults\n"
        "templates: [cluster.yaml.j2]\n"
        "variables:\n"
        "  CLUSTER_NAME: {type: string, description: Cluster name}\n"
        "  TEAM: {type: string, description: Owning team, default: platform}\n",
        encoding="utf-8",
    )
    (folder / "cluster.yaml.j2").write_text(
        '{% import "_lib/capi.j2" as capi %}\n{{ capi.cluster(CLUSTER_NAME, TEAM) }}\n',
        encoding="utf-8",
    )
    return tmp_path


def test_list_shows_one_aligned_line_per_flavor(run_cli: Any) -> None:
    result = run_cli(["flavors", "list"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == BUILTIN
    assert len({line.index(line.split()[1]) for line in lines}) == 1, "descriptions are aligned"
    assert "aks-aso-maintenance" in lines[BUILTIN.index("aks-maintenance")]


def test_show_describes_variables_notes_and_objects(run_cli: Any) -> None:
    result = run_cli(["flavors", "show", "aks"])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.startswith("aks: AKS cluster managed through ASO")
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.startswith("  ") and line.split()
    }
    assert rows["CLUSTER_NAME"][1:3] == ["string", "(required)"]
    assert rows["WORKER_MACHINE_COUNT"][1:3] == ["integer", "2"]
    assert rows["AZURE_SUBSCRIPTION_ID"][2] == '""'
    assert "[{name: pool0, mode: System}, {name: pool1, mode: User}]" in out
    assert "one of: Free, Standard, Premium" in out
    assert "Notes:" in out and "Never rendered because CAPZ owns them" in out
    objects = out.split("\nObjects (")[1].splitlines()[1:]
    assert [line.strip() for line in objects] == [
        "Cluster/${CLUSTER_NAME}",
        "AzureASOManagedControlPlane/${CLUSTER_NAME}",
        "+ ManagedCluster/${CLUSTER_NAME}",
        "AzureASOManagedCluster/${CLUSTER_NAME}",
        "+ ResourceGroup/${CLUSTER_NAME}",
        "MachinePool/${CLUSTER_NAME}-pool0",
        "AzureASOManagedMachinePool/${CLUSTER_NAME}-pool0",
        "+ ManagedClustersAgentPool/${CLUSTER_NAME}-pool0",
        "MachinePool/${CLUSTER_NAME}-pool1",
        "AzureASOManagedMachinePool/${CLUSTER_NAME}-pool1",
        "+ ManagedClustersAgentPool/${CLUSTER_NAME}-pool1",
    ]


@pytest.mark.parametrize("name", BUILTIN)
def test_show_works_for_every_builtin_flavor(run_cli: Any, name: str) -> None:
    result = run_cli(["flavors", "show", name])
    assert result.exit_code == 0, result.stderr
    assert "Source: built-in" in result.stdout


def test_show_lists_maintenance_configurations(run_cli: Any) -> None:
    out = run_cli(["flavors", "show", "aks-maintenance"]).stdout
    assert "+ MaintenanceConfiguration/${CLUSTER_NAME}-aksmanagedautoupgradeschedule" in out


def test_unknown_flavor_exits_1_and_lists_the_known_ones(run_cli: Any) -> None:
    result = run_cli(["flavors", "show", "aks-nope"])
    assert result.exit_code == 1
    assert "unknown flavor 'aks-nope'" in result.stderr
    assert "aks-clusterclass" in result.stderr
    assert result.stdout == ""


def test_missing_flavors_dir_is_a_usage_error(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(["flavors", "list", "--flavors-dir", str(tmp_path / "missing")])
    assert result.exit_code == 2


def test_user_flavor_shadows_builtin_in_list(run_cli: Any, user_flavors: Path) -> None:
    result = run_cli(["flavors", "list", "--flavors-dir", str(user_flavors)])
    assert result.exit_code == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert sorted(lines) == BUILTIN
    assert lines["aks"].endswith("Team AKS with our defaults")
    assert "aks-aso-maintenance" in lines["aks-maintenance"]


def test_user_flavor_shadows_builtin_in_show(run_cli: Any, user_flavors: Path) -> None:
    result = run_cli(["flavors", "show", "aks", "--flavors-dir", str(user_flavors)])
    assert result.exit_code == 0, result.stderr
    assert f"Source: {user_flavors / 'aks'}" in result.stdout
    assert "TEAM" in result.stdout and "NODE_POOLS" not in result.stdout
    assert "Cluster/${CLUSTER_NAME}" in result.stdout


def test_builtin_flavor_derived_from_aks_is_not_affected_by_shadowing(
    run_cli: Any, user_flavors: Path
) -> None:
    """aks-maintenance extends _lib/aks.yaml.j2, not flavors/aks, so a user `aks` cannot break it."""
    result = run_cli(["flavors", "show", "aks-maintenance", "--flavors-dir", str(user_flavors)])
    assert result.exit_code == 0, result.stderr
    assert "+ ManagedClustersAgentPool/${CLUSTER_NAME}-pool1" in result.stdout


def test_format_table_lets_long_cells_overflow() -> None:
    table = format_table(
        [["A", "short", "x"], ["B", "y" * 50, "z"], ["CC", "mid", "w"]]
    ).splitlines()
    assert table[0] == "A   short  x"
    assert table[1] == "B   " + "y" * 50 + "  z"
    assert table[2] == "CC  mid    w"


@pytest.mark.parametrize(
    ("value", "text"),
    [(True, "true"), ("", '""'), (2, "2"), ({}, "{}"), ([{"name": "a"}], "[{name: a}]")],
)
def test_format_value(value: Any, text: str) -> None:
    assert format_value(value) == text
