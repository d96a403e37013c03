"""``capzgen topology plan`` at the command line: where the plan goes, exit codes, nothing
written when the plan is invalid."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.topology.topology_testing import capz_inputs

INPUTS = Path(__file__).parent / "inputs" / "v1beta2"


def test_plan_to_stdout(run_cli: Any) -> None:
    result = run_cli(["topology", "plan", str(INPUTS)])
    assert result.exit_code == 0, result.stderr
    assert "name: c1-sys-00000" in result.stdout
    assert "validated 6 objects (3 embedded ASO resources)" in result.stderr
    assert "CC-PATCH-UNCHECKED" in result.stderr  # the external patch, a warning


def test_plan_from_files_and_stdin(run_cli: Any) -> None:
    cluster = (INPUTS / "cluster.yaml").read_text(encoding="utf-8")
    result = run_cli(["topology", "plan", str(INPUTS / "class.yaml"), "-"], stdin=cluster)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == run_cli(["topology", "plan", str(INPUTS)]).stdout


def test_write_to(run_cli: Any, tmp_path: Path) -> None:
    target = tmp_path / "plan.yaml"
    result = run_cli(["topology", "plan", str(INPUTS), "--write-to", str(target)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "kind: KubeadmConfig" in target.read_text(encoding="utf-8")


def test_output_dir(run_cli: Any, tmp_path: Path, corpus_dir: Path) -> None:
    source = tmp_path / "inputs.yaml"
    source.write_text(capz_inputs(corpus_dir), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli(["topology", "plan", str(source), "--output-dir", str(out)])
    assert result.exit_code == 0, result.stderr
    files = sorted(path.name for path in out.iterdir() if not path.name.startswith("."))
    assert "kustomization.yaml" in files
    assert "azureasomanagedcontrolplane-my-cluster-00000.yaml" in files
    assert len(files) == 10  # 9 objects and the kustomization


def test_invalid_plan_writes_nothing(run_cli: Any, tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    shutil.copytree(INPUTS, inputs)
    cluster = inputs / "cluster.yaml"
    text = cluster.read_text(encoding="utf-8")
    cluster.write_text(
        text.replace(
            "    - name: location\n", "    - name: extra\n      value: true\n    - name: location\n"
        ),
        encoding="utf-8",
    )
    target = tmp_path / "plan.yaml"
    result = run_cli(["topology", "plan", str(inputs), "--write-to", str(target)])
    assert result.exit_code == 1
    assert not target.exists()
    assert result.stdout == ""
    assert "bogus" in result.stderr
    assert "the planned objects are invalid" in result.stderr


def test_missing_class_is_a_usage_error_naming_the_place(run_cli: Any) -> None:
    result = run_cli(["topology", "plan", str(INPUTS / "cluster.yaml")])
    assert result.exit_code == 2
    assert f"{INPUTS / 'cluster.yaml'}:1: document 1 (Cluster/c1)" in result.stderr
    assert "ClusterClass team/cc, which is not among the inputs" in result.stderr


def test_conflicting_outputs(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(
        ["topology", "plan", str(INPUTS), "--write-to", "x", "--output-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "either --write-to or --output-dir" in result.stderr


def test_missing_input(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(["topology", "plan", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "nope.yaml" in result.stderr
