"""``capzgen generate fleet``: many clusters from one file, validated together."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from generator.cli.common import print_findings
from generator.cli.completion import complete_paths
from generator.cli.environment import current_settings, environ
from generator.cli.gitops_output import flux_options
from generator.cli.options import (
    KubeconformChoice,
    OutputChoice,
    ValidationChoice,
    check_rule_ids,
    config_option,
    flavors_dir_option,
    jobs_option,
    kubeconform_options,
    output_options,
    patch_option,
    schema_dir_option,
    validation_options,
)
from generator.cli.progress import ProgressBar
from generator.clusterctl.config import load_config
from generator.fleet.file import load_fleet
from generator.fleet.render import FleetOptions, raise_for_problems, render_fleet, write_fleet
from generator.fleet.rules import DISABLEABLE_FLEET_RULES
from generator.generate.patches import load_patch_files


@click.command("fleet")
@click.argument("fleet_file", metavar="FLEET.yaml", shell_complete=complete_paths)
@output_options(fleet=True)
@patch_option
@config_option
@schema_dir_option
@flavors_dir_option
@validation_options
@kubeconform_options
@jobs_option("Render the clusters")
@click.option(
    "--allow-unknown-vars",
    is_flag=True,
    help="Accept values names the cluster's flavor does not use.",
)
def generate_fleet_command(
    fleet_file: str,
    output: OutputChoice,
    patch_files: tuple[str, ...],
    config: Path | None,
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    validation: ValidationChoice,
    kubeconform: KubeconformChoice,
    jobs: int | None,
    allow_unknown_vars: bool,
) -> None:
    """Render every cluster of FLEET.yaml into DIR/<name>/, validated together.

    \b
    Each cluster's settings (flavor, namespace, kubernetesVersion, workerMachineCount,
    values, overrides) apply over the file's defaults; values are deep-merged.
    Clusters render in parallel; every cluster is validated, and no two clusters may share
    a name, resource group or DNS prefix. Nothing is written unless all of it is valid.
    With --kubeconform, kubeconform checks every cluster too, as for generate cluster.
    """
    output_dir = output.output_dir
    assert output_dir is not None  # required for fleets
    output.check()
    check_rule_ids(validation.disabled_rules, extra=DISABLEABLE_FLEET_RULES)
    fleet = load_fleet(fleet_file)
    flux = flux_options("", output, output_dir)
    settings = current_settings()
    options = FleetOptions(
        schema_dirs=schema_dirs,
        flavors_dirs=flavors_dirs,
        checks=validation.check_options(settings, kubeconform),
        patches=load_patch_files(patch_files) if patch_files else (),
        settings=settings,
        config=load_config(config, environ()),
        flux=flux,
        jobs=jobs,
        output_dir=output_dir,
        allow_unknown_vars=allow_unknown_vars,
    )
    if sys.stderr.isatty():
        with ProgressBar(len(fleet.clusters), sys.stderr) as bar:
            result = render_fleet(fleet, options, progress=bar.update)
    else:
        result = render_fleet(fleet, options)
    print_findings(result.findings)
    raise_for_problems(result)
    summary = write_fleet(result, output_dir, force=output.force)
    skipped = sum(1 for outcome in result.outcomes if outcome.skipped)
    note = (
        f" ({skipped} cluster{'s' if skipped != 1 else ''} unchanged, not rendered)"
        if skipped
        else ""
    )
    click.echo(
        f"fleet {fleet_file}: {result.summary()}; {output_dir}: {summary.describe()}{note}",
        err=True,
    )
