"""How ``main`` turns click's own outcomes and interruptions into messages and exit codes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
import pytest

import generator.cli
from generator.errors import ExitCode
from tests.conftest import CliResult

RunCli = Callable[..., CliResult]


def test_no_arguments_prints_the_help_as_a_usage_error(run_cli: RunCli) -> None:
    result = run_cli([])
    assert result.exit_code == ExitCode.USAGE
    assert "Usage: capzgen" in result.stderr
    assert "Exit codes:" in result.stderr


def test_version_exits_cleanly(run_cli: RunCli) -> None:
    result = run_cli(["--version"])
    assert result.exit_code == ExitCode.OK
    assert result.stdout.startswith("capzgen, version ")


def test_unknown_option_is_a_usage_error(run_cli: RunCli) -> None:
    result = run_cli(["--no-such-option"])
    assert result.exit_code == ExitCode.USAGE
    assert "Error: No such option" in result.stderr
    assert "Try 'capzgen --help' for help." in result.stderr


def raises(error: BaseException) -> Callable[..., Any]:
    def main(*args: Any, **kwargs: Any) -> Any:
        raise error

    return main


@pytest.mark.parametrize(
    ("error", "code", "stderr"),
    [
        (click.Abort(), ExitCode.INVALID, "Aborted.\n"),
        (click.ClickException("boom"), ExitCode.INVALID, "Error: boom\n"),
        (type("Custom", (click.ClickException,), {"exit_code": 4})("odd"), 4, "Error: odd\n"),
        (
            type("Zero", (click.ClickException,), {"exit_code": 0})("z"),
            ExitCode.INVALID,
            "Error: z\n",
        ),
        (click.exceptions.Exit(5), 5, ""),
        (KeyboardInterrupt(), ExitCode.INTERRUPTED, "Interrupted.\n"),
    ],
)
def test_outcomes_become_exit_codes(
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
    code: int,
    stderr: str,
) -> None:
    monkeypatch.setattr(generator.cli.cli, "main", raises(error))
    result = run_cli(["validate"])
    assert (result.exit_code, result.stderr, result.stdout) == (code, stderr, "")
