"""How ``main`` turns click's own outcomes and interruptions into messages and exit codes."""

from __future__ import annotations

import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest

import generator.cli
from generator.cli import Terminated
from generator.errors import ExitCode
from tests.conftest import CliResult
from tests.processes import cli_env, run_reaped

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


def _abort_from(interrupt: KeyboardInterrupt) -> click.Abort:
    """What click makes of Ctrl-C (and of SIGTERM's :class:`Terminated`) inside a command."""
    abort = click.Abort()
    abort.__cause__ = interrupt
    return abort


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
        (Terminated(), ExitCode.TERMINATED, "Terminated.\n"),
        (_abort_from(KeyboardInterrupt()), ExitCode.INTERRUPTED, "Interrupted.\n"),
        (_abort_from(Terminated()), ExitCode.TERMINATED, "Terminated.\n"),
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


def test_sigterm_raises_terminated_only_while_a_command_runs(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = signal.getsignal(signal.SIGTERM)
    seen: list[object] = []

    def main(*args: Any, **kwargs: Any) -> Any:
        seen.append(signal.getsignal(signal.SIGTERM))
        signal.raise_signal(signal.SIGTERM)  # as `timeout` or a CI would send it
        pytest.fail("not reached: the handler raises")

    monkeypatch.setattr(generator.cli.cli, "main", main)
    result = run_cli(["validate"])
    assert (result.exit_code, result.stderr) == (ExitCode.TERMINATED, "Terminated.\n")
    assert seen and seen[0] is not before
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_help_lists_the_signal_exit_codes(run_cli: RunCli) -> None:
    text = run_cli(["--help"]).stdout
    assert "130  interrupted by Ctrl-C" in text
    assert "143  stopped by SIGTERM" in text


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="this system has no /dev/full")
@pytest.mark.parametrize("output", ["text", "json"])
def test_output_the_system_refuses_is_an_output_error_not_a_bug(
    tmp_path: Path, output: str
) -> None:
    """stdout on a full device (a full disk, a quota): one clear error, exit 2, the way an
    unwritable output file is reported, never "internal error"."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a\n", encoding="utf-8")
    command = [sys.executable, "-m", "generator", "validate", "--output", output, str(bad)]
    shell = f"exec {shlex.join(command)} > /dev/full"
    env = cli_env(tmp_path / "home", tmp_path / "cache")
    result = run_reaped(["/bin/sh", "-c", shell], cwd=tmp_path, env=env)
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert result.stderr == "Error: cannot write the output: No space left on device\n"
