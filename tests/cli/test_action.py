"""The composite GitHub Action (action.yml): valid by SchemaStore's schema for action metadata,
every input it reads declared, and its validate step, run as the runner would run it, keeping
capzgen's exit status and writing a SARIF log code scanning accepts."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

ROOT = Path(__file__).parents[2]
SCHEMAS = ROOT / "tests" / "data" / "schemastore"


@pytest.fixture(scope="module")
def action() -> Any:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_is_valid(action: Any) -> None:
    schema = json.loads((SCHEMAS / "github-action.json").read_text())
    jsonschema_rs.validate(schema, action)
    assert action["runs"]["using"] == "composite"


def test_a_broken_action_fails_the_schema(action: Any) -> None:
    schema = json.loads((SCHEMAS / "github-action.json").read_text())
    del action["runs"]["using"]
    with pytest.raises(jsonschema_rs.ValidationError):
        jsonschema_rs.validate(schema, action)


def test_every_input_used_is_declared(action: Any) -> None:
    text = (ROOT / "action.yml").read_text()
    used = set(re.findall(r"inputs\.([a-z-]+)", text))
    assert used == set(action["inputs"])
    assert {"paths", "args", "fail-on", "upload-sarif", "version"} <= used
    assert action["inputs"]["paths"]["default"] == "."
    assert action["inputs"]["upload-sarif"]["default"] == "true"
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert "github/codeql-action/upload-sarif@v3" in uses


def _validate_step(action: Any) -> str:
    step = next(step for step in action["runs"]["steps"] if step.get("id") == "validate")
    assert step["shell"] == "bash"
    return str(step["run"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="the step is a bash script")
@pytest.mark.parametrize(
    ("fail_on", "status"), [("error", "0"), ("warning", "1")], ids=["error", "warning"]
)
def test_the_validate_step_keeps_the_exit_status(
    action: Any, tmp_path: Path, fail_on: str, status: str
) -> None:
    """The step as the runner runs it (inputs as environment, outputs to $GITHUB_OUTPUT), on a
    manifest whose only finding is a warning: it succeeds, and says capzgen's status."""
    workspace = tmp_path / "repo"
    (workspace / "clusters").mkdir(parents=True)
    rendered = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "cluster", "demo", "--no-validate",
         "--var", "AZURE_LOCATION=westeurop", "--kubernetes-version", "v1.31.1"],
        capture_output=True, text=True, check=True, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    (workspace / "clusters" / "demo.yaml").write_text(rendered.stdout)
    outputs = tmp_path / "github_output"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PATHS": "clusters",
        "ARGS": "--no-cache",
        "FAIL_ON": fail_on,
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_WORKSPACE": str(workspace),
        "CAPZGEN_CACHE_DIR": str(tmp_path / "cache"),
    }
    run = subprocess.run(
        ["bash", "-e", "-c", _validate_step(action)],
        cwd=workspace, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert written["exit-code"] == status
    log = json.loads(Path(written["sarif-file"]).read_text())
    jsonschema_rs.validate(json.loads((SCHEMAS / "sarif-2.1.0.json").read_text()), log)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert uris == {"clusters/demo.yaml"}
    assert "clusters/demo.yaml:" in run.stdout and "(CAPZ-AZURE-REGION)" in run.stdout
