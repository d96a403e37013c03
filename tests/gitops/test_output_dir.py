"""`generate cluster --output-dir`: one file per object, kustomization.yaml, safe reruns."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.output.gitops import plan_directory, write_directory
from tests.gitops.conftest import BASE_ARGS, read_dir, stat_dir
from tests.processes import run_reaped

GOLDEN = Path(__file__).parent / "golden"
THREE_POOLS = (
    "NODE_POOLS:\n"
    "- {name: system, mode: System}\n"
    "- {name: user, mode: User}\n"
    "- {name: batch, mode: User, replicas: 0}\n"
)


@pytest.fixture
def generate(run_cli: Any, schema_args: list[str]):  # type: ignore[no-untyped-def]
    def run(*extra: str, name: str = "demo") -> Any:
        return run_cli(["generate", "cluster", name, *BASE_ARGS, *schema_args, *extra])

    return run


def test_plain_layout_matches_golden(generate: Any, tmp_path: Path, snapshot: Any) -> None:
    out = tmp_path / "out"
    result = generate("--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert f"{out}: 8 files written, 0 unchanged, 0 removed" in result.stderr
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match_dir(read_dir(out), "plain")


def test_flux_layout_matches_golden(generate: Any, tmp_path: Path, snapshot: Any) -> None:
    out = tmp_path / "out"
    result = generate(
        "--output-dir",
        str(out),
        "--layout",
        "flux",
        "--flux-path",
        "clusters/demo",
        "--flux-source",
        "GitRepository/flux-system/fleet-infra",
        "-n",
        "team-a",
    )
    assert result.exit_code == 0, result.stderr
    files = read_dir(out)
    assert "flux-kustomization.yaml" not in files["kustomization.yaml"]
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match_dir(files, "flux")


def test_files_joined_equal_stdout(generate: Any, tmp_path: Path) -> None:
    stdout = generate().stdout
    out = tmp_path / "out"
    assert generate("--output-dir", str(out)).exit_code == 0
    kustomization = (out / "kustomization.yaml").read_text()
    names = [line[2:] for line in kustomization.splitlines() if line.startswith("- ")]
    assert "---\n".join((out / n).read_text() for n in names) == stdout


@pytest.mark.skipif(
    shutil.which("kubectl") is None,
    reason="kubectl is not installed: `kubectl kustomize DIR` cannot be compared with stdout",
)
def test_kubectl_kustomize_reproduces_stdout(generate: Any, tmp_path: Path) -> None:
    with_pools = tmp_path / "values.yaml"
    with_pools.write_text(THREE_POOLS)
    stdout = generate("--values", str(with_pools), "-n", "team-a").stdout
    out = tmp_path / "out"
    result = generate(
        "--values",
        str(with_pools),
        "-n",
        "team-a",
        "--output-dir",
        str(out),
        "--layout",
        "flux",
        "--flux-path",
        "x",
    )
    assert result.exit_code == 0, result.stderr
    built = run_reaped(["kubectl", "kustomize", str(out)])
    assert built.returncode == 0, built.stderr
    assert built.stdout == stdout


def test_rerun_changes_no_byte(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out), "--layout", "flux", "--flux-path", "x").exit_code == 0
    before = stat_dir(out)
    again = generate("--output-dir", str(out), "--layout", "flux", "--flux-path", "x")
    assert again.exit_code == 0, again.stderr
    assert "0 files written, 9 unchanged, 0 removed" in again.stderr
    assert stat_dir(out) == before  # same bytes, same mtimes: nothing was rewritten


def test_only_changed_files_are_rewritten(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out)).exit_code == 0
    before = stat_dir(out)
    result = generate("--output-dir", str(out), "--worker-machine-count", "3")
    assert result.exit_code == 0, result.stderr
    after = stat_dir(out)
    changed = sorted(name for name in after if after[name] != before[name])
    assert changed == [
        ".capzgen-manifest.json",
        "machinepool-demo-pool0.yaml",
        "machinepool-demo-pool1.yaml",
    ]


def test_untracked_files_are_kept(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("notes\n")
    (out / "sub").mkdir()
    (out / "sub" / "x.yaml").write_text("a: 1\n")
    assert generate("--output-dir", str(out)).exit_code == 0
    assert generate("--output-dir", str(out), "--worker-machine-count", "1").exit_code == 0
    assert (out / "README.md").read_text() == "notes\n"
    assert (out / "sub" / "x.yaml").read_text() == "a: 1\n"
    manifest = json.loads((out / ".capzgen-manifest.json").read_text())
    assert "README.md" not in manifest["files"]


def test_edited_file_is_refused_without_force_and_overwritten_with_it(
    generate: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out)).exit_code == 0
    edited = out / "cluster-demo.yaml"
    edited.write_text(edited.read_text() + "# my change\n")
    before = stat_dir(out)

    refused = generate("--output-dir", str(out), "--worker-machine-count", "3")
    assert refused.exit_code == 1
    assert "nothing was written" in refused.stderr
    assert f"{edited}: edited since capzgen wrote it" in refused.stderr
    assert stat_dir(out) == before  # not even the unrelated MachinePool files changed

    # An unchanged rerun does not touch the edited file either (the edit is still there).
    forced = generate("--output-dir", str(out), "--worker-machine-count", "3", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "# my change" not in edited.read_text()
    assert generate("--output-dir", str(out), "--worker-machine-count", "3").exit_code == 0


def test_existing_file_not_written_by_capzgen_is_refused(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "cluster-demo.yaml").write_text("hand: written\n")
    refused = generate("--output-dir", str(out))
    assert refused.exit_code == 1
    assert "exists and was not written by capzgen" in refused.stderr
    assert sorted(p.name for p in out.iterdir()) == ["cluster-demo.yaml"]
    assert generate("--output-dir", str(out), "--force").exit_code == 0
    assert (out / "cluster-demo.yaml").read_text().startswith("apiVersion: cluster.x-k8s.io")


def test_identical_untracked_file_is_adopted(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out)).exit_code == 0
    (out / ".capzgen-manifest.json").unlink()
    result = generate("--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    assert (out / ".capzgen-manifest.json").is_file()


def test_files_no_longer_generated_are_deleted_only_if_unchanged(
    generate: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    values = tmp_path / "values.yaml"
    values.write_text(THREE_POOLS)
    assert generate("--output-dir", str(out), "--values", str(values)).exit_code == 0
    (out / "keep.txt").write_text("mine\n")
    values.write_text("NODE_POOLS:\n- {name: system, mode: System}\n- {name: user, mode: User}\n")

    (out / "machinepool-demo-batch.yaml").write_text("edited: true\n")
    refused = generate("--output-dir", str(out), "--values", str(values))
    assert refused.exit_code == 1
    assert "no longer generated, but edited since capzgen wrote it" in refused.stderr
    assert (out / "azureasomanagedmachinepool-demo-batch.yaml").exists()

    forced = generate("--output-dir", str(out), "--values", str(values), "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "2 removed" in forced.stderr
    assert not (out / "machinepool-demo-batch.yaml").exists()
    assert not (out / "azureasomanagedmachinepool-demo-batch.yaml").exists()
    assert (out / "keep.txt").read_text() == "mine\n"
    assert "batch" not in (out / "kustomization.yaml").read_text()


def test_switching_layout_removes_the_flux_file(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out), "--layout", "flux", "--flux-path", "x").exit_code == 0
    result = generate("--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    assert "1 removed" in result.stderr
    assert not (out / "flux-kustomization.yaml").exists()


def test_nothing_is_written_when_validation_fails(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out)).exit_code == 0
    before = stat_dir(out)
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}\n"
        "patch: {spec: {dnsPrefx: oops}}\n"
    )
    result = generate("--output-dir", str(out), "--patch", str(typo), "--worker-machine-count", "4")
    assert result.exit_code == 1
    assert 'unknown field "dnsPrefx"' in result.stderr
    assert stat_dir(out) == before
    fresh = tmp_path / "fresh"
    assert generate("--output-dir", str(fresh), "--patch", str(typo)).exit_code == 1
    assert not fresh.exists()


def test_damaged_manifest_is_an_error_unless_forced(generate: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("--output-dir", str(out)).exit_code == 0
    (out / ".capzgen-manifest.json").write_text('{"files": {"../../etc/passwd": "x"}}')
    refused = generate("--output-dir", str(out))
    assert refused.exit_code == 1
    assert "manifest is damaged" in refused.stderr
    assert generate("--output-dir", str(out), "--force").exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--layout", "flux"], "--layout need --output-dir"),
        (["--force"], "--force need --output-dir"),
        (["--output-dir", "x", "--write-to", "y"], "either --write-to or --output-dir"),
        (["--output-dir", "x", "--flux-path", "p"], "need --layout flux"),
        (["--output-dir", "x", "--layout", "flux", "--flux-source", "a/b/c/d"], "--flux-source"),
        (["--output-dir", "x", "--layout", "flux", "--flux-path", "/abs"], "invalid --flux-path"),
    ],
)
def test_usage_errors(
    generate: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = generate(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not (tmp_path / "x").exists()


def test_plan_skips_stale_files_already_removed_and_lists_conflicts_in_order(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    files = {"a.yaml": "a\n", "b.yaml": "b\n", "c.yaml": "c\n", "d.yaml": "d\n"}
    write_directory(out, files, force=False)
    (out / "b.yaml").unlink()
    (out / "c.yaml").write_text("edited\n")
    (out / "a.yaml").write_text("edited\n")
    plan = plan_directory(out, {"a.yaml": "new a\n", "d.yaml": "d\n"}, force=False)
    assert plan.writes == {"a.yaml": "new a\n"}
    assert plan.unchanged == ["d.yaml"]
    assert plan.deletes == ["c.yaml"]
    assert plan.conflicts == [
        f"{out / 'a.yaml'}: edited since capzgen wrote it",
        f"{out / 'c.yaml'}: no longer generated, but edited since capzgen wrote it",
    ]
    assert plan.manifest is not None
    forced = plan_directory(out, {"a.yaml": "new a\n", "d.yaml": "d\n"}, force=True)
    assert (forced.writes, forced.deletes, forced.conflicts) == (plan.writes, plan.deletes, [])
