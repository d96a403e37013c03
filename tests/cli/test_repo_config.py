"""``.capzgen.yaml``: found by walking up to the repository's root, overridable, read strictly,
and ranked below the command line and the environment (flag > environment > file > default)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.cli.config_file import RepoConfig, find_config, load_config
from generator.errors import CapzgenError, ExitCode

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
NOT_A_MANIFEST = "replicas: 3\n"  # structure findings: no apiVersion, no kind


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (``.git``) with a good manifest and a chart's values file beside it."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "apps" / "chart").mkdir(parents=True)
    (root / "apps" / "cm.yaml").write_text(CONFIG_MAP)
    (root / "apps" / "chart" / "values.yaml").write_text(NOT_A_MANIFEST)
    monkeypatch.chdir(root)
    return root


def _config(folder: Path, text: str) -> Path:
    path = folder / ".capzgen.yaml"
    path.write_text(text)
    return path


# --- discovery ----------------------------------------------------------------------------------


def test_the_file_is_found_walking_up_from_the_current_folder(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(repo, "exclude: [values.yaml]\n")
    assert run_cli(["validate", "apps"]).exit_code == ExitCode.OK
    monkeypatch.chdir(repo / "apps")
    assert run_cli(["validate", "."]).exit_code == ExitCode.OK
    assert find_config(repo / "apps" / "chart") == repo / ".capzgen.yaml"


def test_the_walk_stops_at_the_repository_root(tmp_path: Path) -> None:
    _config(tmp_path, "exclude: [x]\n")  # outside the repository: not its settings
    inner = tmp_path / "repo" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "repo" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    assert find_config(inner) is None
    assert find_config(tmp_path / "repo") is None
    assert find_config(tmp_path) == tmp_path / ".capzgen.yaml"


def test_without_a_file_nothing_changes(run_cli: Any, repo: Path) -> None:
    assert run_cli(["validate", "apps"]).exit_code == ExitCode.INVALID


def test_the_flag_and_the_variable_name_another_file(run_cli: Any, repo: Path) -> None:
    _config(repo, "exclude: [nothing]\n")
    other = repo / "ci.yaml"
    other.write_text("exclude: [values.yaml]\n")
    assert run_cli(["validate", "--capzgen-config", str(other), "apps"]).exit_code == 0
    assert run_cli(["validate", "apps"], env={"CAPZGEN_CONFIG": str(other)}).exit_code == 0
    env = {"CAPZGEN_CONFIG": str(other)}
    flag = ["validate", "--capzgen-config", ".capzgen.yaml", "apps"]
    assert run_cli(flag, env=env).exit_code == ExitCode.INVALID  # the flag beats the variable
    no_file = ["validate", "--capzgen-config", "none", "apps"]
    assert run_cli(no_file, env=env).exit_code == ExitCode.INVALID  # 'none': no file at all


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_missing_named_file_is_an_error(run_cli: Any, repo: Path, how: str) -> None:
    if how == "flag":
        result = run_cli(["validate", "--capzgen-config", "missing.yaml", "apps"])
    else:
        result = run_cli(["validate", "apps"], env={"CAPZGEN_CONFIG": "missing.yaml"})
    assert result.exit_code == ExitCode.USAGE
    assert "missing.yaml: no such file" in result.stderr


# --- strict reading -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("exclude: [a]\nexlcude: [b]\n", 2, "unknown key 'exlcude'"),
        ("schemaDirs: schemas\n", 1, "schemaDirs must be a list of strings"),
        ("include:\n  - a\n  - 3\n", 3, "include[1] must be a non-empty string"),
        ("failOn: sometimes\n", 1, "failOn must be error or warning"),
        ("output: 3\n", 1, "output must be a string"),
        ("values: [a]\n", 1, "values must be a mapping"),
        ("- a\n", None, "must be a YAML mapping of settings"),
    ],
)
def test_mistakes_name_the_file_and_line(
    run_cli: Any, repo: Path, text: str, line: int | None, message: str
) -> None:
    path = _config(repo, text)
    result = run_cli(["validate", "apps"])
    assert result.exit_code == ExitCode.USAGE
    where = f"{path}:{line}:" if line is not None else f"{path}:"
    assert where in result.stderr
    assert message in result.stderr


def test_with_output_json_a_mistake_is_json_too(run_cli: Any, repo: Path) -> None:
    path = _config(repo, "exlcude: [a]\n")
    result = run_cli(["validate", "--output", "json", "apps"])
    assert result.exit_code == ExitCode.USAGE
    error = json.loads(result.stdout)["error"]
    assert str(path) in json.dumps(error)
    assert "unknown key 'exlcude'" in error["message"]


def test_invalid_yaml_and_duplicate_keys_are_refused(repo: Path) -> None:
    with pytest.raises(CapzgenError, match="duplicate"):
        load_config(_config(repo, "exclude: [a]\nexclude: [b]\n"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# rules\ndisabledRules: [NO-SUCH-RULE]\n", "unknown rule id(s): NO-SUCH-RULE"),
        ("# format\noutput: yaml\n", "output must be one of"),
    ],
)
def test_values_are_checked_like_the_flags(
    run_cli: Any, repo: Path, text: str, message: str
) -> None:
    path = _config(repo, text)
    result = run_cli(["validate", "apps"])
    assert result.exit_code == ExitCode.USAGE
    assert f"{path}:2: {message}" in result.stderr


def test_a_complete_file_reads_into_the_model(repo: Path) -> None:
    path = _config(
        repo,
        "schemaDirs: [schemas, /abs]\ninclude: ['apps/**']\nexclude: [values.yaml]\n"
        "disabledRules: [structure]\nfailOn: warning\noutput: json\n"
        "values: {AZURE_LOCATION: westeurope}\nflavorsDirs: [flavors]\n",
    )
    assert load_config(path) == RepoConfig(
        path=path,
        schema_dirs=(repo / "schemas", Path("/abs")),
        include=("apps/**",),
        exclude=("values.yaml",),
        disabled_rules=("structure",),
        fail_on="warning",
        output="json",
        values={"AZURE_LOCATION": "westeurope"},
        flavors_dirs=(repo / "flavors",),
    )
    assert load_config(_config(repo, "# nothing yet\n")) == RepoConfig(path=path)


# --- precedence, key by key ---------------------------------------------------------------------


def test_schema_dirs_are_relative_to_the_file_and_replaced_by_the_flag_or_the_environment(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(repo, "schemaDirs: [no-such-schemas]\n")
    monkeypatch.chdir(repo / "apps")
    result = run_cli(["validate", "cm.yaml"])
    assert result.exit_code == ExitCode.USAGE
    assert str(repo / "no-such-schemas") in result.stderr  # the file's folder, not the cwd
    (repo / "s").mkdir()
    assert run_cli(["validate", "--schema-dir", str(repo / "s"), "cm.yaml"]).exit_code == 0
    env = {"CAPZGEN_SCHEMA_PATH": str(repo / "s")}
    assert run_cli(["validate", "cm.yaml"], env=env).exit_code == 0


def test_exclude_is_relative_to_the_file_and_replaced_by_the_flag(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(repo, "exclude: [apps/chart]\n")
    assert run_cli(["validate", "apps"]).exit_code == ExitCode.OK
    monkeypatch.chdir(repo / "apps")  # 'apps/chart' still means the file's apps/chart
    assert run_cli(["validate", "."]).exit_code == ExitCode.OK
    assert run_cli(["validate", "--exclude", "nothing", "."]).exit_code == ExitCode.INVALID


def test_include_keeps_only_matching_files_of_folder_walks(run_cli: Any, repo: Path) -> None:
    (repo / "other").mkdir()
    (repo / "other" / "bad.yaml").write_text(NOT_A_MANIFEST)
    _config(repo, "include: ['**/cm.yaml']\n")
    result = run_cli(["validate", "--output", "json", "other/bad.yaml", "."])
    report = json.loads(result.stdout)
    files = {finding["file"] for finding in report["findings"]}
    assert files == {"other/bad.yaml"}  # named explicitly: include does not apply to it
    assert report["summary"]["documents"] == 2  # cm.yaml and bad.yaml, not values.yaml


def test_disabled_rules_of_the_file_and_the_flag_add_up(run_cli: Any, repo: Path) -> None:
    _config(repo, "disabledRules: [structure]\n")
    assert run_cli(["validate", "apps"]).exit_code == ExitCode.OK
    assert run_cli(["validate", "--disable-rule", "schema", "apps"]).exit_code == ExitCode.OK


def test_generate_cluster_takes_the_disabled_rules_too(run_cli: Any, repo: Path) -> None:
    _config(repo, "disabledRules: [NO-SUCH-RULE]\n")
    result = run_cli(["generate", "cluster", "c1", "--list-variables"])
    assert result.exit_code == ExitCode.USAGE
    assert "NO-SUCH-RULE" in result.stderr


def test_output_of_the_file_is_the_default_and_the_flag_beats_it(run_cli: Any, repo: Path) -> None:
    _config(repo, "output: json\n")
    assert json.loads(run_cli(["validate", "apps/cm.yaml"]).stdout)["summary"]["documents"] == 1
    text = run_cli(["validate", "--output", "text", "apps/cm.yaml"]).stdout
    assert not text.startswith("{")


def test_fail_on_is_kept_for_the_fail_on_option(repo: Path) -> None:
    assert load_config(_config(repo, "failOn: warning\n")).fail_on == "warning"
    assert load_config(_config(repo, "output: text\n")).fail_on is None


def _location(run_cli: Any, *args: str, env: dict[str, str] | None = None) -> str:
    result = run_cli(["generate", "cluster", "c1", "--list-variables", *args], env=env)
    assert result.exit_code == ExitCode.OK, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "AZURE_LOCATION " in line]
    return str(line.split("defaults to ")[1].rstrip(")"))


def test_values_sit_under_values_files_and_the_environment(run_cli: Any, repo: Path) -> None:
    _config(repo, "values:\n  AZURE_LOCATION: from-file\n")
    assert _location(run_cli) == "from-file"
    (repo / "v.yaml").write_text("AZURE_LOCATION: from-values\n")
    assert _location(run_cli, "--values", "v.yaml") == "from-values"
    assert _location(run_cli, "--set", "AZURE_LOCATION=from-set") == "from-set"
    assert _location(run_cli, env={"AZURE_LOCATION": "from-env"}) == "from-env"
    result = run_cli(["generate", "cluster", "c1", "--list-variables", "--capzgen-config", "none"])
    assert "from-file" not in result.stdout


def test_flavors_dirs_are_relative_to_the_file_and_replaced_by_the_flag(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(repo, "flavorsDirs: [no-such-flavors]\n")
    monkeypatch.chdir(repo / "apps")
    result = run_cli(["generate", "cluster", "c1", "--list-variables"])
    assert result.exit_code == ExitCode.USAGE
    assert str(repo / "no-such-flavors") in result.stderr
    (repo / "f").mkdir()
    flag = ["generate", "cluster", "c1", "--list-variables", "--flavors-dir", str(repo / "f")]
    assert run_cli(flag).exit_code == ExitCode.OK


def test_the_documented_example_is_a_valid_file(tmp_path: Path) -> None:
    docs = Path(__file__).parents[2] / "docs" / "configuration.md"
    text = docs.read_text(encoding="utf-8")
    example = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    config = load_config(_config(tmp_path, example))
    assert config.exclude == ("values.yaml", "values.schema.json", "clusters/*/helm")
    assert config.schema_dirs == (tmp_path / "schemas" / "management-cluster-crds",)
    assert config.values == {"AZURE_LOCATION": "westeurope", "AKS_SKU_TIER": "Standard"}
