"""``validate PATH --against REV|OLD_PATH`` on histories built in temporary git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.gitrepo import GitRepo

HERE = Path(__file__).parent / "against"
LEGACY = (HERE / "legacy.yaml").read_text(encoding="utf-8")  # capzgen generate, flavor aks-legacy
ASO = (HERE / "aso.yaml").read_text(encoding="utf-8")  # capzgen generate, flavor aks
Run = Callable[..., Any]


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], GitRepo]:
    """``history(old, new)``: a repository whose HEAD~1 holds ``old`` and HEAD ``new`` as
    ``clusters/demo.yaml``; the test runs in its top folder."""

    def make(old: str, new: str) -> GitRepo:
        repo = GitRepo(tmp_path / "repo")
        repo.write("clusters/demo.yaml", old)
        repo.commit("first")
        repo.write("clusters/demo.yaml", new)
        repo.commit("second")
        monkeypatch.chdir(repo.root)
        return repo

    return make


def _validate(run_cli: Run, *args: str) -> Any:
    return run_cli(["validate", "clusters", "--against", "HEAD~1", *args])


def test_an_unchanged_history_is_valid(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY)
    result = _validate(run_cli)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "0 errors" in result.stdout


def test_an_immutable_field_names_both_places(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY.replace("location: westeurope", "location: northeurope"))
    result = _validate(run_cli)
    assert result.exit_code == 1
    line = next(text for text in result.stdout.splitlines() if "CAPZ-UPDATE-MCP-IMMUTABLE" in text)
    assert line.startswith("clusters/demo.yaml:30: AzureManagedControlPlane/demo: spec.location:")
    assert line.endswith("[admission] [update] (was HEAD~1:clusters/demo.yaml:30)")


def test_a_version_downgrade_and_the_last_system_pool(history: Any, run_cli: Run) -> None:
    new = LEGACY.replace(
        "  version: v1.31.1\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedCluster",
        "  version: v1.30.1\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedCluster",
    )
    history(LEGACY, new.replace("mode: System", "mode: User"))
    out = _validate(run_cli).stdout
    assert (
        "spec.version: version v1.30.1 is lower than v1.31.1 (CAPZ-UPDATE-VERSION-DOWNGRADE)" in out
    )
    assert "AzureManagedMachinePool/demo-pool0: spec.mode:" in out
    assert "(CAPZ-UPDATE-POOL-MODE) [admission] [update]" in out


def _without(text: str, needle: str) -> str:
    """``text`` without the YAML documents holding ``needle``."""
    return "---\n".join(doc for doc in text.split("---\n") if needle not in doc)


def test_deleting_the_last_system_pool(history: Any, run_cli: Run) -> None:
    new = _without(
        _without(LEGACY, "mode: System"),
        "name: demo-pool0\n  namespace: default\nspec:\n  clusterName",
    )
    history(LEGACY, new)
    result = _validate(run_cli)
    line = next(text for text in result.stdout.splitlines() if "CAPZ-DELETE-SYSTEM-POOL" in text)
    assert line.startswith("HEAD~1:clusters/demo.yaml:")
    assert "AzureManagedMachinePool/demo-pool0" in line and line.endswith("[admission] [delete]")
    assert result.exit_code == 1


def test_deleting_the_whole_cluster_is_no_system_pool_problem(history: Any, run_cli: Run) -> None:
    history(LEGACY, ASO.replace("demo", "other"))
    out = _validate(run_cli).stdout
    assert "CAPZ-DELETE-SYSTEM-POOL" not in out


def test_a_rename_is_called_out(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY.replace("demo", "demo2"))
    out = _validate(run_cli).stdout
    assert "warning: Cluster 'demo' is renamed to 'demo2'" in out
    assert "(CAPZ-RENAME-RECREATE)" in out and "[delete] (was HEAD~1:clusters/demo.yaml:" in out


def test_aso_keeps_azure_name_and_owner(history: Any, run_cli: Run) -> None:
    new = ASO.replace("azureName: pool0", "azureName: pool9").replace(
        "      owner:\n        name: demo\n      servicePrincipalProfile",
        "      owner:\n        name: elsewhere\n      servicePrincipalProfile",
    )
    history(ASO, new)
    out = _validate(run_cli).stdout
    assert (
        "AzureASOManagedMachinePool/demo-pool0 > ManagedClustersAgentPool/demo-pool0: spec.azureName"
        in out
    )
    assert "(ASO-UPDATE-AZURENAME) [admission] [update]" in out
    assert "(ASO-UPDATE-OWNER) [admission] [update]" in out


def test_json_output_carries_operation_and_old_place(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY.replace("location: westeurope", "location: northeurope"))
    payload = json.loads(_validate(run_cli, "--output", "json").stdout)
    found = [f for f in payload["findings"] if f["rule"] == "CAPZ-UPDATE-MCP-IMMUTABLE"]
    assert found[0]["operation"] == "update"
    assert found[0]["old"] == {
        "file": "HEAD~1:clusters/demo.yaml",
        "document": 1,
        "path": "spec.location",
        "line": 30,
    }
    assert all(
        "operation" not in f for f in payload["findings"] if not f["rule"].startswith("CAPZ-UPDATE")
    )


@pytest.mark.parametrize("output", ["sarif", "junit", "github"])
def test_other_formats_say_update(history: Any, run_cli: Run, output: str) -> None:
    history(LEGACY, LEGACY.replace("location: westeurope", "location: northeurope"))
    result = _validate(run_cli, "--output", output)
    assert result.exit_code == 1
    assert "[update] (was HEAD~1:clusters/demo.yaml:30)" in result.stdout


def test_an_unchanged_schema_error_is_ratcheted(history: Any, run_cli: Run) -> None:
    old = LEGACY.replace(
        "sku: Standard_D2s_v3\n", "sku: Standard_D2s_v3\n  scaleSetPriority: Sometimes\n", 1
    )
    history(old, old.replace("maxCount: 3", "maxCount: 4") if "maxCount: 3" in old else old)
    result = _validate(run_cli)
    assert result.exit_code == 0, result.stdout
    assert "unchanged since the old revision" in result.stdout
    # the same value is an error on a create
    fresh = run_cli(["validate", "clusters"])
    assert fresh.exit_code == 1 and "scaleSetPriority" in fresh.stdout


def test_against_an_old_path(tmp_path: Path, run_cli: Run) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(LEGACY)
    new.write_text(LEGACY.replace("location: westeurope", "location: northeurope"))
    result = run_cli(["validate", str(new), "--against", str(old)])
    assert result.exit_code == 1
    assert f"(was {old}:30)" in result.stdout


def test_an_unknown_revision_is_one_clear_error(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY)
    result = run_cli(["validate", "clusters", "--against", "no-such-branch"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("Error:") == 1
    assert "--against no-such-branch: no such file or folder, and not a revision" in result.stderr


def test_a_path_outside_a_repository(tmp_path: Path, run_cli: Run) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(LEGACY)
    result = run_cli(["validate", str(plain), "--against", "HEAD~1"])
    assert result.exit_code == 2
    assert "not inside a git repository" in result.stderr


def test_a_missing_old_path_in_no_repository(tmp_path: Path, run_cli: Run) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(LEGACY)
    result = run_cli(["validate", str(plain), "--against", str(tmp_path / "gone.yaml")])
    assert result.exit_code == 2
    assert result.stderr.count("Error:") == 1
    assert "gone.yaml: no such file or folder" in result.stderr


def test_a_new_file_gets_the_create_rules_only(history: Any, run_cli: Run) -> None:
    repo = history(LEGACY, LEGACY)
    repo.write("clusters/extra.yaml", ASO.replace("demo", "other"))
    result = _validate(run_cli)
    assert result.exit_code == 0, result.stdout
    assert "[update]" not in result.stdout


CLASS = """\
apiVersion: cluster.x-k8s.io/v1beta2
kind: ClusterClass
metadata: {name: aks, namespace: default}
spec:
  workers:
    machinePools:
    - class: default
    - class: spot
"""
USER = """\
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  topology:
    classRef: {name: aks}
    version: v1.31.1
    workers:
      machinePools:
      - {class: spot, name: mp}
"""


def test_a_clusterclass_in_use_keeps_its_classes_and_is_not_deleted(
    history: Any, run_cli: Run
) -> None:
    history(CLASS + USER, CLASS.replace("    - class: spot\n", "") + USER)
    out = _validate(run_cli, "--disable-rule", "schema").stdout
    assert "class 'spot' cannot be removed: Cluster 'c1' uses it (CAPZ-UPDATE-CLUSTERCLASS)" in out


def test_deleting_a_clusterclass_in_use(history: Any, run_cli: Run) -> None:
    history(CLASS + USER, USER.lstrip("-\n"))
    out = _validate(run_cli).stdout
    assert "ClusterClass deleted while Cluster(s) c1 use it (CAPZ-DELETE-CLUSTERCLASS)" in out


def test_standard_input_has_no_history(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY)
    result = run_cli(["validate", "-", "--against", "HEAD~1"], stdin=LEGACY)
    assert result.exit_code == 2
    assert "standard input has no git history" in result.stderr


def test_against_refuses_kubeconform_beside_it(history: Any, run_cli: Run) -> None:
    history(LEGACY, LEGACY)
    result = _validate(run_cli, "--kubeconform")
    assert result.exit_code == 2
    assert "--against cannot be combined with --kubeconform" in result.stderr


def test_a_file_added_since_the_revision_is_all_new(history: Any, run_cli: Run) -> None:
    repo = history(LEGACY, LEGACY)
    repo.write("clusters/extra.yaml", ASO.replace("demo", "other"))
    repo.commit("third")
    result = run_cli(["validate", "clusters/extra.yaml", "--against", "HEAD~1"])
    assert result.exit_code == 0, result.stdout
    assert "[update]" not in result.stdout and "[delete]" not in result.stdout
