"""An input that holds no document is an error unless ``--allow-empty``: in a pipeline, a wrong
path (an empty folder, a file a failed step left empty) must not pass as "0 documents checked"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.errors import ExitCode

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "empty-dir").mkdir()
    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "comments.yaml").write_text("# nothing but a comment\n---\n")
    (tmp_path / "good.yaml").write_text(CONFIG_MAP)
    return {p.name: p for p in tmp_path.iterdir()}


@pytest.mark.parametrize("name", ["empty-dir", "empty.yaml", "comments.yaml"])
def test_an_input_without_documents_fails(run_cli: Any, inputs: dict[str, Path], name: str) -> None:
    result = run_cli(["validate", str(inputs[name])])
    assert result.exit_code == ExitCode.USAGE
    assert "no document to validate" in result.stderr
    assert "--allow-empty" in result.stderr
    assert run_cli(["validate", "--allow-empty", str(inputs[name])]).exit_code == ExitCode.OK


def test_an_empty_argument_beside_good_ones_fails_and_the_rest_is_reported(
    run_cli: Any, inputs: dict[str, Path]
) -> None:
    result = run_cli(
        ["validate", "--output", "json", str(inputs["good.yaml"]), str(inputs["empty-dir"])]
    )
    assert result.exit_code == ExitCode.USAGE
    report = json.loads(result.stdout)
    assert report["summary"]["documents"] == 1
    assert "empty-dir: no document to validate" in report["error"]["message"]
    assert f"{inputs['empty-dir']}: no document" in result.stderr


def test_empty_standard_input_fails(run_cli: Any) -> None:
    result = run_cli(["validate", "-"], stdin="")
    assert result.exit_code == ExitCode.USAGE
    assert "<stdin>: no document to validate" in result.stderr
    assert run_cli(["validate", "-"], stdin=CONFIG_MAP).exit_code == ExitCode.OK
