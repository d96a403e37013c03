"""``capzgen generate yaml``: clusterctl's ``generate yaml``, nothing more."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.common import read_template
from generator.cli.completion import complete_paths
from generator.cli.environment import environ
from generator.cli.options import config_option, from_timeout_option
from generator.clusterctl.config import load_config
from generator.clusterctl.substitution import Inputs, generate_yaml
from generator.envsubst import inspect_variables
from generator.envsubst.listing import format_yaml_variable_list


@click.command("yaml")
@click.option(
    "--from",
    "from_",
    default="-",
    show_default=True,
    metavar="FILE|URL|-",
    shell_complete=complete_paths,
    help="Template to process: a path, file://, https:// (GitHub blob and release URLs too) or -.",
)
@from_timeout_option
@config_option
@click.option(
    "--list-variables", is_flag=True, help="List the template's variables instead of rendering."
)
def generate_yaml_command(
    from_: str, from_timeout: float, config: Path | None, list_variables: bool
) -> None:
    """Substitute ${VAR} placeholders in a template, exactly as `clusterctl generate yaml` does.

    Values come from the environment (names upper-cased), then the clusterctl config file
    (--config, else $XDG_CONFIG_HOME/cluster-api/clusterctl.yaml, else ~/.cluster-api/clusterctl.yaml),
    then defaults written in the template. Missing values are reported together.
    """
    text, source = read_template(from_, timeout=from_timeout)
    if list_variables:
        click.echo(format_yaml_variable_list(inspect_variables(text)), nl=False)
        return
    inputs = Inputs(environ=environ(), config=load_config(config, environ()))
    click.echo(generate_yaml(text, source=source, inputs=inputs), nl=False)
