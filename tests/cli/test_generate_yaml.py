"""`capzgen generate yaml`: clusterctl's command, through the CLI edge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${NAME}
data:
  region: ${REGION:=westeurope}
  count: "${COUNT:-3}"
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_substitutes_from_the_environment_and_defaults(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(["generate", "yaml", "--from", write(tmp_path, TEMPLATE)], env={"NAME": "cm1"})
    assert result.exit_code == 0, result.stderr
    (doc,) = yaml.safe_load_all(result.stdout)
    assert doc["metadata"]["name"] == "cm1"
    assert doc["data"] == {"region": "westeurope", "count": "3"}


def test_output_is_re_serialised_with_sorted_keys(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(
        ["generate", "yaml", "--from", write(tmp_path, "kind: X\napiVersion: v1\nb: 1\na: 2\n")]
    )
    assert result.stdout == "a: 2\napiVersion: v1\nb: 1\nkind: X\n"


def test_missing_variables_are_reported_together_and_nothing_printed(
    run_cli: Any, tmp_path: Path
) -> None:
    result = run_cli(
        ["generate", "yaml", "--from", write(tmp_path, "a: ${C}\nb: ${A}\nc: ${B:=x}\n")]
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "value for variables [A, C] is not set" in result.stderr
    assert "Traceback" not in result.stderr


def test_parse_error_has_line_and_column(run_cli: Any, tmp_path: Path) -> None:
    path = write(tmp_path, "a: 1\nb: x ${A-x}\n")
    result = run_cli(["generate", "yaml", "--from", path])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{path}:2:6" in result.stderr
    assert "missing closing brace" in result.stderr


def test_environment_beats_config_file_which_beats_defaults(run_cli: Any, tmp_path: Path) -> None:
    config = tmp_path / "clusterctl.yaml"
    config.write_text("NAME: from-config\nregion: config-region\n")
    template = write(tmp_path, TEMPLATE)
    result = run_cli(["generate", "yaml", "--from", template, "--config", str(config)])
    (doc,) = yaml.safe_load_all(result.stdout)
    assert (doc["metadata"]["name"], doc["data"]["region"]) == ("from-config", "config-region")
    result = run_cli(
        ["generate", "yaml", "--from", template, "--config", str(config)], env={"NAME": "env"}
    )
    (doc,) = yaml.safe_load_all(result.stdout)
    assert doc["metadata"]["name"] == "env"


def test_default_config_file_location_is_used(run_cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "xdg" / "cluster-api"
    folder.mkdir(parents=True)
    (folder / "clusterctl.yaml").write_text("NAME: xdg-name\n")
    result = run_cli(["generate", "yaml", "--from", write(tmp_path, TEMPLATE)])
    assert yaml.safe_load(result.stdout)["metadata"]["name"] == "xdg-name"


def test_reads_stdin_by_default(run_cli: Any) -> None:
    result = run_cli(["generate", "yaml"], stdin="kind: ${K:=Secret}\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "kind: Secret\n"


def test_list_variables_needs_no_values(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(["generate", "yaml", "--list-variables", "--from", write(tmp_path, TEMPLATE)])
    assert result.exit_code == 0
    assert result.stdout == "Variables:\n  - COUNT\n  - NAME\n  - REGION\n"


def test_missing_template_file_is_an_io_error(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(["generate", "yaml", "--from", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "nope.yaml" in result.stderr


def test_substituted_text_that_is_not_yaml_names_the_document(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli(
        ["generate", "yaml", "--from", write(tmp_path, "a: 1\n---\nb: ${V}\n")],
        env={"V": "[unclosed"},
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "Error:" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "name",
    [
        "cluster-template-aks-aso.yaml",
        "cluster-template-aks-aso-maintenance.yaml",
        "cluster-template-aks-aso-clusterclass.yaml",
        "cluster-template-aks-aso-topology.yaml",
        "cluster-template-aks.yaml",
        "cluster-template-aks-clusterclass.yaml",
        "cluster-template-aks-topology.yaml",
    ],
)
def test_capz_templates_substitute_cleanly(run_cli: Any, corpus_dir: Path, name: str) -> None:
    result = run_cli(["generate", "yaml", "--from", str(corpus_dir / name)], env=FULL_VARIABLES)
    assert result.exit_code == 0, result.stderr
    assert "${" not in result.stdout
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    assert all(d["metadata"]["name"] for d in docs)


FULL_VARIABLES = {
    "CLUSTER_NAME": "c1",
    "AZURE_LOCATION": "eastus",
    "KUBERNETES_VERSION": "v1.31.1",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
    "CLUSTER_CLASS_NAME": "aks-class",
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
}


@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n", "---\n---\n", "null\n"])
def test_a_template_without_objects_prints_a_lone_newline(
    run_cli: Any, tmp_path: Path, text: str
) -> None:
    """clusterctl v1.13.3 prints one newline when nothing is left to serialise."""
    result = run_cli(["generate", "yaml", "--from", write(tmp_path, text)])
    assert (result.exit_code, result.stdout) == (0, "\n")
    result = run_cli(
        ["generate", "cluster", "c1", "--from", write(tmp_path, text), "--no-validate"]
    )
    assert (result.exit_code, result.stdout) == (0, "\n")


def test_every_missing_variable_is_named_however_many(run_cli: Any, tmp_path: Path) -> None:
    names = [f"VAR_{i:03d}" for i in range(250)]
    template = "kind: A\n" + "".join(f"v{i}: ${{{name}}}\n" for i, name in enumerate(names))
    result = run_cli(["generate", "yaml", "--from", write(tmp_path, template)])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"Error: value for variables [{', '.join(names)}] is not set"
    )
