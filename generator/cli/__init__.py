"""Command-line edge: a thin click shell over the library API.

:func:`main` is the single place where domain errors become one message, an optional hint and a
documented exit code. Sub-commands live in their own modules and are imported only when invoked
(:class:`LazyGroup`), which keeps the start-up of a single command short.
"""

from __future__ import annotations

import errno
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from generator import __version__, runtime, version_text
from generator.cli.completion import COMPLETE_VAR, complete
from generator.cli.environment import settings_from_environ
from generator.cli.options import add_verbose_option, clusterctl_verbosity, count_verbosity
from generator.errors import CapzgenError, ExitCode, InputOutputError, ResourceExhausted
from generator.findings import clip
from generator.settings import Settings

if TYPE_CHECKING:
    from generator.validate.zygote import Zygote

EXIT_CODES_HELP = """\b
Exit codes:
  0  success
  1  invalid input or content (template errors, missing or mistyped variables, validation findings)
  2  usage error, or a file, folder, schema source or the output that cannot be read or written
  3  internal error (a bug in capzgen; set CAPZGEN_DEBUG=1 for a traceback)
  130  interrupted by Ctrl-C (SIGINT); nothing half-written
  143  stopped by SIGTERM (e.g. a CI timeout); nothing half-written
"""


class LazyGroup(click.Group):
    """A group whose sub-commands live in their own modules, imported when first used.

    A command module imports the stage it drives at its top, so loading a command is what loads
    its part of the core; this is the one place where that import is deferred, which keeps
    ``capzgen --version`` and each command from paying for all the others. ``commands_table`` maps
    a sub-command to ``"module:attribute"``; with ``short_help_table`` the group's ``--help`` lists
    the sub-commands from that table instead of importing them.
    """

    def __init__(
        self,
        *args: Any,
        commands_table: Mapping[str, str],
        short_help_table: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.commands_table = dict(commands_table)
        self.short_help_table = dict(short_help_table) if short_help_table is not None else None

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The sub-command names from ``commands_table``, sorted; nothing is imported."""
        return sorted(self.commands_table)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import the module of ``cmd_name`` and return its command; None for an unknown name."""
        target = self.commands_table.get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        # lazy: the CLI edge - a command's module (and the stage it drives) loads when it runs
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        add_verbose_option(command)
        runtime.freeze_imported()
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The ``Commands`` section of ``--help``, from ``short_help_table`` when there is one."""
        if self.short_help_table is None:
            super().format_commands(ctx, formatter)
            return
        with formatter.section("Commands"):
            formatter.write_dl(
                [(name, self.short_help_table[name]) for name in self.list_commands(ctx)]
            )


# command name -> "module:attribute"; the module is imported only when the command runs.
_COMMANDS: dict[str, str] = {
    "generate": "generator.cli.generate:generate",
    "validate": "generator.cli.validate:validate_command",
    "schemas": "generator.cli.schemas:schemas",
    "flavors": "generator.cli.flavors:flavors",
    "release": "generator.cli.release:release",
    "migrate": "generator.cli.migrate:migrate",
    "topology": "generator.cli.topology:topology",
    "adopt": "generator.cli.adopt:adopt",
    "kubeconform": "generator.cli.kubeconform:kubeconform",
    "completion": "generator.cli.completion:completion_command",
}
_SHORT_HELP: dict[str, str] = {
    "generate": "Render templates or flavors into manifests.",
    "validate": "Validate manifests, including embedded ASO resources.",
    "schemas": "List, import and sync the schemas used for validation.",
    "flavors": "List and describe the available flavors.",
    "release": "Export every flavor as a clusterctl provider repository.",
    "migrate": "Convert legacy AzureManaged* manifests to the ASO-based API.",
    "topology": "Plan a ClusterClass-based Cluster's objects offline.",
    "adopt": "Adoption objects for an existing AKS cluster (from az JSON).",
    "kubeconform": "Run kubeconform with capzgen's schemas (passthrough).",
    "completion": "Print a bash, zsh or fish completion script.",
}

log = logging.getLogger("generator")


@click.group(
    cls=LazyGroup,
    commands_table=_COMMANDS,
    short_help_table=_SHORT_HELP,
    epilog=EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="capzgen", message=version_text())
@click.option(
    "-v",
    "--verbose",
    count=True,
    expose_value=False,
    callback=count_verbosity,
    help="More progress messages on stderr (repeatable; allowed at any position).",
)
def cli() -> None:
    """capzgen: complete, validated Cluster API manifests for AKS on CAPZ and ASO.

    Works like `clusterctl generate cluster` and `clusterctl generate yaml`, and validates every
    object (and every ASO resource embedded in spec.resources) before anything is written.
    """


def report_error(error: CapzgenError) -> None:
    """Print a domain error as one clear line plus optional detail and hint lines."""
    click.echo(f"Error: {error.headline()}", err=True)
    for line in error.details:
        click.echo(f"  {clip(line)}", err=True)
    if error.hint:
        click.echo(f"Hint: {clip(error.hint)}", err=True)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is when it arrives: everything unwinds as for Ctrl-C
    (the output staging rolls back, workers and kubeconform are stopped), and the exit status
    is 143."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    """The SIGTERM handler: raise where the program is, as Python does for SIGINT (again for
    each one: where Python ignores an exception, in a finalizer say, the next one still
    stops the run)."""
    raise Terminated


@contextmanager
def _sigterm_like_sigint() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` while the command runs (main thread only: elsewhere
    Python cannot set handlers); the previous handler is back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    zygote: Zygote | None = None,
    *,
    ends_process: bool = False,
) -> int:
    """Run the CLI and return the exit code (never raises for user mistakes).

    ``environ`` is what the program sees of its environment (default: the process's); it is
    read here and nowhere else, into the :class:`~generator.settings.Settings` every command
    hands to the core. With ``_CAPZGEN_COMPLETE`` set, the run answers the shell's completion
    request instead (see :mod:`generator.cli.completion`). ``zygote``: the process the console
    script forked to fork ``validate``'s workers (:mod:`generator.validate.zygote`), if any.
    ``ends_process``: the process ends once the command returns (the console script's own run),
    so what it started need not be waited for (``validate``'s workers, told to stop).
    """
    args = clusterctl_verbosity(sys.argv[1:] if argv is None else argv)
    settings = settings_from_environ(os.environ if environ is None else environ)
    instruction = settings.environ.get(COMPLETE_VAR)
    if instruction:
        text, code = complete(cli, instruction, settings.environ, {"settings": settings})
        click.echo(text, nl=False)
        return code
    try:
        _require_working_folder()
        with _sigterm_like_sigint():
            result: Any = cli.main(
                args=args,
                prog_name="capzgen",
                standalone_mode=False,
                obj={"settings": settings, "zygote": zygote, "ends_process": ends_process},
            )
    except CapzgenError as error:
        report_error(error)
        return int(error.exit_code)
    except (click.ClickException, click.exceptions.Exit, click.Abort) as outcome:
        return _click_outcome(outcome)
    except BrokenPipeError:
        # The reader went away (e.g. `capzgen ... | head`); nothing useful left to say.
        _silence_stdout()
        return int(ExitCode.OK)
    except KeyboardInterrupt as interrupt:
        return _interrupted(interrupt)
    except (MemoryError, OSError) as error:
        return _refused(error, settings)
    except Exception as error:  # pragma: no cover - reached only through bugs
        return _internal(error, settings)
    return int(result) if isinstance(result, int) else int(ExitCode.OK)


def _refused(error: MemoryError | OSError, settings: Settings) -> int:
    """What the system refused and no command turned into an error of its own: memory (a
    shell's or a container's limit) and writes to the standard streams (a full disk, a quota)
    are reported as the environment's (exit 2); any other OSError is a bug."""
    if settings.environ.get("CAPZGEN_DEBUG"):
        raise error
    if isinstance(error, MemoryError):
        hint = "raise the memory limit of this shell or container, or run with -j 1"
        report_error(ResourceExhausted("out of memory", hint=hint))
        return int(ExitCode.USAGE)
    if not _writing_failed(error):
        return _internal(error, settings)
    report_error(InputOutputError(f"cannot write the output: {error.strerror or error}"))
    _silence_stdout()  # what is still buffered would fail again at the exit
    return int(ExitCode.USAGE)


def _require_working_folder() -> None:
    """The current folder must exist: relative paths, the repository's ``.capzgen.yaml`` and
    the names in reports are all taken from it (a folder deleted under a shell still open in
    it fails here, once, with a clear error)."""
    try:
        os.getcwd()
    except OSError as error:
        msg = f"the current folder cannot be used: {error.strerror or error}"
        raise InputOutputError(
            msg, hint="change to a folder that exists and run it again"
        ) from None


# Failures of a write to an open stream: the file operations of the commands name their file
# (and are reported as InputOutputError where they happen); these carry no file name.
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _writing_failed(error: OSError) -> bool:
    """Whether ``error`` is a write to the standard streams that the system refused."""
    return error.filename is None and error.errno in _WRITE_ERRNOS


def _internal(error: BaseException, settings: Settings) -> int:
    """Report a bug (exit 3), or raise it again under ``CAPZGEN_DEBUG`` for its traceback."""
    if settings.environ.get("CAPZGEN_DEBUG"):
        raise error
    click.echo(f"internal error: {type(error).__name__}: {error}", err=True)
    click.echo(
        "Hint: this is a bug in capzgen; rerun with CAPZGEN_DEBUG=1 for a traceback", err=True
    )
    return int(ExitCode.INTERNAL)


def _interrupted(interrupt: KeyboardInterrupt) -> int:
    """Report Ctrl-C (exit 130) or SIGTERM (:class:`Terminated`, exit 143)."""
    if isinstance(interrupt, Terminated):
        click.echo("Terminated.", err=True)
        return int(ExitCode.TERMINATED)
    click.echo("Interrupted.", err=True)
    return int(ExitCode.INTERRUPTED)


def _click_outcome(outcome: click.ClickException | click.exceptions.Exit | click.Abort) -> int:
    """Report one of click's own outcomes (usage errors, ``--help``, ``--version``, aborted
    prompts) the way click does, and return its exit code."""
    if isinstance(outcome, click.exceptions.Exit):
        return int(outcome.exit_code)
    if isinstance(outcome, click.Abort) and isinstance(outcome.__cause__, KeyboardInterrupt):
        return _interrupted(outcome.__cause__)  # click turns Ctrl-C (and SIGTERM) into Abort
    if isinstance(outcome, click.Abort):
        click.echo("Aborted.", err=True)
        return int(ExitCode.INVALID)
    if isinstance(outcome, click.exceptions.NoArgsIsHelpError):
        click.echo(outcome.ctx.get_help(), err=True)
        return int(ExitCode.USAGE)
    outcome.show()
    if isinstance(outcome, click.UsageError):
        return int(ExitCode.USAGE)
    return int(outcome.exit_code) if outcome.exit_code else int(ExitCode.INVALID)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
