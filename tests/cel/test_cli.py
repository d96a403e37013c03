"""``capzgen schemas list --cel`` and ``--no-cel`` on validate, through ``generator.cli.main``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import yaml

from tests.cel.conftest import crd
from tests.conftest import CliResult

RunCli = Callable[..., CliResult]


def test_list_cel_shows_every_rule_of_the_shared_crds(
    run_cli: RunCli, shared_schema_dirs: list[Path], isolated_cache: Path
) -> None:
    args = [f"--schema-dir={d}" for d in shared_schema_dirs]
    result = run_cli(["schemas", "list", *args, "--cel"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    # 17 of Cluster API and CAPZ, 9 of the KubeadmConfig CRD, 10 of the Flux CRDs in the bundle
    assert lines[-1] == "36 CEL rule(s): 36 evaluable, 0 unsupported, 0 transition"
    assert (
        "cluster.x-k8s.io/v1beta2 Cluster  spec.topology.workers.machineDeployments[*]"
        ".healthCheck.checks.unhealthyMachineConditions[*].type  evaluable"
    ) in lines
    assert "    rule: self.all(x, self.exists_one(y, x.name == y.name))" in lines


def test_list_cel_names_unsupported_and_transition_rules(
    run_cli: RunCli, tmp_path: Path, isolated_cache: Path
) -> None:
    spec = {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "self.endpoint.isURL()", "message": "URL"},
            {"rule": "self.name == oldSelf.name", "message": "immutable"},
            {"rule": "has(self.name)", "message": "name"},
        ],
        "properties": {
            "name": {"type": "string"},
            "endpoint": {"type": "string"},
            "dns": {
                "type": "string",
                "x-kubernetes-validations": [
                    {"rule": "!format.dns1123Label().validate(self).hasValue()"}
                ],
            },
        },
    }
    (tmp_path / "widget.yaml").write_text(yaml.safe_dump(crd("Widget", spec)))
    result = run_cli(["schemas", "list", "--schema-dir", str(tmp_path), "--cel"])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "example.com/v1 Widget  spec  unsupported (unsupported function isURL)" in text
    assert "example.com/v1 Widget  spec  transition (transition rule (uses oldSelf)" in text
    assert "example.com/v1 Widget  spec.dns  unsupported (unsupported function format." in text
    # The built-in bundle's CRD rules are listed too; all of them are evaluable.
    prefixes = ("cluster.", "bootstrap.", "kustomize.toolkit.fluxcd.io", "source.toolkit.fluxcd.io")
    bundled = sum(1 for line in text.splitlines() if line.startswith(prefixes))
    assert bundled >= 27
    assert text.splitlines()[-1] == (
        f"{4 + bundled} CEL rule(s): {1 + bundled} evaluable, 2 unsupported, 1 transition"
    )

    data = json.loads(
        run_cli(["schemas", "list", "--schema-dir", str(tmp_path), "--cel", "-o", "json"]).stdout
    )
    data = [row for row in data if row["apiVersion"].startswith("example.com/")]
    assert {(row["path"], row["status"]) for row in data} == {
        ("spec", "unsupported"),
        ("spec", "transition"),
        ("spec", "evaluable"),
        ("spec.dns", "unsupported"),
    }
    assert all(row["kind"] == "Widget" for row in data)


def test_list_without_cel_is_unchanged(
    run_cli: RunCli, tmp_path: Path, isolated_cache: Path
) -> None:
    (tmp_path / "widget.yaml").write_text(yaml.safe_dump(crd("Widget", {"type": "object"})))
    result = run_cli(["schemas", "list", "--schema-dir", str(tmp_path)])
    assert "example.com/v1 Widget" in result.stdout
    assert "CEL rule(s)" not in result.stdout


def test_validate_reports_cel_findings_with_lines_and_no_cel_turns_them_off(
    run_cli: RunCli, tmp_path: Path, shared_schema_dirs: list[Path], isolated_cache: Path
) -> None:
    cluster = {
        "apiVersion": "cluster.x-k8s.io/v1beta2",
        "kind": "Cluster",
        "metadata": {"name": "demo", "namespace": "default"},
        "spec": {
            "topology": {
                "classRef": {"name": "demo-class"},
                "version": "v1.31.1",
                "controlPlane": {
                    "healthCheck": {
                        "checks": {
                            "unhealthyMachineConditions": [
                                {"type": "Ready", "status": "False", "timeoutSeconds": 300}
                            ]
                        }
                    }
                },
            }
        },
    }
    file = tmp_path / "cluster.yaml"
    file.write_text(yaml.safe_dump(cluster, sort_keys=False))
    env = {"CAPZGEN_SCHEMA_PATH": os.pathsep.join(str(d) for d in shared_schema_dirs)}
    result = run_cli(["validate", str(file)], env=env)
    cel_lines = [line for line in result.stdout.splitlines() if "[cel]" in line]
    line_no = next(
        n for n, text in enumerate(file.read_text().splitlines(), 1) if "type: Ready" in text
    )
    assert len(cel_lines) == 1, result.stdout
    assert cel_lines[0].startswith(f"{file}:{line_no}: Cluster/demo: ")
    assert "type must not be one of" in cel_lines[0]
    assert result.exit_code == 1

    off = run_cli(["validate", "--no-cel", str(file)], env=env)
    assert "[cel]" not in off.stdout
