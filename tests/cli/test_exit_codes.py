"""How ``main`` turns click's own outcomes and interruptions into messages and exit codes."""

from __future__ import annotations

import errno
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest

import generator.cli
from generator.cli import Terminated
from generator.errors import ExitCode
from tests.conftest import CliResult
from tests.processes import cli_in_shell

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
        (
            MemoryError(),  # a shell's or a container's memory limit
            ExitCode.USAGE,
            "Error: out of memory\n"
            "Hint: raise the memory limit of this shell or container, or run with -j 1\n",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied"),  # no command's: a bug
            ExitCode.INTERNAL,
            "internal error: PermissionError: [Errno 13] Permission denied\n"
            "Hint: this is a bug in capzgen; rerun with CAPZGEN_DEBUG=1 for a traceback\n",
        ),
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


def _bad_file(tmp_path: Path) -> Path:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a\n", encoding="utf-8")
    return bad


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="this system has no /dev/full")
@pytest.mark.parametrize("output", ["text", "json"])
def test_output_the_system_refuses_is_an_output_error_not_a_bug(
    tmp_path: Path, output: str
) -> None:
    """stdout on a full device (a full disk, a quota): one clear error, exit 2, the way an
    unwritable output file is reported, never "internal error"."""
    argv = ["validate", "--output", output, str(_bad_file(tmp_path))]
    result = cli_in_shell(tmp_path, argv, redirect="> /dev/full")
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert result.stderr == "Error: cannot write the output: No space left on device\n"


def test_a_closed_standard_output_loses_the_report_not_the_exit_code(tmp_path: Path) -> None:
    """Started with stdout closed (``>&-``): the run's own status, and no traceback when the
    process ends (the console script flushes only the streams it has)."""
    result = cli_in_shell(tmp_path, ["validate", str(_bad_file(tmp_path))], redirect=">&-")
    assert result.returncode == ExitCode.INVALID  # the file's error
    assert result.stderr == ""


def test_a_closed_standard_input_is_a_finding_not_a_bug(tmp_path: Path) -> None:
    result = cli_in_shell(tmp_path, ["validate", "-"], redirect="<&-")
    assert result.returncode == ExitCode.INVALID, result.stderr
    assert "<stdin>" in result.stdout
    assert "cannot read: standard input is closed" in result.stdout
    assert "internal error" not in result.stderr


def test_a_deleted_current_folder_is_one_clear_error(tmp_path: Path) -> None:
    """A shell still open in a folder someone deleted: relative paths, the repository's
    configuration and report names cannot be resolved, so the run stops at once."""
    bad = _bad_file(tmp_path)
    before = "mkdir gone && cd gone && rmdir ../gone &&"
    result = cli_in_shell(tmp_path, ["validate", str(bad)], before=before)
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert result.stderr.startswith("Error: the current folder cannot be used: No such file")
    assert "internal error" not in result.stderr
