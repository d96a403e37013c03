"""``capzgen generate``: the group of ``yaml``, ``cluster`` and ``fleet``, one module each, so that
``generate yaml`` loads neither Jinja nor the validator."""

from __future__ import annotations

import click

from generator.cli import LazyGroup


@click.group(
    cls=LazyGroup,
    commands_table={
        "yaml": "generator.cli.generate_yaml:generate_yaml_command",
        "cluster": "generator.cli.generate_cluster:generate_cluster_command",
        "fleet": "generator.cli.generate_fleet:generate_fleet_command",
    },
)
def generate() -> None:
    """Render templates or flavors into manifests."""
