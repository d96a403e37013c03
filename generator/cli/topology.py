"""``capzgen topology``: the group of ``plan`` (the name ``clusterctl alpha topology`` used)."""

from __future__ import annotations

import click

from generator.cli import LazyGroup


@click.group(
    cls=LazyGroup,
    commands_table={"plan": "generator.cli.topology_plan:plan_command"},
)
def topology() -> None:
    """Plan what CAPI's topology controller makes of a ClusterClass-based Cluster, offline."""
