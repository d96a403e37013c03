"""``capzgen kubeconform [--schema-dir DIR]... -- ARGS...``: kubeconform with capzgen's schemas.

Every schema on capzgen's search path (``--schema-dir``, ``$CAPZGEN_SCHEMA_PATH``, the cache, the
core kinds) is written to a temporary folder in kubeconform's layout, and kubeconform runs as
``kubeconform -schema-location <that folder's template> ARGS...`` with the terminal's stdin, stdout
and stderr. Only that location is given, so kubeconform works offline; add ``-schema-location
default`` to ARGS to let it download what capzgen lacks. The exit status is kubeconform's, or 2
when kubeconform cannot be run (not installed, cannot start, ``--timeout`` exceeded).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

import click

from generator import children
from generator.cli.environment import current_settings
from generator.cli.options import schema_dir_option
from generator.errors import ExitCode
from generator.kubeconform.process import (
    INSTALL_HINT,
    NOT_FOUND,
    KubeconformOptions,
    find_binary,
    schema_location,
    store_layout,
)
from generator.schemastore.store import SchemaStore


@click.command(
    "kubeconform",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@schema_dir_option
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop kubeconform after this long (exit status 2). Default: no limit.",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="[--] ARGS...")
def kubeconform(schema_dirs: tuple[Path, ...], timeout: float | None, args: tuple[str, ...]) -> int:
    """Run kubeconform with capzgen's schemas prepended to its schema locations.

    \b
    Example:
      capzgen kubeconform --schema-dir ./crds -- -strict -summary manifests/
    """
    settings = current_settings()
    binary = find_binary(KubeconformOptions(environ=settings.environ))
    if binary is None:
        click.echo(f"Error: {NOT_FOUND}", err=True)
        return int(ExitCode.USAGE)
    store = SchemaStore.from_search_path(list(schema_dirs), settings)
    with store_layout(store) as root:
        argv = [binary, "-schema-location", schema_location(root), *args]
        try:
            # its own process group: stopped as a whole, with whatever it started
            process = subprocess.Popen(argv, env=dict(settings.environ), start_new_session=True)
        except OSError as error:
            click.echo(
                f"Error: kubeconform ({binary}) could not be started: "
                f"{error.strerror or error}; {INSTALL_HINT}",
                err=True,
            )
            return int(ExitCode.USAGE)
        try:
            code = children.wait(process, timeout)
        except subprocess.TimeoutExpired:
            children.kill_group(process, None)
            click.echo(f"Error: kubeconform did not finish within {timeout:g}s", err=True)
            return int(ExitCode.USAGE)
        except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM (Terminated)
            code = _forward(process, _signal_of(interrupt))
        except BaseException:
            children.kill_group(process, None)
            raise
    return code if code >= 0 else 128 - code


def _signal_of(interrupt: KeyboardInterrupt) -> signal.Signals:
    # lazy: the CLI package itself, loaded already (the class is defined beside main)
    from generator.cli import Terminated

    return signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT


def _forward(process: subprocess.Popen[bytes], signum: signal.Signals, grace: float = 10) -> int:
    """Send ``signum`` to kubeconform's process group and wait for it (SIGKILL after ``grace``
    seconds): its exit status is the command's."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)
    try:
        return children.wait(process, grace)
    except subprocess.TimeoutExpired:
        children.kill_group(process, None)
        return process.wait()
    except BaseException:
        children.kill_group(process, None)
        raise
