"""Shell completion: ``capzgen completion bash|zsh|fish`` and the values it completes.

The scripts are click's. They call ``capzgen`` back with ``_CAPZGEN_COMPLETE=<shell>_complete``
and the words typed so far in ``COMP_WORDS``/``COMP_CWORD``; :func:`complete` answers from the
environment ``main`` was given (never ``os.environ`` directly), so the protocol can be driven
like any other run. Options complete flavor names (``--flavor``, ``flavors show``), the chosen
flavor's variable names after ``--var`` (``AZURE_LOCATION=``) and file paths (``--from``,
``--values``, ``--patch``, ``--write-to``, a fleet file).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem, get_completion_class, split_arg_string

from generator.errors import CapzgenError

if TYPE_CHECKING:
    from generator.flavors.catalog import FlavorCatalog

COMPLETE_VAR = "_CAPZGEN_COMPLETE"
PROG_NAME = "capzgen"
SHELLS = ("bash", "zsh", "fish")


def complete_paths(
    _ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Let the shell complete a file path."""
    return [CompletionItem(incomplete, type="file")]


def _flavor_catalog(ctx: click.Context) -> FlavorCatalog:
    # lazy: the flavor catalog is read only when a flavor name or variable is being completed
    from generator.flavors.catalog import FlavorCatalog

    dirs = tuple(ctx.params.get("flavors_dirs") or ())
    try:
        return FlavorCatalog(dirs)
    except CapzgenError:  # a --flavors-dir typed wrongly: offer the built-in flavors
        return FlavorCatalog(())


def complete_flavors(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Flavor names (built-in and from ``--flavors-dir``) starting with what was typed."""
    names = _flavor_catalog(ctx).names()
    return [CompletionItem(name) for name in names if name.startswith(incomplete)]


def complete_var_names(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """``NAME=`` for each variable of the flavor chosen so far (default :data:`DEFAULT_FLAVOR`);
    nothing once the ``=`` is typed (values are the user's)."""
    if "=" in incomplete:
        return []
    # lazy: the generate request (~4 ms) is for generate and completion, not every start-up
    from generator.generate.request import DEFAULT_FLAVOR

    try:
        flavor = _flavor_catalog(ctx).get(ctx.params.get("flavor") or DEFAULT_FLAVOR)
    except CapzgenError:
        return []
    return [
        CompletionItem(f"{name}=", help=spec.description)
        for name, spec in sorted(flavor.variables.items())
        if name.startswith(incomplete.upper())
    ]


def _completion_args(shell: str, environ: Mapping[str, str]) -> tuple[list[str], str]:
    """The complete words and the one being typed, as each shell's script passes them."""
    words = split_arg_string(environ["COMP_WORDS"])
    if shell == "fish":  # COMP_CWORD holds the partial word itself
        incomplete = environ["COMP_CWORD"]
        incomplete = split_arg_string(incomplete)[0] if incomplete else ""
        args = words[1:]
        if incomplete and args and args[-1] == incomplete:
            args.pop()
        return args, incomplete
    index = int(environ["COMP_CWORD"])
    return words[1:index], words[index] if index < len(words) else ""


def complete(
    command: click.Command, instruction: str, environ: Mapping[str, str], obj: Any
) -> tuple[str, int]:
    """Answer a completion request (``<shell>_complete`` or ``<shell>_source``): the text to
    print and the exit code (1 for an unknown shell or instruction, or missing words)."""
    shell, _, action = instruction.partition("_")
    cls = get_completion_class(shell)
    if cls is None:
        return "", 1
    completer = cls(command, {"obj": obj}, PROG_NAME, COMPLETE_VAR)
    if action == "source":
        return completer.source(), 0
    if action != "complete":
        return "", 1
    try:
        args, incomplete = _completion_args(shell, environ)
    except (KeyError, ValueError, IndexError):
        return "", 1
    items = completer.get_completions(args, incomplete)
    return "\n".join(completer.format_completion(item) for item in items) + "\n", 0


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
def completion_command(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    bash:  eval "$(capzgen completion bash)"     (in ~/.bashrc)
    zsh:   eval "$(capzgen completion zsh)"      (in ~/.zshrc)
    fish:  capzgen completion fish > ~/.config/fish/completions/capzgen.fish

    Completes commands, options, flavor names, the flavor's variables after --var and file paths.
    """
    cls = get_completion_class(shell)
    assert cls is not None  # click.Choice admits only shells click knows
    root = click.get_current_context().find_root().command
    click.echo(cls(root, {}, PROG_NAME, COMPLETE_VAR).source(), nl=False)
