"""The repository's ``.pre-commit-hooks.yaml``: valid for pre-commit (SchemaStore's schema of the
file), and each hook's command line does what its description says when pre-commit runs it (its
``entry``, its ``args``, then the staged file names unless ``pass_filenames`` is false)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from generator.errors import ExitCode
from tests.conftest import DEMO_FLEET

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "tests" / "data" / "schemastore"
HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())


def _hook(hook_id: str) -> dict[str, Any]:
    (found,) = [hook for hook in HOOKS if hook["id"] == hook_id]
    return dict(found)


def test_the_hooks_file_is_valid_for_pre_commit() -> None:
    schema = json.loads((SCHEMAS / "pre-commit-hooks.json").read_text())
    jsonschema_rs.validate(schema, HOOKS)
    assert {hook["id"] for hook in HOOKS} == {"capzgen-validate", "capzgen-fleet-drift"}
    for hook in HOOKS:
        assert hook["entry"].split()[0] == "capzgen"  # the console script the package installs


def _as_pre_commit_runs(hook: dict[str, Any], files: list[str]) -> list[str]:
    argv = [*shlex.split(hook["entry"]), *hook.get("args", [])]
    if hook.get("pass_filenames", True):
        argv += files
    assert argv[0] == "capzgen"
    return argv[1:]


def test_the_validate_hook_fails_on_a_bad_manifest(run_cli: Any, tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: Bad_Name}\n"
    )
    hook = _hook("capzgen-validate")
    assert run_cli(_as_pre_commit_runs(hook, [str(good)])).exit_code == ExitCode.OK
    assert run_cli(_as_pre_commit_runs(hook, [str(good), str(bad)])).exit_code == ExitCode.INVALID


def test_the_drift_hook_fails_on_a_hand_edit(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # pre-commit runs hooks at the repository's root
    (tmp_path / "fleet.yaml").write_text(DEMO_FLEET)
    assert run_cli(["generate", "fleet", "fleet.yaml", "--output-dir", "clusters"]).exit_code == 0
    hook = _hook("capzgen-fleet-drift")
    assert run_cli(_as_pre_commit_runs(hook, ["ignored.yaml"])).exit_code == ExitCode.OK
    edited = tmp_path / "clusters" / "east" / "cluster-east.yaml"
    edited.write_text(edited.read_text() + "# edited\n")
    drift = run_cli(_as_pre_commit_runs(hook, []))
    assert drift.exit_code == ExitCode.INVALID
    assert "-# edited" in drift.stdout
