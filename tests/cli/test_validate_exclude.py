"""``validate --exclude GLOB``: files beside manifests that are not manifests (a chart's
``values.yaml``, a ``values.schema.json``) are skipped unread, however they are reached."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.errors import ExitCode
from generator.validate.globs import Globs, glob_matches

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
NOT_A_MANIFEST = "replicas: 3\nimage: nginx\n"  # a values.yaml: no apiVersion, no kind


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    chart = tmp_path / "apps" / "chart"
    chart.mkdir(parents=True)
    (tmp_path / "apps" / "cm.yaml").write_text(CONFIG_MAP)
    (chart / "values.yaml").write_text(NOT_A_MANIFEST)
    (chart / "values.schema.json").write_text('{"type": "object"}\n')
    return tmp_path


def _documents(result: Any) -> int:
    return int(json.loads(result.stdout)["summary"]["documents"])


def test_without_exclude_the_values_files_are_findings(run_cli: Any, repo: Path) -> None:
    assert run_cli(["validate", "apps"]).exit_code == ExitCode.INVALID


@pytest.mark.parametrize(
    "globs",
    [
        ["values.yaml", "values.schema.json"],
        ["values*"],
        ["apps/chart"],
        ["apps/chart/**"],
        ["**/values.*"],
    ],
)
def test_excluded_files_in_folders_are_skipped(run_cli: Any, repo: Path, globs: list[str]) -> None:
    args = [part for glob in globs for part in ("--exclude", glob)]
    result = run_cli(["validate", "--output", "json", *args, "apps"])
    assert result.exit_code == ExitCode.OK, result.stdout
    assert _documents(result) == 1


def test_the_path_as_given_and_relative_to_the_current_folder_both_match(
    run_cli: Any, repo: Path
) -> None:
    absolute = str(repo / "apps")
    result = run_cli(["validate", "--exclude", "apps/chart", absolute])
    assert result.exit_code == ExitCode.OK
    given = run_cli(["validate", "--exclude", "./apps/chart/*", "./apps"])
    assert given.exit_code == ExitCode.OK


def test_an_absolute_pattern_matches_the_absolute_path(run_cli: Any, repo: Path) -> None:
    pattern = str(repo / "apps" / "chart")
    assert run_cli(["validate", "--exclude", pattern, "apps"]).exit_code == ExitCode.OK
    assert run_cli(["validate", "--exclude", pattern, str(repo / "apps")]).exit_code == 0


def test_an_excluded_file_is_not_read(run_cli: Any, repo: Path) -> None:
    unreadable = repo / "apps" / "chart" / "values.yaml"
    unreadable.write_bytes(b"\xff\xfe\x00 not text")  # reading it would be an error
    result = run_cli(["validate", "--exclude", "chart", "apps"])
    assert result.exit_code == ExitCode.OK


def test_a_named_excluded_file_beside_others_is_skipped_and_counts_as_empty(
    run_cli: Any, repo: Path
) -> None:
    named = "apps/chart/values.yaml"
    result = run_cli(["validate", "--exclude", "values.yaml", "apps/cm.yaml", named])
    assert result.exit_code == ExitCode.USAGE  # the argument stands for nothing: a wrong path?
    assert f"{named}: no document to validate" in result.stderr
    allowed = ["validate", "--allow-empty", "--exclude", "values.yaml", "apps/cm.yaml", named]
    assert run_cli(allowed).exit_code == ExitCode.OK


def test_an_argument_whose_files_are_all_excluded_is_an_error(run_cli: Any, repo: Path) -> None:
    result = run_cli(["validate", "--exclude", "values*", "apps/chart"])
    assert result.exit_code == ExitCode.USAGE
    assert "apps/chart: no document to validate" in result.stderr
    allowed = run_cli(["validate", "--allow-empty", "--exclude", "values*", "apps/chart"])
    assert allowed.exit_code == ExitCode.OK


def test_files_a_kustomization_lists_are_explicit_and_not_excluded(
    run_cli: Any, repo: Path
) -> None:
    base = repo / "base"
    base.mkdir()
    (base / "cm.yaml").write_text(CONFIG_MAP)
    (base / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    result = run_cli(["validate", "--output", "json", "--exclude", "cm.yaml", "base"])
    assert result.exit_code == ExitCode.OK
    assert _documents(result) == 1


def test_a_kustomization_folder_inside_an_excluded_folder_is_not_read(
    run_cli: Any, repo: Path
) -> None:
    nested = repo / "apps" / "chart" / "overlay"
    nested.mkdir()
    (nested / "kustomization.yaml").write_text("resources: [missing.yaml]\n")
    result = run_cli(["validate", "--output", "json", "--exclude", "apps/chart", "apps"])
    assert result.exit_code == ExitCode.OK
    assert _documents(result) == 1


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("values.yaml", "a/b/values.yaml", True),
        ("charts", "charts/x/y.yaml", True),
        ("clusters/dev", "clusters/dev/c.yaml", True),
        ("clusters/dev", "clusters/devx/c.yaml", False),
        ("a/*.yaml", "a/b/c.yaml", False),
        ("**/v*.json", "v.json", True),
        ("*.json", "a.yaml", False),
        ("", "a.yaml", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert glob_matches(pattern, path) is expected


def test_patterns_of_a_config_file_never_match_outside_its_folder(tmp_path: Path) -> None:
    globs = Globs(("**",), base=str(tmp_path / "repo"))
    assert globs.match(str(tmp_path / "repo" / "a.yaml"))
    assert not globs.match(str(tmp_path / "elsewhere" / "a.yaml"))
