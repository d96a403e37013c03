"""Command-line options shared by several commands, each declared once.

Options that belong together are declared as a *bundle*: the decorator adds the options and hands
the command one record instead of one parameter per option, so ``generate cluster`` reads as a
handful of named groups and ``generate fleet`` reuses the same declarations. The records are
``NamedTuple``s: immutable like a frozen dataclass, and about six times cheaper to define, which
matters on the start-up path of every command. :func:`check_rule_ids` is here too: it belongs to
``--disable-rule``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from generator import runtime
from generator.cli.completion import complete_paths
from generator.errors import UsageError
from generator.findings import Severity

if TYPE_CHECKING:
    from generator.checks.context import CheckOptions
    from generator.settings import Settings

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def apply_options(options: Sequence[Decorator]) -> Decorator:
    """Apply ``options`` so that they appear in ``--help`` in the order given."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


def bundle(parameter: str, cls: type[Any], options: Sequence[Decorator]) -> Decorator:
    """Add ``options`` and pass their values to the command as ``parameter=cls(...)``.

    The ``NamedTuple`` ``cls`` has one field per option, named like the option's parameter;
    fields with a default are not options (a decorator above may fill them).
    """
    names = tuple(name for name in cls._fields if name not in cls._field_defaults)  # options

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def command(**values: Any) -> Any:
            grouped = cls(**{name: values.pop(name) for name in names})
            return function(**values, **{parameter: grouped})

        return apply_options(options)(command)

    return decorate


def check_rule_ids(disabled_rules: Iterable[str], *, extra: Iterable[str] = ()) -> None:
    """``--disable-rule`` must name rules that exist: a typo would silently keep a rule on."""
    disabled = set(disabled_rules)
    if not disabled:
        return
    # lazy: the rule list loads the validator (~20 ms); only a --disable-rule needs it here
    from generator.checks import known_rule_ids

    unknown = sorted(disabled - {*known_rule_ids(), *extra})
    if unknown:
        msg = f"unknown rule id(s): {', '.join(unknown)}"
        raise UsageError(
            msg,
            hint="`capzgen validate --list-rules` shows every rule",
        )


# --- single options ------------------------------------------------------------------------------

schema_dir_option = click.option(
    "--schema-dir",
    "schema_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Folder or file of CRDs / JSON Schemas, searched before CAPZGEN_SCHEMA_PATH, the cache "
    "and the built-in bundle (repeatable).",
)
ignore_missing_schemas_option = click.option(
    "--ignore-missing-schemas",
    is_flag=True,
    help="Report objects whose kind has no schema as skipped (a warning) instead of as errors "
    "(kubeconform's flag of the same name).",
)
flavors_dir_option = click.option(
    "--flavors-dir",
    "flavors_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra flavors folder, searched before the built-in flavors (repeatable).",
)
config_option = click.option(
    "--config", type=click.Path(path_type=Path), help="clusterctl config file with variable values."
)
patch_option = click.option(
    "--patch",
    "patch_files",
    multiple=True,
    metavar="FILE",
    shell_complete=complete_paths,
    help="JSON merge patch / JSON Patch documents applied before validation (repeatable).",
)


def jobs_option(what: str) -> Decorator:
    """``-j/--jobs N``: how many processes do ``what`` (the default, None, is the machine's
    cores)."""
    return click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=1),
        metavar="N",
        help=f"{what} on N processes  [default: the machine's cores]",
    )


from_timeout_option = click.option(
    "--from-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="Give up downloading a --from URL after this long.",
)


# --- bundles -------------------------------------------------------------------------------------


class KubeconformChoice(NamedTuple):
    """``--kubeconform`` and ``--kubeconform-timeout`` (validate, generate cluster and fleet)."""

    use_kubeconform: bool
    kubeconform_timeout: float


kubeconform_options = bundle(
    "kubeconform",
    KubeconformChoice,
    [
        click.option(
            "--kubeconform",
            "use_kubeconform",
            is_flag=True,
            help="Also run kubeconform (if installed) with capzgen's schemas, offline, on every "
            "object and embedded resource, and merge its findings (marked [kubeconform]).",
        ),
        click.option(
            "--kubeconform-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=60.0,
            show_default=True,
            metavar="SECONDS",
            help="Stop kubeconform after this long (its findings are then missing).",
        ),
    ],
)


class ValidationChoice(NamedTuple):
    """``--no-validate``, ``--disable-rule``, ``--no-cel`` and ``--ignore-missing-schemas``
    (generate cluster and fleet)."""

    no_validate: bool
    disabled_rules: tuple[str, ...]
    no_cel: bool
    ignore_missing_schemas: bool

    def check_options(
        self,
        settings: Settings,
        kubeconform: KubeconformChoice | None = None,
        fail_on: str = "error",
    ) -> CheckOptions:
        """These flags (and ``--kubeconform``'s and ``--fail-on``'s) as the value every path
        is given."""
        return check_options(
            settings,
            validate=not self.no_validate,
            disabled_rules=self.disabled_rules,
            cel=not self.no_cel,
            ignore_missing_schemas=self.ignore_missing_schemas,
            kubeconform=kubeconform,
            fail_on=fail_on,
        )


validation_options = bundle(
    "validation",
    ValidationChoice,
    [
        click.option(
            "--no-validate",
            is_flag=True,
            help="Skip validating the output (not recommended; a flavor's render-time checks "
            "still run).",
        ),
        click.option(
            "--disable-rule",
            "disabled_rules",
            multiple=True,
            metavar="ID",
            help="Disable a validation rule (repeatable).",
        ),
        click.option(
            "--no-cel",
            is_flag=True,
            help="Do not evaluate the CRDs' CEL rules (x-kubernetes-validations).",
        ),
        ignore_missing_schemas_option,
    ],
)


class OutputChoice(NamedTuple):
    """``--output-dir``, ``--layout``, ``--flux-source``, ``--flux-path`` and ``--force``: the
    GitOps output of generate cluster (optional) and generate fleet (required)."""

    output_dir: Path | None
    layout: str
    flux_source: str | None
    flux_path: str | None
    force: bool

    def check(self) -> None:
        """Flags that only make sense with others."""
        if self.output_dir is None:
            used = [
                flag
                for flag, value in (("--layout", self.layout != "plain"), ("--force", self.force))
                if value
            ]
            if used:
                msg = f"{' and '.join(used)} need --output-dir"
                raise UsageError(msg)
        if self.layout != "flux" and (self.flux_source is not None or self.flux_path is not None):
            msg = "--flux-source and --flux-path need --layout flux"
            raise UsageError(msg)


# Help texts: one cluster writes DIR itself; a fleet writes one DIR/<name>/ per cluster.
_OUTPUT_HELP = {
    False: {
        "output_dir": "Write one file per object plus kustomization.yaml into DIR (GitOps).",
        "layout": "With --output-dir: flux also writes flux-kustomization.yaml.",
        "flux_source": "The Flux Kustomization's sourceRef  [default: GitRepository/flux-system]",
        "flux_path": "The Flux Kustomization's spec.path  [default: DIR relative to its Git "
        "work tree, else to the current directory if below it, else ./<DIR's name>]",
        "force": "With --output-dir: overwrite or delete files that were edited or that "
        "capzgen did not write.",
    },
    True: {
        "output_dir": "Write each cluster into DIR/<name>/ (one file per object plus "
        "kustomization.yaml).",
        "layout": "flux also writes DIR/<name>/flux-kustomization.yaml.",
        "flux_source": "The Flux Kustomizations' sourceRef  [default: GitRepository/flux-system]",
        "flux_path": "spec.path of DIR (each cluster: PATH/<name>)  [default: DIR relative to "
        "its Git work tree, else to the current directory if below it, else ./<DIR's name>]",
        "force": "Overwrite or delete files that were edited or that capzgen did not write.",
    },
}


def output_options(*, fleet: bool) -> Decorator:
    """The GitOps output options; with ``fleet``, ``--output-dir`` is required."""
    help_text = _OUTPUT_HELP[fleet]
    return bundle(
        "output",
        OutputChoice,
        [
            click.option(
                "--output-dir",
                required=fleet,
                type=click.Path(path_type=Path, file_okay=False),
                metavar="DIR",
                help=help_text["output_dir"],
            ),
            click.option(
                "--layout",
                type=click.Choice(["plain", "flux"]),
                default="plain",
                show_default=True,
                help=help_text["layout"],
            ),
            click.option(
                "--flux-source", metavar="[KIND/][NAMESPACE/]NAME", help=help_text["flux_source"]
            ),
            click.option("--flux-path", metavar="PATH", help=help_text["flux_path"]),
            click.option("--force", is_flag=True, help=help_text["force"]),
        ],
    )


# --- how output is checked ----------------------------------------------------------------------


def check_options(
    settings: Settings,
    *,
    validate: bool = True,
    disabled_rules: Iterable[str] = (),
    cel: bool = True,
    ignore_missing_schemas: bool = False,
    kubeconform: KubeconformChoice | None = None,
    fail_on: str = "error",
) -> CheckOptions:
    """The one place the checking flags become :class:`CheckOptions`: every command that checks
    (generate cluster and fleet, validate, migrate, adopt) passes what this returns on unchanged,
    so the same flag means the same thing everywhere."""
    # lazy: the options load the document model; only a command that checks needs them
    from generator.checks.context import CheckOptions, ValidationOptions

    validation = ValidationOptions(
        disabled_rules=frozenset(disabled_rules),
        ignore_missing_schemas=ignore_missing_schemas,
        cel=cel,
        cache_root=settings.cache_root,
    )
    second_opinion = None
    if kubeconform is not None and kubeconform.use_kubeconform:
        # lazy: the kubeconform wrapper costs ~6 ms of start-up; only --kubeconform loads it
        from generator.kubeconform.process import KubeconformOptions

        second_opinion = KubeconformOptions(
            timeout=kubeconform.kubeconform_timeout, environ=settings.environ
        )
    return CheckOptions(
        validate=validate,
        validation=validation,
        kubeconform=second_opinion,
        fail_on=Severity(fail_on),
    )


# --- -v/--verbose at any position ----------------------------------------------------------------

_VERBOSITY_KEY = "capzgen.verbosity"


def count_verbosity(ctx: click.Context, _param: click.Parameter, value: int) -> None:
    """Add this position's ``-v``s to the run's total and set the log level from it.

    clusterctl takes ``-v`` before or after the sub-command; the group and every sub-command
    therefore accept it, and the counts of all positions add up (``capzgen -v generate -v ...``
    is ``-vv``). The root group's call (made on every run, even without ``-v``) sets the level.
    """
    root = ctx.find_root()
    if value == 0 and ctx is not root:
        return
    total = int(root.meta.get(_VERBOSITY_KEY, 0)) + value
    root.meta[_VERBOSITY_KEY] = total
    level = logging.WARNING - 10 * min(total, 2)
    runtime.log_to_stderr(level)


_LEVEL_FLAGS = ("-v", "--v")
_MAX_LEVEL = 10  # clusterctl's levels go to 10; beyond that changes nothing here either
PASSTHROUGH_COMMANDS = frozenset({"kubeconform"})  # their -v belongs to the program they run


def clusterctl_verbosity(args: Sequence[str]) -> list[str]:
    """``args`` with clusterctl's verbosity spellings (``-v 5``, ``-v=5``, ``-v5``, ``--v 5``,
    ``--v=5``) turned into capzgen's counted ``-v`` (five of them), so a clusterctl command
    line works unchanged; ``-v`` alone and ``-vv`` keep their meaning. Only a number counts as a
    level (``-v 5`` takes the 5; ``-v file.yaml`` does not), and nothing after ``--`` or after a
    command that hands its arguments to another program is touched."""
    out: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--" or arg in PASSTHROUGH_COMMANDS:
            return [*out, *args[index:]]
        level: str | None = None
        if arg in _LEVEL_FLAGS and index + 1 < len(args) and args[index + 1].isdigit():
            level, index = args[index + 1], index + 1
        else:
            flag, sep, value = arg.partition("=")
            if sep and flag in _LEVEL_FLAGS and value.isdigit():
                level = value
            elif arg.startswith("-v") and arg[2:].isdigit():
                level = arg[2:]
        if level is None:
            out.append(arg)
        else:
            out.extend(["-v"] * min(int(level), _MAX_LEVEL))
        index += 1
    return out


def verbose_parameter() -> click.Option:
    """A fresh ``-v/--verbose`` option (counted, not passed to the command)."""
    return click.Option(
        ["-v", "--verbose"],
        count=True,
        expose_value=False,
        callback=count_verbosity,
        help="More progress messages on stderr (repeatable; allowed at any position).",
    )


def add_verbose_option(command: click.Command) -> None:
    """Give ``command`` (and the sub-commands of a plain group) ``-v/--verbose`` once.

    A passthrough command (unknown options go to another program, as with ``kubeconform``) is
    left alone: its ``-v`` belongs to that program.
    """
    if command.context_settings.get("ignore_unknown_options"):
        return
    if not any(param.name == "verbose" for param in command.params):
        command.params.append(verbose_parameter())
    if isinstance(command, click.Group) and not hasattr(command, "commands_table"):
        for sub in command.commands.values():
            add_verbose_option(sub)
