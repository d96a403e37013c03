"""``generate fleet --kubeconform``: kubeconform checks every cluster, as with generate cluster."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from generator.kubeconform.process import NOT_FOUND
from tests.conftest import CliResult
from tests.kubeconform.conftest import FakeKubeconform

Fake = Callable[[str], FakeKubeconform]
RunCli = Callable[..., CliResult]

FLEET = """\
defaults:
  flavor: aks
  kubernetesVersion: v1.31.1
  values:
    AZURE_LOCATION: westeurope
clusters:
  - name: east
  - name: west
"""

# kubeconform and capzgen's own schema check both reject a number as the location.
BAD_LOCATION = """\
    overrides:
      - target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}
        patch: {spec: {location: 5}}
"""


def run_fleet(run_cli: RunCli, tmp_path: Path, schema_args: list[str], text: str) -> CliResult:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(text)
    out = tmp_path / "out"
    return run_cli(
        ["generate", "fleet", str(fleet), "--output-dir", str(out), "--kubeconform", *schema_args]
    )


def test_a_clean_fleet_passes_kubeconform_and_is_written(
    run_cli: RunCli, fake_kubeconform: Fake, schema_args: list[str], tmp_path: Path
) -> None:
    fake = fake_kubeconform("check")
    result = run_fleet(run_cli, tmp_path, schema_args, FLEET)
    assert result.exit_code == 0, result.stderr
    assert len(fake.calls()) == 2  # once per cluster
    assert "[kubeconform]" not in result.stdout + result.stderr
    assert (tmp_path / "out" / "east" / "kustomization.yaml").is_file()


def test_kubeconforms_finding_is_reported_and_nothing_is_written(
    run_cli: RunCli, fake_kubeconform: Fake, schema_args: list[str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    result = run_fleet(run_cli, tmp_path, schema_args, FLEET + BAD_LOCATION)
    assert result.exit_code == 1
    output = result.stdout + result.stderr
    lines = [line for line in output.splitlines() if "[kubeconform]" in line]
    assert len(lines) == 1, output
    # named like capzgen's own findings: the override that set the field, the cluster, the line
    assert "clusters[1].overrides[0] -> <cluster west>:" in lines[0]
    assert "ManagedCluster/west: spec.location: 5 is not of type 'string'" in lines[0]
    assert not (tmp_path / "out" / "east").exists()


def test_without_the_flag_kubeconform_does_not_run(
    run_cli: RunCli, fake_kubeconform: Fake, schema_args: list[str], tmp_path: Path
) -> None:
    fake = fake_kubeconform("check")
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    out = tmp_path / "out"
    result = run_cli(["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args])
    assert result.exit_code == 0, result.stderr
    assert fake.calls() == []


def test_a_missing_kubeconform_is_one_warning_and_the_fleet_is_written(
    run_cli: RunCli, no_kubeconform: None, schema_args: list[str], tmp_path: Path
) -> None:
    result = run_fleet(run_cli, tmp_path, schema_args, FLEET)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count(NOT_FOUND) == 1  # once for the fleet, not once per cluster
    assert (tmp_path / "out" / "west" / "kustomization.yaml").is_file()


def test_the_timeout_flag_is_kubeconforms_as_for_generate_cluster(
    run_cli: RunCli, fake_kubeconform: Fake, schema_args: list[str], tmp_path: Path
) -> None:
    fake_kubeconform("sleep")
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    out = tmp_path / "out"
    argv = ["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args]
    result = run_cli([*argv, "--kubeconform", "--kubeconform-timeout", "0.5"])
    assert result.exit_code == 0, result.stderr
    assert "kubeconform did not finish within 0.5s" in result.stderr
