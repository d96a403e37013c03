"""``generate fleet --check``: the GitOps drift check. Nothing is ever written; the diff between
the folder and what capzgen would write is printed, and the exit status says whether they
differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import ExitCode
from generator.output.staging_support import STAGING_PREFIX
from tests.gitops.conftest import stat_dir

FLEET = """\
defaults:
  flavor: aks
  kubernetesVersion: v1.31.1
  namespace: fleet
  values: {AZURE_LOCATION: westeurope}
clusters:
  - name: east
  - name: west
"""


@pytest.fixture
def written(run_cli: Any, tmp_path: Path) -> tuple[Path, Path]:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    out = tmp_path / "out"
    assert run_cli(["generate", "fleet", str(fleet), "--output-dir", str(out)]).exit_code == 0
    return fleet, out


def _check(run_cli: Any, fleet: Path, out: Path) -> Any:
    before = stat_dir(out) if out.exists() else None
    result = run_cli(["generate", "fleet", str(fleet), "--output-dir", str(out), "--check"])
    assert (stat_dir(out) if out.exists() else None) == before, "--check wrote something"
    return result


def test_a_folder_as_capzgen_would_write_it_has_no_drift(
    run_cli: Any, written: tuple[Path, Path]
) -> None:
    result = _check(run_cli, *written)
    assert result.exit_code == ExitCode.OK, result.stderr
    assert result.stdout == ""
    assert "no drift" in result.stderr


def test_an_edited_file_is_shown_as_a_diff_and_fails(
    run_cli: Any, written: tuple[Path, Path]
) -> None:
    fleet, out = written
    cluster = out / "east" / "cluster-east.yaml"
    cluster.write_text(cluster.read_text().replace("namespace: fleet", "namespace: edited"))
    (out / "west" / "cluster-west.yaml").unlink()
    result = _check(run_cli, fleet, out)
    assert result.exit_code == ExitCode.INVALID
    assert f"--- a/{cluster}" in result.stdout and f"+++ b/{cluster}" in result.stdout
    assert "-  namespace: edited\n+  namespace: fleet\n" in result.stdout
    assert f"+++ b/{out / 'west' / 'cluster-west.yaml'}" in result.stdout
    assert "2 files differ" in result.stderr


def test_a_dropped_cluster_is_left_alone_and_an_interrupted_write_is_drift(
    run_cli: Any, written: tuple[Path, Path], tmp_path: Path
) -> None:
    fleet, out = written
    (tmp_path / "fleet.yaml").write_text(FLEET.replace("  - name: west\n", ""))
    smaller = _check(run_cli, fleet, out)
    assert smaller.exit_code == ExitCode.OK  # a cluster's folder no longer in the fleet is left
    (out / "east" / f"{STAGING_PREFIX}1").mkdir()
    pending = _check(run_cli, fleet, out)
    assert pending.exit_code == ExitCode.INVALID
    assert "interrupted write(s) pending" in pending.stderr


def test_an_empty_folder_is_all_drift(run_cli: Any, tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    result = _check(run_cli, fleet, tmp_path / "missing")
    assert result.exit_code == ExitCode.INVALID
    assert result.stdout.count("--- /dev/null") >= 10
    assert not (tmp_path / "missing").exists()


def test_a_file_no_longer_generated_would_be_removed(
    run_cli: Any, written: tuple[Path, Path]
) -> None:
    fleet, out = written
    fleet.write_text(
        FLEET.replace(
            "  - name: east\n",
            "  - name: east\n    values: {NODE_POOLS: [{name: sys, mode: System}]}\n",
        )
    )
    result = _check(run_cli, fleet, out)
    assert result.exit_code == ExitCode.INVALID
    gone = out / "east" / "machinepool-east-pool1.yaml"
    assert f"--- a/{gone}\n+++ /dev/null" in result.stdout
    assert "would be removed" in result.stderr


def test_generate_cluster_checks_its_folder_too(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    argv = ["generate", "cluster", "demo", "--var", "AZURE_LOCATION=westeurope"]
    argv += ["--kubernetes-version", "v1.31.1", "--output-dir", str(out)]
    assert run_cli(argv).exit_code == ExitCode.OK
    clean = _check_cluster(run_cli, argv, out)
    assert clean.exit_code == ExitCode.OK and clean.stdout == ""
    (out / "cluster-demo.yaml").write_text("edited\n")
    drifted = _check_cluster(run_cli, argv, out)
    assert drifted.exit_code == ExitCode.INVALID
    assert "-edited\n" in drifted.stdout
    without = run_cli(["generate", "cluster", "demo", "--check"])
    assert without.exit_code == ExitCode.USAGE
    assert "--check needs --output-dir" in without.stderr


def _check_cluster(run_cli: Any, argv: list[str], out: Path) -> Any:
    before = stat_dir(out)
    result = run_cli([*argv, "--check"])
    assert stat_dir(out) == before, "--check wrote something"
    return result
