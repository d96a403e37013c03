"""``topology plan --against REV|OLD_PATH``: what a change of the class does to the Clusters of
it, per object, and which of those changes the update and delete rules refuse."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.gitrepo import GitRepo, git_env
from tests.topology.topology_testing import capz_inputs

INPUTS = Path(__file__).parent / "inputs" / "v1beta2"


@pytest.fixture
def repo(tmp_path: Path, corpus_dir: Path) -> GitRepo:
    """A repository whose first commit holds CAPZ's class and a Cluster of it."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("clusters/inputs.yaml", capz_inputs(corpus_dir))
    repo.commit("class and cluster")
    return repo


def plan_against(run_cli: Any, repo: GitRepo, *extra: str) -> Any:
    env = {"PATH": git_env(repo.root.parent)["PATH"]}
    return run_cli(["topology", "plan", str(repo.root / "clusters"), *extra], env=env)


def edit(repo: GitRepo, old: str, new: str) -> None:
    path = repo.root / "clusters" / "inputs.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def headers(result: Any) -> list[str]:
    """The ``# changed|added|removed KIND ns/name`` lines of a plan's diff."""
    return [line for line in result.stdout.splitlines() if line.startswith("# ")]


def test_no_change(run_cli: Any, repo: GitRepo) -> None:
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "topology plan against HEAD: 0 objects changed, 0 added, 0 removed" in result.stderr


def test_class_change_shows_per_object(run_cli: Any, repo: GitRepo) -> None:
    """A new VM size in the class changes both agent pools and nothing else, and AKS refuses it:
    CAPI updates a MachinePool's infrastructure object in place, and an existing pool keeps its
    VM size."""
    edit(repo, "vmSize: Standard_D4s_v5", "vmSize: Standard_D8s_v5")
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 1, result.stderr
    assert result.stderr.count("(CAPZ-UPDATE-AKS-IMMUTABLE) [provisioning: ") == 2
    assert headers(result) == [
        "# changed AzureASOManagedMachinePool default/my-cluster-mp-0-00000",
        "# changed AzureASOManagedMachinePool default/my-cluster-mp-1-00000",
    ]
    assert "-      vmSize: Standard_D4s_v5\n+      vmSize: Standard_D8s_v5\n" in result.stdout
    assert "--- HEAD:AzureASOManagedMachinePool/default/my-cluster-mp-0-00000" in result.stdout
    assert "2 objects changed, 0 added, 0 removed; 2 refused" in result.stderr


def test_refused_change_fails(run_cli: Any, repo: GitRepo) -> None:
    """Renaming an agent pool in Azure (azureName) is refused by ASO on update."""
    edit(repo, 'azureName: "pool1"', 'azureName: "pool9"')
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 1
    assert "ASO-UPDATE-AZURENAME" in result.stderr
    assert "(was HEAD:<topology plan>:" in result.stderr
    assert "1 object changed, 0 added, 0 removed; 1 refused" in result.stderr


def test_added_and_removed_pool(run_cli: Any, repo: GitRepo) -> None:
    edit(repo, "name: mp-1", "name: mp-2")
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert "# added MachinePool default/my-cluster-mp-2-00000" in headers(result)
    assert "# removed MachinePool default/my-cluster-mp-1-00000" in headers(result)
    assert "3 added, 3 removed" in result.stderr


def test_against_an_old_folder(run_cli: Any, tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(INPUTS, old)
    klass = old / "class.yaml"
    klass.write_text(
        klass.read_text(encoding="utf-8").replace("default: Standard_D2s_v3", "default: x"),
        encoding="utf-8",
    )
    result = run_cli(["topology", "plan", str(INPUTS), "--against", str(old)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""  # the pool overrides vmSize: the default never shows


def test_against_writes_nothing(run_cli: Any, repo: GitRepo, tmp_path: Path) -> None:
    result = plan_against(run_cli, repo, "--against", "HEAD", "--write-to", str(tmp_path / "x"))
    assert result.exit_code == 2
    assert "writes nothing" in result.stderr


def test_unknown_revision(run_cli: Any, repo: GitRepo) -> None:
    result = plan_against(run_cli, repo, "--against", "no-such-branch")
    assert result.exit_code == 2
    assert "no-such-branch" in result.stderr


def test_invalid_new_plan_fails_before_comparing(run_cli: Any, repo: GitRepo) -> None:
    edit(repo, "vmSize: Standard_D4s_v5", "vmSize: 42")
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "the planned objects are invalid" in result.stderr


def test_inputs_new_since_the_revision_are_all_added(run_cli: Any, repo: GitRepo) -> None:
    """A folder created (or moved) since REV plans to nothing there: every object is added."""
    shutil.copytree(repo.root / "clusters", repo.root / "moved")
    env = {"PATH": git_env(repo.root.parent)["PATH"]}
    result = run_cli(["topology", "plan", str(repo.root / "moved"), "--against", "HEAD"], env=env)
    assert result.exit_code == 0, result.stderr
    assert "0 objects changed" in result.stderr and " 0 added" not in result.stderr
    assert "did not exist at HEAD" in result.stderr + result.stdout


def test_no_topology_cluster_at_the_revision(run_cli: Any, repo: GitRepo) -> None:
    text = (repo.root / "clusters" / "inputs.yaml").read_text(encoding="utf-8")
    repo.write("clusters/inputs.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    repo.commit("no cluster yet")
    repo.write("clusters/inputs.yaml", text)
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 0, result.stderr
    assert " 0 added" not in result.stderr


def test_an_old_side_planning_error_names_the_revision(run_cli: Any, repo: GitRepo) -> None:
    text = (repo.root / "clusters" / "inputs.yaml").read_text(encoding="utf-8")
    edit(repo, "kind: ClusterClass\n", "kind: NotAClusterClass\n")
    repo.commit("class gone")
    repo.write("clusters/inputs.yaml", text)
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 2, result.stderr
    assert "--against HEAD: the Cluster's topology names ClusterClass" in result.stderr


def test_an_unreadable_old_file_names_the_revision(run_cli: Any, repo: GitRepo) -> None:
    text = (repo.root / "clusters" / "inputs.yaml").read_text(encoding="utf-8")
    repo.write("clusters/inputs.yaml", "kind: A\nx: [\n")
    repo.commit("broken")
    repo.write("clusters/inputs.yaml", text)
    result = plan_against(run_cli, repo, "--against", "HEAD")
    assert result.exit_code == 2, result.stderr
    assert "--against HEAD: " in result.stderr and "HEAD:clusters/inputs.yaml:" in result.stderr
