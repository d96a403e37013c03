"""How ``.capzgen.yaml`` ranks against the command line and the environment, in one place.

The rule (:func:`layered`): a value given on the command line wins, then one given by the
environment, then the repository's ``.capzgen.yaml``, then capzgen's built-in default. A list
given on the command line replaces the file's list; ``disabledRules`` is the exception and adds
to it: disabling a rule in the repository is a decision its owners made for every run, and
the command line has no way to turn a rule back on, so a flag can only disable more.

The commands opt in with a decorator (:func:`validate_layers`, :func:`generate_layers`) that
adds ``--capzgen-config`` and hands the command its parameters with the file's values already
layered in, so the command bodies stay as they were.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from generator.cli.environment import current_settings
from generator.cli.options import check_rule_ids
from generator.cli.repo_options import ENV_CAPZGEN_CONFIG, capzgen_config_option, exclude_option
from generator.errors import CapzgenError, UsageError
from generator.jsontypes import JsonObject

if TYPE_CHECKING:
    from generator.cli.config_file import RepoConfig
    from generator.clusterctl.substitution import ValuesOrigin

T = TypeVar("T")
NONE = "none"  # --capzgen-config none: read no file


def read_repo_config(option: Path | None, environ: Mapping[str, str]) -> RepoConfig:
    """The repository configuration of this run: ``--capzgen-config FILE``, else
    ``$CAPZGEN_CONFIG``, else the ``.capzgen.yaml`` found from the current folder (see
    :func:`~generator.cli.config_file.find_config`). A file named by the flag or the variable
    must exist: a wrong name must not quietly mean "no settings"."""
    # lazy: the file reader loads only for commands that take repository settings
    from generator.cli.config_file import NO_CONFIG, find_config, load_config

    named, via = (str(option), "--capzgen-config") if option is not None else (None, "")
    if named is None and environ.get(ENV_CAPZGEN_CONFIG):
        named, via = environ[ENV_CAPZGEN_CONFIG], f"${ENV_CAPZGEN_CONFIG}"
    if named is None:
        found = find_config(Path.cwd())
        return NO_CONFIG if found is None else load_config(found)
    if named == NONE:
        return NO_CONFIG
    path = Path(named)
    if not path.is_file():
        msg = f"{via} {named}: no such file"
        raise UsageError(msg, hint="name an existing .capzgen.yaml, or 'none' to read no file")
    return load_config(path)


def layered(
    ctx: click.Context, name: str, given: T, from_file: T | None, *, environment: bool = False
) -> T:
    """The value of parameter ``name``: ``given`` if it came from the command line (or click's
    environment), else ``given`` if the environment sets it (``environment``: the command reads
    this setting from a variable that is set), else the file's (``from_file``; None or empty:
    the file does not say), else ``given`` again, the built-in default."""
    source = ctx.get_parameter_source(name)
    if source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT) or environment:
        return given
    if from_file is None or from_file == ():
        return given
    return from_file


def _choice_of(ctx: click.Context, name: str, value: str, config: RepoConfig) -> str:
    """``value`` (from the file) checked against the choices of option ``name``, so the file
    accepts exactly what the flag does, whatever formats this build has."""
    # lazy: as in read_repo_config
    from generator.cli.config_file import key_error

    for param in ctx.command.params:
        choice = param.type if param.name == name else None
        if isinstance(choice, click.Choice) and value not in choice.choices:
            choices = ", ".join(str(item) for item in choice.choices)
            raise key_error(config, name, f"{name} must be one of {choices}, not {value!r}")
    return value


def _disabled_rules(config: RepoConfig, given: tuple[str, ...]) -> tuple[str, ...]:
    """The file's ``disabledRules`` (checked, at their line) and then the flag's: they add up."""
    # lazy: as in read_repo_config
    from generator.cli.config_file import key_error

    try:
        check_rule_ids(config.disabled_rules)
    except UsageError as error:
        raise key_error(config, "disabledRules", error.message) from None
    return (*config.disabled_rules, *given)


Command = Callable[..., Any]


def validate_layers(function: Command) -> Command:
    """``validate`` with ``--capzgen-config`` and ``--exclude``: ``schema_dirs``,
    ``disabled_rules``, ``output`` (and ``fail_on``, where the command has it) layered, and
    ``input_globs`` (exclude and include patterns of the flag and the file) passed instead of
    ``exclude``."""

    @functools.wraps(function)
    def command(**params: Any) -> Any:
        try:
            layers = _validate_params(click.get_current_context(), dict(params))
        except CapzgenError as error:
            if params.get("output") == "json":  # stdout is JSON on every exit status
                # lazy: the report renderer, as validate itself loads it
                from generator.checks.report import render_error_json

                click.echo(render_error_json(error), nl=False)
            raise
        return function(**layers)

    return capzgen_config_option(exclude_option(command))


def _validate_params(ctx: click.Context, params: dict[str, Any]) -> dict[str, Any]:
    """``validate``'s parameters with the file's values layered in (see validate_layers)."""
    settings = current_settings()
    config = read_repo_config(params.pop("capzgen_config"), settings.environ)
    schema_path = bool(settings.schema_path)
    params["schema_dirs"] = layered(
        ctx, "schema_dirs", params["schema_dirs"], config.schema_dirs, environment=schema_path
    )
    params["disabled_rules"] = _disabled_rules(config, params["disabled_rules"])
    if config.output is not None:
        from_file = _choice_of(ctx, "output", config.output, config)
        params["output"] = layered(ctx, "output", params["output"], from_file)
    if "fail_on" in params:  # --fail-on, where this build has it
        params["fail_on"] = layered(ctx, "fail_on", params["fail_on"], config.fail_on)
    params["input_globs"] = _input_globs(ctx, params.pop("exclude"), config)
    return params


def _input_globs(ctx: click.Context, exclude: tuple[str, ...], config: RepoConfig) -> Any:
    """The exclude patterns (``--exclude`` replaces the file's) and the file's include patterns,
    each matched against what it is relative to."""
    # lazy: the glob matcher is for runs that read inputs
    from generator.validate.globs import Globs, InputGlobs

    base = str(config.base.resolve())
    from_file = Globs(config.exclude, base) if config.exclude else None
    excluded = layered(ctx, "exclude", Globs(exclude), from_file)
    return InputGlobs(exclude=(excluded,), include=(Globs(config.include, base),))


def generate_layers(function: Command) -> Command:
    """``generate cluster`` with ``--capzgen-config``: ``schema_dirs`` and ``flavors_dirs``
    layered, the file's ``disabledRules`` added, and its ``values`` put under the ``--values``
    files."""

    @functools.wraps(function)
    def command(**params: Any) -> Any:
        ctx = click.get_current_context()
        settings = current_settings()
        config = read_repo_config(params.pop("capzgen_config"), settings.environ)
        schema_path = bool(settings.schema_path)
        params["schema_dirs"] = layered(
            ctx, "schema_dirs", params["schema_dirs"], config.schema_dirs, environment=schema_path
        )
        params["flavors_dirs"] = layered(
            ctx, "flavors_dirs", params["flavors_dirs"], config.flavors_dirs
        )
        validation = params["validation"]
        disabled = _disabled_rules(config, validation.disabled_rules)
        params["validation"] = validation._replace(disabled_rules=disabled)
        if config.values:
            params["values"] = params["values"]._replace(
                repo_values=config.values, repo_file=str(config.path)
            )
        return function(**params)

    return capzgen_config_option(command)


def repo_values_layer(
    values: JsonObject | None, source: str, environ: Mapping[str, str]
) -> tuple[JsonObject, ValuesOrigin | None]:
    """The bottom layer of ``generate cluster``'s typed values: ``.capzgen.yaml``'s ``values``,
    without the variables the environment sets (the environment ranks above the file; a
    variable ``NODE_POOLS`` is the environment's ``NODE_POOLS``, a ``-`` read as ``_``)."""
    if not values:
        return {}, None
    # lazy: the substitution engine loads with generate's pipeline, never for validate
    from generator.clusterctl.substitution import ValuesOrigin

    kept = {
        name: value
        for name, value in values.items()
        if name.upper().replace("-", "_") not in environ
    }
    return kept, ValuesOrigin(f"{source} (values)", values=kept)
